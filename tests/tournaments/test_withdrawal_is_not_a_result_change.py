"""A player who withdraws after a round is paired is named as such on the panel (and
Start is refused for that reason); the panel must not also say that a result of an
earlier round was entered or corrected, when none was: the organizer would hunt for a
correction nobody made. A real correction is still told, withdrawal or not."""

from __future__ import annotations

import pytest

from tests.tournaments.test_tournament_services import _finished_duel_round
from tournaments.services import results, rounds
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _withdraw_one_paired_in(second):
    table = second.tables.get(number=1)
    reg = second.tournament.registrations.get(pk=table.players[0])
    tsvc.registration_withdraw(registration=reg, by=reg.user)
    return reg


def test_a_withdrawal_after_the_pairing_is_not_a_result_entered_since(client):
    organizer, _players, t, _first = _finished_duel_round("wr")
    second = rounds.round_pair(tournament=t, by=organizer)
    gone = _withdraw_one_paired_in(second)
    assert rounds.results_changed_since_pairing(tournament=t, rnd=second) is False
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f"{gone.user.username} withdrew after this round was paired" in page
    assert 'id="results-since"' not in page
    assert "was entered or corrected after round 2 was paired" not in page
    api = client.get(f"/api/tournaments/{t.slug}/organizer/").json()
    assert api["results_changed_since_pairing"] is False


def test_a_correction_is_still_told_when_a_player_withdrew_too(client):
    organizer, _players, t, first = _finished_duel_round("wc")
    second = rounds.round_pair(tournament=t, by=organizer)
    _withdraw_one_paired_in(second)
    table = first.tables.get(number=2)
    results.result_enter(table=table, ranking=[[table.players[1]], [table.players[0]]],
                         by=organizer, reason="scoresheet misread")  # fmt: skip
    assert rounds.results_changed_since_pairing(tournament=t, rnd=second) is True
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert 'id="results-since"' in page
