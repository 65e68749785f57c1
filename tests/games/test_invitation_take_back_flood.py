"""Taking invitations back does not reopen a player's inbox: an organizer whose 3
invitations wait for a player's answer (the most, each an email) could take one back and
invite the player to another game, emailed again, and again, up to the day's 100 (review
finding: the cap on one organizer's invitations waiting for one player, made against
flooding, was undone by Take back, and by cancelling the game). A day after it was
emailed, a taken-back invitation no longer counts; a decline still frees its place at
once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import GameInvitation, OutboxMessage
from games.services import invitations
from games.services.games import game_create
from games.services.invitations import invitation_decline, invitation_withdraw, invite_players
from games.services.organizer import game_end
from tests.games.core_support import make_users

pytestmark = pytest.mark.django_db


def _game(organizer, name: str):
    return game_create(organizer=organizer, ruleset="5x", seats_count=4, name=name)


def test_taking_invitations_back_does_not_email_one_player_again_and_again():
    ann, bob = make_users(["ann", "bob"])
    first = [_game(ann, f"Game {i}") for i in range(invitations.WAITING_FROM_ONE)]
    for game in first:
        assert invite_players(game=game, by=ann, names="bob")["invited"] == ["bob"]
    for n in range(5):
        invitation_withdraw(game=first[n % len(first)], by=ann, name="bob")
        result = invite_players(game=_game(ann, f"Another {n}"), by=ann, names="bob")
        assert result["invited"] == [], result
        assert "bob" in result["skipped"]
    assert OutboxMessage.objects.filter(kind="invitation", to=bob.email).count() == len(first)
    # Taken back more than a day ago, it counts no more; declined, at once.
    GameInvitation.objects.filter(game=first[0]).update(created_at=timezone.now() - timedelta(hours=25))
    assert invite_players(game=_game(ann, "Next day"), by=ann, names="bob")["invited"] == ["bob"]

    # Cancelling the games invited to frees nothing either, for a day.
    fresh, = make_users(["cat"])
    games = [_game(ann, f"Cat {i}") for i in range(invitations.WAITING_FROM_ONE)]
    for game in games:
        assert invite_players(game=game, by=ann, names="cat")["invited"] == ["cat"]
    game_end(game=games[0], by=ann)
    assert invite_players(game=_game(ann, "Cat again"), by=ann, names="cat")["invited"] == []
    # A decline frees its place at once, as before.
    invitation_decline(game_id=games[1].pk, user=fresh)
    assert invite_players(game=_game(ann, "Cat, declined"), by=ann, names="cat")["invited"] == ["cat"]
