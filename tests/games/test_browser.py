"""The main flow in real headless Chromium: sign up, create a game, three players join
and submit, the prompt resolves, every seat page shows the result (and updates itself)."""

from __future__ import annotations

import re

import pytest

from games.models import Game, SealedOrder
from tests.games.web_support import eager_celery  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def visit(page, url: str) -> None:
    """goto, tolerating the page's own auto-reload (it polls and reloads when the game
    moves on) racing with the navigation."""
    from playwright.sync_api import Error

    attempts = 10  # each order of another seat reloads this page once, at its next poll
    for attempt in range(attempts):
        try:
            page.goto(url)
            return
        except Error as exc:
            racing = "interrupted by another navigation" in str(exc) or "ERR_ABORTED" in str(exc)
            if not racing or attempt == attempts - 1:
                raise
            page.wait_for_load_state()
            page.wait_for_timeout(200)


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill('input[name="email"]', f"{name}@example.test")
    page.fill('input[name="username"]', name)
    page.fill('input[name="password1"]', "a-long-Passw0rd!")
    page.fill('input[name="password2"]', "a-long-Passw0rd!")
    page.locator('main form button[type="submit"]').click()
    page.wait_for_load_state()
    assert f"Signed in as {name}" in page.inner_text("header")


def log_in(page, base: str, name: str) -> None:
    """Log in as the user named ``name``: a session made on the server
    (as the log-in does) and its cookie given to the page's browser, without the log-in
    form's two page loads (~0.5 s each time). The tests of logging in itself (sign-up,
    two-factor, passkeys, the account pages) use ``log_in_by_form``."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=name))
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base}])


def log_in_by_form(page, base: str, name: str) -> None:
    """Log in through the log-in form as a user made by ``web_support.make_user`` (email
    and password from the name)."""
    page.goto(f"{base}/accounts/login/")
    page.fill('input[name="login"]', f"{name}@example.test")
    page.fill('input[name="password"]', f"pw-{name}")
    page.locator('main form button[type="submit"]').click()
    page.wait_for_load_state()


def click_first_order(page) -> str:
    """Click the first legal-order button; return its order text."""
    button = page.locator("#legal-orders button").first
    text = button.inner_text().strip()
    button.click()
    page.wait_for_load_state()
    return text


def test_three_players_sign_up_create_join_and_play_a_round(
    browser_page, live_server, eager_celery, settings  # noqa: F811
):
    settings.GAMES_PAGE_POLL_SECONDS = 1
    base = live_server.url
    alice = browser_page
    browser = alice.context.browser
    pages = {"alice": alice}
    for name in ("bob", "cyd"):
        pages[name] = browser.new_context().new_page()
        pages[name].set_default_timeout(10_000)
    try:
        for name, page in pages.items():
            sign_up(page, base, name)

        # alice creates a 3-seat 5X game and plays in it.
        visit(alice, f"{base}/games/new/")
        alice.select_option("#id_ruleset", "5x")
        alice.fill("#id_name", "Browser table")
        alice.fill("#id_seats_count", "3")
        assert alice.is_visible('[data-ruleset-options="5x"]')
        assert not alice.is_visible('[data-ruleset-options="6x5"]')
        alice.locator('main form button[type="submit"]').click()
        alice.wait_for_load_state()
        assert "Game created" in alice.inner_text(".messages")
        game = Game.objects.get(name="Browser table")
        game_url = f"{base}/games/{game.pk}/"
        assert alice.url == game_url

        for name in ("bob", "cyd"):
            visit(pages[name], f"{base}/games/")
            pages[name].locator(f'form[action="/games/{game.pk}/join/"] button').click()
            pages[name].wait_for_load_state()
            assert "You joined the game." in pages[name].inner_text(".messages")
        game.refresh_from_db()
        assert game.status == "active"

        # Draft: everyone passes a leader with one click; receipts show at once.
        chosen = {}
        for name in ("alice", "bob"):
            page = pages[name]
            visit(page, game_url)
            assert "Your order — draft" in page.inner_text("#prompt")
            if name == "bob":
                # A double click sends one order (button disabled + idempotent service).
                button = page.locator("#legal-orders button").first
                chosen[name] = button.inner_text().strip()
                button.dblclick()
                page.wait_for_load_state()
                page.wait_for_selector("#receipt")
                assert SealedOrder.objects.filter(prompt__game=game, seat_name="bob").count() == 1
            else:
                chosen[name] = click_first_order(page)
            assert chosen[name].startswith("PASS ")
            receipt = page.inner_text("#receipt")
            assert chosen[name] in receipt
            assert re.search(r"[0-9a-f]{64}", receipt)
        # alice stays on her page; it must notice the resolution by itself.
        visit(pages["cyd"], game_url)
        chosen["cyd"] = click_first_order(pages["cyd"])
        assert "Your order — play" in pages["cyd"].inner_text("#prompt")

        alice.wait_for_selector("text=Your order — play", timeout=15_000)
        # From here on pages are checked by hand: stop the 1 s auto-reload racing with it.
        settings.GAMES_PAGE_POLL_SECONDS = 600
        for page in pages.values():
            visit(page, game_url)
            assert "Round 1 of 7" in page.inner_text("main")
            history = page.inner_text("#history")
            assert "draft" in history
            # Each seat's own hand now holds the leader it kept.
            kept = page.locator(".hand .card.leader").count()
            assert kept == 2

        # Round 1: everyone exploits; the round resolves to round 2. Each page is at round
        # 1's prompt as just loaded above (no auto-reload now): no second load of it.
        for name in ("alice", "bob", "cyd"):
            page = pages[name]
            assert page.url == game_url and "Round 1 of 7" in page.inner_text("main")
            page.locator('#legal-orders button:text-is("PLAY EXPLOIT")').click()
            page.wait_for_load_state()
        for page in pages.values():
            visit(page, game_url)
            assert "Round 2 of 7" in page.inner_text("main")
            row = page.locator("table tr.me td").nth(1).inner_text()
            assert row.strip() == "4"  # 3 + (3 - 2 other exploiters)
    finally:
        for name in ("bob", "cyd"):
            pages[name].context.close()


def test_the_page_does_not_reload_over_what_the_organizer_is_typing(
    browser_page, live_server, settings
):
    """The seat page marks another seat's sealed order in place (no reload that would move
    the reader or a screen reader back to the top); when the reader's own seat or the
    prompt changes it reloads itself, unless a form field differs from how the page
    loaded it: then it shows the "moved on" notice instead."""
    from games.services import games as game_services
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve
    from tests.games.web_support import make_user

    settings.GAMES_PAGE_POLL_SECONDS = 1
    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    game = game_services.game_create(
        organizer=users["ann"], ruleset="5x", seats_count=3, name="Typing", options={"leaders": False}
    )
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    game.refresh_from_db()
    assert game.status == "active"
    seats = {s.name: s for s in game.seats.all()}
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    # Another seat seals its order: its line says so, the page stays where it is.
    order_submit(seat=seats["bob"], text="PLAY EXPLORE", source="web")
    page.wait_for_selector('[data-seat-tick="bob"] .tick', timeout=10_000)
    assert page.inner_text('[data-seat-tick="bob"] .tick') == "✓ sealed"
    # Read out by the seats list (a polite live region) with the seat's name.
    assert page.inner_text('[data-seat-tick="bob"] .visually-hidden') == "bob:"
    assert page.get_attribute("ul.seats", "aria-live") == "polite"
    assert page.inner_text('[data-seat-tick="cat"]') == "no order yet"
    assert page.evaluate("() => window.sameDocument === true") and page.is_hidden("#moved-on")
    # The reader's own seat changes (an order sent by email, say) while it types: no
    # reload over the typing, the notice instead.
    page.locator("details:has(input[name='username']) > summary").first.click()
    page.fill("input[name='username']", "newcomer")
    page.locator("h1").first.click()  # focus leaves the field: only its value tells
    order_submit(seat=seats["ann"], text="PLAY EXPLORE", source="web")
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => window.sameDocument === true")  # not reloaded
    assert page.input_value("input[name='username']") == "newcomer"
    # Nothing edited any more: the next change (the prompt resolves) reloads the page.
    page.fill("input[name='username']", "")
    page.locator("h1").first.click()
    order_submit(seat=seats["cat"], text="PLAY EXPLORE", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    page.wait_for_function("() => window.sameDocument === undefined", timeout=10_000)
    page.wait_for_load_state()
    assert page.is_hidden("#moved-on")


def test_a_keyboard_user_is_not_thrown_back_to_the_top(browser_page, live_server, settings):
    """Focus on a control reached by keyboard counts as being busy: when the prompt moves
    on the page shows the notice (a status, read out) instead of reloading under the
    reader."""
    from games.services import games as game_services
    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve
    from tests.games.web_support import make_user

    settings.GAMES_PAGE_POLL_SECONDS = 1
    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    game = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3,
                                     options={"leaders": False})  # fmt: skip
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    seats = {s.name: s for s in game.seats.all()}
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    for _ in range(60):  # Tab to the first order button, as a keyboard user does
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('#legal-orders button')"):
            break
    else:
        raise AssertionError("no order button reached by Tab")
    for name in ("ann", "bob", "cat"):
        order_submit(seat=seats[name], text="PLAY EXPLORE", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=1)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => window.sameDocument === true")
    assert page.evaluate("() => document.activeElement.matches('#legal-orders button')")
    assert page.evaluate("() => document.getElementById('moved-on').closest('[role=status]') !== null")


def _three_seat_game():
    from games.services import games as game_services
    from tests.games.web_support import make_user

    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    game = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3,
                                     options={"leaders": False})  # fmt: skip
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    return game, {s.name: s for s in game.seats.all()}


def _resolve_first_prompt(seats) -> None:
    """The three orders and the resolution in one transaction: a page polling meanwhile
    sees prompt 2 open, never an order sealed first (on a loaded machine a poll fell
    between them, and the page said "your order changed")."""
    from django.db import transaction

    from games.services.orders import order_submit
    from games.services.resolution import prompt_resolve

    with transaction.atomic():
        for name in ("ann", "bob", "cat"):
            order_submit(seat=seats[name], text="PLAY EXPLORE", source="web")
        assert prompt_resolve(game_id=seats["ann"].game_id, prompt_number=1)


def test_the_players_own_order_from_another_device_reloads_the_page_where_it_was(
    browser_page, live_server, settings
):
    """Scrolled down the page, an order sealed from another device (email, API) still
    reloads it (the order panel must change), at the same place, and says so."""
    from games.services.orders import order_submit

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, seats = _three_seat_game()
    page = browser_page
    page.set_viewport_size({"width": 1000, "height": 300})
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; window.scrollTo(0, 400); }")
    order_submit(seat=seats["ann"], text="PLAY EXPLORE", source="api")
    page.wait_for_function("() => window.sameDocument === undefined", timeout=10_000)
    page.wait_for_selector("#page-updated:not([hidden])", timeout=10_000)
    assert page.inner_text("#page-updated") == "The page was updated: your order changed."
    assert "PLAY EXPLORE" in page.inner_text("#receipt")


def test_an_automatic_reload_says_what_changed(browser_page, live_server, settings):
    """At the top of the page and busy with nothing, the page reloads by itself, then
    writes what changed into its status region (announced by screen readers)."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, seats = _three_seat_game()
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.is_hidden("#page-updated")
    page.evaluate("() => { window.sameDocument = true; }")
    _resolve_first_prompt(seats)
    page.wait_for_function("() => window.sameDocument === undefined", timeout=10_000)
    page.wait_for_selector("#page-updated:not([hidden])", timeout=10_000)
    assert page.inner_text("#page-updated") == "The page was updated: decision 2 is open."
    assert page.evaluate("() => document.getElementById('page-updated').closest('[role=status]') !== null")
    page.reload()  # a reload by hand is not announced again
    assert page.is_hidden("#page-updated")


