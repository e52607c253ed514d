"""A finished Strand unter game as a player meets it afterwards: History shows the totals Game over
gave, and a correction of the final scan keeps Game over's answers, replaces the reading it corrects
in the timeline and settles the reader's warnings about what it corrected."""

from __future__ import annotations

import copy
import re

import pytest

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import STRAND_STATE, FakeCalibration, FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera
from web import create_app

#: What the reader doubts about the yellow castle (its warning, as the pipeline words it).
DOUBT = "the yellow castle in groove 2 may be worth 2 rather than 1"
#: A warning about the photo, which no correction of the reading settles.
MOVED = "the board moved 3 mm"


@pytest.fixture
def finished(tmp_path, make_unlocked):
    """A Strand unter game without buckets, scanned, ended with a second scan, Game over answered (red 1 unfit white
    shell, yellow none): (station, unlocked client, game id, final scan id)."""
    scanner = FakeScanner(STRAND_STATE, scorer=score_with_rules, warnings=(DOUBT, MOVED))
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=scanner, scorer=score_with_rules)
    client = make_unlocked(create_app({"TESTING": True}, station=st).test_client())
    game_id = st.new_game("strand-unter", {})
    assert st.request_scan("test").accepted and st.wait_idle(20)
    assert st.end_game("web").accepted and st.wait_idle(20)
    scan_id = st.store.scans(game_id=game_id, limit=5)[0]["id"]
    st.answer_questions(game_id, {"red/unfit/white": 1, "yellow/unfit/white": 0})
    yield st, client, game_id, scan_id
    st.close()


def chips(html: str) -> list[str]:
    """History's player chips as text: ``"red 2"`` (label and total)."""
    out = []
    for chip in re.findall(r'<span class="chip player" data-player="(\w+)">(.*?)</span>\s*(?=<span class="chip|</p>)',
                           html, re.S):
        out.append(chip[0] + " " + re.sub(r"<[^>]+>", " ", chip[1]).split()[-1])
    return out


def test_history_shows_the_totals_game_over_gave(finished):
    station, client, game_id, scan_id = finished
    final = station.game_ending(game_id)["score"]
    totals = {p["player"]: p["total"] for p in final["players"]}
    assert None not in totals.values()
    html = client.get("/history").get_data(as_text=True)
    row = html.split(f'data-scan-id="{scan_id}"')[1]
    assert chips(row.split("</li>")[0]) == [f"{p} {t}" for p, t in totals.items()]
    # the game's filter shows the same
    html = client.get(f"/history?game={game_id}").get_data(as_text=True)
    assert "?</span>" not in html.split(f'data-scan-id="{scan_id}"')[1].split("</li>")[0]


def yellow_worth(value: int) -> dict:
    """The reading with the yellow castle in groove 2 worth ``value``."""
    state = copy.deepcopy(STRAND_STATE)
    state["grooves"][1]["castles"] = [{"player": "yellow", "value": value}]
    return state


def test_the_editors_score_of_the_final_scan_keeps_game_overs_answers(finished):
    station, client, game_id, scan_id = finished
    final = station.game_ending(game_id)["score"]
    r = client.post_json(f"/api/scans/{scan_id}/rescore", {"state": STRAND_STATE})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["score"]["players"] == final["players"]
    r = client.post_json(f"/api/scans/{scan_id}/rescore", {"state": yellow_worth(2)})
    totals = {p["player"]: p["total"] for p in r.get_json()["score"]["players"]}
    assert totals == {"red": 3 - 1, "yellow": 4}  # red: castle 2 in groove 1, one unfit shell


def test_a_corrected_castle_replaces_the_misread_one_in_the_timeline(finished):
    station, client, game_id, scan_id = finished
    r = client.post_json(f"/api/scans/{scan_id}/revisions", {"state": yellow_worth(2)})
    assert r.status_code == 201, r.get_json()
    follow = client.get("/api/latest").get_json()["follow"]
    built = follow["timeline"]["built"]
    assert sorted((c["player"], c["value"], c["groove"]) for c in built) == [("red", 2, 1), ("yellow", 2, 2)]
    totals = {p["player"]: p["total"] for p in follow["ending"]["score"]["players"]}
    assert totals == {"red": 2, "yellow": 4}
    history = client.get("/history").get_data(as_text=True).split(f'data-scan-id="{scan_id}"')[1].split("</li>")[0]
    assert chips(history) == ["red 2", "yellow 4"]


def test_the_warning_a_correction_settled_is_shown_as_settled(finished):
    station, client, game_id, scan_id = finished
    assert client.get("/api/latest").get_json()["scan"]["warnings"] == [DOUBT, MOVED]
    client.post_json(f"/api/scans/{scan_id}/revisions", {"state": yellow_worth(2)})
    scan = client.get("/api/latest").get_json()["scan"]
    assert scan["warnings"] == [MOVED] and scan["settled_warnings"] == [DOUBT]
    page = client.get(f"/scans/{scan_id}").get_data(as_text=True)
    assert f"<s>{DOUBT}</s> settled by the correction" in page and f"⚠ {DOUBT}" not in page
    assert station.store.scan(scan_id)["warnings"] == [DOUBT, MOVED]  # the stored reading stays as read


def test_history_lists_players_in_the_game_pages_order(tmp_path, make_unlocked):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=FakeScanner(STRAND_STATE, scorer=score_with_rules), scorer=score_with_rules)
    try:
        client = make_unlocked(create_app({"TESTING": True}, station=st).test_client())
        st.new_game("strand-unter", {}, {"swatches": {"yellow": "#fbc02d", "red": "#d32f2f"}})
        assert st.request_scan("test").accepted and st.wait_idle(20)
        assert [p["player"] for p in st.store.latest_scan()["current_score"]["players"]] == ["red", "yellow"]
        assert [c.split()[0] for c in chips(client.get("/history").get_data(as_text=True))] == ["yellow", "red"]
    finally:
        st.close()
