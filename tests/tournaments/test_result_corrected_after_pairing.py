"""A result of an earlier round corrected after the next round was paired: the pairing
was made on the old standings (who leads, who met whom, who had a bye), so the round is
not started as it stands; the organizer re-pairs it first, as after a withdrawal."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.tournaments.test_tournament_services import _finished_duel_round
from tournaments.models import Round
from tournaments.services import results, rounds
from tournaments.services.common import TournamentError

pytestmark = pytest.mark.django_db


def test_a_round_paired_before_a_correction_is_re_paired_before_it_starts():
    organizer, _players, t, first = _finished_duel_round("sc")
    winners = {tb.players[0] for tb in first.tables.all()}  # the first seat won each table
    second = rounds.round_pair(tournament=t, by=organizer)
    top = second.tables.get(number=1)
    assert set(top.players) == winners, "the leaders meet"
    # Table 1 of round 1 was won by the other player after all.
    table = first.tables.get(number=1)
    results.result_enter(table=table, ranking=[[table.players[1]], [table.players[0]]],
                         by=organizer, reason="scoresheet misread")  # fmt: skip
    games_before = Game.objects.count()
    with pytest.raises(TournamentError, match="(?i)re-pair the round before starting it"):
        rounds.round_start(rnd=second, by=organizer)
    second.refresh_from_db()
    assert second.status == Round.Status.PAIRED
    assert Game.objects.count() == games_before
    # Re-paired on the standings as they are now, it starts.
    second = rounds.round_repair(rnd=second, by=organizer)
    leaders = {table.players[1], *(winners - {table.players[0]})}
    assert set(second.tables.get(number=1).players) == leaders
    rounds.round_start(rnd=second, by=organizer)
    second.refresh_from_db()
    assert second.status == Round.Status.STARTED


def test_a_round_whose_standings_did_not_change_starts_as_paired():
    organizer, _players, t, _first = _finished_duel_round("su")
    second = rounds.round_pair(tournament=t, by=organizer)
    rounds.round_start(rnd=second, by=organizer)
    second.refresh_from_db()
    assert second.status == Round.Status.STARTED


def test_the_panel_says_to_re_pair_and_offers_no_start(client):
    organizer, _players, t, first = _finished_duel_round("sp")
    second = rounds.round_pair(tournament=t, by=organizer)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f"Start round {second.number}" in page and 'id="results-since"' not in page
    table = first.tables.get(number=1)
    results.result_enter(table=table, ranking=[[table.players[1]], [table.players[0]]],
                         by=organizer, reason="scoresheet misread")  # fmt: skip
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'id="results-since"' in page and "Re-pair it before starting it" in page
    assert f"Start round {second.number}" not in page and f"Re-pair round {second.number}" in page
