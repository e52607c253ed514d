"""``calibrate`` says which classes the calibration shot's light cannot tell apart (``confusable``).

The light check measures each pair of labelled classes on the calibration shot itself
(:mod:`calibration.light_check`); on a good table it says nothing, on a table whose warm, dim,
hazy light merges shell tokens with the sand it names that pair and what helps.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import cv2
import numpy as np
import pytest

from beachscore.cli import main
from beachscore.station.wizard import confusable_pairs
from calibration.advice import pair_advice
from calibration.class_colours import colour_pairs, disc_colours
from calibration.separability import ColourClass, bhattacharyya, confusable, error_bound, fitted_threshold, separations

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "shared", "samples")
_spec = importlib.util.spec_from_file_location("relight_tables", os.path.join(HERE, "..", "scripts", "relight_tables.py"))
relight_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(relight_tables)

#: A warm (2400 K against the reference 3900 K), dim (×0.2) and hazy (flare 0.5: low contrast) light.
WARM_DIM_HAZY = (2400.0, 0.2, 0.5)


def _calibrate_json(capsys, calibration_json: str, out: str) -> dict:
    assert main(["calibrate", calibration_json, "--out", out, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _calibration_only(setup: str, dst: str, light=None) -> str:
    """A copy of a set-up's calibration files (shot relit under ``light``); returns its calibration.json."""
    os.makedirs(dst)
    with open(os.path.join(setup, "calibration.json")) as f:
        doc = json.load(f)
    shutil.copyfile(os.path.join(setup, doc["profile"]), os.path.join(dst, os.path.basename(doc["profile"])))
    doc["profile"] = os.path.basename(doc["profile"])
    for name in os.listdir(setup):
        if name.startswith(("calib.", "empty.")) and not name.endswith("calibration.json"):
            src = os.path.join(setup, name)
            if name.endswith((".jpg", ".png")) and light is not None:
                cv2.imwrite(os.path.join(dst, name), relight_tables.relit(cv2.imread(src), *light),
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
            else:
                shutil.copyfile(src, os.path.join(dst, name))
    with open(os.path.join(dst, "calibration.json"), "w") as f:
        json.dump(doc, f)
    return os.path.join(dst, "calibration.json")


def test_identical_classes_are_inseparable_and_far_ones_are_not():
    a = ColourClass("sand", np.array([180.0, 130.0, 150.0]), np.eye(3) * 4.0)
    assert error_bound(bhattacharyya(a, a)) == 0.5
    far = ColourClass("shell", a.mean + [40.0, 0.0, -20.0], np.eye(3) * 4.0)
    near = ColourClass("shell", a.mean + [1.0, 0.0, 0.0], np.eye(3) * 4.0)
    assert error_bound(bhattacharyya(a, far)) < 1e-6 < error_bound(bhattacharyya(a, near))
    found = separations({"sand": a, "shell": near}, [("shell", "sand"), ("shell", "missing")])
    assert [p.classes for p in found] == [("shell", "sand")]
    assert confusable(found, 0.3) == found and confusable(found, 0.49) == []


def test_only_the_pairs_a_reader_tells_apart_by_colour_are_measured():
    pairs = colour_pairs("plazing", ["meeple/red", "piece/blue", "piece/red", "resource/shell", "sand"])
    assert ("meeple/red", "sand") in pairs and ("resource/shell", "sand") in pairs
    assert ("piece/blue", "piece/red") in pairs and ("piece/red", "sand") in pairs
    assert not any(set(p) == {"meeple/red", "piece/red"} for p in pairs)  # a meeple has its player's colour
    assert colour_pairs("seashells", ["empty", "shell", "bottle"]) == [("empty", "shell")]


def test_advice_uses_the_games_words():
    text = pair_advice("plazing", "resource/shell", "sand")
    assert text.startswith("shell tokens and bare sand look alike in this light")
    assert "more or whiter light" in text and "reflection" in text
    assert pair_advice("strand-unter", "sand", "shell/white").startswith("bare sand and white shells look alike")


def test_every_game_has_a_fitted_threshold_below_chance():
    for game in ("plazing", "strand-unter", "seashells", "sand-castles", "grid"):
        assert 0.0 < fitted_threshold(game) < 0.5


def test_discs_hold_the_sampled_colour():
    profile = {"game": "plazing", "board_mm": [100, 60], "grid": {"origin_mm": [0, 0], "cell_mm": 20.0,
                                                                  "rows": 3, "cols": 5}}
    image = np.full((120, 200, 3), (120, 190, 220), np.uint8)        # sand, 2 px per mm
    image[30:50, 70:90] = (250, 250, 250)                          # a white token 10 mm wide at (40, 20) mm
    H = np.diag([2.0, 2.0, 1.0])
    colours = disc_colours("plazing", profile, image, H, [("resource/shell", (40.0, 20.0)), ("sand", (80.0, 40.0))])
    assert colours["resource/shell"].mean[0] > colours["sand"].mean[0] + 20  # Lab L of white vs sand
    assert error_bound(bhattacharyya(colours["resource/shell"], colours["sand"])) < 1e-3


def test_the_wizard_passes_the_pairs_on():
    class Cal:
        extra = {"separability": {"confusable": [{"classes": ["resource/shell", "sand"], "advice": "x",
                                                   "error_bound": 0.2}]}}
    assert confusable_pairs(Cal()) == [{"classes": ["resource/shell", "sand"], "advice": "x"}]
    assert confusable_pairs(object()) == []


def test_the_wizard_names_a_doubted_sample_by_its_number_and_label():
    class Cal:
        extra = {"separability": {"confusable": [
            {"classes": ["wave", "shell"], "sample_mm": [195.0, 140.0],
             "advice": "calibration sample 'wave' at 195,140 mm looks more like 'shell' than like the other 'wave' "
                       "samples; check its label and point."},
            {"classes": ["sand", "rock"], "advice": "more light helps"}]}}
    samples = [{"label": "shell", "board_mm": [20.0, 30.0]}, {"label": "wave", "board_mm": [40.0, 50.0]},
               {"label": "wave", "board_mm": [195.3, 139.6]}]
    named, other = confusable_pairs(Cal(), samples)
    assert named["sample"] == 3 and " mm" not in named["advice"]
    assert named["advice"].startswith("calibration sample 3 (wave) looks more like 'shell'")
    assert other == {"classes": ["sand", "rock"], "advice": "more light helps"}
    far = [dict(s, board_mm=[s["board_mm"][0] + 5, s["board_mm"][1]]) for s in samples]
    assert "sample" not in confusable_pairs(Cal(), far)[0]  # no clicked sample there: the millimetres stay


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "plazing")), reason="shared samples absent")
def test_a_light_that_merges_shells_with_the_sand_is_named_and_a_good_one_says_nothing(tmp_path, capsys):
    setup = os.path.join(SAMPLES, "plazing", "setup0")
    good = _calibrate_json(capsys, _calibration_only(setup, str(tmp_path / "good")), str(tmp_path / "cal-good"))
    # nothing on the light; this shot's '-' squares all lie under pieces, which is said apart
    assert good["confusable"] == [] and [w.split(" square")[0] for w in good["warnings"]] == [
        "the calibration shot shows no bare '-'"]
    bad = _calibrate_json(capsys, _calibration_only(setup, str(tmp_path / "bad"), WARM_DIM_HAZY),
                          str(tmp_path / "cal-bad"))
    named = {tuple(sorted(p["classes"])): p["advice"] for p in bad["confusable"]}
    assert ("resource/shell", "sand") in named, bad["confusable"]
    assert named[("resource/shell", "sand")].startswith("shell tokens and bare sand look alike in this light")
    assert named[("resource/shell", "sand")] in bad["warnings"]
    with open(tmp_path / "cal-bad" / "calibration.json") as f:
        kept = json.load(f)["separability"]
    assert any(sorted(p["classes"]) == ["resource/shell", "sand"] for p in kept["confusable"])
    assert kept["pairs"] and kept["threshold"] == fitted_threshold("plazing")


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "plazing")), reason="shared samples absent")
def test_the_text_output_warns_too(tmp_path, capsys):
    cal_json = _calibration_only(os.path.join(SAMPLES, "plazing", "setup0"), str(tmp_path / "bad"), WARM_DIM_HAZY)
    assert main(["calibrate", cal_json, "--out", str(tmp_path / "cal")]) == 0
    out = capsys.readouterr().out
    assert "warning: shell tokens and bare sand look alike in this light" in out


