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
    assert PIN not in stored and stored.startswith("scrypt$")
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


def test_a_locked_out_address_does_not_lock_out_the_owner(app, unlocked, csrf_of):
    attacker = _from(app, "10.0.0.66")
    token = csrf_of(attacker)
    for _ in range(5):
        assert attacker.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403
    locked = attacker.post("/pin", data={"pin": PIN, "csrf_token": token})
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    assert b"Too many wrong PINs" in locked.data  # the PIN page, with the reason
    owner = _from(app, "10.0.0.2")  # the owner's phone, same moment
    token = csrf_of(owner)
    assert owner.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302
    assert owner.post("/api/scan", headers={"X-CSRF-Token": token}).status_code == 202


def test_pin_api_answers_json_and_is_locked_out_per_address(app, unlocked, csrf_of):
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
    owner = _from(app, "10.0.0.2")
    token = csrf_of(owner)
    r = owner.post("/api/pin", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json() == {"unlocked": True}


def test_a_right_pin_resets_the_count(app, unlocked, csrf_of):
    other = _from(app, "10.0.0.7")
    token = csrf_of(other)
    for _ in range(4):
        other.post("/pin", data={"pin": "1111", "csrf_token": token})
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302
    for _ in range(4):
        assert other.post("/pin", data={"pin": "1111", "csrf_token": token}).status_code == 403
    assert other.post("/pin", data={"pin": PIN, "csrf_token": token}).status_code == 302


def test_pin_attempts_remember_a_bounded_number_of_addresses():
    from web.security import PinAttempts

    now = [0.0]
    attempts = PinAttempts(max_failures=2, lockout_s=30, max_clients=3, clock=lambda: now[0])
    attempts.failed("a"), attempts.failed("a")
    assert attempts.locked_for("a") == 30
    for address in "bcd":
        attempts.failed(address)
    assert len(attempts) == 3 and attempts.locked_for("a") == 0  # forgotten: least recently seen
    attempts.failed("b"), attempts.failed("b")
    now[0] = 29.5
    assert attempts.locked_for("b") == 0.5 and attempts.locked_for("c") == 0
    now[0] = 31
    assert attempts.locked_for("b") == 0


def test_overlong_pins_are_refused(client, csrf_of):
    token = csrf_of(client)
    long_pin = "1" * 33
    assert client.post("/pin", data={"pin": long_pin, "pin2": long_pin, "csrf_token": token}).status_code == 400
