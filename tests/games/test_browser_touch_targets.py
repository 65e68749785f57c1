"""Touch targets of the seat's game page on a phone (360 x 740, touch), in real headless
Chromium: every control a player taps while ordering (the legal-order buttons, Send, the
pickers' selects and buttons, the order box, the countdown's Stop button) is at least
44 CSS px tall, the size Apple's guidelines and WCAG 2.2's enhanced target size (2.5.5)
ask for, where the phone audit measured 36 px (buttons), 37 px (selects) and 20 px (the
countdown's button). The page still does not widen past the screen."""

from __future__ import annotations

import pytest

from tests.games.core_support import start_fixed
from tests.games.test_4x_dice_hit_picker import exterminate_game
from tests.games.test_6x5_hex_picker import blue_line_game
from tests.games.test_browser import log_in
from tests.games.web_support import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


#: The controls of the page's ordering parts, measured where they are shown.
SMALL_CONTROLS = """(selector) => {
    const small = [];
    for (const el of document.querySelectorAll(selector)) {
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
        if (box.height < 44) {
            small.push(`${el.tagName.toLowerCase()} "${(el.innerText || el.value || el.name || el.id || '').trim().slice(0, 30)}": ${box.width.toFixed(0)}x${box.height.toFixed(1)}`);
        }
    }
    return small;
}"""

ORDERING = ", ".join(
    f"#prompt {tag}, .countdown-control {tag}, [data-countdown-toggle]"
    for tag in ("button", "select", "textarea", "input[type=text]", "input[type=number]")
)


def _open(page, live_server, user: str, game) -> None:
    page.set_viewport_size({"width": 360, "height": 740})  # a small phone (the phone audit's)
    log_in(page, live_server.url, user)
    page.goto(f"{live_server.url}/games/{game.pk}/")


def _assert_targets(page) -> None:
    assert page.locator("#prompt").count() == 1
    measured = page.evaluate(f"() => document.querySelectorAll({ORDERING!r}).length")
    assert measured >= 2, "nothing to measure: the page's ordering controls were not found"
    small = page.evaluate(SMALL_CONTROLS, ORDERING)
    assert small == [], small
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360


def test_5x_ordering_controls_are_large_enough_to_tap(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    for name in ("ann", "bob", "cat"):
        make_user(name)  # with a password, to log in; start_fixed seats them
    game, _seats = start_fixed(["ann", "bob", "cat"], deadline_hours=2)
    page = phone_page
    _open(page, live_server, "ann", game)
    assert page.is_visible("#legal-orders")
    assert page.locator("[data-countdown-toggle]").count() == 1
    _assert_targets(page)


def test_4x_dice_hit_picker_controls_are_large_enough_to_tap(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = exterminate_game()
    page = phone_page
    _open(page, live_server, "ann", game)
    assert page.is_visible("#hit-picker")
    assert page.locator("#hit-picker select").count() > 0
    _assert_targets(page)


def test_6x5_picker_controls_are_large_enough_to_tap(phone_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = blue_line_game()
    page = phone_page
    _open(page, live_server, "ann", game)
    assert page.is_visible("#hex-picker")
    _assert_targets(page)