def test_the_seat_lines_and_the_own_order_follow_every_change(browser_page, live_server, settings):
    """A seat handed over (its order withdrawn) while another seals in the same poll: the
    page reloads (who plays the seat changed) and its lines say so. The reader's own order
    replaced from another device: the page reloads and shows it."""
    from games.services import games as game_services
    from games.services.handover import seat_replace
    from games.services.orders import order_submit
    from tests.games.web_support import make_user

    settings.GAMES_PAGE_POLL_SECONDS = 1
    users = {n: make_user(n) for n in ("ann", "bob", "cat", "dan")}
    game = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3,
                                     options={"leaders": False})  # fmt: skip
    for name in ("ann", "bob", "cat"):
        game_services.game_join(game=game, user=users[name])
    seats = {s.name: s for s in game.seats.all()}
    order_submit(seat=seats["ann"], text="PLAY EXPLORE", source="web")
    order_submit(seat=seats["bob"], text="PLAY EXPLORE", source="web")
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    assert page.inner_text('[data-seat-tick="bob"]') == "✓ sealed"
    seat_replace(seat=seats["bob"], new_user=users["dan"], by=users["ann"])
    order_submit(seat=seats["cat"], text="PLAY EXPLORE", source="web")
    # A seat handed over: the seat lines change (who plays it), so the page reloads.
    page.wait_for_function("() => window.sameDocument === undefined", timeout=10_000)
    page.wait_for_load_state()
    assert page.inner_text('[data-seat-tick="bob"]') == "no order yet"
    assert page.inner_text('[data-seat-tick="cat"]') == "✓ sealed"
    assert "played by dan" in page.inner_text(".seats")
    page.evaluate("() => { window.sameDocument = true; }")
    order_submit(seat=seats["ann"], text="PLAY EXPLOIT", source="api")  # another device
    page.wait_for_function("() => window.sameDocument === undefined", timeout=10_000)
    page.wait_for_load_state()
    assert "PLAY EXPLOIT" in page.inner_text("#receipt")


