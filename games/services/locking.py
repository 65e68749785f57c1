"""Row locks that serialize every write to one game.

Every service that changes a game (orders, resolution, organizer tools, the log) first
takes the game's row lock, always before any other row of that game, so two writers
never deadlock and the log's sequence numbers never collide. On PostgreSQL the wait is
bounded (``LOCK_TIMEOUT_SECONDS``); a caller that waited too long gets ``GameBusy``.
"""

from __future__ import annotations

from django.db import OperationalError, connection

from games.errors import GameBusy, NotFound
from games.models import Game

LOCK_TIMEOUT_SECONDS = 30


def lock_game(*, game_id: int) -> Game:
    """Lock the game's row for the rest of the current transaction and return it fresh.

    Refuses to run outside ``transaction.atomic`` (a lock released at once is a bug).
    Raises NotFound for an unknown id, GameBusy when the lock cannot be had in time."""
    if not connection.in_atomic_block:
        raise RuntimeError("lock_game must run inside transaction.atomic()")
    bound_lock_wait()
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound("No such game.") from None
    except OperationalError as exc:
        raise_if_busy(exc)
        raise


def bound_lock_wait() -> None:
    """Bound how long this transaction waits for a row lock (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = '{int(LOCK_TIMEOUT_SECONDS * 1000)}ms'")


def raise_if_busy(exc: OperationalError) -> None:
    """Raise GameBusy for a lock wait that timed out."""
    if getattr(exc.__cause__, "sqlstate", None) == "55P03":  # lock_not_available
        raise GameBusy("The game is busy right now; please try again in a moment.") from exc

