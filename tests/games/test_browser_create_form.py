"""The new-game form in real headless Chromium: the seat count follows the chosen game's
bounds (the server checks them too: tests/games/test_views.py)."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_seat_count_takes_the_chosen_games_bounds(browser_page, live_server):
    make_user("fay")
    page = browser_page
    log_in(page, live_server.url, "fay")
    page.goto(f"{live_server.url}/games/new/")
    seats = page.locator("#id_seats_count")
    page.select_option("#id_ruleset", "5x")
    assert (seats.get_attribute("min"), seats.get_attribute("max")) == ("3", "6")
    seats.fill("6")
    page.select_option("#id_ruleset", "6x5")  # 2 to 5 seats: 6 becomes 5
    assert (seats.get_attribute("min"), seats.get_attribute("max"), seats.input_value()) == ("2", "5", "5")
    assert page.locator('[data-ruleset-options="6x5"] a[href="/games/rules/6x5/"]').is_visible()
