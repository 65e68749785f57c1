"""A pairing by hand naming a player twice is refused naming that player (it said only
"A player is placed twice.", leaving the organizer to search every line)."""

from __future__ import annotations

import pytest

from games.errors import ValidationError
from tests.tournaments.test_tournament_services import _open_cup
from tournaments.services import rounds

pytestmark = pytest.mark.django_db


def test_the_player_placed_twice_is_named(client):
    organizer, users, t, regs = _open_cup("pt", 5)
    a, b, c, d, e = regs
    with pytest.raises(ValidationError) as caught:
        rounds.round_pair_by_hand(tournament=t, tables=[[a.pk, b.pk], [c.pk, a.pk]],
                                  byes=[d.pk, e.pk], by=organizer)  # fmt: skip
    assert str(caught.value) == "Placed twice: pt01. Write each player once, at a table or as a bye."
    assert not t.rounds.exists()
    client.force_login(organizer)
    answer = client.post(f"/tournaments/{t.slug}/manage/pair_by_hand/",
                         {"tables": "pt01 pt02\npt03 pt04\nbye: pt05\nbye: pt04"}, follow=True)  # fmt: skip
    assert "Placed twice: pt04. Write each player once" in answer.content.decode()
    assert not t.rounds.exists()
