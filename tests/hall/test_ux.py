"""What a new user walking the README ran into on the organiser's pages, on SQLite and PostgreSQL."""

import html
import re

import pytest


def new_event(org, players="Anna, Sandbank\nBo\nCy\nDi", size="2"):
    r = org.post("/events", {"name": "Club night", "game": "strand-unter", "table_size": size})
    assert r.status_code == 302, r.get_data(as_text=True)
    eid = int(r.headers["Location"].split("/")[2])
    assert org.post(f"/events/{eid}/players", {"players": players}).status_code == 302
    return eid


def flashed(org, response) -> str:
    """The page a form's redirect lands on, as text."""
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    return html.unescape(org.get(response.headers["Location"]).get_data(as_text=True))


@pytest.mark.parametrize("again", ["Anna, Sandbank", "  anna ,  sandbank ", "ANNA", "Eve\nEve, Hel"])
def test_a_player_already_registered_is_refused_naming_them(organiser, store, again):
    """Adding ``Anna, Sandbank`` again said "2 players added" and made a second Anna."""
    eid = new_event(organiser)
    before = [(p["name"], p["club"]) for p in store.players(eid)]
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": "Fay\n" + again},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "is already registered in this event, so nothing was added" in page
    name = "Eve" if again.startswith("Eve") else "Anna (Sandbank)"
    assert f"{name} is already registered" in page
    assert [(p["name"], p["club"]) for p in store.players(eid)] == before  # not even Fay: nothing half-added


def test_two_players_of_one_name_from_different_clubs_are_still_welcome(organiser, store):
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "Anna, Hel"})
    assert [p["name"] for p in store.players(eid)].count("Anna") == 2


def test_a_line_with_more_than_name_and_club_is_refused(organiser, store):
    """``Gus, Club, extra`` became Gus of the club "Club, extra"."""
    eid = new_event(organiser)
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": "Fay\nGus, Club, extra"},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "line 2 (Gus, Club, extra) has more than a name and a club" in page and "name, club" in page
    assert not [p for p in store.players(eid) if p["name"] in ("Gus", "Fay")]
