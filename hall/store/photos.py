"""The stations' photos: files named by their SHA-256 in the photo folder."""

from __future__ import annotations

import os

from calibration.store import atomic_write_bytes
from hall.store.base import StoreBase

PHOTO_EXT = {"image/png": ".png", "image/jpeg": ".jpg"}


class PhotoStore(StoreBase):
    """Photos kept beside the database (written atomically, read by hash)."""

    def put_photo(self, sha: str, media_type: str, data: bytes) -> bool:
        """Keep a photo as a file named by its SHA-256 (idempotent; written to a temporary file, fsynced,
        renamed, so a killed hall never leaves half a photo); True when it was new."""
        path = os.path.join(self.photo_dir, sha + PHOTO_EXT[media_type])
        if os.path.exists(path):
            return False
        atomic_write_bytes(path, data)
        return True

    def photo(self, sha: str) -> tuple[bytes, str] | None:
        """A photo's bytes and media type by its SHA-256 (64 hex digits), or None."""
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            return None
        for media_type, ext in PHOTO_EXT.items():
            path = os.path.join(self.photo_dir, sha + ext)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return f.read(), media_type
        return None
