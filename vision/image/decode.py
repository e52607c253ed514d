"""Load photos safely: sniff the header, refuse oversized images before decoding, decode BGR.

Supported containers: JPEG, PNG, BMP, TIFF and WebP. The pixel size is read from the header of
every one of them (WebP's VP8/VP8L/VP8X chunk, TIFF's first image directory) so a file that claims
tens of thousands of pixels per side is refused before any pixel buffer is allocated; anything
else OpenCV might decode (PPM, EXR, HDR, JPEG 2000 …) is refused unread. OpenCV's own pixel limit
(``OPENCV_IO_MAX_IMAGE_PIXELS``, set by ``beachscore/__init__`` before cv2 loads) is the second net.
"""

from __future__ import annotations

import os
import struct

os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(64_000_000))  # too late if cv2 is loaded: see beachscore

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.errors import BadInputError  # noqa: E402
from vision.files import read_input_file  # noqa: E402

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_SIDE_PX = 12_000
MAX_PIXELS = 64_000_000
MIN_SIDE_PX = 64


def header_size(data: bytes) -> tuple[int, int] | None:
    """Return ``(width_px, height_px)`` from a JPEG, PNG, BMP, TIFF or WebP header, or None if unknown.

    Args:
        data: the file's bytes (only the header part is read).
    Raises:
        BadInputError: the header is recognised but truncated or malformed.

    >>> header_size(b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00\\x00\\x00\\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big"))
    (640, 480)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) < 24:
            raise BadInputError("image-corrupt", "PNG header is truncated")
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"BM":
        if len(data) < 26:
            raise BadInputError("image-corrupt", "BMP header is truncated")
        w, h = struct.unpack("<ii", data[18:26])
        return abs(w), abs(h)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    return None


def _webp_size(data: bytes) -> tuple[int, int]:
    """Canvas size of a WebP file from its first chunk (VP8X extended, VP8L lossless, VP8 lossy).

    >>> head = b"RIFF" + bytes(4) + b"WEBPVP8L" + bytes([5, 0, 0, 0, 0x2F])
    >>> _webp_size(head + ((16382 << 14) | 16382).to_bytes(4, "little"))
    (16383, 16383)
    """
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise BadInputError("image-corrupt", "WebP header is truncated or of an unknown kind")


def _tiff_size(data: bytes) -> tuple[int, int]:
    """Width and length of a TIFF's first image (tags 256 and 257 of its first directory)."""
    order = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack(order + "I", data[4:8])
        (count,) = struct.unpack(order + "H", data[offset:offset + 2])
        size = {}
        for i in range(min(count, 4096)):
            entry = data[offset + 2 + 12 * i:offset + 14 + 12 * i]
            tag, kind, n = struct.unpack(order + "HHI", entry[:8])
            if tag in (256, 257) and n == 1 and kind in (3, 4):
                size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8:10 if kind == 3 else 12])[0]
    except struct.error:
        raise BadInputError("image-corrupt", "TIFF header is truncated") from None
    if 256 not in size or 257 not in size:
        raise BadInputError("image-corrupt", "TIFF header gives no image size")
    return size[256], size[257]


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > n:
                break
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise BadInputError("image-corrupt", "JPEG has no frame header (truncated or not a JPEG)")


def check_size(width_px: int, height_px: int, what: str = "image") -> None:
    """Refuse images too small to hold a board or too large to decode on a Pi.

    Raises:
        BadInputError: ``image-too-small`` or ``image-too-large``.
    """
    if width_px < MIN_SIDE_PX or height_px < MIN_SIDE_PX:
        raise BadInputError("image-too-small", f"{what} is {width_px}x{height_px} px; at least {MIN_SIDE_PX} px per side needed")
    if width_px > MAX_SIDE_PX or height_px > MAX_SIDE_PX or width_px * height_px > MAX_PIXELS:
        raise BadInputError("image-too-large",
                            f"{what} claims {width_px}x{height_px} px; at most {MAX_SIDE_PX} px per side and "
                            f"{MAX_PIXELS // 1_000_000} Mpx are accepted")


def decode_image(data: bytes, what: str = "image", reduce: int = 1) -> np.ndarray:
    """Decode encoded image bytes into a BGR uint8 array of shape (H, W, 3).

    Args:
        data: encoded file content (JPEG, PNG, …).
        what: name used in error messages (usually the file name).
        reduce: 1, 2, 4 or 8; JPEG is then decoded directly at 1/reduce scale (faster on a Pi).
    Raises:
        BadInputError: empty, oversized, truncated, corrupt or non-image data.
    """
    if not data:
        raise BadInputError("image-empty", f"{what} is empty")
    if len(data) > MAX_FILE_BYTES:
        raise BadInputError("image-too-large", f"{what} is {len(data)} bytes; at most {MAX_FILE_BYTES} accepted")
    size = header_size(data)
    if size is None:
        raise BadInputError("image-corrupt", f"{what} is not a readable photo (a JPEG, PNG, BMP, TIFF or WebP file)")
    check_size(*size, what=what)
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
             8: cv2.IMREAD_REDUCED_COLOR_8}[reduce]
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        img = cv2.imdecode(buf, flags)
    except cv2.error as exc:
        raise BadInputError("image-corrupt", f"{what} cannot be decoded: {str(exc).strip().splitlines()[-1]}") from None
    if img is None:
        raise BadInputError("image-corrupt", f"{what} is not a readable image (corrupt, truncated or unknown format)")
    if data[:2] == b"\xff\xd8" and not _jpeg_has_end(data):
        raise BadInputError("image-truncated", f"{what} is a truncated JPEG (no end-of-image marker)")
    return img


def _jpeg_has_end(data: bytes) -> bool:
    return b"\xff\xd9" in data[-4096:]


def read_image(path: str, reduce: int = 1) -> np.ndarray:
    """Read an image file into BGR uint8 (H, W, 3).

    Every message names the file by ``path`` as given, whether it is missing or cannot be decoded.

    Raises:
        BadInputError: missing file, directory, or any reason of :func:`decode_image`.
    """
    data = read_input_file(path, MAX_FILE_BYTES, "", "image-too-large")
    return decode_image(data, what=path, reduce=reduce)
