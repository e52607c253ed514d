"""The command line's one-line errors say what is wrong in the user's terms: the right code for a
well-formed file with wrong content, every missing field at once, and files named as given."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from beachscore.cli import main

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "strand-unter")


def _error(capsys) -> tuple[dict, str]:
    """The JSON error on stdout and the one line on stderr of the command just run."""
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    doc = json.loads(out)["error"]
    assert lines[0].endswith(f"[{doc['code']}]")
    return doc, lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A working folder holding ``cal/`` (the example's profile) and ``photos/``, as the current folder."""
    (tmp_path / "cal").mkdir()
    (tmp_path / "photos").mkdir()
    shutil.copy(os.path.join(EXAMPLE, "profile.json"), tmp_path / "cal" / "profile.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_empty_calibration_names_every_missing_field(here, capsys):
    (here / "cal" / "calibration.json").write_text("{}")
    assert main(["calibrate", "cal/calibration.json", "--out", "out", "--json"]) == 2
    err, line = _error(capsys)
    assert err["code"] == "invalid-calibration", err
    assert all(f"'{field}'" in err["message"] for field in ("profile", "image", "samples", "corners_px")), err
    assert line.startswith("beachscore: error: cal/calibration.json: missing ")


def test_wrong_fields_are_named_together(here, capsys):
    (here / "cal" / "calibration.json").write_text(json.dumps({"profile": "profile.json", "samples": {}}))
    assert main(["calibrate", "cal/calibration.json", "--out", "out", "--json"]) == 2
    err, _ = _error(capsys)
    assert err["code"] == "invalid-calibration"
    assert "'image'" in err["message"] and "'corners_px'" in err["message"] and "'samples' must be a list" in \
        err["message"], err
    assert "'profile'" not in err["message"]


def test_a_calibration_that_is_not_json_stays_invalid_json(here, capsys):
    (here / "cal" / "calibration.json").write_text("{nope")
    assert main(["calibrate", "cal/calibration.json", "--out", "out", "--json"]) == 2
    assert _error(capsys)[0]["code"] == "invalid-json"


def test_a_file_given_as_calibration_folder_is_called_a_file(here, capsys):
    (here / "notes.md").write_text("# notes\n")
    shutil.copy(os.path.join(EXAMPLE, "scene_05.jpg"), here / "photos" / "scene.jpg")
    assert main(["scan", "photos/scene.jpg", "--calibration", "notes.md", "--json"]) == 2
    err, _ = _error(capsys)
    assert err["code"] == "calibration-missing"
    assert "notes.md is a file, not a calibration folder" in err["message"], err
    assert "calibrate notes.md" not in err["message"]


def test_a_missing_and_an_unreadable_photo_are_named_alike(here, capsys, strand_cal):
    (here / "photos" / "bad.jpg").write_bytes(b"not a photo")
    assert main(["scan", "photos/missing.jpg", "--calibration", strand_cal, "--json"]) == 2
    assert _error(capsys)[1].startswith("beachscore: error: photos/missing.jpg: no such file")
    assert main(["scan", "photos/bad.jpg", "--calibration", strand_cal, "--json"]) == 2
    assert _error(capsys)[1].startswith("beachscore: error: photos/bad.jpg is not a readable photo")


@pytest.mark.parametrize("change,start", [
    ({"profile": "nope.json"}, "beachscore: error: profile cal/nope.json: no such file"),
    ({"image": "missing.jpg"}, "beachscore: error: cal/missing.jpg: no such file"),
    ({"image": "profile.json"}, "beachscore: error: cal/profile.json is not a readable photo"),
])
def test_files_a_calibration_names_are_named_from_where_the_user_is(here, capsys, change, start):
    doc = json.loads(open(os.path.join(EXAMPLE, "calibration.json")).read())
    (here / "cal" / "calibration.json").write_text(json.dumps({**doc, **change}))
    assert main(["calibrate", "cal/calibration.json", "--out", "out", "--json"]) == 2
    assert _error(capsys)[1].startswith(start)
