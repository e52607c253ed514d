"""Headless Chromium for the browser tests (Selenium with Debian's chromium and chromium-driver)."""

import contextlib
import os
import shutil
import tempfile

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def installed() -> bool:
    """Whether both the browser and its driver are on this machine."""
    return os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)


def require_chromium():
    """Skip the calling test module unless Selenium, Chromium and its driver are installed; returns
    ``selenium.webdriver``. Call at module level, before importing from ``selenium``."""
    import pytest

    webdriver = pytest.importorskip("selenium.webdriver")
    if not installed():
        pytest.skip("Chromium/chromedriver not installed (apt-get install chromium chromium-driver)",
                    allow_module_level=True)
    return webdriver


@contextlib.contextmanager
def headless_chromium(window: str = "1400,1000"):
    """A Selenium Chrome driver on a throw-away profile, quit and removed on exit.

    Args:
        window: the window size in CSS px, ``"width,height"``.
    Raises:
        selenium.common.exceptions.WebDriverException: the browser does not start.
    """
    from selenium import webdriver

    os.environ.setdefault("SE_AVOID_STATS", "true")
    profile = tempfile.mkdtemp(prefix="chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={window}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
