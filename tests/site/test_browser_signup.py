"""A new visitor signs up in real Chromium and lands on their (empty) home page."""

import pytest
from django.contrib.auth import get_user_model


@pytest.mark.browser
def test_sign_up_in_the_browser(live_server, browser_page) -> None:
    page = browser_page
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Create an account").click()
    page.wait_for_url("**/accounts/signup/")
    page.fill("input[name=email]", "mia@example.com")
    page.fill("input[name=username]", "mia")
    page.fill("input[name=password1]", "correct-horse-battery-7")
    page.fill("input[name=password2]", "correct-horse-battery-7")
    page.locator(".account-card button[type=submit]").click()
    page.wait_for_url(live_server.url + "/")
    assert page.locator(".nav-account .who").inner_text() == "Signed in as mia"
    assert page.locator("h1").inner_text() == "Your games"
    assert get_user_model().objects.filter(email="mia@example.com", username="mia").exists()
    # The site stylesheet really loaded (the header is dark, not the browser default).
    background = page.evaluate(
        "getComputedStyle(document.querySelector('.site-header')).backgroundColor"
    )
    assert background == "rgb(21, 26, 38)"


@pytest.mark.browser
def test_sign_up_takes_the_browsers_time_zone(live_server, _chromium) -> None:
    from games.models import PlayerSettings

    context = _chromium.new_context(timezone_id="America/Sao_Paulo")
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/accounts/signup/")
        page.fill("input[name=email]", "leo@example.com")
        page.fill("input[name=username]", "leo")
        page.fill("input[name=password1]", "correct-horse-battery-7")
        page.fill("input[name=password2]", "correct-horse-battery-7")
        page.locator(".account-card button[type=submit]").click()
        page.wait_for_url(live_server.url + "/")
        user = get_user_model().objects.get(username="leo")
        assert PlayerSettings.objects.get(user=user).time_zone == "America/Sao_Paulo"
        # The settings page shows it chosen, and offers nothing else from this browser.
        page.goto(live_server.url + "/account/settings/")
        assert page.locator("#id_time_zone").input_value() == "America/Sao_Paulo"
        assert page.locator("#browser-zone").is_hidden()
        # Another zone chosen by hand; the browser's own is then offered back.
        page.select_option("#id_time_zone", "Asia/Tokyo")
        page.locator("#time-zone-form button[type=submit]").click()
        page.wait_for_url("**/account/settings/")
        assert PlayerSettings.objects.get(user=user).time_zone == "Asia/Tokyo"
        assert page.locator("[data-browser-zone]").inner_text() == "America/Sao_Paulo"
        page.locator("[data-use-browser-zone]").click()
        assert page.locator("#id_time_zone").input_value() == "America/Sao_Paulo"
    finally:
        context.close()


@pytest.mark.browser
def test_a_browser_reporting_an_old_zone_name_is_offered_its_name_now(live_server, _chromium) -> None:
    """The chooser lists the zones of the database's zone.tab, not its ~600 names with
    the renamed ones (a first-time walk: "Asmera", "Timbuktu", "America/Buenos_Aires");
    a browser that reports an old name (Chrome says "Asia/Calcutta") is offered the zone
    by its name now."""
    from games.services.players import time_zone_aliases, time_zone_names
    from tests.games.test_browser import log_in_by_form
    from tests.games.web_support import make_user

    names = time_zone_names()
    assert {"Europe/Oslo", "Asia/Kolkata", "America/Argentina/Buenos_Aires", "Asia/Kathmandu"} <= set(names)
    assert not {"Africa/Asmera", "Africa/Timbuktu", "America/Buenos_Aires", "Asia/Calcutta"} & set(names)
    assert time_zone_aliases()["Asia/Calcutta"] == "Asia/Kolkata"
    make_user("ira")
    context = _chromium.new_context(timezone_id="Asia/Calcutta")
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        log_in_by_form(page, live_server.url, "ira")
        page.goto(live_server.url + "/account/settings/")
        reported = page.evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone")
        assert reported in ("Asia/Calcutta", "Asia/Kolkata")
        assert page.locator("[data-browser-zone]").inner_text() == "Asia/Kolkata"
        page.locator("[data-use-browser-zone]").click()
        assert page.locator("#id_time_zone").input_value() == "Asia/Kolkata"
    finally:
        context.close()


@pytest.mark.browser
def test_a_visitor_reads_how_a_game_is_played_before_signing_up(live_server, _chromium) -> None:
    # Regression (a newcomer's walk): the rules pages were linked only from game pages and
    # the new-game form, so a visitor could not learn what 5X is before signing up.
    context = _chromium.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/")
        page.locator("#rules-links").get_by_role("link", name="5X").click()
        page.wait_for_url("**/games/rules/5x/")
        assert page.locator("h1").inner_text() == "Rules of 5X"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # Back on the welcome page, signing up is one tap away.
        page.go_back()
        page.get_by_role("link", name="Create an account").click()
        page.wait_for_url("**/accounts/signup/")
    finally:
        context.close()


@pytest.mark.browser
def test_a_visitor_signs_up_from_an_open_games_page_and_joins_it(live_server, browser_page) -> None:
    # A newcomer's walk: signed out on an open game's page, the way in is on the page; after
    # signing up they are back on the game, with its Join button.
    from games.services import games as game_services
    from tests.games.web_support import make_user

    game = game_services.game_create(
        organizer=make_user("org"), ruleset="5x", seats_count=3, name="Open door"
    )
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("#sign-up-to-join").get_by_role("link", name="sign up").click()
    page.wait_for_url("**/accounts/signup/?next=*")
    page.fill("input[name=email]", "kim@example.com")
    page.fill("input[name=username]", "kim")
    page.fill("input[name=password1]", "correct-horse-battery-7")
    page.fill("input[name=password2]", "correct-horse-battery-7")
    page.locator(".account-card button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/games/{game.pk}/")
    page.get_by_role("button", name="Join this game").click()
    page.wait_for_load_state()
    assert "You joined the game." in page.locator(".messages").inner_text()
    assert game.seats.filter(name="kim").exists()
