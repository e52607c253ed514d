"""Build CalibrationShot / Photo objects around synthetic scenes (no files needed)."""

from __future__ import annotations

from calibration.files import CalibrationRequest
from calibration.store import Calibration
from vision.registration import Registration
from vision.synthetic_boards import scale_homography
from vision.types import CalibrationShot, Photo


def shot(game, profile, image, samples):
    req = CalibrationRequest(game=game, profile=profile, image_path="", empty_image_path=None, corners_px=None,
                             samples=[(lab, (float(x), float(y))) for lab, (x, y) in samples])
    return CalibrationShot(request=req, image=image, empty_image=None, H_px_from_mm=scale_homography())


def photo(game, profile, model, image, setup=None):
    cal = Calibration(game=game, profile=profile, image_size=(image.shape[1], image.shape[0]),
                      H_px_from_mm=scale_homography(), model=model)
    return Photo(image=image, registration=Registration(scale_homography(), "corners"), calibration=cal, setup=setup)
