"""``scripts/fit_seashells_confidence.py`` recomputes a scene's confidence as the Seashells reader sets it."""

from __future__ import annotations

import importlib.util
import os

import pytest

from vision.mats.config import SEASHELLS as CFG

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "fit_seashells_confidence", os.path.join(HERE, "..", "..", "scripts", "fit_seashells_confidence.py"))
fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit)


def cell(p_shell, read, true, glared=0, blown=0.0):
    return {"margin": max(p_shell, 1 - p_shell), "read": read, "true": true, "wrong": read != true, "glared": glared,
            "covered": 0, "unlike": 0, "straddle": 0, "blown": blown}


def test_a_glared_cell_is_doubted_as_the_reader_does_and_trusted_only_by_the_measured_rule():
    clear_glare = cell(0.02, 0, 0, glared=1, blown=0.9)
    assert fit.place_confidence(clear_glare, None) == pytest.approx(CFG.covered_conf)
    assert fit.place_confidence(clear_glare, 0.97) == pytest.approx(0.97)
    assert fit.place_confidence(clear_glare, 0.97, seen_share=0.65) == pytest.approx(CFG.covered_conf)
    hard = cell(0.15, 0, 1)                                       # hard to read: capped whatever the rule
    assert fit.place_confidence(hard, 0.97) == pytest.approx(CFG.straddle_conf)
    assert fit.place_confidence(cell(0.999, 1, 1), None) == pytest.approx(0.999)


def test_the_right_share_never_reaches_one():
    assert fit.rate([cell(0.01, 0, 0)] * 8) == pytest.approx(0.9)
    assert fit.rate([cell(0.01, 0, 1)] + [cell(0.01, 0, 0)] * 2) == pytest.approx(0.6)
