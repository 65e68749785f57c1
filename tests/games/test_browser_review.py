"""A game's review in real headless Chromium: the arrow keys step from one prompt to the
next and back, but not while the prompt picker has the focus (its own arrow keys)."""

from __future__ import annotations

import pytest

from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_arrow_keys_step_through_the_prompts(browser_page, live_server):
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    game = exterminate_game()  # the set-up (prompt 1) resolved
    order_submit(seat=game.seats.get(name="ann"), text="PASS", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=2)
    page = browser_page
    log_in(page, live_server.url, "cat")
    base = f"{live_server.url}/games/{game.pk}/review"

    page.goto(f"{base}/1/")
    page.keyboard.press("ArrowLeft")  # no prompt before the first: nothing happens
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"{base}/2/")
    assert "Decision 2 · ann's exterminate, round 1" in page.locator("#step-heading").inner_text()
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"{base}/1/")

    # The picker's own arrow keys choose an option; the page stays (Go goes there).
    page.locator("#review-prompt").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert page.url == f"{base}/1/"
    page.locator("#review-prompt").select_option("2")
    page.locator(".review-jump button").click()
    page.wait_for_url(f"{base}/2/")
