"""The organiser's pages: log in, create an event, players, rounds, seating slips, results, stations."""

from __future__ import annotations

import hmac
import math
import time
from urllib.parse import urlsplit

from flask import (Blueprint, current_app, flash, jsonify, redirect, render_template, request, session,
                   url_for)
from werkzeug.security import check_password_hash, generate_password_hash

import tournament
from hall.auth import client_address, error, log_in, log_out, organiser, organiser_required
from hall.errors import HallError
from hall.reporting import report_code
from hall.store import PAIRING_TTL_MIN
from hall.store.rounds import REPORTERS
from tournament.event import MAX_POINTS, TIEBREAKERS, UNEVEN, ranks_from_points
from tournament.errors import InvalidEventError
from tournament.games import PLAYERS, is_co_op

bp = Blueprint("organiser", __name__)

#: How a result's note begins when players did not come (``no-show: Bo, Cy``).
NO_SHOW_PREFIX = "no-show: "


def store():
    return current_app.extensions["hall_store"]


def _safe_next(target: str | None) -> str:
    """``target`` when it is a path on this hall, else the index page.

    Checked as a browser reads it: tabs, line breaks and other control characters are dropped
    first and a backslash counts as ``/`` (``/%09/evil.example`` decoded, and ``/\\evil.example``,
    are ``//evil.example``: another origin).
    """
    cleaned = "".join(ch for ch in str(target or "") if ch > " " or ch == " ").strip().replace("\\", "/")
    parts = urlsplit(cleaned)
    if not cleaned.startswith("/") or cleaned.startswith("//") or parts.scheme or parts.netloc:
        return url_for("organiser.index")
    return cleaned


# -- account -----------------------------------------------------------------------------------
@bp.route("/setup", methods=["GET", "POST"])
def setup():
    """First run: make the organiser account with the setup code the hall printed at start."""
    if store().organiser_count():
        return redirect(url_for("organiser.login"))
    code = current_app.config.get("SETUP_CODE")
    if request.method == "GET":
        return render_template("setup.html", code=request.args.get("code", ""))
    attempts = current_app.extensions["login_attempts"]
    if attempts.begin(client_address()) > 0:
        return error("locked-out", "too many wrong setup codes from this address; wait a little", 429)
    if not code or not hmac.compare_digest(request.form.get("code", "").strip(), code):
        flash("Wrong setup code: use the link the hall printed when it started.")
        return render_template("setup.html", code=""), 403
    attempts.succeeded(client_address())
    name, password = request.form.get("username", "").strip(), request.form.get("password", "")
    if not name or len(name) > 80:
        flash("Choose a user name (at most 80 characters).")
        return render_template("setup.html", code=code), 400
    if len(password) < current_app.config["PASSWORD_MIN_LENGTH"] or password != request.form.get("password2"):
        flash(f"The password must have at least {current_app.config['PASSWORD_MIN_LENGTH']} characters, "
              "typed the same twice.")
        return render_template("setup.html", code=code), 400
    store().add_organiser(name, generate_password_hash(password))
    log_in(name)
    return redirect(url_for("organiser.index"))


@bp.route("/login", methods=["GET", "POST"])
def login():
    if not store().organiser_count():
        return redirect(url_for("organiser.setup"))
    if request.method == "GET":
        return render_template("login.html")
    attempts = current_app.extensions["login_attempts"]
    wait = attempts.begin(client_address())
    if wait > 0:
        flash(f"Too many wrong passwords from this device; try again in {math.ceil(wait)} s.")
        return render_template("login.html"), 429, {"Retry-After": str(math.ceil(wait))}
    name = request.form.get("username", "").strip()[:200]
    account = name.casefold()
    per_account = current_app.extensions["account_attempts"]
    wait = per_account.begin(account)
    if wait > 0:
        flash(f"Too many wrong passwords for this user name; try again in {math.ceil(wait)} s.")
        return render_template("login.html"), 429, {"Retry-After": str(math.ceil(wait))}
    row = store().organiser(name)
    ok = current_app.extensions["password_checks"].matches(row["password_hash"] if row else None,
                                                           request.form.get("password", ""))
    if ok is None:
        flash("The hall is busy checking other logins; try again in a moment.")
        return render_template("login.html"), 503, {"Retry-After": "5"}
    if not ok:
        flash("Wrong user name or password.")
        return render_template("login.html"), 403
    attempts.succeeded(client_address())
    per_account.succeeded(account)
    log_in(name)
    return redirect(_safe_next(request.args.get("next")))


