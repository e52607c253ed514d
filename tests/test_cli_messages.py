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


def test_a_file_given_as_calibration_folder_is_called_a_file(here, capsys):
    (here / "notes.md").write_text("# notes\n")
    shutil.copy(os.path.join(EXAMPLE, "scene_05.jpg"), here / "photos" / "scene.jpg")
    assert main(["scan", "photos/scene.jpg", "--calibration", "notes.md", "--json"]) == 2
    err, _ = _error(capsys)
    assert err["code"] == "calibration-missing"
    assert "notes.md is a file, not a calibration folder" in err["message"], err
    assert "calibrate notes.md" not in err["message"]
