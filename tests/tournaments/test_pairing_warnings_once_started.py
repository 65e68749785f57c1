"""A pairing's warnings (a repeat meeting the pairing could not avoid) are warnings while
the round is paired, when re-pairing is still possible; once the round has started
they stayed yellow warning boxes above a round being played or finished, as if
something were left to do: they are said plainly then, as how the round was paired."""

from __future__ import annotations

import pytest

from tests.tournaments.test_tournament_services import _open_cup, _results_by_hand
from tournaments.services import rounds

pytestmark = pytest.mark.django_db


def test_warnings_of_a_started_round_are_no_longer_warnings(client):
    organizer, _users, t, _regs = _open_cup("pw", 2, rounds_count=2)  # one duel: they meet twice
    _results_by_hand(rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer),
                     organizer, "offline")  # fmt: skip
    second = rounds.round_pair(tournament=t, by=organizer)
    client.force_login(organizer)
    seats = [t.registrations.get(pk=p).user.username for p in second.tables.get().players]
    repeat = f"Table 1: {seats[0]} and {seats[1]} have met once before."  # in seat order
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f'<p class="message warning">{repeat}</p>' in page
    rounds.round_start(rnd=second, by=organizer)
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert f'<p class="message warning">{repeat}</p>' not in page
    assert f'<p class="muted small" id="pairing-notes">As paired: {repeat}</p>' in page
