"""PIN and CSRF: every write needs both; the PIN is stored hashed; wrong PINs are rate-limited."""

import pytest

from web.security import PIN_SETTING, hash_pin, verify_pin

PIN = "2468"  # the PIN the ``unlocked`` fixture chose

WRITES = ["/api/scan", "/api/game-over", "/api/games", "/api/calibration/shot", "/api/calibration",
          "/api/scans/1/revisions", "/api/scans/1/rescore"]


@pytest.mark.parametrize("url", WRITES)
def test_writes_before_a_pin_exists_are_refused(client, url, csrf_of):
    token = csrf_of(client)
    r = client.post(url, json={}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "pin-not-set"


@pytest.mark.parametrize("url", WRITES)
def test_writes_without_the_pin_are_refused(app, unlocked, url, csrf_of):
    other = app.test_client()  # another phone: has a CSRF token, never entered the PIN
    token = csrf_of(other)
    r = other.post(url, json={}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "pin-required"


@pytest.mark.parametrize("url", WRITES)
def test_writes_without_csrf_are_refused_even_when_unlocked(unlocked, url):
    r = unlocked.client.post(url, json={})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf"
    r = unlocked.client.post(url, json={}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403


def test_a_write_without_the_pin_changes_nothing(app, station, unlocked, csrf_of):
    other = app.test_client()
    other.post("/api/scan", headers={"X-CSRF-Token": csrf_of(other)})
    station.wait_idle()
    assert station.store.count("scans") == 0
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    assert station.store.count("scans") == 1


def test_pin_is_stored_hashed_and_unlocks_another_browser(app, station, unlocked, csrf_of):
    stored = station.store.get_setting(PIN_SETTING)
    scheme, *params, salt_hex, hash_hex = stored.split("$")
    # (the PIN's digits may turn up inside the random salt's hex by chance: no field may be the PIN)
    assert scheme == "scrypt" and len(params) == 3 and PIN not in (salt_hex, hash_hex) and len(hash_hex) >= 32
    other = app.test_client()
    token = csrf_of(other)
    assert other.post("/pin", data={"pin": "0000", "csrf_token": token}).status_code == 403
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302
    assert other.post("/api/scan", headers={"X-CSRF-Token": token}).status_code == 202


def test_first_pin_must_be_digits_and_repeated(client, csrf_of):
    token = csrf_of(client)
    assert client.post("/pin", data={"pin": "12", "pin2": "12", "csrf_token": token}).status_code == 400
    assert client.post("/pin", data={"pin": "1234", "pin2": "1235", "csrf_token": token}).status_code == 400
    assert client.post("/pin", data={"pin": "1234", "csrf_token": "nope", "pin2": "1234"}).status_code == 403


def test_wrong_pins_lock_out(app, unlocked, csrf_of):
    other = app.test_client()
    token = csrf_of(other)
    for _ in range(5):
        assert other.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 429


def test_lock_this_browser(unlocked):
    unlocked.client.post("/pin", data={"action": "lock", "csrf_token": unlocked.csrf})
    assert unlocked.post_json("/api/scan").get_json()["error"]["code"] == "pin-required"


def test_hash_round_trip():
    h = hash_pin("9876")
    assert verify_pin("9876", h) and not verify_pin("9877", h) and not verify_pin("9876", "garbage")
    assert hash_pin("9876") != h  # salted


def _from(app, address):
    """A test client whose requests come from ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_wrong_pins_from_many_addresses_share_one_budget(app, unlocked, csrf_of):
    """Five wrong PINs per 30 s for the whole station: a second address gets no fresh five."""
    for i in range(5):
        attacker = _from(app, f"10.0.0.{60 + i}")
        token = csrf_of(attacker)
        assert attacker.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403
    newcomer = _from(app, "10.0.0.2")
    token = csrf_of(newcomer)
    refused = newcomer.post("/pin", data={"pin": PIN, "csrf_token": token})
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 30
    assert b"Too many wrong PINs" in refused.data  # the PIN page, with the reason
    # a browser unlocked before is not affected
    assert unlocked.post_json("/api/scan").status_code == 202


def test_pin_api_answers_json_and_shares_the_budget(app, unlocked, csrf_of):
    attacker = _from(app, "10.0.0.66")
    token = csrf_of(attacker)
    for _ in range(5):
        r = attacker.post("/api/pin", json={"pin": "1111"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 403 and r.get_json()["error"]["code"] == "pin-wrong"
    r = attacker.post("/api/pin", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 429 and r.is_json and int(r.headers["Retry-After"]) > 0
    assert r.get_json()["error"]["code"] == "pin-locked-out"
    form_as_json = attacker.post("/pin", data={"pin": PIN, "csrf_token": token}, headers={"Accept": "application/json"})
    assert form_as_json.status_code == 429 and form_as_json.get_json()["error"]["code"] == "pin-locked-out"


def test_the_window_slides_and_a_right_pin_costs_nothing(app, unlocked, csrf_of):
    from web.security import PinAttempts

    now = [100.0]
    app.extensions["pin_attempts"] = PinAttempts(clock=lambda: now[0])
    other = _from(app, "10.0.0.7")
    token = csrf_of(other)
    for _ in range(4):
        assert other.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302  # the 5th slot, given back
    assert other.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403  # … and used here
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 429
    now[0] += 30.0  # the window has passed
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302


def test_pin_attempts_keep_a_bounded_number_of_times():
    from web.security import PinAttempts

    now = [0.0]
    attempts = PinAttempts(max_attempts=2, window_s=30, clock=lambda: now[0])
    assert [attempts.try_take() for _ in range(50)][:3] == [0.0, 0.0, 30.0]
    assert len(attempts) == 2
    now[0] = 29.5
    assert attempts.try_take() == 0.5
    now[0] = 30.0
    assert attempts.try_take() == 0.0 and len(attempts) == 1


def test_overlong_pins_are_refused(client, csrf_of):
    token = csrf_of(client)
    long_pin = "1" * 33
    assert client.post("/pin", data={"pin": long_pin, "pin2": long_pin, "csrf_token": token}).status_code == 400


@pytest.mark.parametrize("token", ["é", "\u2603" * 8, "tok\x00en"])
def test_a_csrf_token_with_odd_characters_is_403_not_500(unlocked, token):
    """Headers and form fields arrive as latin-1/UTF-8 text; ``hmac.compare_digest`` refuses
    non-ASCII text with a TypeError (a 500) — an odd token is simply a wrong one."""
    r = unlocked.client.post("/api/games", json={"game": "strand-unter"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf"
    r = unlocked.client.post("/pin", data={"csrf_token": token, "pin": "1234"})
    assert r.status_code == 403


@pytest.mark.parametrize("pin", ["²²²²", "①②③④", "12³4"])
def test_a_first_pin_of_digit_like_signs_is_refused(client, csrf_of, pin):
    """``str.isdigit`` takes superscripts and circled numbers: such a PIN was stored, and no phone's
    number pad can type it again — the station stayed locked for good."""
    r = client.post("/api/pin", json={"pin": pin, "pin2": pin}, headers={"X-CSRF-Token": csrf_of(client)})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "pin-invalid"


def test_a_pin_typed_with_another_scripts_digits_is_the_same_pin(app, client, csrf_of):
    """A phone set to Arabic types ٢٤٦٨ for 2468: the same PIN, whichever keyboard chose it."""
    csrf = csrf_of(client)
    assert client.post("/api/pin", json={"pin": "٢٤٦٨", "pin2": "٢٤٦٨"}, headers={"X-CSRF-Token": csrf}).status_code == 200
    other = app.test_client()
    r = other.post("/api/pin", json={"pin": "2468"}, headers={"X-CSRF-Token": csrf_of(other)})
    assert r.status_code == 200 and r.get_json() == {"unlocked": True}


def test_a_lock_that_cannot_be_saved_says_it_lasts_only_until_a_restart(app, station, unlocked):
    """On a full disk "Lock" locked every browser in memory only: after the restart the page asks
    for ("free some space … restart"), a cookie copied before worked again, and nobody was told."""
    from beachscore.station.testing import FullDiskDatabase

    station.store._db = FullDiskDatabase(station.store._db)
    r = unlocked.post_json("/api/pin", {"action": "lock"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["unlocked"] is False and "until the station restarts" in body["warning"]
    assert "disk is full" in body["warning"] and "lock again" in body["warning"]
    assert unlocked.post_json("/api/scan").get_json()["error"]["code"] == "pin-required"  # locked now
