"""The hall's systemd unit: it restarts the hall whatever stopped it, and lets it open the files
its connection cap needs (issue 22, item 1)."""

import configparser
import os

from hall.serve import SPARE_FILES, WAITRESS

UNIT = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "beachscore-hall.service")


def _unit() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    with open(UNIT, encoding="utf-8") as f:
        unit.read_file(f)
    return unit


def test_the_unit_runs_the_hall_and_restarts_it():
    unit = _unit()
    service = unit["Service"]
    assert " hall " in service["ExecStart"] and service["ExecStart"].split()[0].endswith("/beachscore")
    assert service["Restart"] == "always"
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"


def test_the_unit_allows_the_files_the_connection_cap_needs():
    assert int(_unit()["Service"]["LimitNOFILE"]) >= WAITRESS["connection_limit"] + SPARE_FILES
