"""Organizer tools -> Replace in real headless Chromium: the tick box names the seat
chosen and its player, follows the seat select, and the browser does not send the form
until it is ticked (the server refuses it too: test_seat_handover_pages); the player
offered the seat finds the offer in their games list and accepts it."""

from __future__ import annotations

import pytest

from games.models import Seat
from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_replace_tick_box_names_the_chosen_seat_and_is_required(browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = exterminate_game()  # organized by ann
    make_user("dave")
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("details.tools > summary").click()
    form = page.locator(f'form[action="/games/{game.pk}/organizer/replace/"]')
    label = form.locator("[data-replace-confirm]")
    form.locator("select[name=seat]").select_option(label="cat")
    assert label.inner_text() == (
        "Yes, offer cat's seat to the new player; if they accept, cat cannot come back"
    )
    form.locator("select[name=seat]").select_option(label="bob")
    assert label.inner_text() == (
        "Yes, offer bob's seat to the new player; if they accept, bob cannot come back"
    )
    form.locator("input[name=username]").fill("dave")
    form.locator("button[type=submit]").click()
    page.wait_for_timeout(300)
    assert form.locator("input[name=confirm]").evaluate("(el) => !el.validity.valid")
    assert not Seat.objects.filter(game=game, status="replaced").exists()
    form.locator("input[name=confirm]").check()
    form.locator("button[type=submit]").click()
    page.wait_for_load_state()
    assert "Seat bob is offered to dave" in page.inner_text(".messages")
    assert game.seats.get(name="bob", status="active").user.username == "bob"

    page.context.clear_cookies()
    log_in(page, live_server.url, "dave")
    page.goto(f"{live_server.url}/games/")
    page.locator("#seat-offers a", has_text="accept or decline").click()
    page.wait_for_load_state()
    page.get_by_role("button", name="Accept the seat").click()
    page.wait_for_load_state()
    assert "You play the seat bob from now on." in page.inner_text(".messages")
    assert page.url.rstrip("/").endswith(f"/games/{game.pk}")
    assert game.seats.get(name="bob", status="active").user.username == "dave"
