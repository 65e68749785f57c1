"""The game's audit log as each reader may see it (other seats' order texts and salts
hidden while the game runs) and the verifiable export of a game that is over
(``python -m engine verify``)."""

from __future__ import annotations

from typing import Any

from games.errors import GameStateError
from games.models import Game, LogEntry, SealedOrder, Seat
from games.selectors import OVER, current_state, seats
from games.services.audit import log_time, setup_salt


def _entry_dict(entry: LogEntry) -> dict[str, Any]:
    return {
        "seq": entry.seq,
        "kind": entry.kind,
        "payload": entry.payload,
        "created_at": log_time(entry.created_at),
        "prev_hash": entry.prev_hash,
        "hash": entry.hash,
    }


def _redact(
    entry: dict[str, Any], own: set[str], sealed: frozenset[tuple[Any, str, str]] = frozenset()
) -> dict[str, Any]:
    """Hide other seats' revealed texts and salts while the game runs: some orders are
    never revealed by the rules (a drafted leader passed to a neighbour). ``own``: the
    reader's seats; ``sealed``: ``(prompt, seat, commitment)`` of the orders the reader
    sealed for a seat it handed over since, shown too (its own, never its successor's)."""
    if entry["kind"] != "orders_revealed":
        return entry
    orders = {}
    prompt = entry["payload"].get("prompt")
    for name, order in (entry["payload"].get("orders") or {}).items():
        if name in own or (prompt, name, order.get("commitment")) in sealed:
            orders[name] = order
        else:
            orders[name] = {"commitment": order.get("commitment"), "source": order.get("source")}
    return {**entry, "payload": {**entry["payload"], "orders": orders}, "redacted": True}


def log_entry_public(*, entry: LogEntry) -> dict[str, Any]:
    """One log entry as anyone who holds no seat may see it (the admin shows this)."""
    shown = _entry_dict(entry)
    return shown if entry.game.status in OVER else _redact(shown, set())


def game_log(
    *, game: Game, for_user: Any = None, after: int = 0, limit: int | None = None
) -> list[dict[str, Any]]:
    """The game's audit log as a player may see it. While the game runs, order texts
    and salts of other seats are replaced by their commitments (the viewer's own seat
    sees its own, and a seat it handed over the orders it sealed while it held it); once the game is over the whole log is public. ``after``/``limit``:
    the entries after that sequence number, at most that many (a long game's log is
    read a page at a time)."""
    rows = LogEntry.objects.filter(game=game, seq__gt=after).order_by("seq")
    if limit is not None:
        rows = rows[:limit]
    entries = [_entry_dict(e) for e in rows]
    if game.status in OVER:
        return entries
    own: set[str] = set()
    sealed: frozenset[tuple[Any, str, str]] = frozenset()
    if for_user is not None and getattr(for_user, "is_authenticated", False):
        rows = list(Seat.objects.filter(game=game, user=for_user).values_list("pk", "name", "status"))
        own = {name for _pk, name, status in rows if status != Seat.Status.REPLACED}
        # A seat the reader handed over: the orders it sealed while it held it are its
        # own (their receipts were emailed to it), told apart from its successor's by the
        # seat row that sealed them (a new row takes the seat over; the order it had
        # sealed for the open prompt is withdrawn then, so never revealed), matched to
        # the revealed entry by prompt, seat and commitment.
        handed = [pk for pk, name, status in rows if status == Seat.Status.REPLACED and name not in own]
        if handed:
            sealed = frozenset(
                SealedOrder.objects.filter(seat_id__in=handed).values_list(
                    "prompt__number", "seat_name", "commitment"
                )
            )
    return [_redact(e, own, sealed) for e in entries]


def log_length(*, game: Game) -> int:
    """How many entries the game's log has (their sequence numbers run 1, 2, ...)."""
    return LogEntry.objects.filter(game=game).count()


def game_export(*, game: Game) -> dict[str, Any]:
    """The full, verifiable log of a game that is over (``python -m engine verify``):
    setup, seed, every entry with its hash, and the final state. Raises GameStateError
    while the game runs."""
    if game.status not in OVER:
        raise GameStateError("The log is exported once the game is over.")
    return game_export_unchecked(game=game)


def game_export_unchecked(*, game: Game) -> dict[str, Any]:
    """The export without the status check (server-side verification only: it holds
    the seed and every sealed order)."""
    return {
        "format": "fivex-game-log/1",
        "game": {
            "id": game.pk,
            "public_id": game.public_id,
            "name": game.name,
            "ruleset": game.ruleset,
            "engine_version": game.engine_version,
            "options": game.options,
            "setup": game.setup,
            "status": game.status,
            "players": [s.name for s in seats(game=game)] if game.started_at else [],
            "seed": game.seed,
            "seed_salt": game.seed_salt,
            "setup_salt": setup_salt(game=game) if game.seed_salt else None,
            "seed_commitment": game.seed_commitment,
            "ranking": game.ranking,
        },
        "entries": [_entry_dict(e) for e in LogEntry.objects.filter(game=game).order_by("seq")],
        "final_state": current_state(game=game) or None,
    }