@bp.post("/logout")
def logout():
    log_out()
    return redirect(url_for("organiser.index"))


@bp.get("/account")
@organiser_required
def account():
    return render_template("account.html", min_length=current_app.config["PASSWORD_MIN_LENGTH"])


@bp.post("/account/password")
def change_password():
    """A new password (the current one typed again); every other browser's session ends."""
    name = organiser()
    row = store().organiser(name)
    min_length = current_app.config["PASSWORD_MIN_LENGTH"]
    if row is None or not check_password_hash(row["password_hash"], request.form.get("current", "")):
        flash("The current password is wrong: nothing was changed.")
        return render_template("account.html", min_length=min_length), 403
    new = request.form.get("password", "")
    if len(new) < min_length or new != request.form.get("password2"):
        flash(f"The new password must have at least {min_length} characters, typed the same twice.")
        return render_template("account.html", min_length=min_length), 400
    store().set_password(name, generate_password_hash(new))  # ends every session, this one too
    log_in(name)
    flash("Password changed; every other browser logged in as you is logged out.")
    return redirect(url_for("organiser.account"))


@bp.post("/account/logout-everywhere")
def logout_everywhere():
    """End every session of this organiser, on every browser (this one too)."""
    count = store().end_sessions(organiser())
    log_out()
    flash(f"Logged out everywhere ({count} session{'s' if count != 1 else ''} ended).")
    return redirect(url_for("organiser.login"))


# -- events ------------------------------------------------------------------------------------
@bp.get("/")
def index():
    return render_template("index.html", events=store().events(), games=list(PLAYERS), tiebreakers=TIEBREAKERS,
                           uneven=UNEVEN, needs_setup=not store().organiser_count())


@bp.post("/events")
def create_event():
    form = request.form
    game = form.get("game", "")
    if game not in PLAYERS:
        raise HallError("invalid-event", f"choose one of the games: {', '.join(PLAYERS)}")
    config: dict = {}
    if form.get("table_size"):
        try:
            size = int(form["table_size"])
        except ValueError:
            raise HallError("invalid-event", "the table size must be a number") from None
        config["seating"] = {"table_size": size, "uneven": form.get("uneven", UNEVEN[0])}
    order = [t.strip() for t in form.get("tiebreakers", "").replace(";", ",").split(",") if t.strip()]
    if order:
        config["scoring"] = {"tiebreakers": order}
    name = " ".join(form.get("name", "").split())[:200] or "Event"
    event_id = store().create_event(name, game, config)
    return redirect(url_for("organiser.manage", event_id=event_id))


@bp.get("/events/<int:event_id>/manage")
@organiser_required
def manage(event_id: int):
    st = store()
    event = st.event(event_id)
    doc = st.event_doc(event_id)
    current = doc["rounds"][-1] if doc["rounds"] else None
    tables = []
    if current is not None:
        for t in current["tables"]:
            info = st.table(event_id, current["number"], t["table"])
            tables.append({**info, "state": _state(info)})
    codes = {int(k): v for k, v in session.get("codes", {}).get(str(event_id), {}).items() if v["until"] > time.time()}
    used = st.used_pairing_codes([c["code"] for c in codes.values()])
    codes = {t: c for t, c in codes.items() if c["code"] not in used}  # a used code pairs nothing any more
    template = "manage_tables.html" if request.args.get("part") == "tables" else "manage.html"
    return render_template(template, event=event, doc=doc, current=current, tables=tables,
                           players=st.players(event_id), stations=st.stations(event_id), codes=codes,
                           version=event["version"], refresh_ms=current_app.config["REFRESH_MS"],
                           names={p["id"]: p["name"] for p in doc["players"]})


def _state(table: dict) -> str:
    """What a table's result looks like to the organiser: waiting, reported, review, confirmed."""
    if not table["revisions"]:
        return "waiting"
    last = table["revisions"][-1]
    if last["source"] == "organiser":
        return "confirmed"
    if table.get("conflict"):
        return "review"
    if table.get("agreed"):
        return "agreed"
    return "review" if last["game_points"] is None else "reported"


