"""Settings, organiser accounts and their sessions.

A session is a random token in the organiser's cookie, kept here as its SHA-256 with an expiry:
logging out, "log out everywhere" and a password change end the rows, so a copied cookie stops
working at once.
"""

from __future__ import annotations

import secrets

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from hall.errors import HallError
from hall.store.base import StoreBase, now_iso, sha256_hex


class OrganiserStore(StoreBase):
    """Settings (the session secret …) and the organisers who log in."""

    def setting(self, key: str) -> str | None:
        s = self.t["settings"]
        with self._read() as conn:
            return conn.execute(select(s.c.value).where(s.c.key == key)).scalar()

    def setting_or_create(self, key: str, make) -> str:
        """The setting's value, created once with ``make()`` (safe when several processes race)."""
        value = self.setting(key)
        if value is not None:
            return value
        try:
            with self._write() as conn:
                conn.execute(self.t["settings"].insert().values(key=key, value=make()))
        except IntegrityError:
            pass
        return self.setting(key)

    def organiser_count(self) -> int:
        with self._read() as conn:
            return conn.execute(select(func.count()).select_from(self.t["organisers"])).scalar_one()

    def add_organiser(self, username: str, password_hash: str) -> None:
        try:
            with self._write() as conn:
                conn.execute(self.t["organisers"].insert().values(username=username, password_hash=password_hash,
                                                                  created_at=now_iso()))
        except IntegrityError:
            raise HallError("organiser-exists", f"there is already an organiser called {username!r}") from None

    def organiser(self, username: str) -> dict | None:
        o = self.t["organisers"]
        with self._read() as conn:
            row = conn.execute(select(o).where(o.c.username == username)).mappings().first()
        return dict(row) if row else None

    def set_password(self, username: str, password_hash: str) -> None:
        """Change an organiser's password hash and end every session of theirs."""
        o = self.t["organisers"]
        with self._write() as conn:
            if not conn.execute(o.update().where(o.c.username == username).values(password_hash=password_hash)).rowcount:
                raise HallError("not-found", f"no organiser {username!r}", 404)
            self._end_sessions(conn, username)

    def open_session(self, username: str, lifetime_s: float) -> str:
        """A new session of ``username`` valid ``lifetime_s`` seconds; returns its token (for the cookie)."""
        token = secrets.token_urlsafe(32)
        with self._write() as conn:
            conn.execute(self.t["organiser_sessions"].insert().values(
                token_sha256=sha256_hex(token), username=username, created_at=now_iso(),
                expires_at=now_iso(lifetime_s)))
        return token

    def session_organiser(self, token: str) -> str | None:
        """The organiser of a live session token (not ended, not expired), else None."""
        s = self.t["organiser_sessions"]
        with self._read() as conn:
            return conn.execute(select(s.c.username).where(
                s.c.token_sha256 == sha256_hex(token), s.c.ended_at.is_(None), s.c.expires_at > now_iso())).scalar()

    def end_session(self, token: str) -> None:
        s = self.t["organiser_sessions"]
        with self._write() as conn:
            conn.execute(s.update().where(s.c.token_sha256 == sha256_hex(token), s.c.ended_at.is_(None))
                         .values(ended_at=now_iso()))

    def end_sessions(self, username: str) -> int:
        """End every session of ``username`` (every browser logged in as them); returns how many."""
        with self._write() as conn:
            return self._end_sessions(conn, username)

    def _end_sessions(self, conn, username: str) -> int:
        s = self.t["organiser_sessions"]
        return conn.execute(s.update().where(s.c.username == username, s.c.ended_at.is_(None))
                            .values(ended_at=now_iso())).rowcount
