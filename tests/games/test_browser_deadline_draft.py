"""A player busy with an order when the prompt resolves under it (its deadline passes and
the sweep plays the default orders, or the last other order comes in), in real headless
Chromium: the countdown at zero says what happens, the page does not reload over the
typing and says what happened, a reload keeps the typed text, and sending it afterwards
gets the server's precise answer with the text, notes and all, still in the box.

The deadline is not waited for: the page's clock is Playwright's (installed before the
page loads, it runs as a clock does), moved on to just past the deadline, and the sweep
is run as of that moment (``enforce_deadlines(now=...)``, what the beat does then). So
are the waits for what a page does a while after loading (its notes show after 0.8 s).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Prompt
from tests.games.test_browser import log_in
from tests.games.web_support import eager_celery, make_user  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

#: A 5X draft order as a player types it: a note of its own (dropped before sealing).
DRAFT = "PASS NOBODY  # keep Caesar for the wonders"


def _game(deadline_in: timedelta):
    """ann, bob and cat at a 5X table (seating fixed), prompt 1 (the leader draft) due in
    ``deadline_in``."""
    from tests.games.core_support import start_fixed

    for name in ("ann", "bob", "cat"):
        make_user(name)
    game, seats = start_fixed(["ann", "bob", "cat"], deadline_hours=24)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() + deadline_in)
    return game, seats


def _open_typing(page, base: str, game) -> None:
    """ann's page, the order box open and the draft typed in it (the focus stays there)."""
    log_in(page, base, "ann")
    page.clock.install()
    page.goto(f"{base}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    page.locator("#prompt details > summary").click()
    page.fill("#id_text", DRAFT)


def _past_the_deadline(page, game):
    """The page's clock (installed before the page loaded) jumps to just past prompt 1's
    deadline, as if the player had waited: its countdown says the deadline passed.
    Returns that moment."""
    deadline = Prompt.objects.get(game=game, number=1).deadline
    after = deadline + timedelta(milliseconds=500)
    page.clock.fast_forward(max(0, round((after - timezone.now()).total_seconds() * 1000)))
    page.wait_for_function(
        "() => document.querySelector('.countdown').textContent.startsWith('deadline passed')",
        timeout=10_000,
    )
    return max(after, timezone.now())


def _sweep_past_the_deadline(page, game) -> None:
    """Once the page's countdown says the deadline passed, the sweep (as the beat runs
    it then) plays the missing default orders and resolves the prompt; the page's next
    poll is run at once."""
    from games.services.deadlines import enforce_deadlines

    assert enforce_deadlines(now=_past_the_deadline(page, game)) == 1
    page.clock.run_for(1000)  # GAMES_PAGE_POLL_SECONDS


def _held_with_text(page, base: str, game) -> None:
    """ann typing on her page when the deadline's sweep resolves prompt 1: the page holds."""
    _open_typing(page, base, game)
    _sweep_past_the_deadline(page, game)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)


def test_the_countdown_at_zero_says_the_default_orders_are_played(browser_page, live_server, settings):
    """At zero the countdown neither freezes at "0 s" nor goes negative: it says the
    deadline passed and that the default order stands in for a missing one (the reader's
    own, when its order is missing)."""
    from games.services.orders import order_submit

    settings.GAMES_PAGE_POLL_SECONDS = 600
    game, seats = _game(timedelta(seconds=30))
    order_submit(seat=seats["bob"], text="PASS " + _a_leader(game, "bob"), source="web")
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    countdown = page.locator("[data-countdown]")
    assert countdown.inner_text().endswith(" s left")
    _past_the_deadline(page, game)
    said = "deadline passed — your seat's default order will be played (resolving soon)"
    assert countdown.inner_text() == said
    page.clock.run_for(1500)  # still ticking: no negative time, no change
    assert countdown.inner_text() == said
    # bob has sealed his order: the page says what happens to the others'.
    page.context.clear_cookies()
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_function("() => document.querySelector('[data-countdown]').textContent !== ''")
    assert countdown.inner_text() == (
        "deadline passed — seats without an order get their default order (resolving soon)"
    )


