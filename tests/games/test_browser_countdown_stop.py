"""The live countdown can be stopped (WCAG 2.2.2, Pause, Stop, Hide: content that updates
by itself every second, beside the rest of the page, needs a way to stop it). In real
headless Chromium: the button stops it, the choice holds across pages and reloads, and the
deadline's date and time stay shown."""

from __future__ import annotations

import re

import pytest

from tests.games.core_support import start_fixed
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COUNTING = "() => /left$/.test(document.querySelector('[data-countdown]').textContent)"


def test_the_countdown_stops_and_starts_again_and_the_choice_holds(browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game, _seats = start_fixed(["ann", "bob", "cat"], deadline_hours=2)
    other, _others = start_fixed(["ann", "dan", "eve"], deadline_hours=5)
    page = browser_page
    log_in(page, live_server.url, "ann")
    # The page's clock is Playwright's (it runs as a clock does): "a tick or more later"
    # is run at once instead of waited for.
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    countdown = page.locator("[data-countdown]")
    page.wait_for_function(COUNTING)
    # (1 h 5x min: a slow machine takes a while to load the page.)
    assert re.fullmatch(r"1 h [0-5]\d min \d\d s left", countdown.inner_text()), countdown.inner_text()
    stop = page.get_by_role("button", name="Stop the countdown")
    stop.click()
    assert countdown.inner_text() == ""
    page.clock.run_for(1500)  # a tick or more later it has not come back
    assert countdown.inner_text() == ""
    assert page.get_by_role("button", name="Show the countdown").is_visible()
    # The deadline itself is still there, as a date and a time.
    deadline = page.locator("time[datetime]").first
    assert deadline.is_visible() and deadline.inner_text().strip() != ""
    # The choice holds on a reload and on another game's page.
    page.reload()
    page.clock.run_for(1200)
    assert page.locator("[data-countdown]").inner_text() == ""
    page.goto(f"{live_server.url}/games/{other.pk}/")
    page.clock.run_for(1200)
    assert page.locator("[data-countdown]").inner_text() == ""
    page.get_by_role("button", name="Show the countdown").click()
    page.wait_for_function(COUNTING)
    assert re.fullmatch(r"4 h [0-5]\d min \d\d s left", page.locator("[data-countdown]").inner_text())
    assert page.get_by_role("button", name="Stop the countdown").is_visible()
