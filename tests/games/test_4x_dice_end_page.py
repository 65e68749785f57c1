"""4X Dice's end page: the last round's allocations (entered by the server for every seat
that allocated once a counter stood at 19, for a turn that never comes) were shown as
"0/2→explore 0/2→expand 2/2→extract", as if the players had chosen them (an audit)."""

from __future__ import annotations

import html
import re

import pytest

from games.models import LogEntry, SealedOrder
from games.services.games import game_create_seated
from tests.games.core_support import play_defaults
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


def test_the_end_page_shows_the_dice_without_the_last_rounds_areas(client):
    ann, bob = make_user("ann"), make_user("bob")
    game = game_create_seated(organizer=ann, ruleset="4x-dice", users=[ann, bob], is_private=False)
    assert play_defaults(game)
    # the server entered the last round's allocations (what the page used to show)
    forced = SealedOrder.objects.filter(prompt__game=game, source="forced")
    assert forced.exists()
    assert LogEntry.objects.filter(game=game, kind="order_forced").count() == forced.count()
    client.force_login(ann)
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert "Game over" in page
    dice = re.search(r'id="my-dice">(.*?)</p>', page, re.S).group(1)
    assert "/" in dice and "→" not in dice, dice
    table = page.split('aria-label="Players">', 1)[1].split("</table>", 1)[0]
    assert 'data-label="Dice"' in table and "→" not in table
    assert (
        '<p class="small muted" id="dice-end-note">The dice are shown without areas: the last '
        "round's allocations were for a turn that never comes, and the server entered them for "
        "each seat that allocated once a counter stood at 19 (the log says so for each).</p>"
    ) in page
