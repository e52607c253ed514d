"""Drawing a Plażing reading for a person to check (``scan --annotate``).

Input: the photo and its reading. Output: BGR picture (the photo at full size, a legend below).

The reading is drawn on the photo itself, at the calibration shot's full size: every cell is
projected through the registration homography (board mm → photo px), so fills and outlines sit
on the squares the player sees, and the text stays upright and readable. A legend strip below the
photo says what the marks mean, the confidence and the first warnings.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.confidence import confidence_percent

FONT = cv2.FONT_HERSHEY_SIMPLEX
DOUBTFUL = 0.9  #: cells whose confidence is below this are boxed in red
NEUTRAL_BGR = (150, 150, 150)


def _player_bgr(cal, player: str) -> tuple[int, int, int]:
    """The learned colour of ``player`` as BGR (from the calibration's Lab Gaussian)."""
    for c in cal.model.get("colours", []):
        if c["name"] == player:
            lab = np.array([[c["mean"]]], np.float32)
            bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)[0, 0] * 255
            return tuple(int(v) for v in np.clip(bgr, 0, 255))
    return (128, 128, 128)


def _text(img, text, centre, scale, colour=(255, 255, 255), thickness=1):
    """Text centred on ``centre`` with a dark outline, readable on any background."""
    (w, h), _ = cv2.getTextSize(text, FONT, scale, thickness)
    org = (int(centre[0] - w / 2), int(centre[1] + h / 2))
    cv2.putText(img, text, org, FONT, scale, (0, 0, 0), thickness + 3, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, thickness, cv2.LINE_AA)


def _full_size(photo):
    """(photo at the calibration shot's size, homography board mm → its px)."""
    cal = photo.calibration
    img = photo.image
    W, H = (int(v) for v in cal.image_size)
    k = W / img.shape[1]
    if k <= 1.0 or abs(img.shape[0] * k - H) > 2:
        return img.copy(), np.asarray(photo.registration.H_px_from_mm, np.float64)
    big = cv2.resize(img, (W, H), interpolation=cv2.INTER_LINEAR)
    return big, np.diag([k, k, 1.0]) @ np.asarray(photo.registration.H_px_from_mm, np.float64)


class _Board:
    """The board's cells projected onto the full-size photo (board mm → photo px through ``Hm``)."""

    def __init__(self, grid: Grid, Hm: np.ndarray):
        self.grid = grid
        self.Hm = Hm

    def project(self, points_mm):
        p = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.Hm).reshape(-1, 2)

    def corner(self, r, c):
        grid = self.grid
        return (grid.origin_mm[0] + c * grid.cell_mm, grid.origin_mm[1] + r * grid.cell_mm)

    def cell_poly(self, r, c, inset=0.0):
        grid = self.grid
        i = inset * grid.cell_mm
        x0, y0 = self.corner(r, c)
        x1, y1 = x0 + grid.cell_mm, y0 + grid.cell_mm
        return np.round(self.project([(x0 + i, y0 + i), (x1 - i, y0 + i), (x1 - i, y1 - i),
                                      (x0 + i, y1 - i)])).astype(np.int32)

    def centre(self, cells):
        rc = np.mean(np.asarray(cells, np.float64), axis=0)
        return self.project([self.grid.centre_mm(rc[0], rc[1])])[0]


def draw(photo, reading) -> np.ndarray:
    """The photo at full size with areas, rings, disputes, piece and token labels, doubtful cells,
    and a legend strip below it; BGR uint8 (H + strip, W, 3). The areas' owners come from the
    score the pipeline puts in ``reading.details["score"]`` (none drawn without it)."""
    cal = photo.calibration
    grid = Grid.from_profile(cal.profile)
    state = reading.state
    base, Hm = _full_size(photo)
    areas = reading.details.get("score", {}).get("areas", [])
    board = _Board(grid, Hm)
    cell_px = float(np.linalg.norm(np.diff(board.project([board.corner(0, 0), board.corner(0, 1)]), axis=0)))
    scale = max(0.3, cell_px / 150.0)
    thick = max(2, int(round(cell_px / 20)))
    colours = {p: _player_bgr(cal, p) for p in cal.model.get("players", [])}
    closed = [a for a in areas if a.get("closed")]
    out = _draw_areas(base, board, closed, colours)
    _draw_terrain(out, board, state)
    _draw_pieces(out, board, state, closed, colours, scale, thick)
    _draw_tokens(out, board, state, colours, scale)
    _draw_doubts(out, board, closed, reading.details.get("cell_conf"), thick)
    return np.vstack([out, _legend(out.shape[1], reading, state, closed, colours)])