@pytest.mark.parametrize("ruleset,seats", [("5x", 5), ("4x-dice", 6), ("6x5", 2)])
def test_a_seat_page_fits_a_phone_screen(browser_page, live_server, ruleset, seats):
    """At 390 px (a phone held upright) the page does not scroll sideways: wide tables
    scroll inside their own box."""
    from games.services import games as game_services
    from tests.games.web_support import make_user

    names = ["ann", "bob", "cat", "dan", "eve", "fay"][:seats]
    users = [make_user(n) for n in names]
    game = game_services.game_create(organizer=users[0], ruleset=ruleset, seats_count=seats)
    for user in users:
        game_services.game_join(game=game, user=user)
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 800})
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.is_visible("#prompt")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width


def test_4x_dice_dice_are_allocated_one_choice_per_die(browser_page, live_server):
    """The word-by-word form: one labelled choice per die, sent as one ALLOCATE order,
    and the receipt shows it; the page then offers the same choices preselected."""
    from games.services import games as game_services
    from tests.games.web_support import make_user

    users = [make_user(n) for n in ("ann", "bob")]
    game = game_services.game_create(organizer=users[0], ruleset="4x-dice", seats_count=2)
    for user in users:
        game_services.game_join(game=game, user=user)
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    selects = page.locator("#legal-orders select[name='word']")
    assert selects.count() == 3
    assert page.locator("#legal-orders label.word").first.inner_text().startswith("Die 1: ")
    for i, area in enumerate(["EXTRACT", "EXPAND", "EXTERMINATE"]):
        selects.nth(i).select_option(area)
    page.locator("#legal-orders button[type='submit']").click()
    page.wait_for_selector("#receipt")
    assert "ALLOCATE EXTRACT EXPAND EXTERMINATE" in page.inner_text("#receipt")
    values = [selects.nth(i).input_value() for i in range(3)]
    assert values == ["EXTRACT", "EXPAND", "EXTERMINATE"]


