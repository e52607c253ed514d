"""The SQLite store: schema version, scans all-or-nothing, revisions keep the reading, photos by id."""

import os
import sqlite3

import pytest

from beachscore.station.store import Store, StoreError
from beachscore.station.store.schema import VERSION
from beachscore.station.testing import STRAND_STATE, fake_score

RESULT = {"game": "strand-unter", "state": STRAND_STATE, "score": fake_score(STRAND_STATE), "confidence": 0.8,
          "warnings": ["w"], "timing_ms": {"detect": 3.0}}


def test_schema_is_versioned_and_wal(store):
    assert store.schema_version == VERSION
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.integrity_check() == "ok"


def test_a_newer_schema_is_refused(tmp_path):
    s = Store(str(tmp_path))
    s._db.execute(f"PRAGMA user_version={VERSION + 1}")
    s.close()
    with pytest.raises(StoreError) as err:
        Store(str(tmp_path))
    assert err.value.code == "store-version"


def test_scan_round_trip_with_photos(store):
    game = store.new_game("strand-unter", {"players": {}}, {"names": {"red": "Ana"}})
    sid = store.add_scan(game_id=game, source="web", photo_jpeg=b"jpegbytes", annotated_png=b"pngbytes",
                         result=RESULT, timing_ms={"capture": 5.0}, extra={"H_px_from_mm": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]})
    scan = store.scan(sid)
    assert scan["state"] == STRAND_STATE and scan["current_state"] == STRAND_STATE
    assert scan["timing_ms"] == {"detect": 3.0, "capture": 5.0}
    assert scan["confidence"] == 0.8 and scan["warnings"] == ["w"] and scan["status"] == "ok"
    path, media = store.photo_file(scan["photo_id"])
    assert open(path, "rb").read() == b"jpegbytes" and media == "image/jpeg"
    assert store.photo_file(scan["annotated_photo_id"])[1] == "image/png"
    assert store.current_game()["display"] == {"names": {"red": "Ana"}}
    assert store.latest_scan()["id"] == sid and [s["id"] for s in store.scans(game_id=game)] == [sid]


def test_revisions_keep_the_machine_reading(store):
    sid = store.add_scan(game_id=None, source="web", photo_jpeg=b"x", result=RESULT)
    fixed = {**STRAND_STATE, "sea_front": 2}
    rid = store.add_revision(sid, fixed, {"players": []}, "sea front was wrong")
    scan = store.scan(sid)
    assert scan["state"] == STRAND_STATE  # kept
    assert scan["current_state"] == fixed and scan["revisions"][0]["id"] == rid
    assert scan["revisions"][0]["note"] == "sea front was wrong" and scan["revisions"][0]["created_at"]
    with pytest.raises(StoreError):
        store.add_revision(999, fixed, {})


def test_error_scans_are_kept(store):
    sid = store.add_scan(game_id=None, source="button", photo_jpeg=b"x",
                         error={"code": "occluded", "message": "a hand is over the board"})
    scan = store.scan(sid)
    assert scan["status"] == "error" and scan["error"]["code"] == "occluded" and scan["state"] is None


def test_unknown_photo_ids_and_foreign_names_are_not_found(store):
    with pytest.raises(StoreError):
        store.photo_file(12345)
    # a row whose file name is not one the store makes is never opened
    store._db.execute("INSERT INTO photos(filename, kind, media_type, bytes, sha256, created_at) "
                      "VALUES('../../etc/passwd', 'photo', 'image/jpeg', 0, '', '')")
    bad_id = store._db.execute("SELECT id FROM photos WHERE filename LIKE '%passwd'").fetchone()[0]
    with pytest.raises(StoreError):
        store.photo_file(bad_id)


def test_orphans_and_temporary_files_are_removed_on_open(tmp_path):
    s = Store(str(tmp_path))
    kept = s.add_photo(b"kept")
    s.close()
    photos = tmp_path / "photos"
    (photos / ".tmp-abc").write_bytes(b"half")
    (photos / ("ab" * 12 + ".jpg")).write_bytes(b"orphan")
    s = Store(str(tmp_path))
    assert s.removed_orphans == 2
    assert sorted(os.listdir(photos)) == [os.path.basename(s.photo_file(kept)[0])]
    s.close()


def test_failed_transaction_leaves_nothing(store, monkeypatch):
    before = store.count("scans"), store.count("photos")
    with pytest.raises(sqlite3.Error):
        store.add_scan(game_id=424242, source="web", photo_jpeg=b"x", result=RESULT)  # no such game: FK fails
    assert (store.count("scans"), store.count("photos")) == before


@pytest.mark.parametrize("bad_id", [10 ** 23, -(10 ** 23), 2 ** 63, 1.5, "3", True, None])
def test_ids_sqlite_cannot_hold_are_not_found(store, bad_id):
    for lookup in (store.scan, store.game, store.photo_file):
        with pytest.raises(StoreError) as err:
            lookup(bad_id)
        assert err.value.code == "not-found"
    assert store.scans(game_id=bad_id) == []


def test_a_photo_folder_deleted_while_running_refuses_writes_and_says_why(store):
    """Only ``photos/`` gone (the database stays): a scan's photo cannot be written, which was an
    OSError (the station's "internal error", a 500 on uploads) while the page said all was well."""
    import shutil

    game = store.new_game("strand-unter")
    shutil.rmtree(store.photo_dir)
    problem = store.problem()
    assert problem is not None and problem.code == "data-folder-missing" and "photos" in problem.message
    for write in (lambda: store.add_photo(b"jpegbytes"),
                  lambda: store.add_scan(game_id=game, source="web", photo_jpeg=b"jpegbytes", result=RESULT)):
        with pytest.raises(StoreError) as err:
            write()
        assert err.value.code == "data-folder-missing"
    assert store.count("scans") == 0 and store.count("photos") == 0