def _draw_areas(base: np.ndarray, board: _Board, closed: list, colours: dict) -> np.ndarray:
    """Closed areas filled with their owner's colour (neutral: grey, hatched), on a new picture."""
    overlay = base.copy()
    for a in closed:
        colour = NEUTRAL_BGR if a.get("owner") == "neutral" else colours.get(a.get("owner"), NEUTRAL_BGR)
        for r, c in a["cells"]:
            cv2.fillPoly(overlay, [board.cell_poly(r, c)], colour)
    out = cv2.addWeighted(overlay, 0.55, base, 0.45, 0)
    for a in closed:
        if a.get("owner") == "neutral":
            for r, c in a["cells"]:
                p = board.cell_poly(r, c)
                cv2.line(out, tuple(p[0]), tuple(p[2]), (60, 60, 60), 1, cv2.LINE_AA)
                cv2.line(out, tuple(p[1]), tuple(p[3]), (60, 60, 60), 1, cv2.LINE_AA)
    return out


def _draw_terrain(out: np.ndarray, board: _Board, state: dict) -> None:
    """Terrain read from the photo: closing cells crossed in dark grey."""
    for r, row in enumerate(state.get("terrain") or []):
        for c, ch in enumerate(row):
            if ch == "#":
                p = board.cell_poly(r, c, 0.2)
                cv2.line(out, tuple(p[0]), tuple(p[2]), (50, 50, 50), 1, cv2.LINE_AA)
                cv2.line(out, tuple(p[1]), tuple(p[3]), (50, 50, 50), 1, cv2.LINE_AA)


def _draw_pieces(out: np.ndarray, board: _Board, state: dict, closed: list, colours: dict, scale: float,
                 thick: int) -> None:
    """Pieces: outer outline in the player's colour (thick and black-edged for ring pieces), label."""
    grid = board.grid
    ring = {i for a in closed for i in a.get("ring", [])}
    for i, piece in enumerate(state["pieces"]):
        cells = {tuple(c) for c in piece["cells"]}
        colour = colours.get(piece["player"], (255, 255, 255))
        w = thick + 2 if i in ring else thick
        for r, c in cells:
            x0, y0 = board.corner(r, c)
            x1, y1 = x0 + grid.cell_mm, y0 + grid.cell_mm
            for (dr, dc), seg in (((-1, 0), [(x0, y0), (x1, y0)]), ((1, 0), [(x0, y1), (x1, y1)]),
                                  ((0, -1), [(x0, y0), (x0, y1)]), ((0, 1), [(x1, y0), (x1, y1)])):
                if (r + dr, c + dc) in cells:
                    continue
                a, b = np.round(board.project(seg)).astype(int)
                cv2.line(out, tuple(a), tuple(b), (0, 0, 0), w + 2, cv2.LINE_AA)
                cv2.line(out, tuple(a), tuple(b), colour, w, cv2.LINE_AA)
        words = f"{i} {piece['kind']}" + (f" {piece['facing']}" if piece.get("facing") else "")
        _text(out, words, board.centre(piece["cells"]), scale, (255, 255, 255))


