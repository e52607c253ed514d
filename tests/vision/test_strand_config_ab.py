"""``scripts/strand_config_ab.py``: the constants it sets for the B arm, their restoring, and the judge's
tallies of a scene."""


import pytest

from vision.strand_unter import config
from tests.script_module import load_script


def _script():
    return load_script("strand_config_ab")


def test_parse_set_types_follow_the_field():
    mod = _script()
    assert mod.parse_set("READING.fg_noise_k=0") == ("READING", "fg_noise_k", 0.0)
    assert isinstance(mod.parse_set("READING.fg_noise_k=0")[2], float)
    assert mod.parse_set("READING.open_px=3") == ("READING", "open_px", 3)
    assert mod.parse_set("READING.sand_top_brighter_only=false")[2] is False
    with pytest.raises(ValueError):
        mod.parse_set("READING.no_such_field=1")
    with pytest.raises(ValueError):
        mod.parse_set("NO_SUCH_CONFIG.fg_noise_k=1")


def test_constants_are_set_inside_and_restored_after():
    mod = _script()
    before = config.READING.fg_noise_k, config.CASTLES.tower_pool_weight
    with mod.constants_set([("READING", "fg_noise_k", 0.0), ("CASTLES", "tower_pool_weight", 2.0)]):
        assert config.READING.fg_noise_k == 0.0 and config.CASTLES.tower_pool_weight == 2.0
    assert (config.READING.fg_noise_k, config.CASTLES.tower_pool_weight) == before
    with pytest.raises(RuntimeError):
        with mod.constants_set([("READING", "fg_noise_k", 1.0)]):
            raise RuntimeError("a scan failed")
    assert config.READING.fg_noise_k == before[0]


def test_outcome_kinds_as_the_judge_counts_them():
    mod = _script()
    k = mod.outcome_kind
    assert k(False, "read", True, 0.9) == {"n": 1, "right": 1, "trusted": 1, "silent": 0, "clean_refused": 0}
    assert k(False, "read", True, 0.3)["trusted"] == 0
    assert k(False, "read", False, 0.6)["silent"] == 1
    assert k(False, "read", False, 0.4)["silent"] == 0
    assert k(True, "occluded", None, None) == {"n": 1, "right": 1, "trusted": 1, "silent": 0, "clean_refused": 0}
    assert k(False, "too-blurred", None, None)["clean_refused"] == 1
    total = k(False, "read", True, 0.9) + k(True, "read", False, 0.7) + k(False, "occluded", None, None)
    assert mod.tally_line(total) == "1/3 1 1 1"
