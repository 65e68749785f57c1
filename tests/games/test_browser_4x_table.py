"""4X Dice's players table in real headless Chromium at desktop width: the Score column
(the one that decides the game) is fully visible inside its scroll box, not cut off."""

from __future__ import annotations

import pytest

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_score_column_is_inside_its_box_at_1280(browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = exterminate_game()
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    box = page.locator('.scroll[aria-label="Players"]')
    header = box.locator("thead th").filter(has_text="Score")
    assert header.count() == 1
    outer, cell = box.bounding_box(), header.bounding_box()
    assert cell["width"] > 0
    assert outer["x"] <= cell["x"] and cell["x"] + cell["width"] <= outer["x"] + outer["width"], (
        outer,
        cell,
    )
    # Its text is not clipped inside the cell either ("SC" for "SCORE").
    assert header.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    # And the whole table fits: nothing to scroll sideways for at desktop width.
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth"), box.evaluate(
        "(el) => [el.scrollWidth, el.clientWidth]"
    )
    # Each seat's score is in the Score column (bob's row: his name, then his score).
    row = box.locator("tbody tr").filter(has_text="bob")
    score = row.locator("td").nth(1)
    sx = score.bounding_box()
    assert outer["x"] <= sx["x"] and sx["x"] + sx["width"] <= outer["x"] + outer["width"]
