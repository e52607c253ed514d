import cv2
import numpy as np
import pytest

from beachscore.errors import BadInputError
from calibration.markers import PAPER_MM, render_marker_pages, render_marker_sheet, write_marker_sheet
from vision.board.markers import detect_markers
from tests.synthetic.grid import grid_profile


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
    # a small board's markers fit one A4 page: one file
    out = tmp_path / "sheet.png"
    assert write_marker_sheet(prof, str(out), dpi=200) == [str(out)]
    assert cv2.imread(str(out), cv2.IMREAD_GRAYSCALE).shape in _a4_px(200)
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
    # a Plażing-sized board with a marker at each corner: several A4 pages
    prof.write_text(json.dumps(_board_profile()))
    assert main(["markers", str(prof), "--out", str(tmp_path / "big.png"), "--dpi", "100"]) == 0
    assert (tmp_path / "big-1.png").exists() and (tmp_path / "big-2.png").exists()
    assert not (tmp_path / "big.png").exists()


def _a4_px(dpi):
    w, h = (round(v * dpi / 25.4) for v in PAPER_MM["A4"])
    return {(h, w), (w, h)}


def _board_profile():
    """A 460 × 380 mm board (larger than A3) with a 40 mm marker near each corner and one mid-edge."""
    def square(x, y, side=40.0):
        return [[x, y], [x + side, y], [x + side, y + side], [x, y + side]]

    spots = [(5, 5), (415, 5), (415, 335), (5, 335), (210, 335)]
    return {"game": "plazing", "board_mm": [460, 380],
            "markers": [{"dictionary": "DICT_4X4_50", "id": i, "corners_mm": square(x, y)}
                        for i, (x, y) in enumerate(spots)]}


def test_a_board_larger_than_the_paper_is_tiled_onto_a4_pages_at_true_size(tmp_path):
    """Each marker lies whole on exactly one A4 page, detectable, at true size and at its place
    relative to the page's window; the pages name the markers and the board part they show."""
    prof = _board_profile()
    dpi = 100
    ppm = dpi / 25.4
    pages = render_marker_pages(prof, dpi=dpi)
    assert len(pages) >= 2
    seen = []
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    for page, info in pages:
        assert page.shape in _a4_px(dpi)
        corners, ids, _ = detector.detectMarkers(page)
        found = {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
        assert sorted(found) == sorted(mid for _, mid in info["markers"])
        for mid, px in found.items():
            want = (np.asarray(prof["markers"][mid]["corners_mm"]) + info["offset_mm"]) * ppm
            assert np.abs(px - want).max() < 2.0  # at its place on the page
            side_mm = np.linalg.norm(px[1] - px[0]) / ppm
            assert abs(side_mm - 40.0) < 0.6  # true size
        seen += list(found)
    assert sorted(seen) == list(range(len(prof["markers"])))  # each marker once
    # PDF: one page per tile, each an A4 media box
    pdf = tmp_path / "markers.pdf"
    assert write_marker_sheet(prof, str(pdf), dpi=dpi) == [str(pdf)]
    data = pdf.read_bytes()
    assert f"/Count {len(pages)}".encode() in data and data.count(b"/Type /Page ") == len(pages)
    assert b"/MediaBox [0 0 595.28 841.89]" in data or b"/MediaBox [0 0 841.89 595.28]" in data
    # PNG: NAME-1.png, NAME-2.png …
    paths = write_marker_sheet(prof, str(tmp_path / "m.png"), dpi=dpi)
    assert paths == [str(tmp_path / f"m-{k}.png") for k in range(1, len(pages) + 1)]
    assert all(cv2.imread(p, cv2.IMREAD_GRAYSCALE).shape in _a4_px(dpi) for p in paths)


def test_markers_on_a_shipped_profile_without_markers_says_how_to_add_them(tmp_path, capsys):
    import os

    from beachscore.cli import main

    profiles = os.path.join(os.path.dirname(__file__), "..", "calibration", "profiles")
    for name in ("plazing.json", "strand-unter.json", "seashells.json", "sand-castles.json"):
        assert main(["markers", os.path.join(profiles, name), "--out", str(tmp_path / "m.png")]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert '"markers" list' in err and "corners_mm" in err and "corners_px" in err
    assert not (tmp_path / "m.png").exists()


def test_charuco_sheet_is_true_size_and_readable(tmp_path, capsys):
    from beachscore.cli import main
    from calibration.markers import render_charuco_page
    from vision.lens.charuco import SHEET, detect_sheet

    page = render_charuco_page(dpi=150)
    assert page.shape == tuple(round(v * 150 / 25.4) for v in PAPER_MM["A4"])  # landscape A4
    px, mm = detect_sheet(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))
    assert len(px) == (SHEET.squares[0] - 1) * (SHEET.squares[1] - 1)
    # sheet mm → page px is a pure scale of 150 dpi (plus the page offset)
    H, _ = cv2.findHomography(mm, px)
    assert abs(H[0, 0] / H[2, 2] - 150 / 25.4) < 0.05 and abs(H[0, 1] / H[2, 2]) < 0.01
    assert main(["markers", "--charuco", "--out", str(tmp_path / "lens.pdf")]) == 0
    assert (tmp_path / "lens.pdf").read_bytes().startswith(b"%PDF")
    assert "charuco_image" in capsys.readouterr().out
    assert main(["markers", "--out", str(tmp_path / "x.png")]) == 2
