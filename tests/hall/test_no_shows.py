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


def test_the_no_shows_ids_are_kept_and_older_revisions_are_read_by_their_note(organiser, app):
    """Ana (A) played, scored 0 and was typed last (rank 4): only the saved ids tell her from the no-show
    Ana (D). A revision saved before the ids were kept is read by its note; when that cannot
    pick the no-shows, nobody is ticked and the page says so."""
    eid, ids = _table_of_four(organiser, app)
    played, absent = ids[("Ana", "A")], ids[("Ana", "D")]
    form = {"action": "enter", f"gp_{played}": "0", f"gp_{ids[('Bo', 'B')]}": "10", f"gp_{ids[('Cy', 'C')]}": "5",
            f"rank_{played}": "4", f"rank_{ids[('Bo', 'B')]}": "1", f"rank_{ids[('Cy', 'C')]}": "2",
            f"noshow_{absent}": "1"}
    assert organiser.post(f"/events/{eid}/rounds/1/tables/1", form).status_code == 302
    store = app.extensions["hall_store"]
    current = store.table(eid, 1, 1)["current"]
    assert current["ranks"][played] == current["ranks"][absent] == 4 and current["game_points"][played] == 0
    assert current["no_shows"] == [absent]
    assert _ticked(organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)) == {absent}
    with store.engine.begin() as conn:  # as a revision saved before the ids were kept
        conn.execute(store.t["results"].update().values(no_shows_json=None))
    page = html.unescape(organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True))
    assert _ticked(page) == set() and "players of the same name cannot be told apart" in page


def test_a_database_from_before_the_no_shows_column_is_migrated(db_url, tmp_path):
    from sqlalchemy import create_engine, text

    from hall.db import open_engine
    from hall.migrations import migrate
    from hall.store import HallStore

    engine = create_engine(db_url)
    assert migrate(engine, target=3) == 3
    engine.dispose()
    store = HallStore(open_engine(db_url), photo_dir=str(tmp_path / "photos"))
    try:
        eid = store.create_event("Night", "strand-unter", {})
        store.add_players(eid, [{"id": "", "name": n, "club": ""} for n in ("Ana", "Bo")])
        store.start_round(eid, seed=1)
        store.enter_result(eid, 1, 1, {"game_points": {"p1": 3, "p2": 1}})
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == 4
        assert store.table(eid, 1, 1)["current"]["no_shows"] is None
    finally:
        store.close()
