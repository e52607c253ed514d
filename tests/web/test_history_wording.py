"""The history list and a scan's page say what asked for a scan in words and name players with their
swatch and set-up name; the JSON keeps the stored fields as they are."""

import html
import re


def chips(page: str) -> dict:
    """``{label: chip text}`` of the history list's player chips (tags stripped, spaces collapsed)."""
    out = {}
    for label, body in re.findall(r'<span class="chip player" data-player="([^"]+)">(.*?)</b></span>', page, re.S):
        out[label] = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    return out


def test_history_says_the_source_in_words_and_names_players_with_a_swatch(unlocked, station):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {},
                                      "display": {"names": {"red": "Ana"}, "swatches": {"red": "#cc2233"}}})
    assert unlocked.post_json("/api/scan").status_code == 202  # a scan asked for from the page: source "web"
    station.wait_idle()
    station.request_scan("button")
    station.wait_idle()
    page = unlocked.get("/history").get_data(as_text=True)
    sources = re.findall(r'<span class="source">([^<]*)</span>', page)
    assert sources == ["by the button", "from the page"]  # newest first
    assert "· web" not in page
    shown = chips(page)
    assert shown["red"] == "Ana red 2" and shown["yellow"] == "yellow 2"  # fake_score: value × groove
    assert '<span class="chip player" data-player="red"><span class="swatch" style="background:#cc2233">' in page
    assert '<span class="chip player" data-player="yellow"><span class="swatch" style="background:yellow">' in page
    scans = unlocked.get("/api/scans").get_json()["scans"]
    assert [s["source"] for s in scans] == ["button", "web"]  # the JSON is unchanged
    scan_page = unlocked.get(f"/scans/{scans[-1]['id']}").get_data(as_text=True)
    assert "· from the page ·" in scan_page


def test_an_unknown_total_says_why_and_a_label_that_is_no_colour_gets_no_swatch(unlocked, station):
    from web.history import player_chip

    assert player_chip("p1", {})["swatch"] is None
    assert player_chip("red; background:url(x)", {})["swatch"] is None
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    station.scorer = station.scanner.scorer = lambda state, setup=None: {
        "players": [{"player": "red", "castle_points": 2, "total": None}]}
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    page = unlocked.get("/history").get_data(as_text=True)
    assert chips(page)["red"] == "red ?"
    assert 'title="total not known yet' in page
