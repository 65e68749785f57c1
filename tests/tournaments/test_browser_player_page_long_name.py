"""A tournament player's page on a phone, in real headless Chromium (h3's organizer
walk): a long player name (names run to 150 characters, in one word) in the
"<name>'s page" link pushed the page sideways (398 px wide at 390)."""

from __future__ import annotations

import pytest

from tests.games.web_support import make_user
from tournaments.services import rounds
from tournaments.services import tournaments as tsvc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = "maximilian_alexander_von_hohenzollern_sigmaringen"


def test_a_long_name_stays_inside_a_phone_screen(phone_page, live_server):
    org = make_user("olga")
    t = tsvc.tournament_create(organizer=org, name="Long names", ruleset="6x5", table_sizes=[2], rounds_count=2)
    tsvc.tournament_open(tournament=t, by=org)
    long_reg = tsvc.registration_add(tournament=t, user=make_user(LONG))
    tsvc.registration_add(tournament=t, user=make_user("ann"))
    rounds.round_start(rnd=rounds.round_pair(tournament=t, by=org), by=org)
    page = phone_page
    page.goto(f"{live_server.url}/tournaments/{t.slug}/players/{long_reg.pk}/")
    link = page.get_by_role("link", name=f"{LONG}'s page")
    assert link.is_visible()
    width = page.evaluate("() => document.documentElement.clientWidth")
    assert width == 390
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    box = link.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
