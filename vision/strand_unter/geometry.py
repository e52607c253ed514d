"""Board geometry of Strand unter: work-image frames, groove maps, homography scaling, the camera.

Input: the profile and homographies. Output: rectified images, groove label maps, scaled
homographies, the camera's nadir and height over the board.

Frames:
- *photo px*: the decoded photo (possibly reduced by ``r`` with ``cv2.IMREAD_REDUCED_COLOR_r``);
- *board mm*: the contract's board frame (origin top-left, y towards the players);
- *work px*: the rectified board at ``ppm`` px/mm, pixel (u, v) at ((u+0.5)/ppm, (v+0.5)/ppm) mm;
- *extended px*: like work px but with ``margin_mm`` of surround on every side (rails, table).

Source: ``shared/contracts/strand-unter.md`` §profile.json (grooves are polygons on the board frame).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import BadInputError


def reduce_homography(H_px_from_mm: np.ndarray, reduce: int) -> np.ndarray:
    """Homography to the photo decoded at 1/``reduce`` size (JPEG DCT scaling).

    A reduced pixel ``u`` covers full pixels ``r·u … r·u + r − 1``, so ``u = (x − (r − 1)/2) / r``.

    Args:
        H_px_from_mm: (3, 3) board mm → full-size photo px.
        reduce: 1, 2, 4 or 8.
    Returns:
        (3, 3) float64 board mm → reduced photo px.
    """
    r = float(reduce)
    S = np.array([[1 / r, 0, -(r - 1) / (2 * r)], [0, 1 / r, -(r - 1) / (2 * r)], [0, 0, 1]])
    return S @ np.asarray(H_px_from_mm, dtype=np.float64)


def scale_homography(H_px_from_mm: np.ndarray, scale: float) -> np.ndarray:
    """Homography to the same view photographed (or decoded) at ``scale`` × the size, any scale.

    Pixel centres map as ``u = (x + 0.5)·scale − 0.5``; :func:`reduce_homography` is ``scale = 1/r``.

    Args:
        H_px_from_mm: (3, 3) board mm → px of the original size.
        scale: new width / original width (the same for the height: same aspect ratio).
    Returns:
        (3, 3) float64 board mm → px of the scaled photo.
    """
    s = float(scale)
    S = np.array([[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1]])
    return S @ np.asarray(H_px_from_mm, dtype=np.float64)


def board_px_per_mm(H_px_from_mm: np.ndarray, board_mm) -> float:
    """The smallest scale (px per mm) at which a photo shows the board: its shortest edge in px / mm."""
    w, h = board_mm
    c = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64),
                                 np.asarray(H_px_from_mm, np.float64))[0]
    lengths = [np.linalg.norm(c[(k + 1) % 4] - c[k]) / (w if k % 2 == 0 else h) for k in range(4)]
    return float(min(lengths))


def enlarge_homography(H_reduced: np.ndarray, reduce: int) -> np.ndarray:
    """Inverse of :func:`reduce_homography`: board mm → full-size photo px."""
    r = float(reduce)
    S = np.array([[1 / r, 0, -(r - 1) / (2 * r)], [0, 1 / r, -(r - 1) / (2 * r)], [0, 0, 1]])
    return np.linalg.inv(S) @ np.asarray(H_reduced, dtype=np.float64)


def mm_to_work(ppm: float, margin_mm: float = 0.0) -> np.ndarray:
    """(3, 3) affine board mm → work (or extended) px, pixel centres at +0.5."""
    return np.array([[ppm, 0, ppm * margin_mm - 0.5], [0, ppm, ppm * margin_mm - 0.5], [0, 0, 1]])


def warp_board(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, ppm: float, margin_mm: float = 0.0,
               interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Rectify the board (plus ``margin_mm`` around it) to a top view.

    Args:
        image: photo, BGR uint8 (H, W, 3) or grey (H, W).
        H_px_from_mm: (3, 3) board mm → photo px (of this very image's size).
        board_mm: (width_mm, height_mm).
        ppm: output px per mm.
        margin_mm: surround kept on every side.
    Returns:
        Array of shape (round((h + 2m)·ppm), round((w + 2m)·ppm)[, 3]), same dtype as ``image``.
    """
    w, h = board_mm
    size = (int(round((w + 2 * margin_mm) * ppm)), int(round((h + 2 * margin_mm) * ppm)))
    M = np.asarray(H_px_from_mm, dtype=np.float64) @ np.linalg.inv(mm_to_work(ppm, margin_mm))
    return cv2.warpPerspective(image, M, size, flags=interpolation | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def groove_polygons(profile: dict) -> dict[int, np.ndarray]:
    """The profile's grooves as ``{number: float64 (N, 2) polygon in mm}``.

    Raises:
        BadInputError: ``invalid-profile`` when grooves are missing or malformed.
    """
    grooves = profile.get("grooves")
    if not isinstance(grooves, list) or not grooves:
        raise BadInputError("invalid-profile", "strand-unter profile needs a non-empty 'grooves' list")
    out = {}
    for i, g in enumerate(grooves):
        try:
            n = int(g["number"])
            poly = np.asarray(g["polygon_mm"], dtype=np.float64).reshape(-1, 2)
        except (KeyError, TypeError, ValueError):
            raise BadInputError("invalid-profile", f"groove {i}: needs 'number' and 'polygon_mm' [[x, y], …]") from None
        if len(poly) < 3 or n in out:
            raise BadInputError("invalid-profile", f"groove {n}: polygon needs ≥ 3 points and a unique number")
        out[n] = poly
    return dict(sorted(out.items()))


def groove_map(profile: dict, ppm: float, shrink_mm: float = 0.0) -> np.ndarray:
    """Label image of the grooves in work px: uint8 (H, W), groove number or 0 outside every groove.

    Args:
        profile: strand-unter profile (``board_mm``, ``grooves``).
        ppm: work px per mm.
        shrink_mm: erode each groove by this much (to ignore its rims).
    """
    w, h = profile["board_mm"]
    out = np.zeros((int(round(h * ppm)), int(round(w * ppm))), np.uint8)
    k = int(round(shrink_mm * ppm))
    for n, poly in groove_polygons(profile).items():
        m = np.zeros_like(out)
        cv2.fillPoly(m, [np.round(poly * ppm - 0.5).astype(np.int32)], 1)
        if k > 0:
            m = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 2 * k + 1)))
        out[m > 0] = n
    return out