@pytest.mark.parametrize("chosen", [None, "Asia/Kathmandu"])
def test_times_show_in_the_readers_time_zone(browser_page, live_server, chosen):
    """In a browser set to Tokyo (UTC+9, no daylight saving): a player who chose no zone
    reads the deadline and the receipt's time in Tokyo time, the UTC text as the tooltip;
    a player who chose Kathmandu (UTC+5:45) reads Kathmandu time, as on every other page
    and in its emails (the browser does not rewrite it)."""
    from datetime import timedelta, timezone

    from games.models import Prompt
    from games.services import games as game_services
    from games.services.players import player_time_zone_set
    from tests.games.web_support import make_user

    users = [make_user(n) for n in ("ann", "bob", "cat")]
    if chosen:
        player_time_zone_set(user=users[0], time_zone=chosen)
    game = game_services.game_create(organizer=users[0], ruleset="5x", seats_count=3)
    for user in users:
        game_services.game_join(game=game, user=user)
    context = browser_page.context.browser.new_context(timezone_id="Asia/Tokyo", locale="en-GB")
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, "ann")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        deadline = Prompt.objects.get(game=game, number=1).deadline
        shown = page.locator("time[datetime]").first
        receipt_time = page.locator("#receipt time[datetime]")
        if chosen:
            kathmandu = deadline.astimezone(timezone(timedelta(hours=5, minutes=45)))
            assert shown.inner_text() == kathmandu.strftime("%a %-d %b %Y, %H:%M +0545")
            click_first_order(page)
            assert "+0545" in receipt_time.inner_text()
            return
        tokyo = deadline.astimezone(timezone(timedelta(hours=9)))
        # Written as the server writes dates, whatever the browser's locale (a first-time
        # walk: "Sun, Nov 29, 2026, 05:34 AM UTC" beside "Sun 29 Nov 2026, 05:34 UTC").
        # No abbreviation the browser knows: the offset, as the server writes one ("+09").
        assert shown.inner_text() == tokyo.strftime("%a %-d %b %Y, %H:%M") + " +09"
        assert tokyo.strftime("%H:%M") != deadline.strftime("%H:%M")
        assert shown.get_attribute("title") == deadline.strftime("%a %-d %b %Y, %H:%M UTC")
        click_first_order(page)
        assert "UTC" in receipt_time.get_attribute("title")
        assert "UTC" not in receipt_time.inner_text()
    finally:
        context.close()


