"""calibration.json parsing and the CAL_DIR store."""

import json
import os

import numpy as np
import pytest

from beachscore.errors import BadInputError
from calibration import store
from calibration.files import load_calibration_request


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(p)


PROFILE = {"game": "grid", "board_mm": [100, 100], "grid": {"origin_mm": [0, 0], "pitch_mm": [10, 10], "rows": 10, "cols": 10}}


def test_request_resolves_paths_relative_to_the_file(tmp_path):
    _write(tmp_path, "profile.json", PROFILE)
    path = _write(tmp_path, "cal.json", {"profile": "profile.json", "image": "shot.jpg",
                                          "corners_px": [[0, 0], [1, 0], [1, 1], [0, 1]],
                                          "samples": [{"label": "cell/empty", "board_mm": [5, 5]}]})
    req = load_calibration_request(path)
    assert req.game == "grid"
    assert req.image_path == os.path.join(str(tmp_path), "shot.jpg")
    assert req.samples == [("cell/empty", (5.0, 5.0))]


@pytest.mark.parametrize("doc,needle", [
    ({"profile": "profile.json", "image": "x.jpg"}, "corners_px"),
    ({"profile": "profile.json", "image": "x.jpg", "corners_px": [[0, 0], [1, 0]]}, "corners_px"),
    ({"profile": "profile.json", "image": "x.jpg", "corners_px": [[0, 0], [1, 0], [1, 1], [0, 1]],
      "samples": [{"board_mm": [1, 2]}]}, "label"),
    ({"profile": "profile.json", "image": "x.jpg", "corners_px": [[0, 0], [1, 0], [1, 1], [0, 1]],
      "samples": [{"label": "cell/empty ", "board_mm": [1, 2]}]}, "spaces around a part"),
    ({"profile": "profile.json", "image": "x.jpg", "corners_px": [[0, 0], [1, 0], [1, 1], [0, 1]],
      "samples": [{"label": "cell//empty", "board_mm": [1, 2]}]}, "empty part"),
    ({"profile": "nope.json", "image": "x.jpg"}, "no such file"),
    ({"profile": "profile.json", "image": "x.jpg", "game": "chess",
      "corners_px": [[0, 0], [1, 0], [1, 1], [0, 1]]}, "does not match"),
])
def test_bad_requests_say_what_is_wrong(tmp_path, doc, needle):
    _write(tmp_path, "profile.json", PROFILE)
    with pytest.raises(BadInputError, match=needle):
        load_calibration_request(_write(tmp_path, "cal.json", doc))


def test_invalid_json_names_line_and_column(tmp_path):
    with pytest.raises(BadInputError, match="line 1 column"):
        load_calibration_request(_write(tmp_path, "cal.json", "{ nope"))


def test_store_round_trip_and_version_check(tmp_path):
    cal = store.Calibration(game="grid", profile=PROFILE, image_size=(640, 480), H_px_from_mm=np.eye(3) * 2,
                            model={"classes": {"empty": 1}}, reference=np.zeros((120, 160), np.uint8))
    folder = str(tmp_path / "cal")
    store.save(folder, cal)
    again = store.load(folder)
    assert again.game == "grid" and again.model == cal.model
    assert np.allclose(again.H_px_from_mm, cal.H_px_from_mm)
    assert again.reference.shape == (120, 160)
    doc = json.loads((tmp_path / "cal" / "calibration.json").read_text())
    doc["version"] = 99
    (tmp_path / "cal" / "calibration.json").write_text(json.dumps(doc))
    with pytest.raises(BadInputError, match="changed after it was learned"):
        store.load(folder)  # edited by hand
    doc["checksum"] = store.checksum(doc)
    (tmp_path / "cal" / "calibration.json").write_text(json.dumps(doc))
    with pytest.raises(BadInputError, match="version"):
        store.load(folder)  # written by another version of the product


def test_missing_calibration_folder(tmp_path):
    with pytest.raises(BadInputError, match="no calibration here"):
        store.load(str(tmp_path / "none"))