def test_the_countdown_never_says_the_deadline_passed_before_it_has(browser_page, live_server, settings):
    """Regression: the page had the deadline to the second, rounded down: with orders
    taken until 12:00:30.9 it said "deadline passed" from 12:00:30.0. The page's clock is
    Playwright's, stopped 0.2 s before the deadline (its fraction .9 s) and then just after."""
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game, _seats = _game(timedelta(hours=1))
    deadline = (timezone.now() + timedelta(seconds=40)).replace(microsecond=900_000)
    Prompt.objects.filter(game=game, number=1).update(deadline=deadline)
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    countdown = page.locator("[data-countdown]")

    def countdown_at(moment) -> str:
        page.clock.pause_at(moment)
        # A tick at that moment: the countdown stopped and shown again.
        page.get_by_role("button", name="Stop the countdown").click()
        page.get_by_role("button", name="Show the countdown").click()
        return countdown.inner_text()

    assert countdown_at(deadline - timedelta(milliseconds=200)) == "0 min 00 s left"
    assert countdown_at(deadline + timedelta(milliseconds=5)) == (
        "deadline passed — your seat's default order will be played (resolving soon)"
    )


def _a_leader(game, name: str) -> str:
    """A leader ``name`` may pass in the draft (prompt 1)."""
    import engine
    from games.selectors import current_state

    return engine.get("5x").legal_orders(current_state(game=game), name)[0].split()[1]


def test_the_deadline_passing_over_typing_holds_the_page_and_a_reload_keeps_the_text(
    browser_page, live_server, settings
):
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = browser_page
    _held_with_text(page, live_server.url, game)
    assert page.evaluate("() => window.sameDocument === true")  # not reloaded
    assert page.input_value("#id_text") == DRAFT
    assert page.inner_text("#moved-on") == (
        "Decision 1 was resolved (its deadline passed): decision 2 is open now. Your text is kept"
        " below: it was not sent (reloading the page keeps it). Reload the page to see the new"
        " situation."
    )
    assert page.evaluate("() => document.getElementById('moved-on').closest('[role=status]') !== null")
    # The countdown of a prompt resolved does not go on saying "resolving soon".
    assert page.inner_text(".countdown") == "decision 1 was resolved"
    page.clock.run_for(1500)
    assert page.inner_text(".countdown") == "decision 1 was resolved"
    # The notice's link reloads the page: the text comes back in the box, and is said so.
    page.locator("#moved-on a").click()
    page.wait_for_function("() => window.sameDocument === undefined")
    page.wait_for_load_state()
    assert page.input_value("#id_text") == DRAFT
    assert page.locator("#prompt details").get_attribute("open") is not None
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.inner_text("#page-updated") == (
        "Your text typed for decision 1 was not sent: it is kept in the order box below."
        " Go to the order box"
    )
    # It is kept once: a reload by hand without it (emptied) does not bring it back.
    page.fill("#id_text", "")
    page.reload()
    assert page.input_value("#id_text") == ""


def test_sending_the_text_after_the_deadline_swept_the_prompt_says_why_and_keeps_it(
    browser_page, live_server, settings
):
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = browser_page
    _held_with_text(page, live_server.url, game)
    page.locator("#prompt details form button[type=submit]").click()
    page.wait_for_load_state()
    said = (
        "Decision 1 is not open any more (its deadline passed: your seat's default order was"
        " played): decision 2 is open now (round 1, play). Nothing was stored."
    )
    assert page.inner_text("#id_text_error") == said
    assert page.input_value("#id_text") == DRAFT  # as typed, its note too
    assert page.get_attribute("#id_text", "aria-invalid") == "true"


def test_the_last_order_resolving_the_prompt_under_a_replacement_being_typed(
    browser_page, live_server, settings
):
    """ann has sealed and types a replacement when the last other order resolves the
    prompt: the notice says so (no deadline involved), the text stays."""
    from games.services.orders import order_submit

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, seats = _game(timedelta(hours=1))
    for name in ("ann", "bob"):
        order_submit(seat=seats[name], text="PASS " + _a_leader(game, name), source="web")
    page = browser_page
    _open_typing(page, live_server.url, game)
    order_submit(seat=seats["cat"], text="PASS " + _a_leader(game, "cat"), source="web")
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => window.sameDocument === true")
    assert page.inner_text("#moved-on") == (
        "Decision 1 was resolved: decision 2 is open now. Your text is kept below: it was not sent"
        " (reloading the page keeps it). Reload the page to see the new situation."
    )
    page.locator("#prompt details form button[type=submit]").click()
    page.wait_for_load_state()
    assert page.inner_text("#id_text_error") == (
        "Decision 1 is not open any more: decision 2 is open now (round 1, play). Nothing was stored."
    )
    assert page.input_value("#id_text") == DRAFT


#: A 4X Dice allocation chosen in the word-by-word picker (not the game's first choices).
CHOICE = ["EXTRACT", "EXPAND", "EXTERMINATE"]


