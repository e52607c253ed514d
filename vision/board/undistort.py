"""The lens step of the board stage at calibration: the lens measured from the calibration shot (or
a ChArUco sheet's photo), and undistorted copies of the shots for the readers that decode them.
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from vision.errors import BadInputError
from vision.image.decode import read_image
from vision.lens.charuco import lens_from_charuco
from vision.lens.lines import estimate_lens
from vision.lens.model import Lens


#: Margin round the board (share of its larger side) that stays in the undistorted photo: the
#: registration's strips and the readers' surrounds look that far beyond the outline.
VIEW_MARGIN = 0.15


def view_outline_mm(board_mm) -> np.ndarray:
    """Points (mm, (N, 2)) along the board's outline grown by :data:`VIEW_MARGIN`."""
    w, h = board_mm
    m = VIEW_MARGIN * max(w, h)
    t = np.linspace(0, 1, 9)
    x0, x1, y0, y1 = -m, w + m, -m, h + m
    return np.concatenate([np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y0)]),
                           np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y1)]),
                           np.column_stack([np.full_like(t, x0), y0 + t * (y1 - y0)]),
                           np.column_stack([np.full_like(t, x1), y0 + t * (y1 - y0)])])


def undistorted_request(req, lens: Lens, reduce: int, folder: str):
    """The calibration request with its photos replaced by undistorted copies in ``folder``.

    Some readers decode the calibration shot themselves at 1/``reduce`` size (as their scans are
    decoded) instead of using the shot handed to them. The copies hold the shot undistorted at full
    size and then shrunk to 1/``reduce`` (area averaging, as a full-size camera frame is): one
    resampling at full resolution softens the picture half as much at the reader's scale as
    undistorting the reduced decode would (scans do that, for speed; a learner fed the softer
    picture misread the Strand unter samples). The reduced image is enlarged ``reduce`` times by
    pixel repetition into a PNG, whose reduced decode (area or nearest pixel) gives it back
    unchanged. Files beside a photo that share its name (``calib.setup.json``) are copied along.
    """
    import dataclasses
    import shutil

    def copy(path):
        if not path:
            return path
        full = lens.undistort_image(read_image(path))
        small = full if reduce == 1 else cv2.resize(full, (-(-full.shape[1] // reduce), -(-full.shape[0] // reduce)),
                                                    interpolation=cv2.INTER_AREA)
        big = cv2.resize(small, (small.shape[1] * reduce, small.shape[0] * reduce), interpolation=cv2.INTER_NEAREST)
        stem = os.path.splitext(os.path.basename(path))[0]
        out = os.path.join(folder, stem + ".png")
        if not cv2.imwrite(out, big):
            raise BadInputError("output-unwritable", f"cannot write a temporary copy of {path}")
        src_dir = os.path.dirname(os.path.abspath(path))
        for name in os.listdir(src_dir):
            if name.startswith(stem + ".") and name.endswith(".json"):
                shutil.copyfile(os.path.join(src_dir, name), os.path.join(folder, name))
        return out

    return dataclasses.replace(req, image_path=copy(req.image_path), empty_image_path=copy(req.empty_image_path))


def find_lens(req, image: np.ndarray, corners_px: np.ndarray) -> Lens | None:
    """The camera's lens distortion, from the ChArUco sheet's photo when calibration.json gives one
    (``charuco_image``), else from the straight lines of the calibration shot; None when it shows none.

    Args:
        req: the parsed calibration request.
        image: the calibration shot, BGR uint8, as taken.
        corners_px: (4, 2) the board's corners in it (clicked, or from the markers).
    Raises:
        BadInputError: ``image-size-mismatch`` when the sheet's photo has another size.
        UnreadableBoardError: ``charuco-not-found`` when the sheet cannot be read in its photo.
    """
    if req.charuco_image_path:
        sheet = read_image(req.charuco_image_path)
        if sheet.shape != image.shape:
            raise BadInputError("image-size-mismatch", "charuco_image and image must have the same size (the same "
                                "camera mode)")
        return lens_from_charuco(sheet)
    return estimate_lens(image, corners_px, req.profile)
