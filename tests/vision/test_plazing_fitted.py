"""The Plażing constants fitted by ``scripts/fit_plazing.py`` are read from ``vision/plazing/fitted.json``:
the values the reader uses are the fitted ones, bit for bit, and the script writes a file the
config reads back unchanged."""

import importlib.util
import json
import os

from vision.plazing import config, seam_config

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "fit_plazing.py")

#: The values the reader was measured with (docs/tuning.md, "Plażing: fitted constants").
EXPECTED_TOKENS = {"t_dof": 4.0, "scene_spread": 8.0}
EXPECTED_SLOPES = {"cover": 1.29, "token": 0.58, "split": 1.01, "facing": 1.98, "print": 1.41}
#: The seam constants (``scripts/fit_plazing_seams.py``; docs/tuning.md, "Splits into pieces").
EXPECTED_SEAMS = {"cut_sd_bgr": 240.0, "joined_spread": 1.0, "jog_spread": 0.5, "jog_t_dof": 2.0,
                  "aligned_cut_share": 0.05, "placed_sd_mm": 4.0}
EXPECTED_SCENE_MAP = {"intercept": 0.0, "slope": 1.0}  #: the identity: fitted.json has none


def test_fitted_values_are_the_measured_ones_bit_for_bit():
    assert config.TOKENS.t_dof.hex() == EXPECTED_TOKENS["t_dof"].hex()
    assert config.TOKENS.scene_spread.hex() == EXPECTED_TOKENS["scene_spread"].hex()
    assert list(config.CONFIDENCE.slopes) == list(EXPECTED_SLOPES)
    assert {k: v.hex() for k, v in config.CONFIDENCE.slopes.items()} == \
        {k: v.hex() for k, v in EXPECTED_SLOPES.items()}
    assert config.CONFIDENCE.intercept.hex() == EXPECTED_SCENE_MAP["intercept"].hex()
    assert config.CONFIDENCE.slope.hex() == EXPECTED_SCENE_MAP["slope"].hex()
    assert {k: getattr(seam_config.SEAM, k).hex() for k in EXPECTED_SEAMS} == \
        {k: v.hex() for k, v in EXPECTED_SEAMS.items()}


def test_fitted_file_names_what_it_was_fitted_on():
    doc = json.loads(config.FITTED_FILE.read_text(encoding="utf-8"))
    assert doc["script"] == "scripts/fit_plazing.py"
    for part in ("tokens", "confidence"):
        made_on = doc[part]["fitted_on"]
        assert made_on["sets"], part
        assert all(":" in s for s in made_on["sets"]), made_on
    assert any(s.startswith("judge/plazing-1080-20259:") for s in doc["confidence"]["fitted_on"]["sets"])
    assert doc["seams"]["script"] == "scripts/fit_plazing_seams.py"
    assert doc["seams"]["fitted_on"] == doc["confidence"]["fitted_on"]
    # the held-out development tables (seeds 20233, 20234) are fitted on by neither
    assert not any("2023" in s for s in doc["seams"]["fitted_on"]["sets"] + doc["confidence"]["fitted_on"]["sets"])


def test_the_fitting_script_writes_a_file_the_config_reads_back(tmp_path):
    spec = importlib.util.spec_from_file_location("fit_plazing", SCRIPT)
    fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit)
    made_on = fit.fitted_on([str(tmp_path / "samples" / "plazing")], None, [3])
    slopes = dict(reversed(list(EXPECTED_SLOPES.items())))          # the config's order is kept
    out = tmp_path / "fitted.json"
    fit.write_fitted(str(out), {"t_dof": 4, "scene_spread": 11}, made_on, slopes, made_on)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["tokens"]["t_dof"].hex() == (4.0).hex() and isinstance(doc["tokens"]["scene_spread"], float)
    assert list(doc["confidence"]["slopes"]) == list(EXPECTED_SLOPES)
    assert doc["confidence"]["slopes"] == EXPECTED_SLOPES
    assert doc["tokens"]["fitted_on"] == {"sets": ["samples/plazing: "], "synthetic_seeds": [3]}
    # the file in the package is what the script writes for those values over it (the constants
    # other scripts fit, the flatness floors, the seams, the drift, the footprint, the darkness and the
    # print pitch, kept)
    packaged = json.loads(config.FITTED_FILE.read_text(encoding="utf-8"))
    again = tmp_path / "again.json"
    kept = ("flatness", "seams", "drift", "footprint", "darkness", "print_pitch")
    again.write_text(json.dumps({k: packaged[k] for k in kept if k in packaged}), encoding="utf-8")
    fit.write_fitted(str(again), packaged["tokens"], packaged["tokens"]["fitted_on"],
                     packaged["confidence"]["slopes"], packaged["confidence"]["fitted_on"],
                     (packaged["confidence"]["intercept"], packaged["confidence"]["slope"])
                     if "intercept" in packaged["confidence"] else None)
    assert again.read_text(encoding="utf-8") == config.FITTED_FILE.read_text(encoding="utf-8")


def _seam_script():
    spec = importlib.util.spec_from_file_location("fit_plazing_seams", os.path.join(HERE, "..", "..", "scripts",
                                                                                    "fit_plazing_seams.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _kept_group(dip: float, truth: list) -> dict:
    """A kept two-cell gear group as ``fit_plazing_seams.read_folder`` stores it (prints alike)."""
    return {"scene": "setup0/scene_00", "px_per_mm": 1.3, "cells": [[0, 0], [0, 1]],
            "dips": {"[[0, 0], [0, 1]]": dip}, "jogs": {}, "seam_sd": 1.5, "jog_sd": 0.25,
            "places": [["gear", [[0, 0]], 0.0], ["gear", [[0, 1]], 0.0], ["gear", [[0, 0], [0, 1]], 0.0]],
            "truth": truth}


def test_the_seam_script_weighs_a_kept_group_as_the_reader_splits_it(tmp_path):
    fit = _seam_script()
    two = [["gear", [[0, 0]]], ["gear", [[0, 1]]]]
    one = [["gear", [[0, 0], [0, 1]]]]
    ll, right, p = fit.weigh(fit.parsed(_kept_group(90.0, two)), seam_config.SEAM)
    assert right and p > 0.99 and ll > -0.01
    ll, right, p = fit.weigh(fit.parsed(_kept_group(90.0, one)), seam_config.SEAM)
    assert not right and ll < -4.0
    out = tmp_path / "fitted.json"
    out.write_text(json.dumps({"flatness": {}}), encoding="utf-8")
    fit.write(str(out), seam_config.SEAM, {"sets": ["dev/plazing-720-20201: setup0"], "synthetic_seeds": []})
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["flatness"] == {} and set(fit.GRID) <= set(doc["seams"])
    assert doc["seams"]["fitted_on"]["sets"] == ["dev/plazing-720-20201: setup0"]


#: The scene's colour drift (``scripts/fit_plazing_drift.py``; docs/tuning.md, "The scene's colour drift").
EXPECTED_DRIFT = {"drift_sure": 0.999, "drift_min_cells": 3, "drift_min_total": 1, "drift_share": 1.0,
                  "drift_rounds": 3, "drift_hold": True}


def test_drift_constants_are_the_fitted_ones():
    assert {k: getattr(config.TOKENS, k) for k in EXPECTED_DRIFT} == EXPECTED_DRIFT
