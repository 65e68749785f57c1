"""The invitation caps hold across games under concurrent requests (PostgreSQL: real
locks, one connection per thread): an organizer inviting from several forming games at
once stays within ``INVITATIONS_PER_DAY`` and ``WAITING_FROM_ONE``. Each game's own lock
let parallel invitations from different games all read the same counts and all pass."""

from __future__ import annotations

import pytest

from games.errors import GameStateError
from games.models import GameInvitation
from games.services import invitations
from games.services.games import game_create
from games.services.invitations import invite_players
from tests.concurrency import at_once
from tests.games.core_support import make_users

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 6


def _games(organizer, count: int) -> list:
    return [
        game_create(organizer=organizer, ruleset="5x", seats_count=4, name=f"Game {i}")
        for i in range(count)
    ]


def test_parallel_invitations_from_several_games_stay_within_the_day_cap() -> None:
    # Regression: the day's count was read under each game's lock only.
    ann, *others = make_users(["ann"] + [f"q{i}" for i in range(THREADS)])
    older = game_create(organizer=ann, ruleset="5x", seats_count=4, name="Earlier")
    room = 2  # invitations left today
    earlier = make_users([f"p{i}" for i in range(invitations.INVITATIONS_PER_DAY - room)])
    GameInvitation.objects.bulk_create(
        GameInvitation(game=older, user=u, invited_by=ann) for u in earlier
    )
    games = _games(ann, THREADS)
    done, errors = at_once(*[
        lambda game=game, who=who: invite_players(game=game, by=ann, names=who.username)
        for game, who in zip(games, others, strict=True)
    ])  # fmt: skip
    assert len(done) == room and len(errors) == THREADS - room, errors
    assert all(isinstance(e, GameStateError) and e.code == "invitations_capped" for e in errors)
    assert GameInvitation.objects.filter(invited_by=ann).count() == invitations.INVITATIONS_PER_DAY


def test_parallel_invitations_of_one_player_stay_within_the_waiting_cap() -> None:
    ann, bob = make_users(["ann", "bob"])
    games = _games(ann, THREADS)
    done, errors = at_once(*[
        lambda game=game: invite_players(game=game, by=ann, names="bob") for game in games
    ])  # fmt: skip
    assert not errors and len(done) == THREADS
    invited = [r for r in done if r["invited"] == ["bob"]]
    assert len(invited) == invitations.WAITING_FROM_ONE
    assert GameInvitation.objects.filter(invited_by=ann, user=bob).count() == (
        invitations.WAITING_FROM_ONE
    )
