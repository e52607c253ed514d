"""The camera's lens distortion: the one thing a homography cannot model.

Model: OpenCV's radial–tangential ("plumb bob", Brown–Conrady) distortion with coefficients
``k1, k2, p1, p2`` in normalised coordinates ``x = (u − cx)/f, y = (v − cy)/f``. One photo of a
flat board cannot tell the focal length from the distortion, and for a plane it does not need to:
the coefficients are defined with ``f`` = the calibration shot's width in px and the principal
point at the image centre (:meth:`Lens.camera_matrix`). Undistorted ("ideal") images use the same
centre and ``f · scale``, the scale chosen so that the whole photo stays in the frame.

A board seen through an undistorted image is again a pinhole view of a plane: everything after
:meth:`Lens.undistort_image` (registration, the readers) works with homographies as before.
Brown, "Decentering distortion of lenses", 1966; OpenCV ``initUndistortRectifyMap``, ``remap``,
``undistortPoints``, ``projectPoints``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Below this largest displacement over the board (calibration px) a fitted distortion is not stored.
MIN_DISPLACEMENT_PX = 1.0
#: The iterative inverse of the model: enough iterations for a wide lens's corners.
_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)


def undistort_px(pts, K: np.ndarray, coeffs: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``cv2.undistortPoints`` to the camera matrix ``P`` with enough iterations, on OpenCV 4.x
    (``undistortPointsIter``) and 5.x (``undistortPoints(..., criteria=)``): float64 (N, 2)."""
    src = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    if hasattr(cv2, "undistortPointsIter"):
        out = cv2.undistortPointsIter(src, K, coeffs, None, P, _CRITERIA)
    else:
        out = cv2.undistortPoints(src, K, coeffs, R=None, P=P, criteria=_CRITERIA)
    return out.reshape(-1, 2)