@bp.post("/events/<int:event_id>/players")
def add_players(event_id: int):
    """One player a line: ``name`` or ``name, club`` (or ``id; name, club``)."""
    entries = []
    for number, line in enumerate(request.form.get("players", "").splitlines(), 1):
        if not line.strip():
            continue
        pid, typed = "", line.strip()
        if ";" in line:
            pid, line = (part.strip() for part in line.split(";", 1))
        fields = [f.strip() for f in line.split(",")]
        if len(fields) > 2:
            raise HallError("invalid-player", f"line {number} ({typed[:60]}) has more than a name and a club, so "
                            "nothing was added: write it as name, club (a club without commas)")
        name, club = fields[0], (fields[1] if len(fields) > 1 else "")
        entries.append({"id": pid, "name": name, "club": club})
    if not entries:
        raise HallError("invalid-player", "type one player a line: name, club")
    added = store().add_players(event_id, entries)
    flash(f"{len(added)} player{'s' if len(added) != 1 else ''} added.")
    return redirect(url_for("organiser.manage", event_id=event_id) + "#players")


@bp.post("/events/<int:event_id>/players/<pid>/drop")
def drop_player(event_id: int, pid: str):
    store().set_dropped(event_id, pid, request.form.get("dropped", "1") == "1")
    return redirect(url_for("organiser.manage", event_id=event_id) + "#players")


@bp.post("/events/<int:event_id>/rounds")
def start_round(event_id: int):
    number = store().start_round(event_id)
    flash(f"Round {number} seated: print the slips or open the “where do I sit” page.")
    return redirect(url_for("organiser.manage", event_id=event_id))


@bp.post("/events/<int:event_id>/rounds/<int:number>/close")
def close_round(event_id: int, number: int):
    as_sent = store().close_round(event_id, number)
    if as_sent:
        flash(f"Round {number} closed; {counted_as_sent(as_sent)}, without review: open a table to correct it.")
    else:
        flash(f"Round {number} closed.")
    return redirect(url_for("organiser.manage", event_id=event_id))


def counted_as_sent(as_sent: list[tuple[int, str]]) -> str:
    """Which reports a round closed with, unreviewed (``[(table_no, "station" | "players")]``).

    >>> counted_as_sent([(2, "station")])
    'the station result of table 2 was counted as sent'
    >>> counted_as_sent([(1, "players"), (2, "station"), (3, "station")])
    "the players' report of table 1 and the station results of tables 2, 3 were counted as sent"
    """
    parts = []
    for source, one, many in (("players", "the players' report", "the players' reports"),
                              ("station", "the station result", "the station results")):
        tables = [str(t) for t, s in as_sent if s == source]
        if tables:
            parts.append(f"{many if len(tables) > 1 else one} of table{'s' if len(tables) > 1 else ''} "
                         f"{', '.join(tables)}")
    return f"{' and '.join(parts)} {'were' if len(as_sent) > 1 else 'was'} counted as sent"


@bp.get("/events/<int:event_id>/rounds/<int:number>/slips")
@organiser_required
def slips(event_id: int, number: int):
    doc = store().event_doc(event_id)
    rnd = next((r for r in doc["rounds"] if r["number"] == number), None)
    if rnd is None:
        raise HallError("not-found", f"no round {number}", 404)
    names = {p["id"]: p for p in doc["players"]}
    codes = {t["table"]: report_code(event_id, number, t["table"]) for t in rnd["tables"]}
    return render_template("slips.html", event=store().event(event_id), rnd=rnd, names=names, codes=codes)


