"""Settings and organiser accounts."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from hall.errors import HallError
from hall.store.base import StoreBase, now_iso


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
