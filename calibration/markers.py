"""Printable sheets of the profile's ArUco markers at true size (``beachscore markers``).

:func:`render_marker_sheet` draws every marker of ``profile["markers"]`` where the profile puts it
(its ``corners_mm``) on one board-sized picture. A board is larger than any home printer's paper,
so :func:`render_marker_pages` tiles the markers onto A4 pages at true size: each marker whole on
one page, at its place relative to the others on that page, labelled with its dictionary, id and
the board position it goes to; each page says which part of the board it shows and carries a
50 mm scale bar to check the print was not scaled. :func:`write_marker_sheet` writes the pages
as one multi-page PDF, or as PNGs ``NAME-1.png``, ``NAME-2.png`` … (``NAME.png`` when one page).
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.store import atomic_write_bytes
from vision.lens.charuco import SHEET, sheet_image

MM_PER_INCH = 25.4


def render_marker_sheet(profile: dict, dpi: int = 300) -> np.ndarray:
    """Render the whole board's marker sheet on one board-sized picture (for a large-format print
    or a screen; :func:`render_marker_pages` tiles it onto printable pages).

    Args:
        profile: board profile with ``board_mm`` and ``markers`` (``dictionary``, ``id``, ``corners_mm``).
        dpi: print resolution (dots per inch).
    Returns:
        grey uint8 (H, W) image of the whole board at ``dpi``: white, the markers black on white
        at their places, a thin grey board outline.
    Raises:
        CalibrationError: ``no-markers`` (profile declares none), ``invalid-marker`` (unknown
               dictionary, id out of the dictionary, corners not a square).
    """
    markers = _checked_markers(profile)
    if not isinstance(dpi, int) or not 36 <= dpi <= 1200:
        raise CalibrationError("invalid-dpi", f"dpi {dpi!r} must be between 36 and 1200")
    ppm = dpi / MM_PER_INCH
    w_mm, h_mm = profile["board_mm"]
    page = np.full((int(round(h_mm * ppm)), int(round(w_mm * ppm))), 255, np.uint8)
    cv2.rectangle(page, (0, 0), (page.shape[1] - 1, page.shape[0] - 1), 180, 1)
    for name, mid, corners, dictionary in markers:
        side_mm = float(np.mean(np.linalg.norm(np.roll(corners, -1, 0) - corners, axis=1)))
        side_px = max(int(round(side_mm * ppm)), 8)
        img = cv2.aruco.generateImageMarker(dictionary, mid, side_px)
        src = np.float32([[0, 0], [side_px, 0], [side_px, side_px], [0, side_px]])
        M = cv2.getPerspectiveTransform(src, np.float32(corners * ppm))
        warped = cv2.warpPerspective(img, M, (page.shape[1], page.shape[0]), flags=cv2.INTER_NEAREST,
                                     borderValue=255)
        mask = cv2.warpPerspective(np.full_like(img, 255), M, (page.shape[1], page.shape[0]), flags=cv2.INTER_NEAREST)
        page[mask > 0] = warped[mask > 0]
        x, y = corners.min(axis=0) * ppm
        cv2.putText(page, f"{name} #{mid}", (int(x), max(int(y) - 4, 10)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.3 * dpi / 100, 120, 1)
    return page


#: Paper (portrait width, height in mm) and the margin a printer leaves blank (mm).
PAPER_MM = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
MARGIN_MM = 10.0
#: Band below each marker for its label (mm), and the gap kept around it.
LABEL_MM = 9.0
GAP_MM = 4.0  #: white margin around each marker: the detector needs a quiet zone; the cut line lies at its edge
#: Band at the top of a page for the page's header and the scale bar (mm).
HEADER_MM = 14.0
SCALE_BAR_MM = 50.0


def _checked_markers(profile: dict) -> list:
    """[(name, id, corners_mm (4, 2), dictionary)] of the profile's markers.

    Raises:
        CalibrationError: ``no-markers``, ``invalid-marker``.
    """
    markers = profile.get("markers") or []
    if not markers:
        raise CalibrationError("no-markers", "the profile declares no ArUco markers; to use some, add a \"markers\" "
                               "list to it (each marker's dictionary, id and corners_mm on the board), else calibrate "
                               "with corners_px")
    out = []
    for i, m in enumerate(markers):
        name = m.get("dictionary")
        if not isinstance(name, str) or not hasattr(cv2.aruco, name):
            raise CalibrationError("invalid-marker", f"markers[{i}]: unknown ArUco dictionary {name!r}")
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        if not 0 <= int(m["id"]) < dictionary.bytesList.shape[0]:
            raise CalibrationError("invalid-marker", f"markers[{i}]: id {m['id']} is not in {name}")
        out.append((name, int(m["id"]), np.asarray(m["corners_mm"], np.float64), dictionary))
    return out


def _text(page, text, org, height_px, value=0, thickness=None):
    """Text whose capital letters are about ``height_px`` tall."""
    scale = height_px / 22.0
    cv2.putText(page, text, (int(org[0]), int(org[1])), cv2.FONT_HERSHEY_SIMPLEX, scale, value,
                thickness or max(1, int(round(scale * 1.6))), cv2.LINE_AA)


def _tiles(boxes: list, area_w: float, area_h: float) -> list:
    """Group marker boxes (x0, y0, x1, y1 mm, label band included) into page windows.

    Greedy: the top-left-most marker not yet placed opens a page whose window (``area_w`` ×
    ``area_h`` mm) starts at it — shifted left to take in markers of the same band — and every
    unplaced marker wholly inside the window joins it.

    Returns:
        [(window origin (x, y) mm, [marker indexes])].
    """
    left = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    pages = []
    while left:
        first = boxes[left[0]]
        oy = first[1]
        band = [boxes[i] for i in left if boxes[i][1] >= oy and boxes[i][3] <= oy + area_h]
        ox = max(min(b[0] for b in band), first[2] - area_w)
        inside = [i for i in left if boxes[i][0] >= ox - 1e-9 and boxes[i][2] <= ox + area_w + 1e-9
                  and boxes[i][1] >= oy - 1e-9 and boxes[i][3] <= oy + area_h + 1e-9]
        if left[0] not in inside:
            inside = [left[0]]
            ox = first[0]
        pages.append(((ox, oy), inside))
        left = [i for i in left if i not in inside]
    return pages


def render_marker_pages(profile: dict, dpi: int = 300, paper: str = "A4") -> list:
    """The markers tiled onto pages of ``paper`` at true size.

    Args:
        profile: board profile with ``board_mm`` and ``markers``.
        dpi: print resolution.
        paper: ``"A4"`` or ``"A3"``.
    Returns:
        [(grey uint8 page (H, W) of the paper at ``dpi``, portrait or landscape, {"markers":
        [(dictionary, id)], "origin_mm": board point at the window's top-left, "window_mm":
        (w, h), "landscape": bool, "offset_mm": (x, y) page mm of that board point})].
    Raises:
        CalibrationError: ``no-markers``, ``invalid-marker``, ``invalid-dpi``, ``marker-too-big``
            (a marker with its label does not fit on the paper).
    """
    if not isinstance(dpi, int) or not 36 <= dpi <= 1200:
        raise CalibrationError("invalid-dpi", f"dpi {dpi!r} must be between 36 and 1200")
    if paper not in PAPER_MM:
        raise CalibrationError("bad-paper", f"paper {paper!r}: use one of {', '.join(PAPER_MM)}")
    markers = _checked_markers(profile)
    ppm = dpi / MM_PER_INCH
    boxes = []
    for name, mid, corners, _ in markers:
        x0, y0 = corners.min(axis=0) - GAP_MM
        x1, y1 = corners.max(axis=0) + GAP_MM
        boxes.append((x0, y0, x1, y1 + LABEL_MM))
    best = None
    for landscape in (False, True):
        pw, ph = PAPER_MM[paper][::-1] if landscape else PAPER_MM[paper]
        aw, ah = pw - 2 * MARGIN_MM, ph - 2 * MARGIN_MM - HEADER_MM
        if any(b[2] - b[0] > aw or b[3] - b[1] > ah for b in boxes):
            continue
        tiles = _tiles(boxes, aw, ah)
        if best is None or len(tiles) < len(best[1]):
            best = (landscape, tiles, (pw, ph), (aw, ah))
    if best is None:
        raise CalibrationError("marker-too-big", f"a marker with its label does not fit on {paper} paper")
    landscape, tiles, (pw, ph), (aw, ah) = best
    pages = []
    for n, ((ox, oy), idx) in enumerate(tiles, 1):
        page = np.full((int(round(ph * ppm)), int(round(pw * ppm))), 255, np.uint8)
        off = np.array([MARGIN_MM, MARGIN_MM + HEADER_MM]) - np.array([ox, oy])  # board mm → page mm
        # header: which page, which part of the board, the scale bar
        _text(page, f"page {n} of {len(tiles)} - board x {ox:.0f} to {ox + aw:.0f} mm, y {oy:.0f} to {oy + ah:.0f} mm "
              f"(from the board's top-left corner)", (MARGIN_MM * ppm, (MARGIN_MM + 3.5) * ppm), 2.6 * ppm, 0)
        _text(page, f"print at 100 % ({paper}, no fit-to-page): this bar must measure {SCALE_BAR_MM:.0f} mm",
              (MARGIN_MM * ppm, (MARGIN_MM + 8) * ppm), 2.2 * ppm, 60)
        y_bar = int(round((MARGIN_MM + 11) * ppm))
        x_bar = int(round(MARGIN_MM * ppm))
        cv2.line(page, (x_bar, y_bar), (x_bar + int(round(SCALE_BAR_MM * ppm)), y_bar), 0, max(1, int(0.4 * ppm)))
        for x in (x_bar, x_bar + int(round(SCALE_BAR_MM * ppm))):
            cv2.line(page, (x, y_bar - int(1.5 * ppm)), (x, y_bar + int(1.5 * ppm)), 0, max(1, int(0.3 * ppm)))
        names = []
        for i in idx:
            name, mid, corners, dictionary = markers[i]
            names.append((name, mid))
            on_page = (corners + off) * ppm
            side_mm = float(np.mean(np.linalg.norm(np.roll(corners, -1, 0) - corners, axis=1)))
            side_px = max(int(round(side_mm * ppm)), 8)
            img = cv2.aruco.generateImageMarker(dictionary, mid, side_px)
            src = np.float32([[0, 0], [side_px, 0], [side_px, side_px], [0, side_px]])
            M = cv2.getPerspectiveTransform(src, np.float32(on_page))
            size = (page.shape[1], page.shape[0])
            warped = cv2.warpPerspective(img, M, size, flags=cv2.INTER_NEAREST, borderValue=255)
            mask = cv2.warpPerspective(np.full_like(img, 255), M, size, flags=cv2.INTER_NEAREST)
            page[mask > 0] = warped[mask > 0]
            # cut line around the marker, and its label: dictionary, id, where it goes on the board
            x0, y0 = (corners.min(axis=0) + off - GAP_MM) * ppm
            x1, y1 = (corners.max(axis=0) + off + GAP_MM) * ppm
            for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
                n_dash = max(int(np.hypot(b[0] - a[0], b[1] - a[1]) / (3 * ppm)), 1)  # dashed: 1.5 mm on, 1.5 off
                for k in range(0, n_dash, 2):
                    p0 = (int(a[0] + (b[0] - a[0]) * k / n_dash), int(a[1] + (b[1] - a[1]) * k / n_dash))
                    p1 = (int(a[0] + (b[0] - a[0]) * (k + 1) / n_dash), int(a[1] + (b[1] - a[1]) * (k + 1) / n_dash))
                    cv2.line(page, p0, p1, 190, 1)
            cx, cy = corners.mean(axis=0)
            tl = corners[0]
            _text(page, f"{name} #{mid}", (x0, y1 + 3.5 * ppm), 2.2 * ppm, 0)
            _text(page, f"goes at board ({cx:.1f}, {cy:.1f}) mm (centre); first corner ({tl[0]:.1f}, {tl[1]:.1f}) mm",
                  (x0, y1 + 7 * ppm), 1.8 * ppm, 60)
        pages.append((page, {"markers": names, "origin_mm": (ox, oy), "window_mm": (aw, ah),
                             "landscape": landscape, "offset_mm": tuple(off)}))
    return pages


def page_paths(out_path: str, n_pages: int) -> list:
    """Files the PNG pages go to: ``out_path`` for one page, else ``NAME-1.png`` … ``NAME-n.png``."""
    if n_pages == 1:
        return [out_path]
    stem, ext = os.path.splitext(out_path)
    return [f"{stem}-{k}{ext}" for k in range(1, n_pages + 1)]


def write_marker_sheet(profile: dict, out_path: str, dpi: int = 300, paper: str = "A4") -> list:
    """Write the markers tiled onto ``paper`` pages (:func:`render_marker_pages`): one multi-page PDF
    when the name ends in .pdf, else PNGs with their dpi (:func:`page_paths`).

    Returns:
        the files written.
    Raises:
        CalibrationError: as :func:`render_marker_pages`; ``bad-output`` for another extension.
    """
    ext = os.path.splitext(out_path)[1].lower()
    if ext not in (".png", ".pdf"):
        raise CalibrationError("bad-output", f"{out_path}: write .png or .pdf")
    rendered = render_marker_pages(profile, dpi, paper)
    pages = [p for p, _ in rendered]
    if ext == ".pdf":
        sizes = [PAPER_MM[paper][::-1] if info["landscape"] else PAPER_MM[paper] for _, info in rendered]
        atomic_write_bytes(out_path, _pdf(pages, dpi, sizes))
        return [out_path]
    paths = page_paths(out_path, len(pages))
    for path, page in zip(paths, pages):
        ok, buf = cv2.imencode(".png", page)
        atomic_write_bytes(path, _png_with_dpi(buf.tobytes(), dpi))
    return paths


def _png_with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers know the true size."""
    import struct
    import zlib

    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]  # after the 8-byte signature and the 25-byte IHDR chunk