@dataclass
class Lens:
    """Distortion coefficients of one camera mode.

    Attributes:
        k1, k2: radial coefficients (normalised by ``f`` = calibration width px).
        p1, p2: tangential coefficients.
        size: (width_px, height_px) of the calibration shot the coefficients belong to.
        source: how they were found: ``"lines"`` (the board's straight lines) or ``"charuco"``.
        scale: focal length of the undistorted image relative to ``f``: 1 unless the board (and a
            margin round it) would leave the undistorted frame, then less (:meth:`keep_in_view`).
    """

    k1: float
    k2: float = 0.0
    p1: float = 0.0
    p2: float = 0.0
    size: tuple[int, int] = (0, 0)
    source: str = "lines"
    scale: float = 1.0
    _maps: dict = field(default_factory=dict, repr=False, compare=False)

    # --- (de)serialisation -------------------------------------------------------------------
    def to_json(self) -> dict:
        """JSON for CAL_DIR/calibration.json (field ``lens``)."""
        return {"model": "opencv-radial-tangential", "k1": self.k1, "k2": self.k2, "p1": self.p1, "p2": self.p2,
                "size": list(self.size), "focal_px": float(self.size[0]), "source": self.source, "scale": self.scale}

    @classmethod
    def from_json(cls, d: dict | None) -> "Lens | None":
        """Rebuild a lens saved by :meth:`to_json`; None for None (no distortion stored).

        Raises:
            ValueError: an unknown model or malformed fields.
        """
        if d is None:
            return None
        if d.get("model") != "opencv-radial-tangential":
            raise ValueError(f"unknown lens model {d.get('model')!r}")
        return cls(k1=float(d["k1"]), k2=float(d["k2"]), p1=float(d["p1"]), p2=float(d["p2"]),
                   size=(int(d["size"][0]), int(d["size"][1])), source=str(d.get("source", "lines")),
                   scale=float(d.get("scale", 1.0)))

    @classmethod
    def fitted(cls, coeffs, size, source: str) -> "Lens":
        """A lens with coefficients ``(k1, k2, p1, p2)`` and the scale that keeps the photo in view."""
        k1, k2, p1, p2 = (list(coeffs) + [0.0] * 4)[:4]
        lens = cls(float(k1), float(k2), float(p1), float(p2), (int(size[0]), int(size[1])), source)
        lens.scale = lens._fit_scale()
        return lens

    # --- geometry ----------------------------------------------------------------------------
    @property
    def coefficients(self) -> np.ndarray:
        """float64 (5,) ``k1, k2, p1, p2, k3 = 0`` in OpenCV's order."""
        return np.array([self.k1, self.k2, self.p1, self.p2, 0.0])

    def camera_matrix(self, width: int, height: int, ideal: bool = False) -> np.ndarray:
        """(3, 3) camera matrix for an image of ``width × height`` px of this camera mode (the
        calibration shot or a reduced decode of it); ``ideal`` for the undistorted image's."""
        f = self.size[0] * (width / self.size[0]) * (self.scale if ideal else 1.0)
        return np.array([[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1.0]])

    def undistort_points(self, px, width: int, height: int) -> np.ndarray:
        """Photo px (N, 2) → undistorted-image px (N, 2), float64 (iterative inverse of the model)."""
        return undistort_px(px, self.camera_matrix(width, height), self.coefficients,
                            self.camera_matrix(width, height, ideal=True))

    def distort_points(self, px, width: int, height: int) -> np.ndarray:
        """Undistorted-image px (N, 2) → photo px (N, 2), float64 (the forward model, ``projectPoints``)."""
        pts = np.asarray(px, np.float64).reshape(-1, 2)
        Ki = self.camera_matrix(width, height, ideal=True)
        norm = np.column_stack([(pts[:, 0] - Ki[0, 2]) / Ki[0, 0], (pts[:, 1] - Ki[1, 2]) / Ki[1, 1], np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.camera_matrix(width, height),
                                   self.coefficients)
        return out.reshape(-1, 2)

    def max_displacement(self, region_px, width: int, height: int) -> float:
        """Largest distance (px) the distortion moves a point of ``region_px`` (N, 2 photo px)
        from where a distortion-free lens of the same centre and focal length puts it."""
        pts = np.asarray(region_px, np.float64).reshape(-1, 2)
        K = self.camera_matrix(width, height)
        ideal = undistort_px(pts, K, self.coefficients, K)
        return float(np.linalg.norm(ideal - pts, axis=1).max()) if len(pts) else 0.0

    def _fit_scale(self, keep_px=None) -> float:
        """Largest ideal focal scale (≤ 1) at which ``keep_px`` (photo px (N, 2); default the photo's
        border) stay inside the undistorted frame."""
        w, h = self.size
        if keep_px is None:
            t = np.linspace(0, 1, 33)
            keep_px = np.concatenate([np.column_stack([t * (w - 1), np.zeros_like(t)]),
                                      np.column_stack([t * (w - 1), np.full_like(t, h - 1)]),
                                      np.column_stack([np.zeros_like(t), t * (h - 1)]),
                                      np.column_stack([np.full_like(t, w - 1), t * (h - 1)])])
        K = self.camera_matrix(w, h)
        ideal = undistort_px(keep_px, K, self.coefficients, K)
        half = np.array([(w - 1) / 2, (h - 1) / 2])
        return float(min(1.0, (half / np.maximum(np.abs(ideal - half), 1e-9)).min()))

    def keep_in_view(self, points_px) -> "Lens":
        """Set :attr:`scale` to the largest (≤ 1) that keeps ``points_px`` (photo px (N, 2), e.g.
        the board and a margin round it, clipped to the photo) in the undistorted frame: the board's
        scale at the image centre stays the photo's own whenever it can. Returns the lens."""
        w, h = self.size
        pts = np.clip(np.asarray(points_px, np.float64).reshape(-1, 2), 0, [w - 1, h - 1])
        self.scale = self._fit_scale(pts)
        self._maps.clear()
        return self

    # --- images ------------------------------------------------------------------------------
    def undistort_image(self, image: np.ndarray) -> np.ndarray:
        """The photo as a distortion-free lens would take it (same size), by ``cv2.remap`` with maps
        built once per image size (CV_16SC2, bilinear: bicubic was measured at 5× the time, more than
        a bare decode of the full-size photo, ``scripts/bench_scan.py``)."""
        h, w = image.shape[:2]
        key = ("undistort", w, h)
        maps = self._maps.get(key)
        if maps is None:
            maps = cv2.initUndistortRectifyMap(self.camera_matrix(w, h), self.coefficients, None,
                                               self.camera_matrix(w, h, ideal=True), (w, h), cv2.CV_16SC2)
            self._maps[key] = maps
        return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def distort_image(self, ideal: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`undistort_image`: an undistorted picture back in the photo's own
        (distorted) geometry. Maps built once per size (``undistortPoints`` of every pixel)."""
        h, w = ideal.shape[:2]
        key = ("distort", w, h)
        maps = self._maps.get(key)
        if maps is None:
            u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
            src = self.undistort_points(np.column_stack([u.ravel(), v.ravel()]), w, h).astype(np.float32)
            maps = cv2.convertMaps(src[:, 0].reshape(h, w), src[:, 1].reshape(h, w), cv2.CV_16SC2)
            self._maps[key] = maps
        return cv2.remap(ideal, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def homography_to_photo(lens: "Lens | None", H_ideal: np.ndarray, points_mm, width: int, height: int) -> np.ndarray:
    """Board mm (N, 2) → photo px (N, 2) through the ideal homography and, if any, the lens."""
    pts = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), H_ideal).reshape(-1, 2)
    return pts if lens is None else lens.distort_points(pts, width, height)