def test_an_organizer_creates_a_tournament_with_the_games_own_option_fields(
    browser_page, live_server
):
    """The tournament form shows the chosen game's options as fields, and only those."""
    from tests.games.web_support import make_user
    from tournaments.models import Tournament

    make_user("org")
    page = browser_page
    log_in(page, live_server.url, "org")
    page.goto(f"{live_server.url}/tournaments/new/")
    assert page.is_visible("[data-ruleset-options='5x']")
    assert page.is_hidden("[data-ruleset-options='4x-dice']")
    page.select_option("select[name='ruleset']", "4x-dice")
    assert page.is_hidden("[data-ruleset-options='5x']")
    page.select_option("select[name='opt__4x-dice__dice']", "4")
    page.fill("input[name='name']", "Dice league")
    page.fill("input[name='table_sizes']", "3")
    page.fill("textarea[name='points_per_place']", "3: 2 1 0")
    page.locator("main form button[type='submit']").click()
    page.wait_for_load_state()
    tournament = Tournament.objects.get(name="Dice league")
    assert tournament.ruleset == "4x-dice" and tournament.options == {"dice": 4}
    assert tournament.points_per_place == {"3": [2.0, 1.0, 0.0]}
    assert "Tournament created" in page.inner_text("main")


def test_tournament_pages_and_the_games_list_fit_a_phone_screen(browser_page, live_server):
    """At 390 px the standings, the round, the organizer's panel and the games list
    scroll inside their tables, not the page."""
    from tests.games.web_support import make_user
    from tournaments.services.rounds import round_pair, round_start
    from tournaments.services.tournaments import (
        registration_add,
        tournament_create,
        tournament_open,
    )

    org = make_user("org")
    players = [make_user(n) for n in ("ann", "bob", "cat", "dan", "eve", "fay", "gus")]
    t = tournament_create(organizer=org, name="Winter cup", ruleset="5x", table_sizes=[4, 3], rounds_count=3)
    tournament_open(tournament=t, by=org)
    for user in players:
        registration_add(tournament=t, user=user)
    round_start(rnd=round_pair(tournament=t, by=org), by=org)
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 800})
    log_in(page, live_server.url, "org")
    for url in (f"/tournaments/{t.slug}/", f"/tournaments/{t.slug}/rounds/1/",
                f"/tournaments/{t.slug}/manage/", "/games/", "/tournaments/", "/"):  # fmt: skip
        page.goto(live_server.url + url)
        assert page.locator("main table").count() > 0, url
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, (url, width)


