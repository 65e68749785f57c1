"""The tournament form's tie-breaks in real headless Chromium: the arrows reorder the list,
and the tournament applies the ticked ones in that order."""

from __future__ import annotations

import pytest

from tests.games.test_browser import log_in
from tests.games.web_support import make_user
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_moving_direct_encounter_to_the_top_makes_it_the_first_tie_break(browser_page, live_server):
    make_user("olga")
    page = browser_page
    log_in(page, live_server.url, "olga")
    page.goto(f"{live_server.url}/tournaments/new/")
    page.fill("#id_name", "Ordered cup")
    page.select_option("#id_ruleset", "6x5")
    page.fill("#id_table_sizes", "2")
    rows = page.locator("[data-tiebreak-order] li")
    direct = page.locator('li[data-tiebreak="direct_encounter"]')
    direct.locator("input[type=checkbox]").check()
    for _ in range(6):  # to the top (one press too many is harmless)
        direct.get_by_role("button", name="Move Direct encounter up").click()
    assert rows.first.get_attribute("data-tiebreak") == "direct_encounter"
    # Each move is read out by a status line (the last one hit the top).
    said = page.locator("[role=status][data-tiebreak-said]")
    assert said.inner_text() == f"Direct encounter: 1 of {rows.count()}, already first"
    page.locator('li[data-tiebreak="sonneborn_berger"]').get_by_role(
        "button", name="Move Sonneborn–Berger down"
    ).click()  # below an unticked row: still after Buchholz
    position = [rows.nth(i).get_attribute("data-tiebreak") for i in range(rows.count())].index(
        "sonneborn_berger") + 1  # fmt: skip
    assert said.inner_text() == f"Sonneborn–Berger: {position} of {rows.count()}"
    page.get_by_role("button", name="Create tournament").click()
    page.wait_for_load_state()
    t = Tournament.objects.get(name="Ordered cup")
    assert t.tiebreaks == ["direct_encounter", "buchholz", "sonneborn_berger"]