def _4x_game(deadline_in: timedelta):
    """ann (the organizer) and bob at 4X Dice, prompt 1 (an allocation) due in ``deadline_in``."""
    from games.services import games as game_services

    users = [make_user(n) for n in ("ann", "bob")]
    game = game_services.game_create_seated(
        organizer=users[0], ruleset="4x-dice", users=users, deadline_hours=24
    )
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() + deadline_in)
    return game


def _choose(page, choice: list[str]) -> None:
    selects = page.locator("#legal-orders select[name='word']")
    for i, area in enumerate(choice):
        selects.nth(i).select_option(area)


def _chosen(page) -> list[str]:
    selects = page.locator("#legal-orders select[name='word']")
    return [selects.nth(i).input_value() for i in range(selects.count())]


def test_a_choice_in_the_picker_when_the_deadline_passes(browser_page, live_server, settings):
    """4X Dice's word-by-word picker: a choice made is held like typing; sent after the
    sweep, it is refused with the reason and offered again in the order box."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = _4x_game(timedelta(seconds=30))
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")
    _choose(page, CHOICE)
    _sweep_past_the_deadline(page, game)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => window.sameDocument === true")
    assert page.inner_text("#moved-on") == (
        "Decision 1 was resolved (its deadline passed): decision 2 is open now. Your choice is kept"
        " below: it was not sent (reloading the page keeps it). Reload the page to see the new"
        " situation."
    )
    page.locator("#legal-orders button[type='submit']").click()
    page.wait_for_load_state()
    assert page.inner_text(".messages") == (
        "Decision 1 is not open any more (its deadline passed: your seat's default order was"
        " played): decision 2 is open now (round 1, allocate). Nothing was stored."
        " Go to the order box"  # the link to the box the choice is back in
    )
    assert page.input_value("#id_text") == "ALLOCATE EXTRACT EXPAND EXTERMINATE"
    assert page.evaluate(KEPT) == 0  # sent: the server kept it, the tab keeps nothing


def test_a_choice_in_the_picker_is_kept_across_a_reload_of_the_same_prompt(
    browser_page, live_server, settings
):
    """Regression: the page held its reload over a choice made in the picker (the deadline
    was extended meanwhile), but a reload put the picker back to its first choices. Now
    the choice comes back, said so; sent, it is forgotten; logging out forgets it too."""
    from games.models import SealedOrder
    from games.services.organizer import deadline_extend

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = _4x_game(timedelta(hours=1))
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert _chosen(page) != CHOICE
    _choose(page, CHOICE)
    deadline_extend(game=game, by=game.organizer, hours=2)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.inner_text("#moved-on") == (
        "The game has moved on: the deadline changed. Your choice is kept below: it was not"
        " sent (reloading the page keeps it). Reload the page to see the new situation."
    )
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    assert _chosen(page) == CHOICE
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.inner_text("#page-updated") == "Your choice was not sent: it is kept in the form below. Go to the form"
    assert page.input_value("#id_text") == ""  # in the picker, not in the order box
    # Sent: sealed, and nothing is kept for a later load.
    page.locator("#legal-orders button[type='submit']").click()
    page.wait_for_load_state()
    assert page.inner_text(".messages").startswith("Order received and sealed")
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).text == (
        "ALLOCATE " + " ".join(CHOICE)
    )
    assert page.evaluate(KEPT) == 0
    page.reload()
    page.clock.run_for(1200)
    assert page.locator("#page-updated:not([hidden])").count() == 0
    # Another choice, held again and kept for the tab: logging out forgets it.
    other = ["EXPAND", "EXTRACT", "EXTERMINATE"]
    _choose(page, other)
    deadline_extend(game=game, by=game.organizer, hours=2)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    page.goto(f"{live_server.url}/games/")
    page.wait_for_load_state()
    assert page.evaluate(KEPT) == 1
    page.locator("form[data-logout] button").click()
    page.wait_for_load_state()
    assert page.evaluate(KEPT) == 0
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.clock.run_for(1200)
    assert _chosen(page) == CHOICE  # her sealed order, not the choice forgotten


def test_a_choice_held_when_the_prompt_resolves_comes_back_as_its_order_text(
    browser_page, live_server, settings
):
    """Regression: a choice made in the picker of a prompt the sweep resolved was lost on
    a reload. It comes back as its order's text in the order box, as the server offers a
    refused choice, said to be made for that prompt (the picker offers the new prompt's
    choices)."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = _4x_game(timedelta(seconds=30))
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    _choose(page, CHOICE)
    _sweep_past_the_deadline(page, game)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    assert page.input_value("#id_text") == "ALLOCATE " + " ".join(CHOICE)
    assert page.locator("#prompt details").get_attribute("open") is not None
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.inner_text("#page-updated") == (
        "Your choice made for decision 1 was not sent: it is kept in the order box below."
        " Go to the order box"
    )


