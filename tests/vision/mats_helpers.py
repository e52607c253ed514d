"""Build CalibrationShot / Photo objects around synthetic scenes (no files needed).

:func:`photo` hands the reader what the pipeline would: the photo shrunk by the reader's
``DECODE_REDUCE`` (a JPEG decoded reduced) and the homography scaled to it.
"""

from __future__ import annotations

from beachscore.games import reader
from calibration.files import CalibrationRequest
from calibration.store import Calibration
from vision.mat_checks import as_scanned
from vision.registration import Registration
from vision.synthetic_boards import scale_homography
from vision.types import CalibrationShot, Photo


def shot(game, profile, image, samples):
    req = CalibrationRequest(game=game, profile=profile, image_path="", empty_image_path=None, corners_px=None,
                             samples=[(lab, (float(x), float(y))) for lab, (x, y) in samples])
    return CalibrationShot(request=req, image=image, empty_image=None, H_px_from_mm=scale_homography())


def calibration(game, profile, model, image_size):
    """A loaded-calibration stand-in for a synthetic full-size shot of ``image_size`` (w, h) px."""
    return Calibration(game=game, profile=profile, image_size=image_size, H_px_from_mm=scale_homography(),
                       model=model)


def photo(game, profile, model, image, setup=None):
    cal = calibration(game, profile, model, (image.shape[1], image.shape[0]))
    small, H = as_scanned(image, scale_homography(), int(getattr(reader(game), "DECODE_REDUCE", 1)))
    return Photo(image=small, registration=Registration(H, "corners"), calibration=cal, setup=setup)
