"""The command line's contract: JSON shapes, exit codes, one JSON per line, the worst exit code."""
from __future__ import annotations

import json
import os


from beachscore.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "strand-unter")
PHOTO = os.path.join(EXAMPLE, "scene_05.jpg")


def test_calibrate_json_summary(tmp_path, capsys):
    assert main(["calibrate", os.path.join(EXAMPLE, "calibration.json"), "--out", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "strand-unter"
    assert {"sea", "sand", "shell/white", "shell/black"} <= set(doc["classes"])
    assert doc["confusable"] == [] and doc["warnings"] == []  # the example's light tells every class apart


def test_scan_json_shape(strand_cal, capsys):
    rc = main(["scan", PHOTO, "--calibration", strand_cal, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {"game", "state", "score", "confidence", "warnings", "timing_ms"} <= set(doc)
    assert 0.0 <= doc["confidence"] <= 1.0 and isinstance(doc["warnings"], list)
    assert set(doc["timing_ms"]) == {"decode", "register", "detect", "score"}
    st = doc["state"]
    assert st["game"] == "strand-unter" and 1 <= st["sea_front"] <= 12
    assert [g["number"] for g in st["grooves"]] == list(range(1, st["sea_front"]))
    for g in st["grooves"]:
        assert set(g["shells"]) == {"white", "gray", "brown", "black"}
        assert all(isinstance(v, int) and v >= 0 for v in g["shells"].values())
        assert all(set(c) == {"player", "value"} and 0 <= c["value"] <= 3 for c in g["castles"])
    assert st["sandpiper"] is None or 1 <= st["sandpiper"] < st["sea_front"]


def test_scan_several_one_line_each_and_worst_code(strand_cal, tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"nope")
    rc = main(["scan", PHOTO, str(bad), PHOTO, "--calibration", strand_cal, "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert rc == 2 and len(lines) == 3
    docs = [json.loads(x) for x in lines]
    assert "state" in docs[0] and "error" in docs[1] and "state" in docs[2]


def test_scan_annotate_folder(strand_cal, tmp_path, capsys):
    out = tmp_path / "ann"
    assert main(["scan", PHOTO, PHOTO, "--calibration", strand_cal, "--annotate", str(out)]) == 0
    assert (out / "scene_05.annotated.png").stat().st_size > 1000


def test_unreadable_board_exit_3(strand_cal, tmp_path, capsys):
    import cv2

    img = cv2.imread(PHOTO) // 12          # far darker than the calibration
    p = tmp_path / "dark.jpg"
    cv2.imwrite(str(p), img)
    rc = main(["scan", str(p), "--calibration", strand_cal, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 3 and doc["error"]["code"] == "too-dark"


def test_other_camera_mode_is_exit_3(strand_cal, tmp_path, capsys):
    import cv2

    p = tmp_path / "small.jpg"
    cv2.imwrite(str(p), cv2.resize(cv2.imread(PHOTO), (1000, 600)))
    rc = main(["scan", str(p), "--calibration", strand_cal, "--json"])
    assert rc == 3 and json.loads(capsys.readouterr().out)["error"]["code"] == "registration-lost"


def test_score_state_round_trip(strand_cal, tmp_path, capsys):
    main(["scan", PHOTO, "--calibration", strand_cal, "--json"])
    doc = json.loads(capsys.readouterr().out)
    p = tmp_path / "state.json"
    p.write_text(json.dumps(doc["state"]))
    assert main(["score", str(p), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["score"] == doc["score"]