def test_a_kept_text_comes_back_to_its_own_seat_only(browser_page, live_server, settings):
    """The text kept across a reload is the typing player's: another player signing in
    next in the same tab (a shared computer) opens the same game's page with an empty box;
    the typist, back, gets it."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = browser_page
    _held_with_text(page, live_server.url, game)
    page.context.clear_cookies()
    log_in(page, live_server.url, "bob")  # leaving ann's page keeps her text for this tab
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_load_state()
    assert page.locator("#id_text").count() == 1  # bob has an order box too
    assert page.input_value("#id_text") == ""
    assert DRAFT not in page.content()
    page.context.clear_cookies()
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_load_state()
    assert page.input_value("#id_text") == DRAFT


KEPT = "() => Object.keys(window.sessionStorage).filter(k => k.startsWith('fivex-draft:')).length"


def test_logging_out_after_leaving_the_page_forgets_the_kept_text(browser_page, live_server, settings):
    """A text kept for the tab is gone once its player logs out: not put back, and not
    left in the browser's storage for the next person at a shared computer."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = browser_page
    _held_with_text(page, live_server.url, game)
    page.goto(f"{live_server.url}/games/")  # leaving the page keeps the text for the tab
    page.wait_for_load_state()
    assert page.evaluate(KEPT) == 1
    page.locator("form[data-logout] button").click()
    page.wait_for_load_state()
    assert page.evaluate(KEPT) == 0
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_load_state()
    assert page.input_value("#id_text") == ""


def test_logging_out_from_the_held_page_keeps_nothing(browser_page, live_server, settings):
    """Logging out from the page that holds the text does not keep it on the way out."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = browser_page
    _held_with_text(page, live_server.url, game)
    page.locator("form[data-logout] button").click()
    page.wait_for_load_state()
    assert page.evaluate(KEPT) == 0


UNSENT = "Your text typed for decision 1 was not sent, and you have no order to give now."


def test_a_kept_text_with_no_order_to_give_now_is_shown_until_dismissed(browser_page, live_server, settings):
    """Regression: a text kept across a reload was dropped without a word when the page
    came back with no order box (here: the organizer ended the game while ann typed). It
    is shown, to be copied, to ann only, until she dismisses it; then it is forgotten."""
    from games.services.organizer import game_end

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(hours=1))
    page = browser_page
    _open_typing(page, live_server.url, game)
    game_end(game=game, by=game.organizer, reason="rain")
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    # The prompt was not resolved: the organizer ended the game (it said "Prompt 1 was
    # resolved; the game is ended early", and the countdown "prompt 1 was resolved").
    assert page.inner_text("#moved-on-said").startswith(
        "The game was ended early: decision 1 was not resolved. Your text is kept below"
    )
    assert page.inner_text(".countdown") == "the game was ended early"
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    assert page.locator("#id_text").count() == 0  # the game is over: no order box
    page.wait_for_selector("#draft-unsent:not([hidden])")
    assert page.inner_text("#draft-unsent-said") == UNSENT
    assert page.input_value("#draft-unsent-text") == DRAFT
    assert page.get_attribute("#draft-unsent-text", "readonly") is not None
    # Kept until dismissed: a reload shows it again.
    page.reload()
    page.wait_for_selector("#draft-unsent:not([hidden])")
    assert page.input_value("#draft-unsent-text") == DRAFT
    # Nobody else in the tab sees it: another player, a visitor not logged in.
    for name in ("bob", None):
        page.context.clear_cookies()
        if name:
            log_in(page, live_server.url, name)
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state()
        page.clock.run_for(1200)  # past the moment the notice would show
        assert page.locator("#draft-unsent:not([hidden])").count() == 0
        assert DRAFT not in page.evaluate("() => document.body.innerText + document.body.innerHTML")
    page.context.clear_cookies()
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_selector("#draft-unsent:not([hidden])")
    page.get_by_role("button", name="Dismiss").click()
    assert page.locator("#draft-unsent").is_hidden()
    assert page.evaluate(KEPT) == 0
    page.reload()
    page.clock.run_for(1200)
    assert page.locator("#draft-unsent:not([hidden])").count() == 0


def test_a_kept_choice_with_no_order_to_give_now_is_shown_as_its_order(browser_page, live_server, settings):
    """A choice made in the picker, held when the organizer ended the game: the page back
    has no order to give, and shows the choice's order to be copied, until dismissed."""
    from games.services.organizer import game_end

    settings.GAMES_PAGE_POLL_SECONDS = 1
    game = _4x_game(timedelta(hours=1))
    page = browser_page
    log_in(page, live_server.url, "ann")
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    _choose(page, CHOICE)
    game_end(game=game, by=game.organizer, reason="rain")
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    page.wait_for_selector("#draft-unsent:not([hidden])")
    assert page.inner_text("#draft-unsent-said") == (
        "Your choice made for decision 1 was not sent, and you have no order to give now."
    )
    assert page.input_value("#draft-unsent-text") == "ALLOCATE " + " ".join(CHOICE)
    page.get_by_role("button", name="Dismiss").click()
    assert page.evaluate(KEPT) == 0


