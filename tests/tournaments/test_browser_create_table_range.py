"""The new-tournament form says how many players the chosen game seats at a table (the
tournaments audit: the table sizes field said "4, 3 or 2" whatever the game, and an
organizer of 4X Dice duels learned the range only from the game select's label)."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_table_sizes_field_names_the_chosen_games_range(browser_page, live_server):
    make_user("tara")
    page = browser_page
    log_in(page, live_server.url, "tara")
    page.goto(f"{live_server.url}/tournaments/new/")
    ranges = page.locator("[data-table-range]")
    page.select_option("#id_ruleset", "4x-dice")
    assert [ranges.nth(i).inner_text() for i in range(ranges.count()) if ranges.nth(i).is_visible()] == [
        "4X Dice: tables of 2 to 6 players (2 for duels)."
    ]
    page.select_option("#id_ruleset", "5x")
    assert [ranges.nth(i).inner_text() for i in range(ranges.count()) if ranges.nth(i).is_visible()] == [
        "5X: tables of 3 to 6 players."
    ]
    # the line is read with the field (its description), as the field's own help is
    described = page.locator("#id_table_sizes").get_attribute("aria-describedby") or ""
    assert "table-ranges" in described.split() and "id_table_sizes_helptext" in described.split()
