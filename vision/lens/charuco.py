"""Lens distortion from a photo of the printed ChArUco sheet (``beachscore markers --charuco``).

The sheet is a chessboard whose white squares hold ArUco markers (Garrido-Jurado et al. 2014):
OpenCV's ``CharucoDetector`` finds its inner corners with sub-pixel accuracy and knows which is
which, so one photo of it lying flat on the table gives tens of point pairs (sheet mm ↔ photo px)
over the part of the view it covers. The sheet is flat, so once the lens is undone its corners are
a homography of their sheet positions: the coefficients (``k1, k2``, and the tangential ``p1, p2``
when they help significantly) are those that make the undistorted corners fit a homography best
(Gauss–Newton; the homography is refitted in closed form, ``cv2.findHomography``, at every step).
The convention of :mod:`vision.lens.model` (``f`` = image width, centre = image centre) holds here too.

OpenCV: ``cv2.aruco.CharucoBoard`` / ``CharucoDetector`` exist from 4.7 on and in 5.x; the
older ``CharucoBoard_create`` / ``interpolateCornersCharuco`` functions (4.6 and before) are not used.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.lens.model import MIN_DISPLACEMENT_PX, Lens, undistort_px


@dataclass(frozen=True)
class SheetSpec:
    """The printed sheet: squares across and down, square and marker sides (mm), ArUco dictionary.

    9 × 6 squares of 28 mm (40 inner corners) fit a landscape A4 page inside its margins and
    header; DICT_5X5_100 keeps its markers apart from the 4×4 markers a board profile usually declares.
    """

    squares: tuple[int, int] = (9, 6)
    square_mm: float = 28.0
    marker_mm: float = 21.0
    dictionary: str = "DICT_5X5_100"


SHEET = SheetSpec()
#: Fewer sheet corners than this found: the sheet is not read.
MIN_CORNERS = 12


def charuco_board(spec: SheetSpec = SHEET):
    """The ``cv2.aruco.CharucoBoard`` of ``spec``."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    return cv2.aruco.CharucoBoard(spec.squares, spec.square_mm, spec.marker_mm, dictionary)