def _pdf(pages, dpi: int, sizes_mm=None) -> bytes:
    """A PDF with one page per grey image (a single image is one page), each at true size (no
    dependency beyond zlib); ``sizes_mm``: each page's exact paper size (w, h) in mm, else the
    image's size at ``dpi``."""
    import zlib

    if isinstance(pages, np.ndarray):
        pages = [pages]
    n = len(pages)
    # objects: 1 catalog, 2 pages, then per page: page, image, content
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{3 + 3 * k} 0 R' for k in range(n))}] /Count {n} >>".encode()]
    for k, page in enumerate(pages):
        h, w = page.shape
        wpt, hpt = w * 72.0 / dpi, h * 72.0 / dpi
        if sizes_mm is not None:
            wpt, hpt = (v / MM_PER_INCH * 72.0 for v in sizes_mm[k])
        img = zlib.compress(page.tobytes())
        content = f"q {wpt:.2f} 0 0 {hpt:.2f} 0 0 cm /Im0 Do Q".encode()
        base = 3 + 3 * k
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.2f} {hpt:.2f}] /Resources << /XObject << "
                    f"/Im0 {base + 1} 0 R >> >> /Contents {base + 2} 0 R >>".encode())
        objs.append(f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
                    f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(img)} >>\nstream\n".encode() + img
                    + b"\nendstream")
        objs.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
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


