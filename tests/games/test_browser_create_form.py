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


def test_back_then_create_again_opens_the_game_it_made(browser_page, live_server):
    """A visual review: the page is never cached, so Back fetched it again with a new key
    and Create made a second game."""
    from games.models import Game

    make_user("gus")
    page = browser_page
    log_in(page, live_server.url, "gus")
    page.goto(f"{live_server.url}/games/new/")
    page.select_option("#id_ruleset", "6x5")
    page.fill("#id_name", "Only once")
    page.locator("form.panel button[type=submit]").last.click()
    page.wait_for_url("**/games/*/")
    first = page.url
    page.go_back()
    page.wait_for_load_state("load")
    assert page.locator("#id_name").input_value() == "Only once"  # the browser keeps what was typed
    page.locator("form.panel button[type=submit]").last.click()
    page.wait_for_url("**/games/*/")
    assert page.url == first
    assert Game.objects.filter(name="Only once").count() == 1
    # A new visit to the form is a new game.
    page.goto(f"{live_server.url}/games/new/")
    page.select_option("#id_ruleset", "6x5")
    page.fill("#id_name", "Only once")
    page.locator("form.panel button[type=submit]").last.click()
    page.wait_for_url("**/games/*/")
    assert page.url != first and Game.objects.filter(name="Only once").count() == 2


def test_a_seat_count_out_of_the_games_range_is_kept_and_marked_on_its_field(
    browser_page, live_server
):
    # Guards against 9 seats for 5X coming back as 6, with "5X is for 3 to 6 players." at
    # the top of the form and the field itself not marked invalid.
    make_user("gil")
    page = browser_page
    log_in(page, live_server.url, "gil")
    page.goto(f"{live_server.url}/games/new/")
    page.select_option("#id_ruleset", "5x")
    page.locator("#id_seats_count").fill("9")
    page.locator('form button[type="submit"]').last.click()
    page.wait_for_load_state()
    seats = page.locator("#id_seats_count")
    assert seats.input_value() == "9"
    assert seats.get_attribute("aria-invalid") == "true"
    field = page.locator(".field").filter(has=seats)
    assert "5X is for 3 to 6 players." in field.inner_text()
    described = (seats.get_attribute("aria-describedby") or "").split()
    assert any(
        "5X is for 3 to 6 players." in page.locator(f"#{i}").inner_text() for i in described
    ), described
    assert page.locator(".notice").filter(has_text="is for 3 to 6").count() == 0


@pytest.mark.parametrize("width", [1280, 390])
def test_the_invitation_tools_of_a_new_game_stand_apart(browser_page, live_server, width):
    # Regression (a newcomer's walk): right after creating a game, "New invitation link"
    # and its note sat flush against the "Invite players by name" label below them (0 px),
    # reading as one run-on paragraph, on a desktop and on a phone.
    make_user("ida")
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page, live_server.url, "ida")
    page.goto(f"{live_server.url}/games/new/")
    page.select_option("#id_ruleset", "5x")
    page.locator('form button[type="submit"]').last.click()
    page.wait_for_url("**/games/*/")
    renew = page.locator("#invite-link-renew").bounding_box()
    label = page.locator("#invite-players label").bounding_box()
    assert renew is not None and label is not None
    assert label["y"] - (renew["y"] + renew["height"]) >= 8
