"""Scrolling boxes in real headless Chromium: a wide table or the 6x5 board that scrolls
inside its box is a keyboard stop (axe scrollable-region-focusable), and a box whose
content fits is none (the accessibility pass found the 6x5 board's box, and every table's,
a Tab stop where nothing moves). Checked on a phone and on a desktop screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.games.test_6x5_hex_picker import table_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOXES = """() => Array.from(document.querySelectorAll(
    '.scroll[role=region], .scroll-x[role=region], .hexmap-box[role=region]')).map(b => ({
    name: b.getAttribute('aria-label'),
    wide: b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1,
    tab: b.getAttribute('tabindex')}))"""


def _stops(page, url: str) -> list[dict]:
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(50)
    return page.evaluate(BOXES)


def test_only_boxes_that_scroll_are_keyboard_stops(phone_page, browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    game = table_game()  # 6x5, public, three turns played
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    seen_wide = seen_narrow = 0
    for page in (browser_page, phone_page):
        for path in (f"/games/{game.pk}/", "/games/", "/games/rules/5x/"):
            boxes = _stops(page, live_server.url + path)
            assert boxes, path
            for box in boxes:
                assert (box["tab"] == "0") == box["wide"], (path, box)
            seen_wide += sum(b["wide"] for b in boxes)
            seen_narrow += sum(not b["wide"] for b in boxes)
    # Boxes that fit were there to check; one that scrolls is checked next (the rules
    # pages' tables no longer scroll on a phone: one card a row there).
    assert seen_narrow
    # On a desktop screen the 6x5 board fits its box: no stop; on a phone it scrolls: one.
    desktop = {b["name"]: b for b in _stops(browser_page, f"{live_server.url}/games/{game.pk}/")}
    board = next(b for name, b in desktop.items() if name.startswith("Board"))
    assert board["tab"] is None and not board["wide"]
    # Narrowing the window makes it scroll: it becomes a stop without a reload.
    browser_page.set_viewport_size({"width": 300, "height": 900})
    # (Checked once the page's resize handler has run: it waits 150 ms for the resizing
    # to settle. Waited for, not slept: it fails here after the timeout if it never does.)
    browser_page.wait_for_function(
        """() => Array.from(document.querySelectorAll('[role=region]')).find(
            b => (b.getAttribute('aria-label') || '').startsWith('Board')).getAttribute('tabindex') === '0'"""
    )
    narrow = {b["name"]: b for b in browser_page.evaluate(BOXES)}
    board = next(b for name, b in narrow.items() if name.startswith("Board"))
    assert board["wide"] and board["tab"] == "0"


def test_a_box_whose_content_grows_becomes_a_stop_without_a_resize(browser_page, live_server, settings):
    # A code review: content that widens a box without the window changing size (a late
    # font, a board drawn by a script) left it without its keyboard stop.
    settings.GAMES_PAGE_POLL_SECONDS = 600
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/games/rules/5x/")
    page.wait_for_load_state("load")
    box = page.locator(".scroll[role=region]").first
    assert box.get_attribute("tabindex") is None  # fits on a desktop screen
    box.evaluate("b => { b.firstElementChild.style.width = '4000px'; }")
    expect(box).to_have_attribute("tabindex", "0")  # waits for it (the watch runs late)
