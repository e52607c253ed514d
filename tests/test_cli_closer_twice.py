"""``game --closer``: two different players named for the same area is the players contradicting
themselves; one of them must not be taken silently."""

import pytest

from beachscore.commands.game import told_closers
from beachscore.errors import BadInputError
from scoring.timeline.plazing import initial_facts, settle_closers


def test_the_same_place_given_twice_is_not_silently_resolved():
    try:
        told = told_closers(["N5-N7=red", "N5-N7=yellow"])
    except BadInputError as err:
        assert err.code == "invalid-closer"
        return
    pytest.fail(f"--closer N5-N7=red --closer N5-N7=yellow became {told}: red's word dropped without a word")


def test_one_area_named_with_a_hyphen_and_with_a_dash_for_two_players_is_a_problem():
    facts = dict(initial_facts(["red", "blue"]), doubted_closings=[
        {"cells": [[1, 1], [1, 2]], "owner": "red", "candidates": ["blue", "red"]}])
    settled, problems = settle_closers(facts, {"B2-C2": "red", "B2–C2": "blue"})
    assert problems, f"B2-C2=red and B2–C2=blue: closings {settled['closings']}, no problem reported"
