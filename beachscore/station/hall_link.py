"""A station's link to the tournament hall: pairing, who sits at the table, and game over → outbox.

The link listens to the station's event bus: a ``game-over`` (or a correction of a finished
game's scan) queues the game's final result in the outbox (:mod:`beachscore.station.outbox`), which
sends it until the hall acknowledges. On start it also queues every game that ended since the
pairing and is not queued yet, so a report is never lost between the game's end and the queue
(a crash, a missed event). The station itself knows nothing of the hall.

A report: the scan id and revision (number of corrections), the rules engine's score and
explanation, the players' names from the game set-up and the colour → player choice made on
the pairing page, the round, and the annotated photo (sent after the result, by hash). The round
is the one the hall was playing when the game started (asked at the new game, kept in the
outbox); for a game that started before the pairing or while the hall was out of reach, the one
the hall says at game over (else the last one heard), so a game of a round the organiser has
closed meanwhile is refused rather than counted in the next round.
"""

from __future__ import annotations

import logging
import queue
import threading

import scoring
from beachscore.station.outbox import HallClient, HallUnreachable, Outbox, Sender, error_message

log = logging.getLogger("beachscore.hall_link")

#: Finished games looked at when the link starts (newest first).
RECONCILE_GAMES = 50


#: Error codes of the hall's ``POST /api/pair`` whose message is meant for the station's page.
PAIRING_ERRORS = frozenset({"pairing-code", "pairing-locked-out", "invalid-json", "disk-full", "read-only"})


def hall_address(typed: str) -> str:
    """The hall's base address (``scheme://host:port``) from what was typed on the *Hall* page.

    A path, query or fragment (e.g. the organiser's page address pasted whole) is dropped; an
    address that is not one raises :class:`HallLinkError` (400) saying what to type.

    >>> hall_address(" 192.168.1.20:8090/ ")
    'http://192.168.1.20:8090'
    >>> hall_address("http://127.0.0.1:8090/events/1/manage")
    'http://127.0.0.1:8090'
    >>> hall_address("192.168.1.20:8090x")
    Traceback (most recent call last):
    ...
    beachscore.station.hall_link.HallLinkError: the hall address 192.168.1.20:8090x has a port that is not a number from 1 to 65535: type it as http://192.168.1.20:8090
    """
    from urllib.parse import urlsplit

    text = " ".join(str(typed).split())
    example = "type it as http://192.168.1.20:8090"
    if not text:
        raise HallLinkError("type the hall's address, e.g. http://192.168.1.20:8090")
    shown = text[:80]
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
        host = parts.hostname
    except ValueError:
        port, host, parts = -1, None, None
    if parts is not None and parts.scheme not in ("http", "https"):
        raise HallLinkError(f"the hall address {shown} is not a web address: {example}")
    if port == -1 or (port is not None and not 1 <= port <= 65535):
        raise HallLinkError(f"the hall address {shown} has a port that is not a number from 1 to 65535: {example}")
    if not host or " " in text or any(c in host for c in "[]@") or not all(
            ch.isalnum() or ch in ".-:_%" for ch in host):
        raise HallLinkError(f"the hall address {shown} is not an address: {example}")
    if ":" not in host:  # a name: as DNS takes it (IDN to punycode), at most 253 characters, labels 1-63
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            host = ""
        if not host or len(host) > 253 or any(not 1 <= len(label) <= 63 for label in host.rstrip(".").split(".")):
            raise HallLinkError(f"the hall address {shown} is not an address: {example}")
    netloc = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{netloc}" + (f":{port}" if port is not None else "")