@bp.route("/events/<int:event_id>/rounds/<int:number>/tables/<int:table_no>", methods=["GET", "POST"])
@organiser_required
def table(event_id: int, number: int, table_no: int):
    st = store()
    event = st.event(event_id)
    if request.method == "POST":
        info = st.table(event_id, number, table_no)
        action = request.form.get("action", "enter")
        if action == "accept":
            chosen = request.form.get("revision", "")
            last = next((r for r in info["revisions"] if str(r["id"]) == chosen), None) if chosen else \
                (info["revisions"][-1] if info["revisions"] else None)
            if last is None or last["game_points"] is None or last["source"] not in REPORTERS \
                    or (not chosen and last["source"] != "station"):
                raise HallError("nothing-to-accept", "there is no station result with points to accept")
            raw = {"game_points": last["game_points"], **({"ranks": last["ranks"]} if last["ranks"] else {})}
            whose = "the players' report" if last["source"] == "players" else "the station's result"
            st.enter_result(event_id, number, table_no, raw, kind="accept", by=organiser(), note=f"accepted {whose}",
                            acting_on=last["id"], seen_latest=_revision_id(request.form.get("latest"), last["id"]))
            flash(f"Table {table_no}: {whose} is accepted.")
        elif action == "assign":
            raw = _assigned_result(event["game"], info)
            st.enter_result(event_id, number, table_no, raw, kind="assign", by=organiser(),
                            note="station's points, colours chosen by the organiser", acting_on=info["revisions"][-1]["id"])
            flash(f"Table {table_no}: the station's result is counted with the players you chose.")
        else:
            raw = _typed_result(info, is_co_op(event["game"]))
            kind = "correct" if info["revisions"] else "entry"
            note = "; ".join(n for n in (no_show_note(info), request.form.get("note", "").strip()) if n)
            absent = [p["id"] for p in info["players"] if request.form.get(f"noshow_{p['id']}")]
            st.enter_result(event_id, number, table_no, raw, kind=kind, by=organiser(), note=note, no_shows=absent)
            flash(f"Table {table_no}: result saved.")
            later = [r["number"] for r in st.event_doc(event_id)["rounds"] if r["number"] > number]
            if kind == "correct" and later:
                flash(f"Round {later[0]} was seated on the standings before this correction: its tables stay as "
                      "they are (the standings and the next round's seating use the corrected result).")
        return redirect(url_for("organiser.manage", event_id=event_id))
    info = st.table(event_id, number, table_no)
    return render_template("table.html", event=event, info=info, co_op=is_co_op(event["game"]), state=_state(info),
                           unmatched=unmatched_colours(info), names={p["id"]: p["name"] for p in info["players"]},
                           absent=absent_players(info))


def _revision_id(typed: str | None, default: int) -> int:
    """A revision id posted by a form (``default`` when missing or not a plausible id).

    >>> _revision_id("12", 3), _revision_id("9" * 40, 3), _revision_id(None, 3)
    (12, 3, 3)
    """
    typed = (typed or "").strip()
    return int(typed) if typed.isdigit() and len(typed) < 18 else default


def unmatched_colours(info: dict) -> list[str]:
    """The game's players (colours) of the table's latest station report when it could not be matched
    to the seated players (no points), else []."""
    reports = [r for r in info["revisions"] if r["source"] == "station"]
    last = reports[-1] if reports else None
    if last is None or last["game_points"] is not None or not last["report"] or last is not info["revisions"][-1] \
            or last["kind"] != "report":  # a report held for review is entered by hand
        return []  # matched, or the organiser has typed or corrected the result since
    rows = (last["report"].get("score") or {}).get("players") or []
    return [str(r["player"]) for r in rows if isinstance(r, dict) and isinstance(r.get("player"), str)]


def _assigned_result(game: str, info: dict) -> dict:
    """The latest station report's points with the colours the organiser assigned (``seat_<colour>``)."""
    colours = unmatched_colours(info)
    if not colours:
        raise HallError("nothing-to-assign", "this table has no station result waiting for its colours")
    names = {p["id"]: p["name"] for p in info["players"]}
    seats = {c: request.form.get(f"seat_{c}", "") for c in colours}
    missing = [c for c, pid in seats.items() if pid not in names]
    if missing:
        raise HallError("invalid-result", f"choose who played {', '.join(missing)}")
    chosen = list(seats.values())
    twice = sorted({names[pid] for pid in chosen if chosen.count(pid) > 1})
    if twice:
        raise HallError("invalid-result", f"{', '.join(twice)} chosen for more than one colour: choose each player "
                        "once")
    report = next(r for r in reversed(info["revisions"]) if r["source"] == "station")
    try:
        result = tournament.table_result(game, report["report"]["score"], list(names), seats)
    except InvalidEventError as err:
        raise HallError("invalid-result", "; ".join(err.problems)) from None
    return {"game_points": result.game_points, **({"ranks": result.ranks} if result.ranks else {})}


