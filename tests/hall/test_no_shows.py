"""Which players a saved result counts as no-shows, read back for a correction (SQLite and PostgreSQL)."""

import html
import re


def _table_of_four(organiser, app):
    r = organiser.post("/events", {"name": "Night", "game": "strand-unter", "table_size": "4"})
    eid = int(r.headers["Location"].split("/")[2])
    assert organiser.post(f"/events/{eid}/players", {"players": "Ana, A\nBo, B\nCy, C\nAna, D"}).status_code == 302
    assert organiser.post(f"/events/{eid}/rounds").status_code == 302
    store = app.extensions["hall_store"]
    clubs = {p["id"]: p.get("club") for p in store.event_doc(eid)["players"]}
    seated = store.table(eid, 1, 1)["players"]
    return eid, {(p["name"], clubs[p["id"]]): p["id"] for p in seated}


def _ticked(page: str) -> set[str]:
    return set(re.findall(r'id="noshow-([^"]+)" value="1" checked', page))


def test_a_no_show_and_a_player_of_the_same_name_with_0_points_are_told_apart(organiser, app):
    eid, ids = _table_of_four(organiser, app)
    played, absent = ids[("Ana", "A")], ids[("Ana", "D")]
    form = {"action": "enter", f"gp_{played}": "0", f"gp_{ids[('Bo', 'B')]}": "10", f"gp_{ids[('Cy', 'C')]}": "5",
            f"noshow_{absent}": "1"}
    assert organiser.post(f"/events/{eid}/rounds/1/tables/1", form).status_code == 302
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert _ticked(page) == {absent}
    resaved = {k: v for k, v in form.items()}  # the form as the page shows it, saved again
    assert organiser.post(f"/events/{eid}/rounds/1/tables/1", resaved).status_code == 302
    current = app.extensions["hall_store"].table(eid, 1, 1)["current"]
    assert current["kind"] == "correct" and current["ranks"][played] == 3 and current["ranks"][absent] == 4
    assert _ticked(organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)) == {absent}


def test_no_shows_that_cannot_be_told_apart_are_not_ticked_and_the_page_says_so(organiser, app):
    eid, ids = _table_of_four(organiser, app)
    played, absent = ids[("Ana", "A")], ids[("Ana", "D")]
    form = {"action": "enter", f"gp_{played}": "0", f"gp_{ids[('Bo', 'B')]}": "10", f"gp_{ids[('Cy', 'C')]}": "5",
            f"rank_{played}": "4", f"rank_{ids[('Bo', 'B')]}": "1", f"rank_{ids[('Cy', 'C')]}": "2",
            f"noshow_{absent}": "1"}
    assert organiser.post(f"/events/{eid}/rounds/1/tables/1", form).status_code == 302
    current = app.extensions["hall_store"].table(eid, 1, 1)["current"]
    assert current["ranks"][played] == current["ranks"][absent] == 4 and current["game_points"][played] == 0
    page = html.unescape(organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True))
    assert _ticked(page) == set() and "players of the same name cannot be told apart" in page
