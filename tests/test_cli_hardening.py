"""What a clumsy or hostile user can hand the command line: always a clear line and the right exit code."""
from __future__ import annotations

import json
import os
import shutil

import cv2
import pytest

from beachscore.cli import main
from calibration import store

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "strand-unter")
PHOTO = os.path.join(EXAMPLE, "scene_05.jpg")
SAMPLES = os.path.join(HERE, "..", "..", "shared", "samples")


@pytest.fixture()
def example(tmp_path):
    """A writable copy of the example folder."""
    dst = tmp_path / "example"
    shutil.copytree(EXAMPLE, dst)
    return dst


def _error(capsys):
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])["error"]


def test_calibrating_into_the_input_folder_keeps_the_users_file(example, capsys):
    before = (example / "calibration.json").read_bytes()
    rc = main(["calibrate", str(example / "calibration.json"), "--out", str(example), "--json"])
    assert rc == 2 and _error(capsys)["code"] == "output-unwritable"
    assert (example / "calibration.json").read_bytes() == before


def test_calibrating_over_a_learned_calibration_is_allowed(tmp_path, example):
    out = str(tmp_path / "cal")
    assert main(["calibrate", str(example / "calibration.json"), "--out", out]) == 0
    assert main(["calibrate", str(example / "calibration.json"), "--out", out]) == 0


def test_out_is_a_file(example, tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    assert main(["calibrate", str(example / "calibration.json"), "--out", str(tmp_path / "f"), "--json"]) == 2
    assert _error(capsys)["code"] == "output-unwritable"


@pytest.mark.parametrize("corners,code,needle", [
    ([[float("nan"), 0], [10, 0], [10, 10], [0, 10]], "invalid-json", "NaN is not a JSON number"),  # not JSON
    ([[461, 165], [1420, 144], [452, 1019], [1470, 992]], "invalid-corners", "convex"),
    ([[100, 100], [110, 100], [110, 110], [100, 110]], "invalid-corners", "cover only"),
    ([[-9000, 165], [1420, 144], [1470, 992], [452, 1019]], "invalid-corners", "outside"),
    ([[461, 165], [452, 1019], [1470, 992], [1420, 144]], "invalid-corners", "anticlockwise"),  # given backwards
])
def test_bad_corners_are_named(example, tmp_path, capsys, corners, code, needle):
    doc = json.loads((example / "calibration.json").read_text())
    doc["corners_px"] = corners
    (example / "calibration.json").write_text(json.dumps(doc))
    assert main(["calibrate", str(example / "calibration.json"), "--out", str(tmp_path / "c"), "--json"]) == 2
    err = _error(capsys)
    assert err["code"] == code and needle in err["message"]


@pytest.mark.parametrize("change,needle", [
    ({"board_mm": [1e12, 1e12]}, "board_mm"),
    ({"markers": [{"dictionary": "DICT_NOPE", "id": 0, "corners_mm": [[0, 0], [1, 0], [1, 1], [0, 1]]}]}, "ArUco"),
])
def test_absurd_profiles_are_refused(example, tmp_path, capsys, change, needle):
    profile = json.loads((example / "profile.json").read_text())
    profile.update(change)
    (example / "profile.json").write_text(json.dumps(profile))
    assert main(["calibrate", str(example / "calibration.json"), "--out", str(tmp_path / "c"), "--json"]) == 2
    assert needle in _error(capsys)["message"]


def test_huge_grid_is_refused(tmp_path, capsys):
    (tmp_path / "profile.json").write_text(json.dumps({"game": "grid", "board_mm": [100, 100], "grid": {
        "origin_mm": [0, 0], "pitch_mm": [0.0001, 0.0001], "rows": 100_000_000, "cols": 100_000_000}}))
    cv2.imwrite(str(tmp_path / "shot.png"), cv2.imread(PHOTO))
    (tmp_path / "cal.json").write_text(json.dumps({"profile": "profile.json", "image": "shot.png",
                                                   "corners_px": [[100, 100], [900, 100], [900, 900], [100, 900]],
                                                   "samples": [{"label": "cell/empty", "board_mm": [5, 5]}]}))
    assert main(["calibrate", str(tmp_path / "cal.json"), "--out", str(tmp_path / "c"), "--json"]) == 2
    assert "places" in _error(capsys)["message"]


def test_deeply_nested_json_is_bad_input(tmp_path, capsys):
    (tmp_path / "state.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["score", str(tmp_path / "state.json"), "--json"]) == 2
    assert _error(capsys)["code"] == "invalid-json"


def test_grayscale_photo_is_refused(strand_cal, tmp_path, capsys):
    gray = tmp_path / "gray.jpg"
    cv2.imwrite(str(gray), cv2.imread(PHOTO, cv2.IMREAD_GRAYSCALE))
    assert main(["scan", str(gray), "--calibration", strand_cal, "--json"]) == 2
    assert _error(capsys)["code"] == "image-grayscale"


def test_a_calibration_of_another_reader_version_asks_to_recalibrate(strand_cal, tmp_path, capsys):
    old = tmp_path / "old"
    shutil.copytree(strand_cal, old)
    doc = json.loads((old / "calibration.json").read_text())
    doc["model_version"] = -1
    doc["checksum"] = store.checksum(doc)  # as an older product would have written it
    (old / "calibration.json").write_text(json.dumps(doc))
    assert main(["scan", PHOTO, "--calibration", str(old), "--json"]) == 2
    assert _error(capsys)["code"] == "calibration-outdated"


def test_annotate_checks_its_target_before_scanning(strand_cal, tmp_path, capsys):
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--json", "--annotate", str(tmp_path)]) == 2
    assert _error(capsys)["code"] == "annotate-path"
    copy = tmp_path / "photo.png"
    cv2.imwrite(str(copy), cv2.imread(PHOTO))
    before = copy.read_bytes()
    assert main(["scan", str(copy), "--calibration", strand_cal, "--json", "--annotate", str(copy)]) == 2
    assert copy.read_bytes() == before


def test_annotate_creates_missing_folders_and_keeps_same_named_photos_apart(strand_cal, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for d in (a, b):
        shutil.copy(PHOTO, d / "x.jpg")
    out = tmp_path / "new" / "folder"
    assert main(["scan", str(a / "x.jpg"), str(b / "x.jpg"), "--calibration", strand_cal, "--annotate", str(out)]) == 0
    assert sorted(os.listdir(out)) == ["x-2.annotated.png", "x.annotated.png"]
    assert oct(os.stat(out / "x.annotated.png").st_mode & 0o044) == oct(0o044)  # readable by others (umask 022)


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "plazing")), reason="shared samples absent")
def test_a_broken_setup_is_bad_input_not_a_warning(tmp_path, capsys):
    setup0 = os.path.join(SAMPLES, "plazing", "setup0")
    assert main(["calibrate", os.path.join(setup0, "calibration.json"), "--out", str(tmp_path / "c")]) == 0
    setup = json.load(open(os.path.join(setup0, "scene_00.setup.json")))
    setup["terrain"] = ["Z" * 20] * 12
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    rc = main(["scan", os.path.join(setup0, "scene_00.jpg"), "--calibration", str(tmp_path / "c"),
               "--setup", str(tmp_path / "setup.json"), "--json"])
    assert rc == 2 and _error(capsys)["code"] == "invalid-setup"


