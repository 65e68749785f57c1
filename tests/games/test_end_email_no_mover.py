"""The table in a 'Game ended' email (h3's organizer walk): nobody is to move once the
organizer ends a game, but a 6x5 email's head read "Turn 1: ." (its movers emptied) and
a 4X Dice one still named whose turn it was."""

from __future__ import annotations

import pytest

from games.models import OutboxMessage, Seat
from games.services.games import game_create, game_join
from games.services.organizer import game_end
from tests.games.core_support import make_users, play_defaults

pytestmark = pytest.mark.django_db


def _ended(ruleset: str, prompts: int = 0):
    organizer, *users = make_users(["org", "ann", "bob"])
    game = game_create(organizer=organizer, ruleset=ruleset, options={}, seats_count=2, name=f"End {ruleset}")
    for user in users:
        game_join(game=game, user=user)
    # two seats: the game starts as the second player joins
    game.refresh_from_db()
    if prompts:
        play_defaults(game, prompts=prompts)  # into the game's first round
    game_end(game=game, by=organizer, reason="club closed")
    seat = Seat.objects.get(game=game, name="ann")
    return OutboxMessage.objects.filter(seat=seat, subject__endswith="] Game ended").get().body


def test_a_6x5_game_ended_early_names_its_turn_and_no_mover():
    body = _ended("6x5")
    assert "the organizer ended the game early: club closed" in body
    assert "\nTurn 1.\n" in body
    assert ": ." not in body


def test_a_4x_dice_game_ended_early_names_no_ones_turn():
    body = _ended("4x-dice", prompts=2)
    assert "the organizer ended the game early: club closed" in body
    head = body.split("\n\n")[1].splitlines()[1]  # after "Your seat: ann"
    assert "turn" not in head.replace("Turn order", ""), head
    assert head.startswith("Round ") or head.startswith("Set-up"), head
