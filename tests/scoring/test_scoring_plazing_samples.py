"""The engine must reproduce every area verdict and player figure of the shared sample truths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import explain, score, validate

SAMPLES = Path(__file__).parents[2] / "../shared/samples"
TRUTHS = sorted((SAMPLES / "plazing").glob("setup*/scene_*.truth.json"))
IDS = [f"{p.parent.name}/{p.name}" for p in TRUTHS]


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def _setup_for(path):
    setup = path.with_name(path.name.replace(".truth.json", ".setup.json"))
    return load(setup) if setup.exists() else None


@pytest.mark.skipif(not TRUTHS, reason="shared Plażing samples absent")
def test_there_are_samples_with_closed_areas_and_disputes():
    areas = [a for p in TRUTHS for a in load(p)["areas"]]
    assert sum(a["closed"] for a in areas) > 20
    assert any(a["dispute"] for a in areas)
    assert any(a["owner"] == "neutral" for a in areas)


@pytest.mark.parametrize("path", TRUTHS, ids=IDS)
def test_every_area_matches_truth(path):
    truth = load(path)
    got = score(truth["state"], _setup_for(path))["areas"]
    assert len(got) == len(truth["areas"])
    for want, mine in zip(truth["areas"], got):
        assert {k: mine[k] for k in want} == want


@pytest.mark.parametrize("path", TRUTHS, ids=IDS)
def test_every_player_figure_matches_truth(path):
    truth = load(path)
    got = {p["player"]: p for p in score(truth["state"], _setup_for(path))["players"]}
    assert set(got) == {p["player"] for p in truth["players"]}
    for want in truth["players"]:
        assert {k: got[want["player"]][k] for k in want} == want


@pytest.mark.parametrize("path", TRUTHS, ids=IDS)
def test_sample_states_validate_serialise_and_explain(path):
    truth = load(path)
    setup = _setup_for(path)
    validate(truth["state"], setup)
    out = score(truth["state"], setup)
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    text = explain(truth["state"], setup)
    closed = sum(a["closed"] for a in truth["areas"])
    assert text.count(": closed, ") == closed
    assert "DISPUTE" in text if any(a["dispute"] for a in truth["areas"]) else "DISPUTE" not in text