class HallLinkError(Exception):
    """Pairing or asking the hall failed: ``message`` is one line for the page."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


class HallLink:
    """Everything the station does for the hall.

    Args:
        station: the :class:`beachscore.station.Station` (its store, events, Seashells table).
        client_for: ``hall_url -> HallClient`` (tests inject one).
        backoff_s: ``(base, cap)`` seconds of the outbox's retry back-off.
    """

    def __init__(self, station, *, client_for=HallClient, backoff_s: tuple[float, float] = (1.0, 60.0)):
        self.station = station
        self.client_for = client_for
        self.outbox = Outbox(station.store.path)
        self.sender = Sender(self.outbox, client_for=client_for, base_s=backoff_s[0], cap_s=backoff_s[1],
                             on_change=lambda: station.events.publish("hall", {}))
        self._events = station.events.subscribe()
        self._stop = threading.Event()
        self._listener = threading.Thread(target=self._listen, name="hall-link", daemon=True)

    def start(self) -> "HallLink":
        self.reconcile()
        self.sender.start()
        self._listener.start()
        return self

    def close(self) -> None:
        """Stop listening and sending (queued reports stay in the outbox for the next start). Safe twice."""
        self._stop.set()
        self.station.events.unsubscribe(self._events)
        if self._listener.is_alive():
            self._listener.join(5)
        self.sender.close()
        self.outbox.close()

    # -- pairing -----------------------------------------------------------------------------
    def pair(self, hall_url: str, code: str, name: str = "station") -> dict:
        """Trade the organiser's one-time code for this station's token; returns the link."""
        hall_url = hall_address(hall_url)
        try:
            status, answer = self.client_for(hall_url).request("POST", "/api/pair", body={"code": code, "name": name})
        except HallUnreachable as err:
            if hall_url.startswith("https://") and "ssl" in str(err).lower():  # a hall serves plain http
                raise HallLinkError(f"the hall at {hall_url} does not answer https: type its address with http://, "
                                    f"e.g. http://{hall_url[len('https://'):]}") from None
            raise HallLinkError(f"cannot reach the hall at {hall_url} ({err}): check the address and the Wi-Fi") \
                from None
        if status != 201 or "token" not in answer:
            code_ = (answer.get("error") or {}).get("code") if isinstance(answer.get("error"), dict) else None
            if code_ not in PAIRING_ERRORS:  # not the hall's pairing answer: an HTML page, another server, a CSRF guard
                raise HallLinkError(f"{hall_url} answered {status}, not as a beachscore hall: check the hall's address "
                                    "(the one `beachscore hall` runs at, e.g. http://192.168.1.20:8090)", 502)
            raise HallLinkError(error_message(answer, status), status if status >= 400 else 502)
        self.outbox.set_link(hall_url, answer)
        self.refresh_assignment()
        return self.outbox.link()

    def unpair(self) -> None:
        self.outbox.unpair()
        self.sender.wake()

    def refresh_assignment(self, timeout_s: float = 3.0) -> dict | None:
        """Ask the hall for the open round and the table's players (kept for the page and for reports)."""
        link = self.outbox.link()
        if link is None:
            return None
        return self._ask_assignment(link, timeout_s) or link["assignment"] or None

    def _ask_assignment(self, link: dict, timeout_s: float = 3.0) -> dict | None:
        """The hall's answer now (and kept), or None when the hall cannot be asked.

        Raises:
            HallLinkError: 401, the station's token was revoked.
        """
        client = self.client_for(link["hall_url"])
        if hasattr(client, "timeout_s"):
            client.timeout_s = timeout_s
        try:
            status, answer = client.request("GET", "/api/station/assignment", token=link["token"])
        except HallUnreachable:
            return None
        if status == 200:
            self.outbox.set_assignment(answer)
            return answer
        if status == 401:
            raise HallLinkError(error_message(answer, status), 401)
        return None

    def note_round(self, game_id: int | None) -> int | None:
        """A game started: remember the round the hall is playing now; returns it (None if unknown)."""
        link = self.outbox.link()
        if link is None or game_id is None:
            return None
        answer = self._ask_assignment(link)
        if answer is None or not isinstance(answer.get("round"), int):
            return None
        self.outbox.set_game_round(link["id"], game_id, answer["round"])
        return answer["round"]

    def set_seats(self, seats: dict[str, str]) -> None:
        """Who plays which colour: game player name -> hall player id (empty values dropped)."""
        self.outbox.set_seats({k: v for k, v in seats.items() if v})

    def status(self) -> dict:
        """What the pairing page shows."""
        link = self.outbox.link()
        public = None
        if link is not None:
            public = {k: link[k] for k in ("hall_url", "station_id", "event", "game", "table_no", "paired_at", "seats",
                                           "assignment")}
        return {"link": public, "counts": self.outbox.counts(),
                "reports": [{k: e[k] for k in ("id", "created_at", "status", "attempts", "last_error", "sent_at")}
                            | {"scan_id": e["payload"].get("scan_id"), "revision": e["payload"].get("revision")}
                            for e in self.outbox.entries(10)]}

    # -- game over -> outbox -----------------------------------------------------------------
    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                ev = self._events.get(timeout=0.5)
            except queue.Empty:
                continue
            try:
                if ev["kind"] == "game":
                    self.note_round(ev["data"].get("game_id"))
                elif ev["kind"] == "game-over":  # this game, and any whose event a full queue dropped
                    game_id = ev["data"].get("game_id")
                    link = self.outbox.link()
                    if link is not None and game_id is not None and self.outbox.game_round(game_id, link["id"]) is None:
                        try:
                            self._ask_assignment(link)  # no round noted at its start: the hall's round now
                        except HallLinkError:
                            pass  # unpaired at the hall: the report is queued and refused, the page says why
                    self.report_game(game_id)
                    self.reconcile()
                elif ev["kind"] == "revision":
                    scan = self.station.store.scan(ev["data"]["scan_id"])
                    if scan.get("game_id") is not None:
                        self.report_game(scan["game_id"])
            except Exception:  # noqa: BLE001 - a report that cannot be built must not stop the link
                log.exception("hall link: cannot queue the result of %r", ev)

    def reconcile(self) -> int:
        """Queue every game that ended since the pairing and is not queued yet; returns how many were new."""
        link = self.outbox.link()
        if link is None:
            return 0
        new = 0
        for game in self.station.store.games()[:RECONCILE_GAMES]:
            if game.get("ended_at") and game["ended_at"] >= link["paired_at"]:
                new += self.report_game(game["id"])
        return new

    def report_game(self, game_id: int | None) -> bool:
        """Queue the final result of a finished game (once per scan and revision); True when new."""
        link = self.outbox.link()
        if link is None or game_id is None:
            return False
        store = self.station.store
        game = store.game(game_id)
        if not game.get("ended_at") or game["ended_at"] < link["paired_at"] or game.get("final_scan_id") is None:
            return False
        payload, photo = self._report(game)
        if payload is None:
            return False
        key = f"{link['id']}:{payload['scan_id']}:{payload['revision']}"
        new = self.outbox.enqueue(link["id"], key, payload, photo)
        if new:
            log.info("hall link: result of game %d (scan %d, revision %d) queued", game_id, payload["scan_id"],
                     payload["revision"])
            self.sender.wake()
        return new

    def _report(self, game: dict) -> tuple[dict | None, str | None]:
        store = self.station.store
        scan = store.scan(game["final_scan_id"])
        if scan["status"] != "ok":
            return None, None
        setup = game["setup"] if game["game"] == scan.get("game") else None
        table = self.station.seashells_table(game)
        if table is not None:
            if table["score"] is None:
                return None, None
            score = table["score"]
            mats = [store.scan(m["scan_id"]) for m in table["mats"].values()]
            revision = sum(len(m["revisions"]) for m in mats)
            explanation = None
        else:
            score, state = scan["current_score"], scan["current_state"]
            revision = len(scan["revisions"])
            ending = self.station.game_ending(game["id"])
            if ending is not None and ending["score"] is not None:  # a followed game: its facts and answers
                score, state, setup = ending["score"], ending["state"], ending["setup"]
            try:
                explanation = scoring.explain(state, setup)
            except Exception:  # noqa: BLE001 - the station's scorer may not be the rules engine (tests)
                explanation = None
            state = scan["current_state"]
        link = self.outbox.link()
        photo = None
        if scan.get("annotated_photo_id") is not None:
            try:
                photo = store.photo_file(scan["annotated_photo_id"])[0]
            except Exception:  # noqa: BLE001 - a report without its photo still counts
                photo = None
        number = self.outbox.game_round(game["id"], link["id"])
        if number is None:
            number = (link["assignment"] or {}).get("round")
        payload = {"scan_id": scan["id"], "revision": revision, "game": game["game"], "score": score,
                   "state": state, "explanation": explanation,
                   "names": (game.get("display") or {}).get("names") or {}, "seats": link["seats"],
                   "round": number, "finished_at": game["ended_at"]}
        return payload, photo