def test_a_strand_unter_shot_whose_light_hides_the_white_shells_says_it_may_be_the_light(tmp_path, capsys):
    example = os.path.join(HERE, "..", "examples", "strand-unter")
    cal_json = _calibration_only(example, str(tmp_path / "bad"), (2400.0, 0.3, 0.3))
    assert main(["calibrate", cal_json, "--out", str(tmp_path / "cal"), "--json"]) == 2
    err = json.loads(capsys.readouterr().out)["error"]
    assert err["code"] == "bad-sample" and "the light makes it look like the sand" in err["message"]


def test_a_disc_over_two_flat_colours_still_gives_a_usable_gaussian():
    profile = {"game": "plazing", "board_mm": [100, 60], "grid": {"origin_mm": [0, 0], "cell_mm": 20.0,
                                                                  "rows": 3, "cols": 5}}
    image = np.full((120, 200, 3), (120, 190, 220), np.uint8)
    image[:, 81:] = (60, 60, 60)                                    # a straight edge through the disc
    H = np.diag([2.0, 2.0, 1.0])
    colours = disc_colours("plazing", profile, image, H, [("resource/shell", (40.0, 20.0)), ("sand", (20.0, 40.0))])
    assert np.linalg.eigvalsh(colours["resource/shell"].cov)[0] > 0.0
    assert 0.0 <= error_bound(bhattacharyya(colours["resource/shell"], colours["sand"])) < 0.5


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "seashells")), reason="shared samples absent")
def test_a_lamps_reflection_on_the_white_towel_is_named_with_what_helps(tmp_path, capsys):
    setup = os.path.join(SAMPLES, "seashells", "setup0")
    cal_json = _calibration_only(setup, str(tmp_path / "shot"))
    with open(cal_json) as f:
        doc = json.load(f)
    board = [[0, 0], [260, 0], [260, 310], [0, 310]]                  # the profile's board_mm, corner order
    H = cv2.getPerspectiveTransform(np.float32(board), np.float32(doc["corners_px"]))
    image_path = os.path.join(os.path.dirname(cal_json), doc["image"])
    image = cv2.imread(image_path)
    centre = cv2.perspectiveTransform(np.float32([[[194.0, 98.0]]]), H)[0, 0]   # whelk/white's centre
    cv2.circle(image, (int(centre[0]), int(centre[1])), 40, (255, 255, 255), -1)
    cv2.imwrite(image_path, image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    out = _calibrate_json(capsys, cal_json, str(tmp_path / "cal"))
    glare = [p for p in out["confusable"] if "reflection" in p["advice"]]
    assert glare and "whelk/white" in glare[0]["advice"] and "lamp" in glare[0]["advice"], out["confusable"]
    assert glare[0]["advice"] in out["warnings"]
    good = _calibrate_json(capsys, os.path.join(setup, "calibration.json"), str(tmp_path / "good"))
    assert good["confusable"] == []


def _paint_white(cal_json: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """Blow out the board rectangle (x0, y0)–(x1, y1) mm of a Seashells calibration shot."""
    with open(cal_json) as f:
        doc = json.load(f)
    board = [[0, 0], [260, 0], [260, 310], [0, 310]]                  # the profile's board_mm, corner order
    H = cv2.getPerspectiveTransform(np.float32(board), np.float32(doc["corners_px"]))
    corners = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), H)[0]
    image_path = os.path.join(os.path.dirname(cal_json), doc["image"])
    image = cv2.imread(image_path)
    cv2.fillConvexPoly(image, np.int32(np.round(corners)), (255, 255, 255))
    cv2.imwrite(image_path, image, [cv2.IMWRITE_JPEG_QUALITY, 95])


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "seashells")), reason="shared samples absent")
def test_a_reflection_over_a_few_white_towel_cells_is_named_not_refused(tmp_path, capsys):
    cal_json = _calibration_only(os.path.join(SAMPLES, "seashells", "setup0"), str(tmp_path / "shot"))
    _paint_white(cal_json, 178, 18, 210, 114)                         # three of the white column's cells, no sample
    out = _calibrate_json(capsys, cal_json, str(tmp_path / "cal"))    # 3.8 % of the board blown out
    glare = [p["advice"] for p in out["confusable"] if "blows out the towel at" in p["advice"]]
    assert glare and glare[0].split(":")[0].count("/white") == 3, out["confusable"]


