"""Row locks that serialize every write to one game.

Every service that changes a game (orders, resolution, organizer tools, the log) first
takes the game's row lock, always before any other row of that game, so two writers
never deadlock and the log's sequence numbers never collide.
"""

from __future__ import annotations

from django.db import connection

from games.errors import NotFound
from games.models import Game


def lock_game(*, game_id: int) -> Game:
    """Lock the game's row for the rest of the current transaction and return it fresh.

    Refuses to run outside ``transaction.atomic`` (a lock released at once is a bug).
    Raises NotFound for an unknown id."""
    if not connection.in_atomic_block:
        raise RuntimeError("lock_game must run inside transaction.atomic()")
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound("No such game.") from None
