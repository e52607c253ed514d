"""Drawing a Plażing reading for a person to check (``scan --annotate``)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing_cells import Grid
from vision.plazing_config import RECTIFY
from vision.registration import rectify


def _player_bgr(cal, player: str) -> tuple[int, int, int]:
    """The learned colour of ``player`` as BGR (from the calibration's Lab Gaussian)."""
    for c in cal.model.get("colours", []):
        if c["name"] == player:
            lab = np.array([[c["mean"]]], np.float32)
            bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)[0, 0] * 255
            return tuple(int(v) for v in np.clip(bgr, 0, 255))
    return (128, 128, 128)


def draw(photo, reading) -> np.ndarray:
    """Rectified board with areas, rings, disputes, piece labels and tokens; BGR uint8 (H, W, 3)."""
    cal = photo.calibration
    ppm = RECTIFY.px_per_mm
    grid = Grid.from_profile(cal.profile)
    board = rectify(photo.image, photo.registration.H_px_from_mm, cal.profile["board_mm"], ppm)
    state = reading.state
    try:
        import scoring

        areas = scoring.score(state, photo.setup).get("areas", [])
    except Exception:  # noqa: BLE001 - the picture is still useful without the verdicts
        areas = []

    def box(r, c, inset=0.0):
        x0, y0 = grid.origin_mm[0] + c * grid.cell_mm, grid.origin_mm[1] + r * grid.cell_mm
        i = inset * grid.cell_mm
        return (int((x0 + i) * ppm), int((y0 + i) * ppm)), (int((x0 + grid.cell_mm - i) * ppm),
                                                           int((y0 + grid.cell_mm - i) * ppm))

    overlay = board.copy()
    for a in areas:
        if not a.get("closed"):
            continue
        owner = a.get("owner")
        for r, c in a["cells"]:
            p0, p1 = box(r, c)
            if owner == "neutral":
                for k in range(-grid.cell_mm, grid.cell_mm, 5):
                    cv2.line(overlay, (p0[0] + int(k * ppm), p1[1]), (p0[0] + int((k + grid.cell_mm) * ppm), p0[1]),
                             (90, 90, 90), 2)
            elif owner:
                cv2.rectangle(overlay, p0, p1, _player_bgr(cal, owner), -1)
    out = cv2.addWeighted(overlay, 0.45, board, 0.55, 0)
    ring = {i for a in areas if a.get("closed") for i in a.get("ring", [])}
    for i, p in enumerate(state["pieces"]):
        colour = (0, 0, 0) if i in ring else (255, 255, 255)
        for r, c in p["cells"]:
            p0, p1 = box(r, c, 0.05)
            cv2.rectangle(out, p0, p1, colour, 3 if i in ring else 1)
        r, c = p["cells"][0]
        text = f"{i}{p['kind'][0]}{p.get('facing', '')}"
        p0, _ = box(r, c, 0.1)
        cv2.putText(out, text, (p0[0], p0[1] + int(6 * ppm)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    for a in areas:
        if a.get("dispute"):
            r, c = a["cells"][0]
            p0, p1 = box(r, c, 0.15)
            cv2.line(out, p0, p1, (0, 0, 255), 3)
            cv2.line(out, (p0[0], p1[1]), (p1[0], p0[1]), (0, 0, 255), 3)
    tokens = [(m["cell"], "M" + m["player"][0]) for m in state["meeples"]] + \
        [(n, "N") for n in state["neutral"]] + [(x["cell"], x["kind"][0].upper()) for x in state["resources"]] + \
        [(t, "T") for t in state["trash"]] + [(s, "?") for s in state["surprises"]]
    for (r, c), text in tokens:
        p0, p1 = box(r, c, 0.25)
        cv2.putText(out, text, (p0[0], p1[1]), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (20, 20, 160), 1, cv2.LINE_AA)
    cc = reading.details.get("cell_conf")
    if cc is not None:
        for r, c in np.argwhere(cc < 0.9).tolist():
            p0, p1 = box(r, c)
            cv2.rectangle(out, p0, p1, (0, 0, 255), 1)
    return out
