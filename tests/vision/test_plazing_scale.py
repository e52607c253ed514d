"""The Plażing confidence slopes as a function of the photo's scale: the scale read from the
homography, the slopes taken for it (``ConfidenceConfig.at_scale``), and ``scripts/fit_plazing_scale.py``
recovering a known law and replaying a reading's confidence as the ledger gives it."""

import dataclasses
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from vision.plazing.config import CONFIDENCE
from vision.plazing.ledger import Decision, Ledger
from vision.plazing.rectify import photo_px_per_mm

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")

LAW = {"slopes": {"cover": 1.3, "token": 0.8, "split": 2.8, "facing": 2.5, "print": 1.5},
       "scale_powers": {"split": 1.5, "token": 0.5}, "scale_ref_px_per_mm": 1.4,
       "scale_range_px_per_mm": (0.8, 1.4)}


def _script():
    sys.path.insert(0, SCRIPTS)
    spec = importlib.util.spec_from_file_location("fit_plazing_scale", os.path.join(SCRIPTS, "fit_plazing_scale.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_photo_scale_is_the_homographys_local_px_per_mm():
    assert photo_px_per_mm(np.diag([0.9, 0.9, 1.0]), (200, 150)) == pytest.approx(0.9)
    a = np.deg2rad(7)
    H = np.array([[1.3 * np.cos(a), -1.3 * np.sin(a), 40], [1.3 * np.sin(a), 1.3 * np.cos(a), -12], [0, 0, 1]])
    assert photo_px_per_mm(H, (10, 300)) == pytest.approx(1.3)
    P = np.array([[1.2, 0.05, 30], [-0.02, 1.1, 20], [2e-4, -1e-4, 1.0]])  # a tilted camera

    def project(x, y):
        v = P @ [x, y, 1.0]
        return v[:2] / v[2]

    x, y, d = 180.0, 140.0, 1e-3
    u, v = project(x + d, y) - project(x, y), project(x, y + d) - project(x, y)
    area = abs(u[0] * v[1] - u[1] * v[0]) / d ** 2
    assert photo_px_per_mm(P, (x, y)) == pytest.approx(np.sqrt(area), rel=1e-5)


def test_slopes_follow_the_scale_within_the_fitted_range():
    cfg = dataclasses.replace(CONFIDENCE, **LAW)
    assert dataclasses.replace(CONFIDENCE, scale_powers={}).at_scale(0.9).slopes == CONFIDENCE.slopes
    assert cfg.at_scale(None) is cfg
    at_ref = cfg.at_scale(1.4).slopes
    assert at_ref == pytest.approx(LAW["slopes"])
    coarse = cfg.at_scale(0.8).slopes
    assert coarse["split"] == pytest.approx(2.8 * (0.8 / 1.4) ** 1.5)
    assert coarse["token"] == pytest.approx(0.8 * (0.8 / 1.4) ** 0.5)
    assert coarse["cover"] == pytest.approx(1.3)                         # no power: no change
    assert cfg.at_scale(0.5).slopes == pytest.approx(coarse)             # clamped to the range
    assert cfg.at_scale(3.0).slopes == pytest.approx(at_ref)
    assert cfg.at_scale(0.8).scale_powers == {}


def test_a_ledger_for_a_coarse_photo_doubts_its_splits_more():
    cfg = dataclasses.replace(CONFIDENCE, **LAW)
    confs = []
    for scale in (1.4, 0.85):
        led = Ledger.for_photo((2, 2), scale, cfg)
        led.add(Decision("split", [(0, 0), (0, 1)], 0.8))
        led.add_many("cover", [(0, 0), (1, 1)], [0.99, 0.999])
        assert led.px_per_mm == scale
        confs.append(led.confidence())
    assert confs[1] < confs[0] < 1.0


def test_the_fit_recovers_a_known_power_law():
    fit = _script()
    rng = np.random.default_rng(3)
    s = rng.choice([0.85, 1.35], 6000)
    x = rng.normal(2.0, 1.5, s.size)                                     # the decisions' log-odds
    b = 1.5 * (s / 1.07) ** 2.0                                          # the true slope law
    y = (rng.random(s.size) < 1 / (1 + np.exp(-b * x))).astype(float)
    b_ref, g, gain = fit.fit_kind(np.stack([x, y, np.ones_like(x), s], 1), 1.07, 0.85, 1.35)
    assert b_ref == pytest.approx(1.5, rel=0.15) and g == pytest.approx(2.0, abs=0.5) and gain > 10


def test_replayed_confidence_is_the_ledgers(tmp_path):
    fit = _script()
    cfg = dataclasses.replace(CONFIDENCE, **LAW)
    led = Ledger.for_photo((3, 3), 0.9, CONFIDENCE)
    for kind, p in (("split", 0.7), ("token", 0.93), ("facing", 0.96), ("token", 1.0)):
        led.add(Decision(kind, [(0, 0)], p))
    led.add_many("cover", [(1, 1), (2, 2), (0, 2)], [0.97, 0.999, 1.0])
    p, sure = {}, {}
    for kind, ps in [(d.kind, [d.p]) for d in led.decisions] + [(k, list(q)) for k, _, q, _ in led.bulk]:
        p.setdefault(kind, []).extend(v for v in ps if v < fit.SURE)
        sure[kind] = sure.get(kind, 0) + sum(v >= fit.SURE for v in ps)
    row = {"px_per_mm": 0.9, "p": p, "sure": sure, "alternatives": [], "confidence": led.confidence(),
           "read_log_p": led.log_p(), "log_p": led.log_p()}
    assert fit.replayed(row, CONFIDENCE) == pytest.approx(led.confidence(), rel=1e-9)
    assert fit.replayed(row, cfg) == pytest.approx(led.confidence(cfg.at_scale(0.9)), rel=1e-9)
    # the law written into a copy of fitted.json is what the config would read
    path = tmp_path / "fitted.json"
    path.write_text(open(os.path.join(HERE, "..", "..", "vision", "plazing", "fitted.json")).read())
    fit.write(str(path), dict(LAW, scale_range_px_per_mm=list(LAW["scale_range_px_per_mm"])), ["renders/dev/x"])
    doc = json.loads(path.read_text())["confidence"]
    assert doc["slopes"] == LAW["slopes"] and doc["scale_powers"] == LAW["scale_powers"]
    assert tuple(doc["scale_range_px_per_mm"]) == LAW["scale_range_px_per_mm"]
    assert doc["fitted_on"]["script"] == "scripts/fit_plazing_scale.py" and list(doc)[-1] == "fitted_on"
