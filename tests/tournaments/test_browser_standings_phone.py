"""The standings with all six tie-breaks and the panel's requested byes on a phone, in real
headless Chromium (390 px): nothing to scroll sideways, every value under its column's
name, the table still a table to a screen reader; at 1280 px the table it was."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.games.test_browser import log_in
from tests.games.web_support import make_user
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("annabel", "bartholomew", "cordelia", "desmond", "evangeline", "fitzgerald", "gwendolyn")
# All six, written out (not read from the code under test).
SIX = ["buchholz", "buchholz_cut1", "sonneborn_berger", "average_opponent", "wins", "direct_encounter"]
WHOLE_HEADS = ["#", "Player", "Points", "Buchholz", "Buchholz cut-1", "Sonneborn–Berger",
               "Average opponent points", "Wins", "Direct encounter", "Played"]


def _league(name: str):
    """A 5X league of seven (tables of 4 and 3) organized by olga with all six tie-breaks,
    its round 1 played (results entered by hand), round 2 not paired."""
    org = make_user("olga")
    t = tsvc.tournament_create(organizer=org, name=name, ruleset="5x", table_sizes=[4, 3], rounds_count=5,
                               tiebreaks=SIX)
    tsvc.tournament_open(tournament=t, by=org)
    regs = [tsvc.registration_add(tournament=t, user=make_user(n)) for n in NAMES]
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    for table in rnd.tables.select_related("game"):
        game_end(game=table.game, by=org, reason="offline")
        results.result_enter(table=table, ranking=[[p] for p in table.players], by=org, reason="played offline")
    return t, regs


def _sideways(page) -> dict:
    """How far the page and the standings' box can scroll sideways (0 when they cannot)."""
    return page.evaluate(
        "() => { const d = document.scrollingElement;"
        " const box = document.querySelector('.scroll-x[aria-label=Standings]');"
        " return {page: d.scrollWidth - d.clientWidth, standings: box.scrollWidth - box.clientWidth}; }"
    )


def test_six_tiebreaks_fit_a_phone_without_sideways_scroll(phone_page, live_server):
    # Regression (a phone check): with six tie-breaks the standings' box scrolled sideways
    # at 390 px (508 px of table in 350).
    t, _regs = _league("Six cup")
    page = phone_page
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    assert page.evaluate("() => document.scrollingElement.clientWidth") == 390
    assert page.evaluate("() => document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth")
    assert _sideways(page) == {"page": 0, "standings": 0}
    width = page.evaluate("() => document.documentElement.clientWidth")
    cells = page.locator("table.standings tbody td")
    assert cells.count() == len(NAMES) * len(WHOLE_HEADS)
    for i in range(cells.count()):
        box = cells.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box)
    # Each value says which column it is (its short name, as the phone's heads were).
    first = page.locator("table.standings tbody tr").first
    labels = [first.locator("td").nth(i).get_attribute("data-label") for i in range(len(WHOLE_HEADS))]
    assert labels == ["#", "Player", "Points", "BH", "BH-1", "SB", "AOP", "Wins", "DE", "Played"]
    shown = page.evaluate("() => getComputedStyle(document.querySelector("
                          "'table.standings tbody td[data-label=SB]'), '::before').content")
    assert shown == '"SB"'
    # A name is read whole, on one line.
    name = page.locator('table.standings tbody td[data-label="Player"] a', has_text="bartholomew")
    assert name.bounding_box()["height"] < 30
    # Still a table to a screen reader: its column heads (the whole names) and rows.
    table = page.get_by_role("table")
    heads = table.get_by_role("columnheader")
    assert heads.count() == len(WHOLE_HEADS)
    assert table.get_by_role("row").count() == 1 + len(NAMES)
    assert table.get_by_role("cell").count() == len(NAMES) * len(WHOLE_HEADS)
    snapshot = page.locator("table.standings").aria_snapshot()
    assert 'columnheader "Sonneborn–Berger"' in snapshot and 'columnheader "Average opponent points"' in snapshot
    # At 1280 px the table it was: one row a player, the whole names in the heads.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    assert page.evaluate("() => getComputedStyle(document.querySelector('table.standings tbody tr')).display") == "table-row"
    assert page.locator("table.standings thead th").all_inner_texts() == [h.upper() for h in WHOLE_HEADS]
    assert _sideways(page) == {"page": 0, "standings": 0}


