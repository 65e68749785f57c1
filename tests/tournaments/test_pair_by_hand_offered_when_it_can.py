"""The panel offers "Pair by hand" only when it can pair: before round 1, for a round
paired and not started (re-pairing it), and between rounds. While a round is played, and
once every round has been, it was offered all the same ("Pairs the next round") and only
answered why not."""

from __future__ import annotations

import pytest

from tests.tournaments.test_tournament_services import _open_cup, _results_by_hand
from tournaments.services import rounds

pytestmark = pytest.mark.django_db


def _offered(client, t) -> bool:
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    return 'id="pair-tables"' in page


def test_pair_by_hand_is_offered_only_when_a_round_can_be_paired(client):
    organizer, _users, t, _regs = _open_cup("ph", 4, rounds_count=2)
    client.force_login(organizer)
    assert _offered(client, t)  # round 1 to pair
    first = rounds.round_pair(tournament=t, by=organizer)
    assert _offered(client, t)  # paired, not started: re-paired by hand
    rounds.round_start(rnd=first, by=organizer)
    assert not _offered(client, t)  # being played
    _results_by_hand(first, organizer, "offline")
    assert _offered(client, t)  # round 2 to pair
    second = rounds.round_start(rnd=rounds.round_pair(tournament=t, by=organizer), by=organizer)
    _results_by_hand(second, organizer, "offline")
    page = client.get(f"/tournaments/{t.slug}/manage/").content.decode()
    assert "Every round has been played" in page and 'id="pair-tables"' not in page
