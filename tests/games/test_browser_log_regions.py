"""The game log at phone width in real headless Chromium: an entry's recorded fields
wider than the screen scroll in their own cell, which a keyboard must reach (an
accessibility audit, axe scrollable-region-focusable); cells that fit are no Tab stop."""

from __future__ import annotations

import pytest

from tests.games.test_6x5_hex_picker import table_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_wide_log_details_are_named_keyboard_stops_and_the_others_are_not(phone_page, browser_page, live_server, settings):
    settings.GAMES_PAGE_POLL_SECONDS = 600
    from games.services.organizer import game_end

    game = table_game()  # public; three turns played
    game_end(game=game, by=game.organizer, reason="a test")  # reveals the set-up: wide fields
    phone_page.goto(f"{live_server.url}/games/{game.pk}/log/")
    read = """() => Array.from(document.querySelectorAll('table.log td.details')).map(c => ({
        wide: c.scrollWidth > c.clientWidth + 1, tab: c.getAttribute('tabindex'),
        role: c.getAttribute('role'), label: c.getAttribute('aria-label')}))"""
    # The entries' fields flow on a phone now: even the revealed set-up fits its screen,
    # and no entry is a stop. A wider one (a longer value than any here) is made wide.
    assert not any(c["wide"] or c["tab"] for c in phone_page.evaluate(read))
    phone_page.evaluate("""() => {
        const wide = document.createElement('span');
        wide.style.cssText = 'display: inline-block; width: 800px';
        document.querySelector('table.log td.details').append(wide);
        window.dispatchEvent(new Event('resize'));
    }""")
    cells = phone_page.evaluate(read)
    wide = [c for c in cells if c["wide"]]
    assert wide, "no entry wider than a phone: the test shows nothing"
    assert all(c["tab"] == "0" and c["role"] == "region" and c["label"].startswith("Entry ") for c in wide)
    assert all(c["tab"] is None for c in cells if not c["wide"])
    # On a desktop screen the same entries fit: no stop is added.
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    browser_page.goto(f"{live_server.url}/games/{game.pk}/log/")
    assert browser_page.locator("table.log td.details[tabindex]").count() == sum(
        1 for c in browser_page.evaluate(
            "() => Array.from(document.querySelectorAll('table.log td.details')).map(c => c.scrollWidth > c.clientWidth + 1)")
        if c
    )
