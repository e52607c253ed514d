"""Events and their players."""

from __future__ import annotations

import json
import re
import unicodedata

from sqlalchemy import select

import tournament
from hall.errors import HallError
from hall.store.base import StoreBase, now_iso
from tournament.errors import InvalidEventError


class EventStore(StoreBase):
    """Events (name, game, scoring and seating settings) and their players."""

    def create_event(self, name: str, game: str, config: dict | None = None) -> int:
        """A new event; ``config`` holds ``scoring`` and ``seating`` as EVENT.json has them (checked here).

        Raises:
            HallError: ``invalid-event`` quoting the first problems.
        """
        config = config or {}
        _check_event({"event": name, "game": game, "players": [], **config})
        with self._write() as conn:
            return conn.execute(self.t["events"].insert().values(
                name=name, game=game, config_json=json.dumps(config), created_at=now_iso())).inserted_primary_key[0]

    def events(self) -> list[dict]:
        ev = self.t["events"]
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(ev).order_by(ev.c.id.desc())).mappings()]

    def event(self, event_id: int) -> dict:
        """An event's row with its ``config`` (``version`` as of this read).

        Raises HallError ``not-found``."""
        ev = self.t["events"]
        with self._read() as conn:
            row = conn.execute(select(ev).where(ev.c.id == event_id)).mappings().first()
        if row is None:
            raise HallError("not-found", f"no event {event_id}", 404)
        out = dict(row)
        out["config"] = json.loads(out.pop("config_json"))
        return out

    def _event_static(self, event_id: int) -> dict:
        """An event's id, name and game (they never change), remembered."""
        hit = self._static.get(event_id)
        if hit is None:
            ev = self.event(event_id)
            hit = self._static[event_id] = {"id": ev["id"], "name": ev["name"], "game": ev["game"]}
        return hit

    def version(self, event_id: int) -> int:
        ev = self.t["events"]
        with self._read() as conn:
            v = conn.execute(select(ev.c.version).where(ev.c.id == event_id)).scalar()
        if v is None:
            raise HallError("not-found", f"no event {event_id}", 404)
        return v

    def add_players(self, event_id: int, players: list[dict]) -> list[str]:
        """Add players ``{"name", "club"?, "id"?}``; ids are made (``p1``, ``p2`` …) when not given.

        Returns the new players' ids. Raises HallError ``invalid-player`` (empty name, id taken),
        ``player-exists`` (a name already registered, :func:`same_player`); then none is added.
        """
        p = self.t["players"]
        self.event(event_id)
        with self._write() as conn:
            self._lock_event(conn, event_id)
            rows = conn.execute(select(p.c.pid, p.c.position, p.c.name, p.c.club).where(p.c.event_id == event_id)).all()
            taken = {r.pid for r in rows}
            position = max((r.position for r in rows), default=0)
            registered = [(r.name, r.club) for r in rows]
            new = []
            for entry in players:
                name = clean_name(entry.get("name"))
                if not name or len(name) > 200:
                    raise HallError("invalid-player", "every player needs a name (at most 200 characters)")
                club_ = clean_name(entry.get("club")) or None
                same = same_player(name, club_, registered)
                if same is not None:
                    shown = f"{same[0]} ({same[1]})" if same[1] else same[0]
                    raise HallError("player-exists", f"{shown} is already registered in this event, so nothing was "
                                    f"added: remove that line (another player called {name} needs a club that "
                                    "tells them apart)")
                registered.append((name, club_))
                pid = str(entry.get("id") or "").strip()
                if not pid:
                    n = position + 1
                    while f"p{n}" in taken:
                        n += 1
                    pid = f"p{n}"
                if not PLAYER_ID.fullmatch(pid):
                    raise HallError("invalid-player", f"player id {pid[:40]!r}: use letters, digits, '-', '_' or '.' "
                                    "(at most 40), or leave the id out")
                if pid in taken:
                    raise HallError("invalid-player", f"player id {pid!r} is already used in this event")
                position += 1
                taken.add(pid)
                conn.execute(p.insert().values(event_id=event_id, pid=pid, name=name, club=club_, dropped=False,
                                               position=position))
                new.append(pid)
            self._bump(conn, event_id)
        return new

    def set_dropped(self, event_id: int, pid: str, dropped: bool) -> None:
        p = self.t["players"]
        with self._write() as conn:
            n = conn.execute(p.update().where(p.c.event_id == event_id, p.c.pid == pid).values(dropped=dropped)).rowcount
            if not n:
                raise HallError("not-found", f"no player {pid!r} in event {event_id}", 404)
            self._bump(conn, event_id)

    def players(self, event_id: int) -> list[dict]:
        p = self.t["players"]
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(p).where(p.c.event_id == event_id).order_by(p.c.position))
                    .mappings()]


#: Player ids typed by the organiser: they appear in URLs, files and the event's JSON.
PLAYER_ID = re.compile(r"[A-Za-z0-9_.-]{1,40}")
#: Characters that show as nothing (zero-width spaces and joiners, the byte-order mark, soft hyphen).
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"))
#: Cyrillic and Greek letters drawn like Latin ones: names compare with them read as Latin.
LOOK_ALIKES = str.maketrans("АВЕКМНОРСТХаеорсухіјѕІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικν",
                            "ABEKMHOPCTXaeopcyxijsIJSABEZHIKMNOPTYXoikv")


def clean_name(value) -> str:
    """A name as stored: Unicode NFKC, invisible characters removed, spaces collapsed.

    >>> clean_name(" A\u200bna  Ｍaria ")
    'Ana Maria'
    """
    text_ = unicodedata.normalize("NFKC", str(value or "")).translate(INVISIBLE)
    return " ".join(text_.split())


def same_player(name: str, club: str | None, registered: list[tuple[str, str | None]]):
    """The registered ``(name, club)`` that ``name, club`` would repeat, or None.

    Names compare trimmed, case-insensitively, Unicode-normalised (NFKC), without invisible
    characters and with Cyrillic and Greek look-alikes read as Latin (``Аna`` with a Cyrillic А is
    ``Ana``). Two players of one name are told apart only by
    their clubs (the room's pages show "Tom (Sopot)", "Tom (Hel)"), so the same name is refused
    unless both have a club and the clubs differ.

    >>> same_player(" anna ", "Sandbank", [("Anna", "Sandbank")])
    ('Anna', 'Sandbank')
    >>> same_player("Tom", "Hel", [("Tom", "Sopot")]) is None
    True
    >>> same_player("Tom", None, [("Tom", "Sopot")])
    ('Tom', 'Sopot')
    """
    def key(text: str | None) -> str:  # NFKC: "Ä" typed and "A" + combining diaeresis pasted are one name
        return clean_name(text).translate(LOOK_ALIKES).casefold()

    for other in registered:
        if key(other[0]) == key(name) and (not club or not other[1] or key(club) == key(other[1])):
            return other
    return None



def _check_event(doc: dict) -> None:
    try:
        tournament.Event.from_json(doc)
    except InvalidEventError as err:
        raise HallError("invalid-event", "; ".join(err.problems[:3])) from None