@pytest.mark.skipif(not os.path.isdir(os.path.join(SAMPLES, "seashells")), reason="shared samples absent")
def test_a_blown_out_calibration_sample_is_refused_as_glare(tmp_path, capsys):
    cal_json = _calibration_only(os.path.join(SAMPLES, "seashells", "setup0"), str(tmp_path / "shot"))
    _paint_white(cal_json, 178, 146, 210, 178)                        # the shell sample at 194,162 mm
    assert main(["calibrate", cal_json, "--out", str(tmp_path / "cal"), "--json"]) == 3
    err = json.loads(capsys.readouterr().out)["error"]
    assert err["code"] == "glare" and "194,162" in err["message"], err


def test_the_wizard_rings_the_cell_a_column_warning_suggests():
    advice = ("pink shells and the bare pink towel look alike in this light, and no empty pink cell is labelled: "
              "label one or two empty pink cells as empty (the one at 162,34 mm, for instance) and calibrate again")

    class Cal:
        extra = {"separability": {"confusable": [{"classes": ["shell", "empty"], "column": "pink", "doubt": 0.3,
                                                   "bare_cell_mm": [162, 34], "advice": advice}]}}
    [pair] = confusable_pairs(Cal())
    assert pair["place"] == ("pink: empty", [162, 34])
    assert "(the one marked 'pink: empty?' on the picture, for instance)" in pair["advice"] and " mm" not in pair["advice"]


def test_the_preview_rings_a_suggested_place_in_orange(tmp_path):
    from beachscore.station.wizard import preview
    cv2.imwrite(str(tmp_path / "calib.jpg"), np.full((300, 400, 3), 200, np.uint8))
    with open(tmp_path / "profile.json", "w") as f:
        json.dump({"board_mm": [200, 150]}, f)
    with open(tmp_path / "calibration.json", "w") as f:
        json.dump({"profile": "profile.json", "corners_px": [[0, 0], [400, 0], [400, 300], [0, 300]],
                   "samples": []}, f)
    plain = preview(str(tmp_path / "calib.jpg"), str(tmp_path / "calibration.json"), [])
    ringed = preview(str(tmp_path / "calib.jpg"), str(tmp_path / "calibration.json"), [], places=(("empty", [100, 75]),))
    changed = np.argwhere(np.any(plain.astype(int) != ringed.astype(int), axis=2))
    assert len(changed) and np.hypot(*(changed.mean(axis=0) - [150, 200])) < 40   # around (200, 150) px
    assert (ringed[149:152, 199:202] == plain[149:152, 199:202]).all()    # a ring: the cell itself left visible
