"""The tournament pages' key columns on a phone, in real headless Chromium (an audit at
390 px: the round page's Deadline and Result, the panel's Withdraw buttons and the
standings' "Sonneborn–Berger" header were past the right edge of their scroll boxes),
and the same pages at 1280 px as they were."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.games.test_browser import log_in
from tests.games.web_support import make_user
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("annabel", "bartholomew", "cordelia", "desmond", "evangeline", "fitzgerald", "gwendolyn")


def _league(name: str, *, finish_round_1: bool = False):
    """A 5X league of seven (tables of 4 and 3) organized by olga, tie-breaks Buchholz
    then Sonneborn–Berger, its round 1 started (and finished by hand if asked)."""
    org = make_user("olga")
    t = tsvc.tournament_create(organizer=org, name=name, ruleset="5x", table_sizes=[4, 3], rounds_count=3,
                               tiebreaks=["buchholz", "sonneborn_berger"])
    tsvc.tournament_open(tournament=t, by=org)
    for n in NAMES:
        tsvc.registration_add(tournament=t, user=make_user(n))
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    if finish_round_1:
        for table in rnd.tables.select_related("game"):
            game_end(game=table.game, by=org, reason="offline")
            results.result_enter(table=table, ranking=[[p] for p in table.players], by=org,
                                 reason="played offline")
    return t


def _on_screen(page, selector: str) -> list[dict]:
    """The boxes of every element ``selector`` finds that lie (partly) outside the
    screen's width: none, when the column can be read without scrolling."""
    width = page.evaluate("() => document.documentElement.clientWidth")
    out = []
    for i in range(page.locator(selector).count()):
        box = page.locator(selector).nth(i).bounding_box()
        if box is None or box["x"] < 0 or box["x"] + box["width"] > width + 0.5:
            out.append(box)
    return out


def test_the_round_pages_deadline_and_result_are_on_a_phones_screen(phone_page, live_server):
    t = _league("Round cup")
    page = phone_page
    page.goto(f"{live_server.url}/tournaments/{t.slug}/rounds/1/")
    assert page.locator('td[data-label="Deadline"]').count() == 2
    assert _on_screen(page, 'td[data-label="Deadline"]') == []
    assert _on_screen(page, 'td[data-label="Result"]') == []
    # Each value still says which column it is.
    label = page.evaluate("() => getComputedStyle(document.querySelector("
                          "'td[data-label=\"Deadline\"]'), '::before').content")
    assert label == '"Deadline: "'
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # At 1280 px: the table it was, its column heads shown, one row a table.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/rounds/1/")
    assert page.locator("table.pairings thead th", has_text="Deadline").is_visible()
    assert page.evaluate("() => getComputedStyle(document.querySelector('table.pairings tbody tr')).display") == "table-row"


def test_the_panels_withdraw_buttons_are_on_a_phones_screen(phone_page, live_server):
    t = _league("Panel cup")
    page = phone_page
    log_in(page, live_server.url, "olga")
    page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
    buttons = 'button[aria-label^="Withdraw "]'
    assert page.locator(buttons).count() == len(NAMES)
    assert _on_screen(page, buttons) == []
    # Each registration's values say which column they are.
    assert page.locator('td[data-label="From round"]').count() == len(NAMES)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
    assert page.locator("th", has_text="Requested byes").is_visible()
    assert page.evaluate("() => getComputedStyle(document.querySelector("
                         "'button[aria-label^=\"Withdraw \"]').closest('tr')).display") == "table-row"


def test_the_standings_tiebreak_heads_are_on_a_phones_screen(phone_page, live_server):
    t = _league("Standings cup", finish_round_1=True)
    page = phone_page
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    heads = "table.standings thead th"
    assert _on_screen(page, heads) == []
    assert _on_screen(page, "table.standings tbody td") == []
    # Nothing left to scroll to in the standings' box.
    assert page.evaluate("() => { const box = document.querySelector('.scroll-x[aria-label=Standings]');"
                         " return box.scrollWidth - box.clientWidth; }") <= 0
    # Shortened, with the whole name to read (a tooltip, and screen readers).
    sb = page.locator("table.standings thead th abbr", has_text="SB")
    assert sb.is_visible() and sb.get_attribute("title") == "Sonneborn–Berger"
    # At 1280 px the whole names, as before.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    assert page.locator(heads, has_text="Sonneborn–Berger").is_visible()
    assert not page.locator("table.standings thead th abbr", has_text="SB").is_visible()
    assert page.locator(heads).all_inner_texts() == ["#", "PLAYER", "POINTS", "BUCHHOLZ", "SONNEBORN–BERGER", "PLAYED"]


def test_the_tournaments_lists_columns_are_on_a_phones_screen(phone_page, live_server):
    # Regression (a newcomer's walk at 390 px): the list of all tournaments was a six-column
    # table in a scroll box; Status and Organizer were past the right edge of the screen.
    _league("A cup with quite a long name for a phone")
    page = phone_page
    page.goto(f"{live_server.url}/tournaments/")
    for column in ("Game", "Rounds", "Players", "Status", "Organizer"):
        assert page.locator(f'td[data-label="{column}"]').count() == 1, column
        assert _on_screen(page, f'td[data-label="{column}"]') == [], column
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
