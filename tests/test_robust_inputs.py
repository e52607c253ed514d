"""Inputs an adversarial tester handed in: each is refused or reported once, with what is wrong."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

GOMRADE = "/work/shared/real/go-gomrade/setup0/calibration.json"


def test_learned_classes_lists_each_grid_class_once_as_labelled():
    """The grid model's bare names (``black``) are its ``cell/black`` labels: one list."""
    if not os.path.isfile(GOMRADE):
        pytest.skip("shared go-gomrade calibration not present")
    from beachscore.pipeline import learned_classes

    cal = SimpleNamespace(model={"classes": {"black": 4, "empty": 9, "white": 4}})
    assert learned_classes(cal, GOMRADE) == ["cell/black", "cell/empty", "cell/white"]
    extra = SimpleNamespace(model={"classes": {"black": 4, "screen/red/N": 1}})
    assert learned_classes(extra, GOMRADE) == ["cell/black", "cell/empty", "cell/white", "screen/red/N"]
