"""The fit of the Seashells towel check's clear distance (``scripts/seashells_sample_check.py --fit``):
fitted on right samples, it refuses about one right set-up in ``REFUSED_SETUPS``."""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")
sys.path.insert(0, SCRIPTS)     # the script imports its sibling sand_castles_wave_check
_spec = importlib.util.spec_from_file_location("seashells_sample_check", os.path.join(SCRIPTS, "seashells_sample_check.py"))
sample_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sample_check)
sys.path.remove(SCRIPTS)


def test_the_fitted_distance_refuses_about_one_right_set_up_in_the_target(capsys):
    rng = np.random.default_rng(5)
    right = 0.4 + rng.gamma(2.0, 0.25, 20000)         # a light upper tail, like the measured distances
    made = 2.0 + rng.exponential(3.0, 1000)
    value = sample_check.fit_clear_rms_z(list(right), list(made), [10] * 2000)
    setups = (0.4 + rng.gamma(2.0, 0.25, (200000, 10))).max(axis=1)
    refused = float((setups > value).mean())
    assert 0.3 / sample_check.REFUSED_SETUPS < refused < 3.0 / sample_check.REFUSED_SETUPS
    assert "fitted bad_sample_clear_rms_z" in capsys.readouterr().out
