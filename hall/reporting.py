"""Players report their own table's result, with the table's code printed on its seating slip.

``GET /events/<id>/report`` asks for the table; ``GET /events/<id>/report/<table>`` shows its
players' point fields; ``POST`` there with the slip's code stores the players' report
(:meth:`hall.store.HallStore.players_report`). The station's report and the players' confirm
each other when they agree; when they differ the table waits for the organiser. Wrong codes are
rate-limited per address together with pairing codes (``PAIRING_MAX_FAILURES`` in a row, then
``LOGIN_LOCKOUT_S``).
"""

from __future__ import annotations

import hmac
import math

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from hall.auth import client_address
from hall.errors import HallError
from hall.store.stations import CODE_ALPHABET, normalise_code
from tournament.event import MAX_POINTS

bp = Blueprint("reporting", __name__)

#: Characters of a table's report code.
REPORT_CODE_LENGTH = 6


def store():
    return current_app.extensions["hall_store"]


def report_code(event_id: int, number: int, table_no: int) -> str:
    """The code on table ``table_no``'s slip in round ``number`` (from the hall's secret: nothing stored)."""
    digest = hmac.new(current_app.config["SECRET_KEY"].encode(), f"report:{event_id}:{number}:{table_no}".encode(),
                      "sha256").digest()
    return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:REPORT_CODE_LENGTH])


@bp.get("/events/<int:event_id>/report")
def choose_table(event_id: int):
    table_no = request.args.get("table", "").strip()
    if table_no.isdigit() and len(table_no) < 6:
        return redirect(url_for("reporting.report", event_id=event_id, table_no=int(table_no)))
    return render_template("report.html", event=store().event(event_id), info=None)


@bp.route("/events/<int:event_id>/report/<int:table_no>", methods=["GET", "POST"])
def report(event_id: int, table_no: int):
    event = store().event(event_id)
    number = store().open_round(event_id)
    if number is None:
        raise HallError("no-open-round", "no round is being played: there is nothing to report", 409)
    info = store().table(event_id, number, table_no)
    if request.method == "GET":
        return render_template("report.html", event=event, info=info)
    attempts = current_app.extensions["pairing_attempts"]
    wait = attempts.begin(client_address())
    if wait > 0:
        flash(f"Too many wrong codes from this device; try again in {math.ceil(wait)} s.")
        return render_template("report.html", event=event, info=info), 429
    if not hmac.compare_digest(normalise_code(request.form.get("code", ""))[:20],
                               report_code(event_id, number, table_no)):
        flash("That is not this table's code: it is printed on the table's seating slip.")
        return render_template("report.html", event=event, info=info), 403
    attempts.succeeded(client_address())
    points = {}
    for p in info["players"]:
        typed = request.form.get(f"gp_{p['id']}", "").strip().replace(",", ".")
        try:
            value = float(typed)
        except ValueError:
            raise HallError("invalid-result", f"type {p['name']}'s game points as a number") from None
        if not math.isfinite(value):
            raise HallError("invalid-result", f"type {p['name']}'s game points as a number")
        if abs(value) > MAX_POINTS:
            raise HallError("invalid-result", f"{p['name']}'s game points: {typed[:20]} is more than a game gives "
                            f"(at most {MAX_POINTS:,})")
        points[p["id"]] = int(value) if value.is_integer() else value
    before = [r for r in info["revisions"] if r["source"] == "players"]
    store().players_report(event_id, table_no, {"game_points": points})
    if before and before[-1]["game_points"] != points:
        flash(f"Table {table_no}: this differs from the result sent before from this table, so the organiser "
              "will check both and choose.")
    else:
        flash(f"Table {table_no}: thank you, your result is sent to the organiser.")
    return redirect(url_for("public.seating_page", event_id=event_id))