def render_charuco_page(dpi: int = 300, paper: str = "A4") -> np.ndarray:
    """The ChArUco sheet (:data:`vision.lens.charuco.SHEET`) on one landscape page at true size, with a
    header that says what it is for and a 50 mm scale bar; grey uint8 (H, W).

    Raises:
        CalibrationError: ``invalid-dpi``, ``bad-paper``.
    """
    if not isinstance(dpi, int) or not 36 <= dpi <= 1200:
        raise CalibrationError("invalid-dpi", f"dpi {dpi!r} must be between 36 and 1200")
    if paper not in PAPER_MM:
        raise CalibrationError("bad-paper", f"paper {paper!r}: use one of {', '.join(PAPER_MM)}")
    ppm = dpi / MM_PER_INCH
    ph, pw = PAPER_MM[paper]
    page = np.full((int(round(ph * ppm)), int(round(pw * ppm))), 255, np.uint8)
    _text(page, f"beachscore lens sheet ({SHEET.squares[0]}x{SHEET.squares[1]} squares of {SHEET.square_mm:g} mm, "
          f"{SHEET.dictionary}): lay it flat under the camera, photograph it, name the photo as charuco_image",
          (MARGIN_MM * ppm, (MARGIN_MM + 3.5) * ppm), 2.3 * ppm, 0)
    _text(page, f"print at 100 % ({paper}, no fit-to-page): this bar must measure {SCALE_BAR_MM:.0f} mm",
          (MARGIN_MM * ppm, (MARGIN_MM + 8) * ppm), 2.2 * ppm, 60)
    y_bar, x_bar = int(round((MARGIN_MM + 11) * ppm)), int(round(MARGIN_MM * ppm))
    cv2.line(page, (x_bar, y_bar), (x_bar + int(round(SCALE_BAR_MM * ppm)), y_bar), 0, max(1, int(0.4 * ppm)))
    cols, rows = SHEET.squares
    w_px, h_px = int(round(cols * SHEET.square_mm * ppm)), int(round(rows * SHEET.square_mm * ppm))
    x0 = (page.shape[1] - w_px) // 2
    y0 = int(round((MARGIN_MM + HEADER_MM) * ppm)) + (page.shape[0] - int(round((MARGIN_MM + HEADER_MM) * ppm))
                                                       - int(round(MARGIN_MM * ppm)) - h_px) // 2
    page[y0:y0 + h_px, x0:x0 + w_px] = sheet_image(w_px, h_px)
    return page


def write_charuco_sheet(out_path: str, dpi: int = 300, paper: str = "A4") -> list:
    """Write :func:`render_charuco_page` as a PDF or a PNG with its dpi; returns the files written.

    Raises:
        CalibrationError: as :func:`render_charuco_page`; ``bad-output`` for another extension.
    """
    ext = os.path.splitext(out_path)[1].lower()
    if ext not in (".png", ".pdf"):
        raise CalibrationError("bad-output", f"{out_path}: write .png or .pdf")
    page = render_charuco_page(dpi, paper)
    if ext == ".pdf":
        atomic_write_bytes(out_path, _pdf([page], dpi, [PAPER_MM[paper][::-1]]))
    else:
        ok, buf = cv2.imencode(".png", page)
        atomic_write_bytes(out_path, _png_with_dpi(buf.tobytes(), dpi))
    return [out_path]