def _grid(origin, pitch=(22.0, 23.7), n=19, board=(396.0, 426.6)):
    return {"game": "grid", "board_mm": list(board),
            "grid": {"origin_mm": list(origin), "pitch_mm": list(pitch), "rows": n, "cols": n}}


def test_grid_whose_outer_places_sit_on_the_board_edge_is_valid():
    # a Go board described by its outer intersections: origin −pitch/2, places centred on the edge (grid.md)
    from calibration.files import validate_profile
    assert validate_profile(_grid((-11.0, -11.85)))["grid"]["rows"] == 19


@pytest.mark.parametrize("origin,board,needle", [
    ((-12.0, 0.0), (396.0, 450.0), "first column is centred at -1 mm, beyond the board's left edge"),
    ((0.0, -12.5), (420.0, 426.6), "first row is centred at -0.65 mm, beyond the board's top edge"),
    ((0.0, 0.0), (396.0, 450.0), "last column (number 19) is centred at 407 mm, beyond the board's right edge"),
])
def test_grid_off_the_board_names_the_side_and_the_place(origin, board, needle):
    from calibration.files import validate_profile
    with pytest.raises(BadInputError) as e:
        validate_profile(_grid(origin, board=board))
    assert e.value.code == "invalid-profile" and needle in str(e.value)


def test_a_failed_save_leaves_the_calibration_saved_before(tmp_path, monkeypatch):
    """A write that fails half way (a full disk) changes none of the files of the earlier calibration."""
    old = store.Calibration(game="grid", profile=PROFILE, image_size=(640, 480), H_px_from_mm=np.eye(3) * 2,
                            model={"classes": {"empty": 1}}, reference=np.zeros((120, 160), np.uint8))
    folder = str(tmp_path / "cal")
    store.save(folder, old, {"outline.png": np.zeros((8, 8), np.uint8)})
    before = {name: (tmp_path / "cal" / name).read_bytes() for name in os.listdir(folder)}
    new = store.Calibration(game="grid", profile=PROFILE, image_size=(640, 480), H_px_from_mm=np.eye(3) * 3,
                            model={"classes": {"empty": 2}}, reference=np.full((120, 160), 200, np.uint8))
    real_write = store.atomic_write_bytes

    def disk_full_at_the_json(path, data):
        if path.endswith("calibration.json"):
            raise OSError(28, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(store, "atomic_write_bytes", disk_full_at_the_json)
    with pytest.raises(OSError):
        store.save(folder, new, {"outline.png": np.full((8, 8), 255, np.uint8)})
    assert {name: (tmp_path / "cal" / name).read_bytes() for name in os.listdir(folder)} == before
    assert store.load(folder).model == old.model


def test_samples_of_different_labels_on_one_spot_are_refused(tmp_path):
    _write(tmp_path, "profile.json", PROFILE)
    corners = [[0, 0], [1, 0], [1, 1], [0, 1]]
    same = [{"label": lab, "board_mm": [50, 50]} for lab in ("cell/black", "cell/white", "cell/empty")]
    with pytest.raises(BadInputError) as err:
        load_calibration_request(_write(tmp_path, "cal.json", {"profile": "profile.json", "image": "x.jpg",
                                                               "corners_px": corners, "samples": same}))
    assert err.value.code == "bad-sample" and "samples of different labels on the same spot" in err.value.message
    # the labels as written (no numpy repr), each with its spot; the wizard renames them by number
    assert "calibration sample 'cell/black' at 50,50 mm and calibration sample 'cell/white' at 50,50 mm" \
        in err.value.message
    assert err.value.message.startswith(str(tmp_path)) and [label for label, _ in err.value.samples] == \
        ["cell/black", "cell/white"]
    apart = [{"label": "cell/black", "board_mm": [50, 50]}, {"label": "cell/black", "board_mm": [50, 50]},
             {"label": "cell/white", "board_mm": [60, 50]}]
    req = load_calibration_request(_write(tmp_path, "cal2.json", {"profile": "profile.json", "image": "x.jpg",
                                                                  "corners_px": corners, "samples": apart}))
    assert len(req.samples) == 3
