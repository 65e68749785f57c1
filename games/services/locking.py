"""Row locks that serialize every write to one game.

Every service that changes a game (orders, resolution, organizer tools, the log) first
takes the game's row lock, always before any other row of that game, so two writers
never deadlock and the log's sequence numbers never collide. On PostgreSQL the wait is
bounded (``LOCK_TIMEOUT_SECONDS``); a caller that waited too long gets ``GameBusy``.
"""

from __future__ import annotations

from typing import Any

from django.db import OperationalError, connection

from games.errors import GameBusy, NotFound
from games.models import Game
from games.sql import instance

# Well under a web server's worker timeout (gunicorn's default 30 s: a request waiting as
# long was killed with a 500, an operations audit) and far above any real hold (ms).
LOCK_TIMEOUT_SECONDS = 10


def lock_game(*, game_id: int) -> Game:
    """Lock the game's row for the rest of the current transaction and return it fresh.

    Refuses to run outside ``transaction.atomic`` (a lock released at once is a bug).
    Raises NotFound for an unknown id, GameBusy when the lock cannot be had in time."""
    if not connection.in_atomic_block:
        raise RuntimeError("lock_game must run inside transaction.atomic()")
    row = locked_game_row(game_id=game_id, columns=_COLUMNS)
    if row is None:
        raise NotFound("No such game.")
    # Every column, as Game.objects.select_for_update().get() reads it (the hand-written
    # statement spares the ORM's query building on every write of the site).
    return instance(Game, _FIELDS, row)


def locked_game_row(*, game_id: int, columns: tuple[str, ...]) -> tuple[Any, ...] | None:
    """``SELECT columns FROM game WHERE id = game_id FOR UPDATE`` in one statement that
    also bounds this transaction's lock waits on PostgreSQL (``set_config(...,
    is_local=true)`` in the WHERE clause, evaluated before the row is locked: no round
    trip of its own, and nothing outlives the transaction). Returns the row, None for an
    unknown id; raises GameBusy when the lock cannot be had in time. The caller is
    inside ``transaction.atomic``."""
    sql = f"SELECT {', '.join(columns)} FROM {Game._meta.db_table} WHERE id = %s"
    params: list[Any] = [game_id]
    if connection.vendor == "postgresql":
        sql += " AND set_config('lock_timeout', %s, true) IS NOT NULL"
        params.append(f"{max(1, round(LOCK_TIMEOUT_SECONDS * 1000))}ms")
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
    except OperationalError as exc:
        raise_if_busy(exc)
        raise


_FIELDS = tuple(f.attname for f in Game._meta.concrete_fields)
_COLUMNS = tuple(connection.ops.quote_name(f.column) for f in Game._meta.concrete_fields)


def raise_if_busy(exc: OperationalError) -> None:
    """Raise GameBusy for a lock wait that timed out."""
    if getattr(exc.__cause__, "sqlstate", None) == "55P03":  # lock_not_available
        raise GameBusy("The game is busy right now; please try again in a moment.") from exc


def lock_name(*, name: str) -> None:
    """Hold a lock named ``name`` until the current transaction ends: for a rule that
    spans rows no single row lock covers (one organizer's invitations over all their
    games). PostgreSQL: an advisory transaction lock on the name's hash, its wait bounded
    as a game's (GameBusy beyond). SQLite runs one writing transaction at a time
    (``transaction_mode`` IMMEDIATE): the transaction itself is the lock. Refuses to run
    outside ``transaction.atomic``."""
    if not connection.in_atomic_block:
        raise RuntimeError("lock_name must run inside transaction.atomic()")
    if connection.vendor != "postgresql":
        return
    try:
        with connection.cursor() as cursor:
            # The WHERE clause runs first: the wait is bounded before it starts.
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0)) "
                "WHERE set_config('lock_timeout', %s, true) IS NOT NULL",
                [name, f"{max(1, round(LOCK_TIMEOUT_SECONDS * 1000))}ms"],
            )
    except OperationalError as exc:
        raise_if_busy(exc)
        raise
