"""A printable sheet of the profile's ArUco markers at true size (``beachscore markers``).

Each marker of ``profile["markers"]`` is drawn where the profile puts it on the board (its
``corners_mm``), on a page the size of the board, so that the printed sheet (at 100 % scale) can
be laid on the board or cut out and stuck at the marked places.
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from beachscore.errors import BadInputError
from calibration.store import atomic_write_bytes

MM_PER_INCH = 25.4


def render_marker_sheet(profile: dict, dpi: int = 300) -> np.ndarray:
    """Render the marker sheet.

    Args:
        profile: board profile with ``board_mm`` and ``markers`` (``dictionary``, ``id``, ``corners_mm``).
        dpi: print resolution (dots per inch).
    Returns:
        grey uint8 (H, W) image of the whole board at ``dpi``: white, the markers black on white
        at their places, a thin grey board outline.
    Raises:
        BadInputError: ``no-markers`` (profile declares none), ``invalid-marker`` (unknown
            dictionary, id out of the dictionary, corners not a square).
    """
    markers = profile.get("markers") or []
    if not markers:
        raise BadInputError("no-markers", "the profile declares no markers")
    if not isinstance(dpi, int) or not 36 <= dpi <= 1200:
        raise BadInputError("invalid-dpi", f"dpi {dpi!r} must be between 36 and 1200")
    ppm = dpi / MM_PER_INCH
    w_mm, h_mm = profile["board_mm"]
    page = np.full((int(round(h_mm * ppm)), int(round(w_mm * ppm))), 255, np.uint8)
    cv2.rectangle(page, (0, 0), (page.shape[1] - 1, page.shape[0] - 1), 180, 1)
    for i, m in enumerate(markers):
        name = m.get("dictionary")
        if not isinstance(name, str) or not hasattr(cv2.aruco, name):
            raise BadInputError("invalid-marker", f"markers[{i}]: unknown ArUco dictionary {name!r}")
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        if not 0 <= int(m["id"]) < dictionary.bytesList.shape[0]:
            raise BadInputError("invalid-marker", f"markers[{i}]: id {m['id']} is not in {name}")
        corners = np.asarray(m["corners_mm"], np.float64)
        side_mm = float(np.mean(np.linalg.norm(np.roll(corners, -1, 0) - corners, axis=1)))
        side_px = max(int(round(side_mm * ppm)), 8)
        img = cv2.aruco.generateImageMarker(dictionary, int(m["id"]), side_px)
        src = np.float32([[0, 0], [side_px, 0], [side_px, side_px], [0, side_px]])
        M = cv2.getPerspectiveTransform(src, np.float32(corners * ppm))
        warped = cv2.warpPerspective(img, M, (page.shape[1], page.shape[0]), flags=cv2.INTER_NEAREST,
                                     borderValue=255)
        mask = cv2.warpPerspective(np.full_like(img, 255), M, (page.shape[1], page.shape[0]), flags=cv2.INTER_NEAREST)
        page[mask > 0] = warped[mask > 0]
        x, y = corners.min(axis=0) * ppm
        cv2.putText(page, f"{name} #{m['id']}", (int(x), max(int(y) - 4, 10)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.3 * dpi / 100, 120, 1)
    return page


def write_marker_sheet(profile: dict, out_path: str, dpi: int = 300) -> None:
    """Write the marker sheet to ``out_path`` (PNG with its dpi; or PDF when the name ends in .pdf).

    Raises:
        BadInputError: as :func:`render_marker_sheet`; ``bad-output`` for another extension.
    """
    page = render_marker_sheet(profile, dpi)
    ext = os.path.splitext(out_path)[1].lower()
    if ext == ".png":
        ok, buf = cv2.imencode(".png", page)
        data = _png_with_dpi(buf.tobytes(), dpi)
    elif ext == ".pdf":
        data = _pdf(page, dpi)
    else:
        raise BadInputError("bad-output", f"{out_path}: write .png or .pdf")
    atomic_write_bytes(out_path, data)


def _png_with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers know the true size."""
    import struct
    import zlib

    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]  # after the 8-byte signature and the 25-byte IHDR chunk


def _pdf(page: np.ndarray, dpi: int) -> bytes:
    """A one-page PDF holding the grey image at true size (no dependency beyond zlib)."""
    import zlib

    h, w = page.shape
    wpt, hpt = w * 72.0 / dpi, h * 72.0 / dpi
    img = zlib.compress(page.tobytes())
    content = f"q {wpt:.2f} 0 0 {hpt:.2f} 0 0 cm /Im0 Do Q".encode()
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.2f} {hpt:.2f}] /Resources << /XObject << /Im0 4 0 R >> >> "
            f"/Contents 5 0 R >>".encode(),
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 "
            f"/Filter /FlateDecode /Length {len(img)} >>\nstream\n".encode() + img + b"\nendstream",
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out
