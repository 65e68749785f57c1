"""A tournament game nobody played (every seat a no-show: each of its orders a default at
its deadline) is a double forfeit, FIDE's 0-0: none of its players scores a point,
whatever places the default orders gave them, nobody wins, and its round is an unplayed
one lost in their tie-breaks. The tournaments audit: both seats of a duel sent nothing and
the default orders' "winner" took a full point. A game one seat played is scored as it
ended."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import OutboxMessage
from tests.tournaments.test_pairing_after_no_show import _cup
from tournaments import selectors
from tournaments.standings import Game, Round, compute

pytestmark = pytest.mark.django_db


def test_a_scoreless_game_gives_no_points_no_win_and_a_lost_unplayed_round():
    # Worked by hand, points per place [1, 0] (a win 1, a "draw" ½), one round: a and b's
    # game nobody played (a placed first by the defaults), c beat d.
    # a, b: 0 points; their virtual opponent starts with 0 and takes the complement of
    # their 0 (1): Buchholz 1; Sonneborn-Berger 0 (their result 0 x 1); no win.
    # c: 1 point, met d (0): Buchholz 0, SB 1 x 0 = 0, one win. d: Buchholz 1, SB 0.
    rounds = [Round(games=(Game(ranking=(("a",), ("b",)), scoreless=True), Game(ranking=(("c",), ("d",)))))]
    rows = {r.player: r for r in compute(["a", "b", "c", "d"], rounds,
                                         tiebreaks=("buchholz", "sonneborn_berger", "wins",
                                                    "direct_encounter"))}  # fmt: skip
    assert {p: r.points for p, r in rows.items()} == {"a": 0.0, "b": 0.0, "c": 1.0, "d": 0.0}
    assert rows["a"].tiebreaks == {"buchholz": 1.0, "sonneborn_berger": 0.0, "wins": 0.0,
                                   "direct_encounter": 0.0}  # fmt: skip
    assert rows["b"].tiebreaks == rows["a"].tiebreaks
    assert rows["c"].tiebreaks == {"buchholz": 0.0, "sonneborn_berger": 0.0, "wins": 1.0,
                                   "direct_encounter": 0.0}  # fmt: skip
    assert rows["d"].tiebreaks["buchholz"] == 1.0
    assert {p: r.played for p, r in rows.items()} == {"a": 0, "b": 0, "c": 1, "d": 1}
    # a and b are level on points: nothing between them decides it (a shared rank)
    assert rows["a"].rank == rows["b"].rank


def test_nobody_played_scores_nothing_in_the_standings_and_the_pairing_input():
    t, _organizer, reg = _cup()
    rows = {row["registration"].pk: row for row in selectors.standings(tournament=t)}
    assert rows[reg["na"]]["points"] == 0.0 and rows[reg["nb"]]["points"] == 0.0
    # the game one seat played is scored as it ended: one point between its players
    assert rows[reg["nc"]]["points"] + rows[reg["nd"]]["points"] == 1.0
    request = selectors.pairing_input(tournament=t, round_number=2, seed=1)
    points = {int(p["id"]): p["points"] for p in request["players"]}
    assert points[reg["na"]] == 0 and points[reg["nb"]] == 0
    [round_one] = selectors.history(tournament=t)
    flags = {frozenset(p for g in game.ranking for p in g): (game.forfeit, game.scoreless)
             for game in round_one.games}  # fmt: skip
    assert flags == {
        frozenset({str(reg["na"]), str(reg["nb"])}): (False, True),
        frozenset({str(reg["nc"]), str(reg["nd"])}): (False, False),
    }


def test_pages_api_and_email_say_nobody_sent_an_order_and_no_points():
    t, organizer, reg = _cup()
    said = "nobody sent an order: no points, not rated"
    client = Client()
    round_page = client.get(f"/tournaments/{t.slug}/rounds/1/").content.decode()
    assert round_page.count(said) == 1  # table 1 only
    assert "(not rated: a player sent no order)" in round_page  # table 2: one seat played
    player_page = client.get(f"/tournaments/{t.slug}/players/{reg['na']}/").content.decode()
    assert said in player_page
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.slug}/manage/?round=1").content.decode()
    assert panel.count(said) == 1
    # Its correction form starts ticked "nobody played": a plain ranking typed over it would
    # otherwise turn the default orders' places into a rated result.
    assert panel.count('name="nobody_played" value="1" checked>') == 1
    data = Client().get(f"/api/tournaments/{t.slug}/").json()
    tables = {tb["number"]: tb for tb in data["rounds"][0]["tables"]}
    assert tables[1]["nobody_played"] is True and tables[2]["nobody_played"] is False
    assert {row["player"]: row["points"] for row in data["standings"]}["na"] == 0
    for name in ("na", "nb"):
        [mail] = OutboxMessage.objects.filter(kind="tournament", to=f"{name}@example.test",
                                              body__contains="Your result at table")  # fmt: skip
        assert "Your result at table 1: no points. Nobody sent an order in the game" in mail.body
        assert "1 point" not in mail.body.split("Your result at table 1")[1].split("\n")[0]


def test_a_game_nobody_played_is_recorded_scoreless_when_collected():
    # One source of truth: the table says so itself (it was worked out from the game's
    # orders on every read: a few queries per unrated table, over every round in the API).
    t, _organizer, _reg = _cup()
    tables = {tb.number: tb for tb in t.rounds.get(number=1).tables.all()}
    assert tables[1].scoreless is True and tables[1].result_source == "game"
    assert tables[2].scoreless is False  # one seat played: scored as it ended


def test_the_api_reads_nobody_played_without_asking_each_game():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    t, _organizer, _reg = _cup()
    client = Client()
    client.get(f"/api/tournaments/{t.slug}/")  # warm whatever is cached once per process
    with CaptureQueriesContext(connection) as queries:
        data = client.get(f"/api/tournaments/{t.slug}/").json()
    assert data["rounds"][0]["tables"][0]["nobody_played"] is True
    # Nothing read from the games' seats, prompts or orders to decide it.
    asked = [q["sql"] for q in queries.captured_queries
             if any(f'"games_{name}"' in q["sql"] for name in ("seat", "prompt", "sealedorder"))]
    assert asked == []
