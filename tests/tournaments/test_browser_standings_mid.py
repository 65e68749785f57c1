"""The standings with many tie-breaks between a phone and a desktop (641-1040 px), in real
headless Chromium: the whole tie-break names did not fit there and the standings' box
scrolled inside itself (960 px of table at 800 px); the heads now give the short names
(the whole ones their titles) wherever the whole names do not fit, and 1280 px is as it was."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.games.web_support import make_user
from tests.tournaments.test_browser_standings_phone import (
    NAMES,
    SIX,
    WHOLE_HEADS,
    _league,
    _sideways,
)
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHORT_HEADS = ["#", "Player", "Pts", "BH", "BH-1", "SB", "AOP", "Wins", "DE", "Pld"]
# The widest choices of three, four and five (written out: the longest whole names).
WIDEST = {
    3: ["sonneborn_berger", "average_opponent", "direct_encounter"],
    4: ["buchholz_cut1", "sonneborn_berger", "average_opponent", "direct_encounter"],
    5: ["buchholz", "buchholz_cut1", "sonneborn_berger", "average_opponent", "direct_encounter"],
    6: SIX,
}


def _cells_in_box(page) -> list:
    """Each standings cell (head and body) that is not wholly inside the standings' box."""
    return page.evaluate(
        "() => { const box = document.querySelector('.scroll-x[aria-label=Standings]').getBoundingClientRect();"
        " const out = [];"
        " for (const c of document.querySelectorAll('table.standings th, table.standings td')) {"
        "   const r = c.getBoundingClientRect();"
        "   if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.right > innerWidth)"
        "     out.push([c.textContent.trim(), r.left, r.right, box.right]); }"
        " return out; }"
    )


def test_six_tiebreaks_fit_800_px_without_sideways_scroll(browser_page, live_server):
    # Regression (a review): at 800 px the six tie-breaks' whole names made 960 px of table
    # in a 760 px box that scrolled sideways.
    t, _regs = _league("Six mid cup")
    page = browser_page
    page.set_viewport_size({"width": 800, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    assert page.evaluate("() => document.documentElement.clientWidth") == 800
    assert _sideways(page) == {"page": 0, "standings": 0}
    assert _cells_in_box(page) == []
    assert page.locator("table.standings tbody td").count() == len(NAMES) * len(WHOLE_HEADS)
    # Still a table, one row a player, the heads' short names with the whole as their title.
    assert page.evaluate("() => getComputedStyle(document.querySelector('table.standings tbody tr')).display") == "table-row"
    assert [h.strip() for h in page.locator("table.standings thead th").all_inner_texts()] == [h.upper() for h in SHORT_HEADS]
    assert page.locator("table.standings thead abbr[title='Sonneborn–Berger']").is_visible()
    # At 1280 px, unchanged: the whole names, nothing to scroll.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/tournaments/{t.slug}/")
    assert page.locator("table.standings thead th").all_inner_texts() == [h.upper() for h in WHOLE_HEADS]
    assert _sideways(page) == {"page": 0, "standings": 0}
    assert _cells_in_box(page) == []


def test_no_width_between_phone_and_desktop_scrolls_the_standings(browser_page, live_server):
    # Regression (a review): three tie-breaks overflowed up to ~720 px, four up to ~830, six
    # up to 1000. At every width from 561 to 1280 px, for the widest choices of 3 to 6
    # tie-breaks, nothing scrolls sideways and every cell is in its box; past 1040 px (and
    # below where each count needs them) the heads are the whole names.
    org = make_user("olga")
    users = [make_user(n) for n in NAMES]
    slugs = {}
    for count, tiebreaks in WIDEST.items():
        t = tsvc.tournament_create(organizer=org, name=f"Widest {count}", ruleset="5x", table_sizes=[4, 3],
                                   rounds_count=5, tiebreaks=tiebreaks)
        tsvc.tournament_open(tournament=t, by=org)
        for user in users:
            tsvc.registration_add(tournament=t, user=user)
        rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
        for table in rnd.tables.select_related("game"):
            game_end(game=table.game, by=org, reason="offline")
            results.result_enter(table=table, ranking=[[p] for p in table.players], by=org, reason="offline")
        slugs[count] = t.slug
    page = browser_page
    failures = []
    for count, slug in slugs.items():
        for width in [*range(561, 1100, 40), 1100, 1280]:
            page.set_viewport_size({"width": width, "height": 700})
            page.goto(f"{live_server.url}/tournaments/{slug}/")
            sideways, outside = _sideways(page), _cells_in_box(page)
            if sideways != {"page": 0, "standings": 0} or outside:
                failures.append((count, width, sideways, outside[:2]))
            if width > 1040:
                heads = page.locator("table.standings thead th").all_inner_texts()
                if "SB" in heads or "AOP" in heads:
                    failures.append((count, width, "short heads", heads))
    assert failures == []


def test_a_150_character_player_name_does_not_scroll_the_standings(browser_page, live_server):
    # Regression (found with the above): a player name of 150 characters without a space
    # (the longest a name may be) made the box scroll sideways at every width, 1280 px too.
    org = make_user("olga")
    t = tsvc.tournament_create(organizer=org, name="Long name cup", ruleset="5x", table_sizes=[4, 3],
                               rounds_count=5, tiebreaks=SIX)
    tsvc.tournament_open(tournament=t, by=org)
    long_name = "b" * 150
    for name in ("annabel", "cordelia", "desmond", long_name):
        tsvc.registration_add(tournament=t, user=make_user(name))
    page = browser_page
    for width in (800, 1280):
        page.set_viewport_size({"width": width, "height": 700})
        page.goto(f"{live_server.url}/tournaments/{t.slug}/")
        assert _sideways(page) == {"page": 0, "standings": 0}, width
        assert _cells_in_box(page) == [], width
        # The name is all there, broken over lines.
        assert page.locator("table.standings td.player a", has_text=long_name).count() == 1
