"""A player closes their account in real Chromium: from the account page, through the
confirmation (a wrong password first), to the page that says it is closed."""

import pytest
from django.contrib.auth import get_user_model


@pytest.mark.browser
def test_closing_an_account_in_the_browser(live_server, browser_page) -> None:
    from games.services.games import game_create, game_join
    from tests.games.test_browser import log_in_by_form
    from tests.games.web_support import make_user

    ivy, org = make_user("ivy"), make_user("org")
    forming = game_create(
        organizer=org, ruleset="5x", options={}, seats_count=3, name="Tuesday table"
    )
    game_join(game=forming, user=ivy)
    page = browser_page
    log_in_by_form(page, live_server.url, "ivy")
    page.goto(live_server.url + "/account/settings/")
    page.locator("#close-account").get_by_role("link", name="Close account…").click()
    page.wait_for_url("**/account/close/")
    assert "You leave Tuesday table" in page.locator("#close-plans").inner_text()
    page.fill('input[name="password"]', "not-it")
    page.get_by_role("button", name="Close my account").click()
    page.wait_for_load_state()
    assert "Incorrect password." in page.locator("#close-account-form").inner_text()
    assert get_user_model().objects.get(pk=ivy.pk).is_active
    page.fill('input[name="password"]', "pw-ivy")
    page.get_by_role("button", name="Close my account").click()
    page.wait_for_url("**/account/closed/")
    assert page.locator("h1").inner_text() == "Account closed"
    assert "Your account ivy is closed" in page.locator("#closed-summary").inner_text()
    assert "You left Tuesday table." in page.locator("#closed-summary").inner_text()
    assert page.get_by_role("link", name="Log in").is_visible()  # logged out
    assert not get_user_model().objects.get(pk=ivy.pk).is_active