def _draw_tokens(out: np.ndarray, board: _Board, state: dict, colours: dict, scale: float) -> None:
    """Tokens in words."""
    tokens = [(m["cell"], "meeple", colours.get(m["player"], (255, 255, 255))) for m in state["meeples"]]
    tokens += [(n, "neutral", (230, 230, 230)) for n in state["neutral"]]
    tokens += [(x["cell"], x["kind"], (120, 220, 255)) for x in state["resources"]]
    tokens += [(t, "trash", (200, 200, 255)) for t in state["trash"]]
    tokens += [(s, "surprise", (255, 220, 160)) for s in state["surprises"]]
    for cell, word, colour in tokens:
        _text(out, word, board.centre([cell]), scale * 0.85, colour)


def _draw_doubts(out: np.ndarray, board: _Board, closed: list, cc, thick: int) -> None:
    """Disputes: a red cross over the area's first cell; doubtful cells (``cc``: per-cell
    confidence, or None): a red box."""
    for a in closed:
        if a.get("dispute"):
            p = board.cell_poly(*a["cells"][0], 0.15)
            cv2.line(out, tuple(p[0]), tuple(p[2]), (0, 0, 255), thick + 1, cv2.LINE_AA)
            cv2.line(out, tuple(p[1]), tuple(p[3]), (0, 0, 255), thick + 1, cv2.LINE_AA)
    if cc is not None:
        for r, c in np.argwhere(cc < DOUBTFUL).tolist():
            cv2.polylines(out, [board.cell_poly(r, c, 0.04)], True, (0, 0, 255), max(1, thick // 2), cv2.LINE_AA)


def _wrap(text: str, width_px: int, scale: float) -> list:
    """Split ``text`` at spaces into lines no wider than ``width_px``."""
    lines, line = [], ""
    for word in text.split(" "):
        trial = (line + " " + word).strip()
        if line and cv2.getTextSize(trial, FONT, scale, 1)[0][0] > width_px:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + ([line] if line else [])


def _legend(width: int, reading, state: dict, closed: list, colours: dict) -> np.ndarray:
    """The strip under the photo: confidence, what each mark means, players, first warnings."""
    scale = max(0.45, width / 2400.0)
    line_h = int(32 * scale / 0.6)
    conf = float(reading.confidence)
    verdict = "sure" if conf >= 0.5 else "UNSURE - check the picture"
    head = (f"confidence {confidence_percent(conf)}% ({verdict}); {len(state['pieces'])} pieces, {len(closed)} closed areas",
            (0, 0, 180) if conf < 0.5 else (0, 110, 0), 2)
    key = ("fill = closed area in its owner's colour (grey, crossed = neutral); thick outline = piece in an "
           "area's ring; label = piece number and kind (a screen with the side it faces); words on free cells = "
           "tokens; red box = doubtful cell; red cross = dispute (meeple or marker unlike the owner, or trash)")
    if state.get("terrain"):
        key += "; grey crosses = closing terrain read from the photo"
    body = [(t, (30, 30, 30), 1) for t in _wrap(key, width - 20, scale)]
    for w in (reading.warnings or [])[:3]:
        body += [(t, (0, 80, 160), 1) for t in _wrap("warning: " + w, width - 20, scale)[:2]]
    rows = [head, None] + body  # None: the players' swatches
    strip = np.full((line_h * len(rows) + line_h // 2, width, 3), 250, np.uint8)
    y = 0
    for row in rows:
        y += line_h
        if row is None:
            x = 10
            for player, colour in colours.items():
                n = sum(1 for p in state["pieces"] if p["player"] == player)
                owned = sum(1 for a in closed if a.get("owner") == player)
                cv2.rectangle(strip, (x, y - line_h // 2), (x + line_h // 2, y), colour, -1)
                cv2.rectangle(strip, (x, y - line_h // 2), (x + line_h // 2, y), (0, 0, 0), 1)
                label = f"{player}: {n} pieces, {owned} areas"
                cv2.putText(strip, label, (x + line_h // 2 + 6, y), FONT, scale, (30, 30, 30), 1, cv2.LINE_AA)
                x += line_h // 2 + 30 + cv2.getTextSize(label, FONT, scale, 1)[0][0]
            continue
        text, colour, bold = row
        cv2.putText(strip, text, (10, y), FONT, scale, colour, bold, cv2.LINE_AA)
    return strip