def test_a_reader_may_turn_the_pages_own_updates_off(browser_page, live_server, settings):
    """An accessibility audit: a screen reader in browse mode has no focus to tell, and
    the page reloaded under it when the game moved on. "Update this page by itself"
    (remembered by the browser) turned off, the notice says so instead."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, seats = _three_seat_game()
    page = browser_page
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.is_checked("#auto-update")
    page.uncheck("#auto-update")
    page.locator("h1").first.click()  # nothing focused by keyboard, no field edited
    page.evaluate("() => { window.sameDocument = true; }")
    _resolve_first_prompt(seats)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => window.sameDocument === true")  # not reloaded
    # Remembered: the next page load keeps it off.
    page.reload()
    assert not page.is_checked("#auto-update")
    assert page.evaluate("() => window.localStorage.getItem('fivex-auto-update')") == "off"


def _deadline_as_the_browser_writes_it(browser_page, live_server, zones, locale):
    """A started 3-seat 5X game's first deadline as a browser in each of ``zones`` (and
    ``locale``) writes it, checked against the zone database's own reading: the day, the
    date, the time and the abbreviation the server writes (``tzname``)."""
    from zoneinfo import ZoneInfo

    from games.models import Prompt
    from games.services import games as game_services
    from tests.games.web_support import make_user

    users = [make_user(n) for n in ("ann", "bob", "cat")]
    game = game_services.game_create(organizer=users[0], ruleset="5x", seats_count=3)
    for user in users:
        game_services.game_join(game=game, user=user)
    deadline = Prompt.objects.get(game=game, number=1).deadline
    for zone in zones:
        context = browser_page.context.browser.new_context(timezone_id=zone, locale=locale)
        try:
            page = context.new_page()
            page.set_default_timeout(10_000)
            page.goto(f"{live_server.url}/games/{game.pk}/")
            page.wait_for_load_state("load")
            local = deadline.astimezone(ZoneInfo(zone))
            expected = f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}"
            assert page.locator("time[datetime][data-local]").first.inner_text() == expected, zone
        finally:
            context.close()


def test_a_european_readers_times_carry_the_zones_abbreviation(browser_page, live_server):
    """Code review: the browser wrote "GMT+1" where the server writes "CET" for the same
    zone; America's (EST) and Europe's (CET) abbreviations are written as the server does."""
    _deadline_as_the_browser_writes_it(browser_page, live_server, ("Europe/Paris", "America/New_York"), "de-DE")


def test_a_zone_without_an_abbreviation_is_written_as_the_server_writes_it(browser_page, live_server):
    """Review: the browser wrote Kiritimati's times "GMT+14" where the server writes
    "+14" (the time zone database's name for a zone without an abbreviation); offsets
    with minutes and west of Greenwich too ("+0545", "-03")."""
    zones = ("Pacific/Kiritimati", "Asia/Kathmandu", "America/Sao_Paulo")
    _deadline_as_the_browser_writes_it(browser_page, live_server, zones, "en-US")


def test_a_final_results_places_are_numbered_once(browser_page, live_server):
    """Accessibility pass: the walkover's final result was an <ol> with typed places too,
    "1. 1. carol" on screen and read twice."""
    from games.services import games as game_services
    from tests.games.web_support import make_user

    carol, erin = make_user("carol"), make_user("erin")
    game = game_services.game_create(organizer=carol, ruleset="6x5", seats_count=2)
    for user in (carol, erin):
        game_services.game_join(game=game, user=user)
    game_services.seat_resign(seat=game.seats.get(user=erin))
    page = browser_page
    page.goto(f"{live_server.url}/games/{game.pk}/")
    listed = page.locator("#final-result ol")
    assert listed.evaluate("el => getComputedStyle(el).listStyleType") == "none"
    assert listed.locator("li").first.inner_text().startswith("1. carol")


def test_a_deadline_reads_the_same_on_every_page_for_a_reader_without_a_zone(browser_page, live_server):
    """A participant's journey: with no time zone chosen, the home page and the
    tournament's wrote a deadline in UTC, the game page in the browser's zone (CET)."""
    from zoneinfo import ZoneInfo

    from games.models import Prompt
    from tests.games.test_browser_phone import _started

    game = _started("5x", ["ann", "bob", "cat"])
    deadline = Prompt.objects.get(game=game, number=1).deadline
    local = deadline.astimezone(ZoneInfo("Europe/Paris"))
    context = browser_page.context.browser.new_context(timezone_id="Europe/Paris", locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, "ann")
        page.goto(f"{live_server.url}/")
        page.wait_for_load_state("load")
        home = page.locator(".order-needed time").first.inner_text()
        assert home == f"{local:%a} {local.day} {local:%b}, {local:%H:%M} {local.tzname()}"  # short
        page.goto(f"{live_server.url}/games/")
        page.wait_for_load_state("load")
        assert page.locator(".order-needed time").first.inner_text() == home
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        full = page.locator("time[datetime][data-local]").first.inner_text()
        assert full == f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}"
        # The home page's Started column: the day in the reader's zone too (1 Jan 23:30
        # UTC is 2 Jan in Paris).
        from datetime import UTC, datetime

        type(game).objects.filter(pk=game.pk).update(started_at=datetime(2026, 1, 1, 23, 30, tzinfo=UTC))
        page.goto(f"{live_server.url}/")
        page.wait_for_load_state("load")
        started = page.locator('time[data-style="date"]').first
        assert started.inner_text() == "2 Jan 2026" and started.get_attribute("title") == "1 Jan 2026"
    finally:
        context.close()