def test_the_requested_byes_stay_beside_their_label_on_a_phone(phone_page, live_server):
    # Regression (a phone check): the panel's "Requested byes" value wrapped under its label.
    t, regs = _league("Bye cup")
    for number in (3, 4, 5):
        tsvc.bye_request(registration=regs[1], round_number=number, by=regs[1].user)
    page = phone_page
    log_in(page, live_server.url, "olga")
    page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
    cell = page.locator('table.registrations td[data-label="Requested byes"]', has_text="3, 4, 5")
    assert cell.count() == 1
    # The value's text starts on the label's line: its top is the cell's (padding aside).
    drop = cell.evaluate(
        "td => { const r = document.createRange(); r.selectNodeContents(td);"
        " const text = r.getClientRects()[0], box = td.getBoundingClientRect();"
        " return text.top - box.top - parseFloat(getComputedStyle(td).paddingTop); }"
    )
    assert abs(drop) < 6, drop
    width = page.evaluate("() => document.documentElement.clientWidth")
    box = cell.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width


def test_a_players_requested_byes_are_one_line_with_their_take_back_buttons(phone_page, live_server):
    # Regression (the phone walk): the "Byes requested for rounds:" paragraph held the
    # take-back forms, which the browser moved out of it (a form closes a <p>): the label
    # stood alone, then each round and its "take back" a block of its own, the commas
    # between them stray lines.
    t, regs = _league("Take-back cup")
    for number in (3, 4):
        tsvc.bye_request(registration=regs[1], round_number=number, by=regs[1].user)
    page = phone_page
    log_in(page, live_server.url, "bartholomew")
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    line = page.locator("#requested-byes")
    assert line.locator("form").count() == 2
    assert line.inner_text().split() == ["Byes", "requested", "for", "rounds:", "3", "take", "back,",
                                         "4", "take", "back"]  # fmt: skip
    label = page.get_by_text("Byes requested for rounds:").bounding_box()
    button = line.get_by_role("button", name="Take back the bye for round 3").bounding_box()
    assert button["y"] <= label["y"] + label["height"] / 2 <= button["y"] + button["height"], (label, button)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_the_panels_audit_log_is_a_card_an_entry_on_a_phone(phone_page, live_server):
    # Regression (the phone walk): the organizer panel's audit log kept its four columns
    # on a phone, its "When" column ~70 px wide: each moment stood five lines tall
    # ("Sun 29 / Nov / 2026, / 03:21 / UTC"), every entry some 190 px.
    t, _regs = _league("Audit cup")
    page = phone_page
    log_in(page, live_server.url, "olga")
    page.goto(f"{live_server.url}/tournaments/{t.slug}/manage/")
    region = page.locator('.scroll-x[aria-label="Audit log"]')
    assert region.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
    rows = region.locator("tbody tr")
    assert rows.count() == t.log.count()
    width = page.evaluate("() => document.documentElement.clientWidth")
    for i in range(rows.count()):
        when = rows.nth(i).locator("td").nth(1)
        lines = when.evaluate(
            "(td) => Math.round(td.getBoundingClientRect().height / parseFloat(getComputedStyle(td).lineHeight))"
        )
        assert lines <= 1, (i, when.inner_text(), lines)
        box = rows.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    # Still its table for a screen reader: the column heads.
    heads = region.get_by_role("columnheader")
    assert heads.all_inner_texts() and heads.count() == 4
