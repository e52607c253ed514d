"""Photo files on disk: written atomically, named by the store, looked up by id only."""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile

TMP_PREFIX = ".tmp-"
MEDIA_TYPES = {".jpg": "image/jpeg", ".png": "image/png"}


def write_atomic(folder: str, data: bytes, ext: str) -> str:
    """Write ``data`` to a new randomly named file in ``folder``: temporary file, fsync, rename, fsync folder.

    Args:
        folder: the photo folder (exists).
        data: encoded image bytes.
        ext: ``".jpg"`` or ``".png"``.
    Returns:
        the new file's name (no folder part).
    """
    if ext not in MEDIA_TYPES:
        raise ValueError(f"photo extension {ext!r} not one of {sorted(MEDIA_TYPES)}")
    name = secrets.token_hex(12) + ext
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=TMP_PREFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(folder, name))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(folder)
    return name


def remove(folder: str, name: str) -> None:
    """Delete a photo file the store wrote (a scan whose row could not be saved); missing is fine."""
    if is_store_name(name):
        try:
            os.unlink(os.path.join(folder, name))
        except FileNotFoundError:
            pass


def fsync_dir(folder: str) -> None:
    """Make a rename in ``folder`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_store_name(name: str) -> bool:
    """True for names :func:`write_atomic` makes (hex + known extension) — a guard before any open().

    >>> is_store_name("0123456789abcdef01234567.jpg"), is_store_name("../etc/passwd")
    (True, False)
    """
    stem, ext = os.path.splitext(name)
    return ext in MEDIA_TYPES and len(stem) == 24 and all(c in "0123456789abcdef" for c in stem)