def _typed_result(info: dict, co_op: bool) -> dict:
    """The result form as ``tournament.read_result`` takes it, checked here so that every mistake is
    told in the organiser's words (player names, not the event file's paths)."""
    def number(field: str, what: str):
        text = request.form.get(field, "").strip().replace(",", ".")
        if not text:
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise HallError("invalid-result", f"{what}: {text[:20]!r} is not a number")
        if abs(value) > MAX_POINTS:
            raise HallError("invalid-result", f"{what}: {text[:20]} is more than a game gives (at most {MAX_POINTS:,})")
        return int(value) if value.is_integer() else value

    def rank(field: str, what: str):
        value = number(field, what)
        if value is not None and (not isinstance(value, int) or value < 1):
            raise HallError("invalid-result", f"{what}: type a whole number from 1 (1 = first), or leave it empty")
        return value

    if co_op:
        points = number("team_points", "team points")
        if points is None:
            raise HallError("invalid-result", "type the team's points")
        return {"points": points}
    absent = [p for p in info["players"] if request.form.get(f"noshow_{p['id']}")]
    present = [p for p in info["players"] if p not in absent]
    if not present:
        raise HallError("invalid-result", "every player is marked as a no-show: at least one must have played (or "
                        "leave the table without a result)")
    points, ranks = {}, {}
    for p in present:
        value = number(f"gp_{p['id']}", f"{p['name']}'s game points")
        if value is None and len(present) > 1:
            raise HallError("invalid-result", f"type {p['name']}'s game points (or mark a no-show)")
        points[p["id"]] = value or 0
        place = rank(f"rank_{p['id']}", f"{p['name']}'s rank")
        if place is not None:
            ranks[p["id"]] = place
    if ranks and len(ranks) != len(points):
        missing = ", ".join(p["name"] for p in present if p["id"] not in ranks)
        raise HallError("invalid-result", f"type a rank for every player, or none (the ranks then follow from the "
                        f"points); no rank for {missing}")
    if absent:  # a no-show scores nothing and places after everyone who played
        ranks = ranks or ranks_from_points(points)
        for p in absent:
            points[p["id"]], ranks[p["id"]] = 0, len(present) + 1
    return {"game_points": points, **({"ranks": ranks} if ranks else {})}


def absent_players(info: dict) -> set[str] | None:
    """Ids of the players the table's current result counts as no-shows; empty without a result or
    without no-shows; None when the result has no-shows that cannot be told apart.

    A revision saved with its no-shows' ids (``no_shows``) says who they are. For one without: a
    result with ``k`` no-shows at a table of ``n`` carries the note :func:`no_show_note` (its first
    part names them) and gives each of them 0 points and the shared last place ``n - k + 1``, after
    everyone who played: the no-shows are the players named there with both. When that does not
    pick exactly the names in the note (two players of one name, one of whom played, placed last
    with 0 points by a typed rank), None: the page ticks nobody and says so.
    """
    current = info.get("current") or {}
    if current.get("no_shows"):
        return set(current["no_shows"])
    note, points, ranks = current.get("note") or "", current.get("game_points") or {}, current.get("ranks") or {}
    if not note.startswith(NO_SHOW_PREFIX):
        return set()
    names = sorted(note[len(NO_SHOW_PREFIX):].split("; ")[0].split(", "))
    last = len(info["players"]) - len(names) + 1
    absent = [p for p in info["players"] if p["name"] in names and points.get(p["id"]) == 0
              and ranks.get(p["id"]) == last]
    if sorted(p["name"] for p in absent) != names:
        return None
    return {p["id"] for p in absent}


def no_show_note(info: dict) -> str:
    """The note a result with no-shows carries (``no-show: Bo, Cy``), else ''."""
    absent = [p["name"] for p in info["players"] if request.form.get(f"noshow_{p['id']}")]
    return f"{NO_SHOW_PREFIX}{', '.join(absent)}" if absent else ""


# -- stations ----------------------------------------------------------------------------------
@bp.post("/events/<int:event_id>/tables/<int:table_no>/pairing")
def pairing_code(event_id: int, table_no: int):
    """A new one-time pairing code for a table; the manage page shows it until it expires."""
    code = store().new_pairing_code(event_id, table_no)
    codes = session.get("codes", {})
    codes.setdefault(str(event_id), {})[str(table_no)] = {"code": f"{code[:4]}-{code[4:]}",
                                                          "until": time.time() + PAIRING_TTL_MIN * 60}
    session["codes"] = codes
    if request.accept_mimetypes.best == "application/json":
        return jsonify({"code": code, "table": table_no, "valid_min": PAIRING_TTL_MIN}), 201
    return redirect(url_for("organiser.manage", event_id=event_id) + "#stations")


@bp.post("/stations/<int:station_id>/revoke")
def revoke(station_id: int):
    event_id = store().revoke_station(station_id)
    flash("The station is unpaired: it can no longer send results.")
    return redirect(url_for("organiser.manage", event_id=event_id) + "#stations")