def disc(shape, centre_px, radius_px: float) -> np.ndarray:
    """Boolean mask (shape) of a disc around ``centre_px`` (x, y) in the same pixel frame."""
    yy, xx = np.ogrid[:shape[0], :shape[1]]
    return (xx - centre_px[0]) ** 2 + (yy - centre_px[1]) ** 2 <= radius_px ** 2


def camera_nadir(H_px_from_mm: np.ndarray, image_size) -> tuple[np.ndarray, float | None]:
    """Where the camera stands over the board: its nadir (board mm) and its height (mm), from the homography.

    The homography of a plane is ``K [r1 r2 t]`` up to scale (Zhang 2000). With square pixels and
    the principal point at the image centre, the focal length follows from r1 ⟂ r2 and
    |r1| = |r2| (least squares over both); then the camera centre is ``−Rᵀ t``. A tall piece's
    top is seen displaced from its base away from the nadir, by height / camera height of the
    distance (:func:`vision.strand_unter.calibrate.parallax_model`).

    When the view is too close to straight down for the focal length to show (the constraints
    vanish), the nadir is the board point under the image centre and the height is None.

    Args:
        H_px_from_mm: (3, 3) board mm → photo px.
        image_size: (width, height) px of that photo.
    Returns:
        (nadir float64 (2,) board mm, camera height above the board in mm or None).
    """
    H = np.asarray(H_px_from_mm, np.float64)
    cx, cy = (image_size[0] - 1) / 2.0, (image_size[1] - 1) / 2.0
    Hc = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]]) @ H
    h = Hc / np.linalg.norm(Hc[:, 0])
    a = np.array([h[0, 0] * h[0, 1] + h[1, 0] * h[1, 1], h[0, 0] ** 2 + h[1, 0] ** 2 - h[0, 1] ** 2 - h[1, 1] ** 2])
    b = np.array([h[2, 0] * h[2, 1], h[2, 0] ** 2 - h[2, 1] ** 2])
    u = -float(a @ b) / float(a @ a) if float(a @ a) > 0 else 0.0      # 1 / f²
    width = float(image_size[0])
    if np.isfinite(u) and u > 0 and 0.3 * width < 1 / np.sqrt(u) < 10 * width:
        f = 1 / np.sqrt(u)
        M = np.diag([1 / f, 1 / f, 1.0]) @ Hc
        lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        r1, r2, t = lam * M[:, 0], lam * M[:, 1], lam * M[:, 2]
        if t[2] < 0:                      # the board lies in front of the camera
            r1, r2, t = -r1, -r2, -t
        R = np.stack([r1, r2, np.cross(r1, r2)], axis=1)
        C = -R.T @ t
        return C[:2], float(abs(C[2]))
    p = np.linalg.solve(H, [cx, cy, 1.0])
    return p[:2] / p[2], None
