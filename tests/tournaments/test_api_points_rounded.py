"""The API's standings give points as they give the tie-breaks, to six decimals: a
second place at a table of four (2/3 of a point by default) read 0.6666666666666666,
and a sum of such places 1.1666666666666665, beside tie-breaks of 0.666667."""

from __future__ import annotations

import pytest

from games.services.organizer import game_end
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.services import results, rounds

pytestmark = pytest.mark.django_db


def test_the_standings_points_are_given_to_six_decimals(client):
    organizer, _users, t, regs = _open_cup("ap", 4, ruleset="5x", table_sizes=(4,))
    rnd = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    table = rnd.tables.select_related("game").get()
    game_end(game=table.game, by=organizer, reason="offline")
    results.result_enter(table=table, ranking=[[p] for p in table.players], by=organizer,
                         reason="played offline")  # fmt: skip
    rows = client.get(f"/api/tournaments/{t.slug}/").json()["standings"]
    assert [row["points"] for row in rows] == [1, 0.666667, 0.333333, 0]
