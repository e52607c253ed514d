"""The Seashells light check per colour column: a column whose bare towel looks like faint shells is named
at calibration, with what helps; a good table says nothing more (docs/light-check.md)."""

import json

import cv2
import numpy as np

from beachscore.cli import main
from beachscore.games import reader
from calibration.light_check import column_check
from calibration.separability import fitted_column_doubt
from tests.synthetic.mats import PX_PER_MM, SEASHELLS_PROFILE as PROFILE, scale_homography, seashells_mat
from vision.seashells import reader as seashells
from vision.seashells.column_light import bare_towel_doubt

from mats_helpers import photo, shot, write_calibration

CAL_SHELLS = [(0, 0, 0, 0), (1, 3, 0, 0), (2, 6, 0, 0), (4, 5, 0, 0), (5, 1, 0, 0), (6, 4, 0, 0), (3, 2, 0, 0)]
ITEMS = [("fossil/head", 40, 272, 0), ("fossil/tail", 90, 272, 30), ("sand_dollar", 140, 272, 0),
         ("bottle", 195, 272, -20)]
#: Empty samples in every colour column but pink (column 4), and the pink one.
EMPTY_NOT_PINK = [(0, 2), (1, 1), (3, 3), (3, 5), (6, 6), (2, 0)]
EMPTY_PINK = [(5, 4)]
PINK = 4


def cell_mm(r, c):
    return 18 + 32 * c + 16, 18 + 32 * r + 16


def samples(empties):
    return ([("shell", cell_mm(r, c)) for r, c, _, _ in CAL_SHELLS] + [("empty", cell_mm(r, c)) for r, c in empties]
            + [(k, (x, y)) for k, x, y, _ in ITEMS])


def printed(img, column: int, shells, strength: float = 0.05):
    """The towel's print (five dots in every cell) showing faintly in one colour column's bare cells, as a
    light that brings out that column's print shows it: blended ``strength`` toward black."""
    inked = img.copy()
    taken = {(r, c) for r, c, _, _ in shells}
    for r in range(len(PROFILE["towel"]["rows"])):
        if (r, column) in taken:
            continue
        x, y = cell_mm(r, column)
        for dx, dy in ((-5, -4), (4, 3), (-3, 5), (5, -5), (0, 0)):
            centre = (int((x + dx) * PX_PER_MM), int((y + dy) * PX_PER_MM))
            cv2.circle(inked, centre, int(1.5 * PX_PER_MM), (0, 0, 0), -1)
    return cv2.addWeighted(img, 1 - strength, inked, strength, 0)


def calibrate(tmp_path, capsys, image, empties) -> tuple[int, dict, dict]:
    """``beachscore calibrate --json`` on a synthetic shot: (exit code, its JSON, the folder's separability)."""
    cal_json = write_calibration(str(tmp_path), "seashells", PROFILE, image, samples(empties))
    capsys.readouterr()
    code = main(["calibrate", cal_json, "--out", str(tmp_path / "cal"), "--json"])
    out = json.loads(capsys.readouterr().out)
    with open(tmp_path / "cal" / "calibration.json") as f:
        return code, out, json.load(f)["separability"]


def test_bare_towel_doubt_is_the_median_of_the_cells_not_labelled_shells():
    p = np.array([0.9, 0.0, 0.2, 0.0, 0.4, 0.0, 1.0, 0.0])   # 4 rows × 2 columns
    assert bare_towel_doubt(p, [6], 2).tolist() == [0.4, 0.0]
    assert np.isnan(bare_towel_doubt(p, [0, 2, 4, 6], 2)[0])


def test_a_column_whose_bare_towel_looks_like_faint_shells_is_named_with_what_helps(tmp_path, capsys):
    shot_img = printed(seashells_mat(CAL_SHELLS, ITEMS, seed=1), PINK, CAL_SHELLS)
    code, out, sep = calibrate(tmp_path, capsys, shot_img, EMPTY_NOT_PINK)
    assert code == 0   # a calibration that warns still succeeds
    doubts = {c["column"]: c["doubt"] for c in sep["columns"]}
    assert doubts["pink"] > sep["column_threshold"] == fitted_column_doubt("seashells")
    assert max(d for name, d in doubts.items() if name != "pink") <= sep["column_threshold"]
    named = [p for p in out["confusable"] if "pink" in p["advice"]]
    assert len(named) == 1 and named[0]["classes"] == ["shell", "empty"]
    assert named[0]["advice"].startswith("pink shells and the bare pink towel look alike in this light")
    assert "label one or two empty pink cells as empty" in named[0]["advice"]
    assert named[0]["advice"] in out["warnings"]
    assert [p["column"] for p in sep["confusable"] if "column" in p] == ["pink"]
    assert named[0]["column"] == "pink" and named[0]["doubt"] == doubts["pink"]
    pink = next(c for c in sep["columns"] if c["column"] == "pink")
    x, y = pink["bare_cell_mm"]
    assert x == cell_mm(0, PINK)[0] and (round((y - 34) / 32), PINK) not in {(r, c) for r, c, _, _ in CAL_SHELLS}
    assert f"(the one at {x:g},{y:g} mm, for instance)" in named[0]["advice"]


def test_the_named_column_is_what_the_scans_of_that_table_doubt():
    shot_img = printed(seashells_mat(CAL_SHELLS, ITEMS, seed=1), PINK, CAL_SHELLS)
    scene_shells = [(0, 4, 0, 0), (2, 1, 0, 0), (5, 5, 0, 0)]
    # the scene's light brings the print out a little more than the shot's (at the shot's own strength the
    # widened empty class may read the scene right and sure, as it should)
    scene = printed(seashells_mat(scene_shells, ITEMS, seed=5), PINK, scene_shells, strength=0.06)
    for empties, doubted in ((EMPTY_NOT_PINK, True), (EMPTY_NOT_PINK + EMPTY_PINK, False)):
        model = seashells.learn(shot("seashells", PROFILE, shot_img, samples(empties)))
        named = column_check("seashells", PROFILE, shot_img, scale_homography(), samples(empties), model,
                             columns=reader("seashells").light_columns)["named"]
        reading = seashells.read(photo("seashells", PROFILE, model, scene))
        hard = [w for w in reading.warnings if w.startswith("towel cells hard to read") and "/pink" in w]
        assert bool(named) == doubted and bool(hard) == doubted
        assert (reading.confidence < 0.5) == doubted


def test_a_good_table_says_nothing_more(tmp_path, capsys):
    code, out, sep = calibrate(tmp_path, capsys, seashells_mat(CAL_SHELLS, ITEMS, seed=1), EMPTY_NOT_PINK)
    assert code == 0 and out["confusable"] == [] and out["warnings"] == []
    assert len(sep["columns"]) == len(PROFILE["towel"]["cols"])
    assert max(c["doubt"] for c in sep["columns"]) <= sep["column_threshold"]


def test_other_games_have_no_column_check():
    assert fitted_column_doubt("plazing") is None
    assert column_check("plazing", {}, np.zeros((4, 4, 3), np.uint8), np.eye(3), [], {}) == {}
    assert reader("plazing").light_columns({}, np.zeros((4, 4, 3), np.uint8), np.eye(3), [], {}) is None