def test_a_dark_photo_is_too_dark_not_grayscale(strand_cal, tmp_path, capsys):
    dark = (cv2.imread(PHOTO).astype(float) * 0.05).astype("uint8")
    cv2.imwrite(str(tmp_path / "dark.png"), dark)
    assert main(["scan", str(tmp_path / "dark.png"), "--calibration", strand_cal, "--json"]) == 3
    assert _error(capsys)["code"] == "too-dark"


def test_the_contracts_grid_profile_is_accepted(tmp_path):
    from calibration.files import validate_profile

    validate_profile({"game": "grid", "board_mm": [420, 450],
                      "grid": {"origin_mm": [12, 12], "pitch_mm": [22, 23.5], "rows": 19, "cols": 19}})


def test_usage_errors_are_one_line(capsys):
    assert main(["scan", PHOTO, "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "--calibration" in err
    assert json.loads(out)["error"]["code"] == "usage"


def _scan_with_setup(strand_cal, tmp_path, capsys, setup):
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    rc = main(["scan", PHOTO, "--calibration", strand_cal, "--setup", str(tmp_path / "setup.json"), "--json"])
    return rc, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_setup_that_contradicts_the_photo_is_not_scored(strand_cal, tmp_path, capsys):
    # scene_05 shows red's castle 3 standing; the setup says red's card 3 is still face up
    card = {"value": 3, "needs": {"white": 2, "gray": 1, "brown": 1, "black": 2, "any": 1}}
    rc, out = _scan_with_setup(strand_cal, tmp_path, capsys,
                               {"players": {"red": {"bucket": {"white": 1}, "open_cards": [card]}}})
    assert rc == 3 and out["error"]["code"] == "rules-conflict" and "card 3" in out["error"]["message"]


def test_the_setups_facts_appear_in_the_state(strand_cal, tmp_path, capsys):
    bucket = {"white": 1, "gray": 0, "brown": 2, "black": 0}
    rc, out = _scan_with_setup(strand_cal, tmp_path, capsys, {"players": {"red": {"bucket": bucket, "open_cards": []}}})
    assert rc == 0 and out["state"]["players"]["red"]["bucket"] == bucket
    red = next(p for p in out["score"]["players"] if p["player"] == "red")
    assert red["unfit_shells"] == 3 and red["total"] == red["castle_points"] - 3


def test_score_json_has_timing_and_the_completed_state(tmp_path, capsys):
    state = {"game": "sand-castles", "walls_left": None, "lanes": {
        "top": {"length": 8, "wave": 2, "wall": False, "castle_pieces": 1, "flooded": False},
        "middle": {"length": 8, "wave": 1, "wall": False, "castle_pieces": 0, "flooded": False},
        "bottom": {"length": 8, "wave": 1, "wall": True, "castle_pieces": 0, "flooded": False}}}
    (tmp_path / "state.json").write_text(json.dumps(state))
    assert main(["score", str(tmp_path / "state.json"), "--setup", '{"walls_left": 4}', "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["timing_ms"]) == {"decode", "register", "detect", "score"}
    assert out["state"]["walls_left"] == 4 and out["score"]["walls_left"] == 4


def test_a_hand_edited_calibration_is_refused(strand_cal, tmp_path, capsys):
    edited = tmp_path / "edited"
    shutil.copytree(strand_cal, edited)
    doc = json.loads((edited / "calibration.json").read_text())
    doc["game"] = "plazing"
    (edited / "calibration.json").write_text(json.dumps(doc))
    assert main(["scan", PHOTO, "--calibration", str(edited), "--json"]) == 2
    assert _error(capsys)["code"] == "calibration-invalid"


def test_usage_errors_name_the_command_once(capsys):
    from beachscore.cli import main

    assert main(["scan"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("beachscore: error: scan: ") and err.count("beachscore") == 2  # "… see beachscore scan --help"
    assert "beachscore: error: beachscore" not in err


def test_calibration_input_file_instead_of_the_folder(capsys, strand_cal):
    import os

    from beachscore.cli import main

    example = os.path.join(os.path.dirname(__file__), "..", "examples", "strand-unter")
    photo = os.path.join(example, "scene_05.jpg")
    assert main(["scan", photo, "--calibration", os.path.join(example, "calibration.json")]) == 2
    err = capsys.readouterr().err
    assert "that is the input file; pass the folder written by 'beachscore calibrate" in err
    assert main(["scan", photo, "--calibration", os.path.join(strand_cal, "calibration.json")]) == 2
    assert f"pass the folder: --calibration {strand_cal}" in capsys.readouterr().err


EMPTY_STRAND = '{"game": "strand-unter", "sea_front": 1, "grooves": []}'


@pytest.mark.parametrize("setup", ["[" * 50_000 + "]" * 50_000, '{"x": 1' + "0" * 5000 + "}"],
                         ids=["deep", "long-number"])
def test_inline_setup_json_that_python_cannot_parse_is_bad_input(tmp_path, capsys, setup):
    """``--setup '{…}'`` went to json.loads unguarded: too deep or a 5000-digit number was an
    internal error (exit 1, "RecursionError …") instead of the contract's exit 2."""
    (tmp_path / "state.json").write_text(EMPTY_STRAND)
    assert main(["score", str(tmp_path / "state.json"), "--setup", setup, "--json"]) == 2
    err = _error(capsys)
    assert err["code"] == "invalid-json" and "--setup" in err["message"]
    assert "Error" not in err["message"] and "sys." not in err["message"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_in_a_state_file_is_bad_input_not_printed(tmp_path, capsys, number):
    """Python's json reads NaN/Infinity (not JSON): a state with one in a field the rules do not
    check scored with exit 0 and printed NaN in --json's output, which no JSON reader accepts."""
    (tmp_path / "state.json").write_text(EMPTY_STRAND[:-1] + ', "note": %s}' % number)
    assert main(["score", str(tmp_path / "state.json"), "--json"]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    err = json.loads(out[-1])["error"]  # strict JSON: the line parses
    assert err["code"] == "invalid-json" and "state file" in err["message"]
    for setup in ('{"note": %s}' % number,):
        assert main(["score", str(tmp_path / "state.json"), "--setup", setup, "--json"]) == 2
        capsys.readouterr()


def test_a_setup_player_the_calibration_has_no_colour_for_is_refused(tmp_path, capsys):
    """"Red" for "red" (or a colour the board does not have) was scored as a made-up player with
    nothing on the board, and the real red's beach points became unknown: now exit 2 naming it."""
    from beachscore.cli import main

    example = os.path.join(os.path.dirname(__file__), "..", "examples", "strand-unter")
    cal = str(tmp_path / "cal")
    assert main(["calibrate", os.path.join(example, "calibration.json"), "--out", cal]) == 0
    setup = json.load(open(os.path.join(example, "setup.json")))
    setup["players"]["Red"] = setup["players"].pop("red")
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    capsys.readouterr()
    code = main(["scan", os.path.join(example, "scene_05.jpg"), "--calibration", cal, "--setup",
                 str(tmp_path / "setup.json")])
    err = capsys.readouterr().err
    assert code == 2 and "players.Red: not a player colour" in err and "[invalid-setup]" in err
