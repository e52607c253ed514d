"""``beachscore markers``."""

from __future__ import annotations

from beachscore.commands.common import EXIT_OK
from beachscore.errors import BadInputError
from calibration.files import validate_profile
from calibration.markers import write_charuco_sheet, write_marker_sheet
from vision.files import load_object


def run(args) -> int:
    """``beachscore markers``: write the profile's ArUco markers at true size for printing."""
    if args.charuco:
        paths = write_charuco_sheet(args.out, dpi=args.dpi)
        print(f"lens sheet written to {', '.join(paths)} (an A4 page at true size; print at 100 %, lay it flat "
              "under the camera and name its photo as charuco_image in calibration.json)")
        return EXIT_OK
    if args.profile is None:
        raise BadInputError("missing-argument", "markers needs PROFILE.json (or --charuco for the lens sheet)")
    profile = validate_profile(load_object(args.profile, "profile"), args.profile)
    paths = write_marker_sheet(profile, args.out, dpi=args.dpi)
    print(f"marker sheet written to {', '.join(paths)} (A4 pages at true size; print at 100 %)")
    return EXIT_OK
