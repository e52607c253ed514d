"""A mislabelled Strand unter sample is the one named, not its partner left alone in its class
(the bundled example: two shells of each colour)."""

import json
import os
import shutil

import pytest

from beachscore.cli import main

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter")


def mislabel(tmp_path, capsys, wrong: int, label: str) -> tuple[str, float, float]:
    """Calibrate a copy of the example with sample ``wrong`` relabelled; the error line and its board_mm."""
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    doc = json.loads((folder / "calibration.json").read_text())
    x, y = doc["samples"][wrong]["board_mm"]
    doc["samples"][wrong]["label"] = label
    (folder / "calibration.json").write_text(json.dumps(doc))
    rc = main(["calibrate", str(folder / "calibration.json"), "--out", str(tmp_path / "cal")])
    err = capsys.readouterr().err
    assert rc == 2 and "bad-sample" in err, err
    return err, x, y


@pytest.mark.parametrize("wrong, label", [(4, "shell/black"), (2, "shell/black")])
def test_a_shell_unlike_the_rest_of_its_label_is_named_alone(tmp_path, capsys, wrong, label):
    err, x, y = mislabel(tmp_path, capsys, wrong, label)
    assert f"error: calibration sample '{label}' at {x:g},{y:g} mm looks like" in err, err


def test_when_the_mislabel_leaves_a_shell_alone_both_are_named(tmp_path, capsys):
    """A white shell labelled grey lies among the grey ones' colours (close in this light): only its
    partner, the one white left, looks wrong. Either label may be the wrong one: both are named."""
    err, x, y = mislabel(tmp_path, capsys, 0, "shell/gray")
    assert "the only shell/white sample, looks like shell/gray" in err, err
    assert f"most like calibration sample 'shell/gray' at {x:g},{y:g} mm" in err, err
