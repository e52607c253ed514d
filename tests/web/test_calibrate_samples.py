"""The calibration wizard's sample list (web/static/app.css ``.samples``) at a phone's 390 px:
one column, so no number of a second column runs into the first column's text."""

import pathlib

from tests.chromium import headless_chromium, require_chromium

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402

CSS = pathlib.Path(__file__).resolve().parents[2] / "web" / "static" / "app.css"


def test_the_sample_list_is_one_column_on_a_phone(tmp_path):
    items = "".join(f"<li>shell/brown @ {1193 + k}, {16 + k}</li>" for k in range(14))
    page = tmp_path / "samples.html"
    page.write_text(f'<!doctype html><meta name="viewport" content="width=device-width">'
                    f'<link rel="stylesheet" href="{CSS.as_uri()}"><main><section class="card">'
                    f'<ol id="samples" class="samples">{items}</ol></section></main>')
    with headless_chromium(window="500,900") as browser:
        # the window cannot be narrower than 500 px: the phone's width is emulated
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 390, "height": 900, "deviceScaleFactor": 1, "mobile": True})
        browser.get(page.as_uri())
        assert browser.execute_script("return window.innerWidth") <= 400
        lefts = {round(li.rect["x"]) for li in browser.find_elements(By.CSS_SELECTOR, "#samples li")}
        assert len(lefts) == 1, f"the samples are laid out in {len(lefts)} columns at 390 px"
