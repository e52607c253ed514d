"""Seashells at the station: one scan per player's mat, the button reads the next missing mat, and the
game's score merges every player's latest mat with the set-up's secret cards and Sun shell."""


import pytest

from beachscore.errors import BadInputError, UnreadableBoardError
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import SEASHELLS_MATS, FakeCalibration, MatScanner, score_with_rules
from hardware.mock_camera import MockCamera

SETUP = {"players": ["red", "blue", "green"], "scoring": "advanced", "sun": {"shape": "cowrie", "colour": "pink"},
         "secrets": {"red": {"shapes": ["whelk"], "colours": ["green"]}}}


@pytest.fixture
def mats():
    return MatScanner()


@pytest.fixture
def st(tmp_path, mats):
    cal = FakeCalibration(game="seashells", profile={"game": "seashells", "board_mm": [260, 310]})
    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=cal,
                      scanner=mats, scorer=score_with_rules)
    yield station
    station.close()


def scan(st, **kw):
    answer = st.request_scan(**kw)
    assert answer.accepted, answer.reason
    assert st.wait_idle(10)
    return st.store.latest_scan()


def test_each_scan_reads_the_next_missing_mat_then_refuses(st, mats):
    game_id = st.new_game("seashells", SETUP)
    table = st.seashells_table(st.store.game(game_id))
    assert table["missing"] == ["red", "blue", "green"] and table["next"] == "red" and table["score"] is None
    first = scan(st, source="button")
    assert first["extra"]["mat_player"] == "red" and first["state"]["players"][0]["player"] == "red"
    scan(st, source="button")
    table = st.seashells_table(st.store.game(game_id))
    assert table["missing"] == ["green"] and not table["complete"]
    assert [p["player"] for p in table["score"]["players"]] == ["red", "blue"]  # provisional, the mats read so far
    scan(st, source="button")
    assert mats.players == ["red", "blue", "green"]
    q = st.events.subscribe()
    refused = st.request_scan("button")
    assert not refused.accepted and "every player's mat is read" in refused.reason
    ev = q.get_nowait()
    assert ev["kind"] == "scan-refused" and "every player's mat" in ev["data"]["reason"]
    assert mats.players == ["red", "blue", "green"]


def test_the_combined_score_uses_secrets_sun_and_each_players_latest_mat(st, mats):
    import scoring

    game_id = st.new_game("seashells", SETUP)
    for _ in SETUP["players"]:
        scan(st)
    table = st.seashells_table(st.store.game(game_id))
    assert table["complete"] and table["missing"] == [] and table["problems"] == []
    merged = {"game": "seashells", "scoring": "advanced", "sun": SETUP["sun"],
              "players": [{"player": p, **SEASHELLS_MATS[p]} for p in SETUP["players"]]}
    expected = scoring.score(merged, {"secrets": SETUP["secrets"]})
    assert table["score"] == expected
    red = next(p for p in table["score"]["players"] if p["player"] == "red")
    assert red["secrets_known"] and red["categories"]["colour:green"] >= 1  # the secret green card counts
    assert table["score"]["ranking"] and table["score"]["scoring"] == "advanced"

    # a rescan of blue's mat replaces it; a correction of it too
    mats.mats["blue"]["sand_dollars"] = 0
    again = scan(st, player="blue")
    table = st.seashells_table(st.store.game(game_id))
    assert table["mats"]["blue"]["scan_id"] == again["id"]
    blue = next(p for p in table["score"]["players"] if p["player"] == "blue")
    assert blue["sand_dollar_points"] == 0
    state = again["state"]
    state["players"][0]["sand_dollars"] = 3
    st.correct(again["id"], state, "three sand dollars")
    table = st.seashells_table(st.store.game(game_id))
    assert table["mats"]["blue"]["corrected"]
    assert next(p for p in table["score"]["players"] if p["player"] == "blue")["sand_dollar_points"] == 3


def test_a_failed_mat_scan_leaves_the_mat_missing(st, mats):
    game_id = st.new_game("seashells", SETUP)
    mats.error = UnreadableBoardError("board-not-found", "no mat in view")
    failed = scan(st)
    assert failed["status"] == "error" and failed["extra"]["mat_player"] == "red"
    mats.error = None
    assert st.seashells_table(st.store.game(game_id))["next"] == "red"
    assert scan(st)["extra"]["mat_player"] == "red"


def test_the_scan_setup_names_the_mat_and_leaves_the_player_list_out(st, mats):
    st.new_game("seashells", SETUP)
    seen = []
    original = mats.__call__

    def spy(image, cal, setup):
        seen.append(setup)
        return original(image, cal, setup)

    st.scanner = spy
    scan(st, player="green")
    assert seen == [{"scoring": "advanced", "sun": SETUP["sun"], "secrets": SETUP["secrets"], "player": "green"}]


def test_unknown_player_is_refused(st):
    st.new_game("seashells", SETUP)
    answer = st.request_scan("web", player="purple")
    assert not answer.accepted and "not a player" in answer.reason and not st.busy


def test_long_press_ends_a_fully_read_game_without_another_photo(st, mats):
    game_id = st.new_game("seashells", SETUP)
    for _ in range(3):
        scan(st)
    before = st.store.count("scans")
    assert st.end_game().accepted
    assert st.store.count("scans") == before and mats.players == ["red", "blue", "green"]
    assert st.store.game(game_id)["final_scan_id"] == st.store.latest_scan()["id"]


def test_game_over_with_mats_missing_reads_the_next_mat_then_takes_no_more(st, mats):
    game_id = st.new_game("seashells", SETUP)
    assert st.end_game().accepted  # mats missing: the final scan reads the next one
    st.wait_idle(10)
    assert st.store.game(game_id)["ended_at"] and mats.players == ["red"]
    for answer in (st.request_scan("web"), st.request_scan("web", player="blue"), st.end_game()):
        assert not answer.accepted and f"game {game_id} is over" in answer.reason
    assert st.wait_idle(10) and mats.players == ["red"]


def test_set_up_problems_are_checked_by_the_rules_engine(st):
    with pytest.raises(BadInputError) as err:
        st.new_game("seashells", {"players": ["red", "blue"], "sun": {"shape": "conch", "colour": "teal"},
                                  "secrets": {"red": {"shapes": ["conch", "whelk", "oyster"]}}})
    assert "teal" in err.value.message and "at most 2" in err.value.message
    with pytest.raises(BadInputError):  # one card held by two players
        st.new_game("seashells", {"players": ["red", "blue"], "secrets": {"red": {"shapes": ["conch"]},
                                                                          "blue": {"shapes": ["conch"]}}})


def test_games_without_players_scan_as_before(st, mats):
    st.new_game("seashells", {"player": "ana"})
    assert st.seashells_table(st.store.current_game()) is None
    out = scan(st)
    assert out["state"]["players"][0]["player"] == "ana" and "mat_player" not in out["extra"]
    assert st.request_scan("web").accepted  # never refused for "every mat read"
    st.wait_idle(10)