def sheet_image(width_px: int, height_px: int, spec: SheetSpec = SHEET) -> np.ndarray:
    """The sheet's squares drawn at ``width_px × height_px`` (no margin), grey uint8.

    OpenCV 5.0's ``generateImage`` fails an assertion at some square sizes (200 px among them;
    4.11 draws every size): the sheet is drawn at the nearest size that works and scaled to the
    one asked for (nearest neighbour: the squares stay sharp, within a pixel of true size).
    """
    board = charuco_board(spec)
    w, h = int(width_px), int(height_px)
    cols, rows = spec.squares
    sq = min(w // cols, h // rows)
    for trial in [sq] + [sq + d for k in range(1, 12) for d in (-k, k)]:
        try:
            img = board.generateImage((cols * trial + 2, rows * trial + 2), marginSize=1, borderBits=1)[1:-1, 1:-1]
        except cv2.error:
            continue
        return cv2.resize(img, (w, h), interpolation=cv2.INTER_NEAREST)
    raise ValueError(f"cannot draw the ChArUco sheet at {w}x{h} px")


def detect_sheet(image: np.ndarray, spec: SheetSpec = SHEET) -> tuple[np.ndarray, np.ndarray]:
    """The sheet's inner corners in a photo.

    Args:
        image: photo, BGR uint8 (or grey).
    Returns:
        ``(px, mm)``: float64 (N, 2) photo px and the same corners' sheet positions (mm).
    Raises:
        UnreadableBoardError: ``charuco-not-found`` with fewer than :data:`MIN_CORNERS` corners.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    board = charuco_board(spec)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    n = 0 if ids is None else len(ids)
    if n < MIN_CORNERS:
        raise UnreadableBoardError("charuco-not-found", f"the ChArUco sheet was not found in its photo ({n} of "
                                   f"{(spec.squares[0] - 1) * (spec.squares[1] - 1)} corners seen); lay the whole "
                                   "sheet flat in the camera's view, in good light, and take the photo again")
    obj = np.asarray(board.getChessboardCorners(), np.float64)[ids.ravel(), :2]
    return corners.reshape(-1, 2).astype(np.float64), obj


def _residuals(coeffs, px, mm, K) -> np.ndarray:
    dist = np.zeros(5)
    dist[:len(coeffs)] = coeffs
    u = undistort_px(px, K, dist, K)
    H, _ = cv2.findHomography(mm, u, 0)
    if H is None:
        return np.full(2 * len(px), 1e3)
    return (cv2.perspectiveTransform(mm.reshape(-1, 1, 2), H).reshape(-1, 2) - u).ravel()


def _fit(px, mm, K, n_params, start=None, iterations: int = 15):
    theta = np.zeros(n_params)
    if start is not None:
        theta[:min(len(start), n_params)] = np.asarray(start)[:n_params]
    eye = np.eye(n_params) * 1e-5
    for _ in range(iterations):
        r = _residuals(theta, px, mm, K)
        J = np.stack([(_residuals(theta + e, px, mm, K) - _residuals(theta - e, px, mm, K)) / 2e-5 for e in eye], -1)
        step, *_ = np.linalg.lstsq(J, r, rcond=None)
        theta = theta - step
        if np.abs(step).max() < 1e-7:
            break
    r = _residuals(theta, px, mm, K)
    J = np.stack([(_residuals(theta + e, px, mm, K) - _residuals(theta - e, px, mm, K)) / 2e-5 for e in eye], -1)
    dof = max(len(r) - n_params - 8, 1)
    sigma2 = float(r @ r) / dof
    try:
        stderr = np.sqrt(np.maximum(np.diag(np.linalg.inv(J.T @ J)) * sigma2, 0))
    except np.linalg.LinAlgError:
        stderr = np.full(n_params, np.inf)
    return theta, stderr


#: A coefficient is kept when it is this many standard errors from zero …
MIN_SIGNIFICANCE = 5.0
#: … and, beyond k1, when it brings the corners' RMS residual below this share of the simpler fit's.
BETTER_FIT = 0.9


def lens_from_charuco(image: np.ndarray, spec: SheetSpec = SHEET, details: dict | None = None) -> Lens | None:
    """The camera's lens from one photo of the sheet, or None when it shows no distortion.

    Args:
        image: photo of the sheet lying flat in the camera's view, BGR uint8 (H, W, 3), the
            calibration shot's camera mode.
        details: optional dict that receives the coefficients, standard errors and corner count.
    Returns:
        :class:`~vision.lens.model.Lens` (source ``"charuco"``) or None (the distortion moves no corner
        of the sheet by :data:`~vision.lens.model.MIN_DISPLACEMENT_PX`, or is not significant).
    Raises:
        UnreadableBoardError: ``charuco-not-found``.
    """
    px, mm = detect_sheet(image, spec)
    h, w = image.shape[:2]
    K = np.array([[w, 0, (w - 1) / 2], [0, w, (h - 1) / 2], [0, 0, 1.0]])

    def rms(theta):
        return float(np.sqrt(np.mean(_residuals(theta, px, mm, K) ** 2)))

    # k1 first; k2, then the tangential pair, only when they fit the corners clearly better (a sheet
    # covers part of the view, where k1 and k2 can stand in for each other) and are significant
    theta, err = _fit(px, mm, K, 1)
    best = rms(theta)
    for n in (2, 4):
        more, more_err = _fit(px, mm, K, n, theta)
        if (rms(more) < BETTER_FIT * best
                and np.all(np.abs(more[len(theta):]) >= MIN_SIGNIFICANCE * more_err[len(theta):])):
            theta, err, best = more, more_err, rms(more)
    keep = np.abs(theta) >= MIN_SIGNIFICANCE * err
    info = details if details is not None else {}
    info.update(coeffs=np.asarray(theta).tolist(), stderr=np.asarray(err).tolist(), corners=len(px))
    if not keep[0]:
        return None
    lens = Lens.fitted(tuple(theta) + (0.0,) * (4 - len(theta)), (w, h), "charuco")
    info["displacement_px"] = lens.max_displacement(px, w, h)
    return lens if info["displacement_px"] >= MIN_DISPLACEMENT_PX else None
