"""A private game's invitation link renewed while someone joins with the old one, on
PostgreSQL: the join waits for the renewal and is refused (the token is read under the
game's lock), never seated by a link that no longer lets anyone in (review check on the
race, no fault found)."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from games.errors import PermissionDenied
from games.models import Game, new_token
from games.services.games import game_create, game_join_seat
from games.services.locking import lock_game
from tests.concurrency import in_background, until_a_connection_waits_for_a_lock
from tests.games.web_support import make_user


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_join_with_the_old_link_during_a_renewal_is_refused():
    ann, bob = make_user("ann"), make_user("bob")
    game = game_create(organizer=ann, ruleset="5x", seats_count=3, is_private=True)
    old = str(game.invite_token)
    locked = threading.Event()

    def renew() -> bool:  # as organizer.invite_link_renew, committed once the join waits
        with transaction.atomic():
            row = lock_game(game_id=game.pk)
            row.invite_token = new_token()
            row.save(update_fields=["invite_token"])
            locked.set()
            return until_a_connection_waits_for_a_lock(timeout=10)

    with in_background(renew) as renewal:
        assert locked.wait(10)
        with pytest.raises(PermissionDenied) as refused:
            game_join_seat(game=Game.objects.get(pk=game.pk), user=bob, invite_token=old)
    assert renewal.value is True  # the join waited for the renewal's lock
    assert refused.value.message == "This game is private: you need a valid invitation link."
    assert not Game.objects.get(pk=game.pk).seats.filter(user=bob).exists()
