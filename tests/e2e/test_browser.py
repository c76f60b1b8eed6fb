"""A real browser at the table (issue 19): headless Chromium, driven by Selenium, opens the
page, types a login into the terminal, joins the table where a telnet player sits, and sees
the table screen (read from xterm.js's own buffer through the page's ``window.bbspoker``).

Needs Debian's ``chromium`` and ``chromium-driver``; without them it is skipped with how to
get them (``.ci/run`` installs both). ``BBSPOKER_SCREENSHOT=FILE.png`` also saves a
screenshot of the page at the table (``docs/screen-browser.png`` was made so).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time

import pytest

from tests.support.tableplay import join
from tests.support.telnetclient import TelnetClient, running_server

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
HOW = ("needs headless Chromium: apt-get install chromium chromium-driver "
       "(Debian's packages; .ci/run installs them)")


def _browse(url: str, handle: str, screenshot: str | None) -> tuple[str, list]:
    """In a thread: open ``url``, log in as a new user ``handle``, join the table;
    returns (the terminal's text at the table, the browser's console errors)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.keys import Keys

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,760", "--proxy-server=127.0.0.1:9",
                "--proxy-bypass-list=127.0.0.1"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.get(url)

        def screen() -> str:
            return driver.execute_script(
                "return window.bbspoker ? window.bbspoker.screen().join('\\n') : ''")

        def wait(text: str, timeout: float = 10.0) -> str:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                shown = screen()
                if text in shown:
                    return shown
                time.sleep(0.05)
            raise AssertionError(f"{text!r} not on the page's terminal:\n{screen()}")

        # The title screen (the page draws it while it connects, then the door), then a
        # key once the socket is open goes on to the login.
        wait("Global Village BBS")
        keys = driver.find_element("css selector", ".xterm-helper-textarea")
        deadline = time.monotonic() + 10
        while not driver.execute_script(
                "var s = document.getElementById('status');"
                "return s.textContent === s.dataset.connected;"):
            assert time.monotonic() < deadline, "the page's socket did not open"
            time.sleep(0.05)
        wait("[Press any key]")
        keys.send_keys(" ")
        wait("Handle:")
        keys.send_keys(handle + Keys.ENTER)
        wait(f"Create new user {handle}? (y/n)")
        keys.send_keys("y")
        wait("Password:")
        keys.send_keys("pw-browser-1" + Keys.ENTER)
        wait("again")
        keys.send_keys("pw-browser-1" + Keys.ENTER)
        wait("[Q]")
        keys.send_keys("p")
        wait("Join the table? (y/n)")
        keys.send_keys("y")
        shown = wait(f"{handle} [1,000 CUBES]")
        if screenshot:
            time.sleep(0.3)
            driver.save_screenshot(screenshot)
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        return shown, errors
    finally:
        driver.quit()


@pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=HOW)
async def test_a_browser_logs_in_and_sits_at_a_telnet_players_table(tmp_path):
    async with running_server(tmp_path, web={"enabled": True}) as server:
        alice = await TelnetClient.connect(server.port)
        try:
            await alice.login("alice", "pw-alice")
            await join(alice, "Nobody is using the poker game right now.")
            shown, errors = await asyncio.to_thread(
                _browse, f"http://127.0.0.1:{server.web_port}/", "dora",
                os.environ.get("BBSPOKER_SCREENSHOT"))
            await alice.wait_for("dora has joined the table.")
        finally:
            await alice.close()
    # The table screen, as the telnet players see theirs: alice seated, the commands.
    assert "║ alice" in shown and "Master ...... alice" in shown     # the colour look
    assert "[X] Exit the game" in shown and "Welcome to the table, dora." in shown
    # No blocked request, no script error: the policy and the page agree.
    assert errors == []