def test_on_a_phone_the_order_box_stays_put_while_the_prompt_resolves_under_the_typing(
    phone_page, live_server, settings
):
    """The phone audit: the countdown's "deadline passed" line (three lines on a phone) and
    then the held notice, both above the order box, pushed the box being typed in down by
    ~160 px, off a 740 px screen. The page now scrolls by what they add above the focused
    box; and the "Stop the countdown" link goes once there is nothing left to count."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = phone_page
    page.set_viewport_size({"width": 360, "height": 740})
    _open_typing(page, live_server.url, game)
    page.locator("#id_text").scroll_into_view_if_needed()
    top = page.evaluate("() => document.getElementById('id_text').getBoundingClientRect().top")
    _sweep_past_the_deadline(page, game)
    page.wait_for_selector("#moved-on:not([hidden])", timeout=10_000)
    assert page.evaluate("() => document.activeElement.id") == "id_text"
    now = page.evaluate("() => document.getElementById('id_text').getBoundingClientRect().top")
    assert abs(now - top) <= 2, (top, now)
    assert page.locator("[data-countdown-toggle]").is_hidden()
    assert page.inner_text(".countdown") == "decision 1 was resolved"


def test_on_a_phone_the_note_of_a_kept_text_leads_to_the_order_box(phone_page, live_server, settings):
    """After the reload, the note at the top says the text is kept in the order box below,
    which on a phone is a screen or more down, the focus on the page: its link goes there
    and puts the focus in the box (the phone audit)."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = phone_page
    _held_with_text(page, live_server.url, game)
    page.locator("#moved-on a").click()
    page.wait_for_load_state()
    page.wait_for_selector("#page-updated:not([hidden])")
    assert page.input_value("#id_text") == DRAFT
    link = page.locator("#page-updated a#to-kept")
    assert link.inner_text() == "Go to the order box"
    link.click()
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "id_text"
    box = page.evaluate("""() => { const r = document.getElementById('id_text').getBoundingClientRect();
        return [r.top, r.bottom, window.innerHeight]; }""")
    assert 0 <= box[0] and box[1] <= box[2], box
    assert page.input_value("#id_text") == DRAFT  # nothing typed over or lost


def test_on_a_phone_a_held_text_survives_a_refused_tap_on_an_order_button(
    phone_page, live_server, settings
):
    """Regression (the phone walk): ann typed an order, the prompt resolved under it and
    the page said her text was kept; she then tapped one of the old prompt's order buttons
    (above the box on a phone). The server refused it and refilled the box with that
    button's order: her typed text was gone without a word. Now the box holds the refused
    order and the text she typed is shown to copy, until dismissed."""
    settings.GAMES_PAGE_POLL_SECONDS = 1
    game, _seats = _game(timedelta(seconds=30))
    page = phone_page
    _held_with_text(page, live_server.url, game)
    button = page.locator("#legal-orders button").first
    tapped = button.inner_text().strip()
    button.tap()
    page.wait_for_load_state()
    assert page.inner_text(".messages").startswith("Decision 1 is not open any more")
    assert page.input_value("#id_text") == tapped  # the server's refill: the refused order
    page.wait_for_selector("#draft-unsent:not([hidden])")
    assert page.inner_text("#draft-unsent-said") == (
        "Your text typed for decision 1 was not sent either: here it is to copy (the order"
        " box below holds the order just refused)."
    )
    assert page.input_value("#draft-unsent-text") == DRAFT
    page.get_by_role("button", name="Dismiss").click()
    assert page.evaluate(KEPT) == 0
