import cv2
import numpy as np
import pytest

from beachscore.errors import BadInputError
from calibration.markers import render_marker_sheet, write_marker_sheet
from vision.registration import detect_markers
from vision.synthetic_grid import grid_profile


def test_sheet_has_true_size_and_detectable_markers(tmp_path):
    prof = grid_profile(markers=True)
    page = render_marker_sheet(prof, dpi=200)
    w_mm, h_mm = prof["board_mm"]
    assert page.shape == (round(h_mm * 200 / 25.4), round(w_mm * 200 / 25.4))
    H = detect_markers(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), prof["markers"])
    assert H is not None
    # board mm → sheet px must be a pure scale of 200 dpi
    p = cv2.perspectiveTransform(np.float32([[[100, 50]]]), H)[0, 0]
    assert np.allclose(p, np.array([100, 50]) * 200 / 25.4, atol=2.0)
    out = tmp_path / "sheet.png"
    write_marker_sheet(prof, str(out), dpi=200)
    assert cv2.imread(str(out), cv2.IMREAD_GRAYSCALE).shape == page.shape
    pdf = tmp_path / "sheet.pdf"
    write_marker_sheet(prof, str(pdf), dpi=100)
    assert pdf.read_bytes().startswith(b"%PDF")


def test_sheet_without_markers_is_bad_input():
    with pytest.raises(BadInputError) as e:
        render_marker_sheet(grid_profile(markers=False))
    assert e.value.code == "no-markers"


def test_cli_markers(tmp_path):
    import json

    from beachscore.cli import main

    prof = tmp_path / "profile.json"
    prof.write_text(json.dumps(grid_profile(markers=True)))
    assert main(["markers", str(prof), "--out", str(tmp_path / "m.png"), "--dpi", "150"]) == 0
    assert (tmp_path / "m.png").exists()
