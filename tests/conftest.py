"""Fixtures shared across the test tree."""

import os

import pytest

from beachscore.cli import main

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "strand-unter")


@pytest.fixture(scope="session")
def strand_cal(tmp_path_factory):
    """A calibration folder learned from the bundled Strand unter example (examples/strand-unter)."""
    out = str(tmp_path_factory.mktemp("strand-cal"))
    assert main(["calibrate", os.path.join(EXAMPLE, "calibration.json"), "--out", out]) == 0
    return out
