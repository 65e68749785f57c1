"""Appending to a game's hash-chained audit log (formula in ``engine.audit``)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from engine.audit import GENESIS, entry_hash, setup_commitment
from games.models import Game, LogEntry
from games.sql import insert_instance


def log_time(value: datetime) -> str:
    """The exact timestamp string covered by an entry's hash."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def log_tail(*, game: Game) -> tuple[int, str] | None:
    """``(seq, hash)`` of the game's newest log entry, None while the log is empty."""
    return LogEntry.objects.filter(game=game).order_by("-seq").values_list("seq", "hash").first()


def chained_entry(
    game: Game,
    tail: tuple[int, str] | None,
    kind: str,
    payload: dict[str, Any],
    created_at: datetime | None = None,
) -> LogEntry:
    """The unsaved entry that follows ``tail``, hashed; written at ``created_at`` (now by
    default)."""
    seq = 1 if tail is None else tail[0] + 1
    prev_hash = GENESIS if tail is None else tail[1]
    created_at = created_at or timezone.now()
    digest = entry_hash(
        prev_hash=prev_hash, seq=seq, kind=kind, payload=payload, created_at=log_time(created_at)
    )
    return LogEntry(
        game=game,
        seq=seq,
        kind=kind,
        payload=payload,
        created_at=created_at,
        prev_hash=prev_hash,
        hash=digest,
    )


def log_append(
    *,
    game: Game,
    kind: str,
    payload: dict[str, Any],
    tail: tuple[int, str] | None | bool = False,
    created_at: datetime | None = None,
) -> LogEntry:
    """Append one entry to the game's log. The caller holds the game's row lock
    (``games.services.locking.lock_game``), which makes ``seq`` gap-free. ``tail``: the
    log's ``log_tail`` if the caller read it under that lock, ``False`` (default) to
    read it here. ``created_at``: its time, now by default."""
    if tail is False:
        tail = log_tail(game=game)
    return insert_instance(chained_entry(game, tail, kind, payload, created_at))  # type: ignore[arg-type]


def log_append_many(
    *,
    game: Game,
    entries: list[tuple[str, dict[str, Any]]],
    tail: tuple[int, str] | None | bool = False,
) -> list[LogEntry]:
    """Append ``entries`` (``(kind, payload)`` pairs, in order) to the game's log with
    one INSERT: the same rows and hash chain as ``log_append`` called once per entry.
    ``tail``: the log's ``log_tail`` if the caller read it under the game lock after the
    last entry was written, ``False`` (default) to read it here. The caller holds the
    game's row lock."""
    if tail is False:
        tail = log_tail(game=game)
    rows = []
    for kind, payload in entries:
        entry = chained_entry(game, tail, kind, payload)  # type: ignore[arg-type]
        rows.append(entry)
        tail = (entry.seq, entry.hash)
    return LogEntry.objects.bulk_create(rows)


def setup_salt(*, game: Game) -> str:
    """The salt of the game's set-up commitment: derived from the secret seed salt
    (``sha256("setup:" + seed_salt)``, first 32 hex digits), so it needs no column of
    its own and is as secret as the seed until the game ends."""
    return hashlib.sha256(f"setup:{game.seed_salt}".encode()).hexdigest()[:32]


def game_setup_commitment(*, game: Game) -> str:
    """The public commitment to ``game.setup`` logged in ``game_started``."""
    return setup_commitment(setup_salt=setup_salt(game=game), setup=game.setup or {})


def end_reveal(*, game: Game) -> dict[str, Any]:
    """What the entry ending a started game reveals: seed, set-up and their salts."""
    return {
        "seed": game.seed,
        "seed_salt": game.seed_salt,
        "setup": game.setup or {},
        "setup_salt": setup_salt(game=game),
    }


ORDER_KINDS = ("order_received", "order_replaced", "nmr_applied", "order_forced")
"""The log entries that announce a stored sealed order (by its commitment)."""


def game_records_problems(*, game: Game) -> list[str]:
    """What the game's log says that its rows do not hold (empty list: they agree): every
    order the log announces is a sealed order (the last one announced for a seat and
    prompt the current one) and every one it reveals has the sealed order's text, salt
    and source, every sealed order was announced, and a game going on
    (active or paused) has an open prompt. The log check (``engine.audit.verify_export``)
    reads the log alone; a row deleted behind it (a staff audit: a sealed order deleted
    in the admin) left a prompt that could never resolve, and the log still verified."""
    from games.models import Prompt, SealedOrder

    problems: list[str] = []
    rows = SealedOrder.objects.filter(prompt__game=game).values_list(
        "prompt__number", "seat_name", "commitment", "is_current", "text", "salt", "source"
    )
    stored = {(number, seat, commitment): current for number, seat, commitment, current, *_ in rows}
    held = {(number, seat, commitment): sealed for number, seat, commitment, _current, *sealed in rows}
    # A revealed order is its sealed order: the commitment alone does not say so (the
    # row's text edited after the reveal verified; an audit).
    for seq, payload in (
        LogEntry.objects.filter(game=game, kind="orders_revealed").order_by("seq").values_list("seq", "payload")
    ):
        payload = payload or {}
        for seat, order in sorted((payload.get("orders") or {}).items()):
            sealed = held.get((payload.get("prompt"), seat, (order or {}).get("commitment")))
            if sealed is None:  # never announced, or missing: said below
                continue
            for field, value in zip(("text", "salt", "source"), sealed, strict=True):
                if order.get(field) != value:
                    problems.append(
                        f"entry {seq}: the {field} of {seat}'s order for prompt {payload.get('prompt')} "
                        "is not the one its sealed order holds in the database"
                    )
    announced: dict[tuple[int, str, str], int] = {}
    latest: dict[tuple[int, str], tuple[str, int]] = {}
    entries = LogEntry.objects.filter(
        game=game, kind__in=(*ORDER_KINDS, "seat_replaced")
    ).order_by("seq")
    for seq, kind, payload in entries.values_list("seq", "kind", "payload"):
        payload = payload or {}
        if kind == "seat_replaced":
            # A handover withdraws, unread, the order sealed for the open prompt (kept,
            # no longer current): that seat's last announced order is not the current one.
            if payload.get("order_withdrawn") and latest:
                open_number = max(number for number, _ in latest)  # the newest prompt ordered in
                latest.pop((open_number, payload.get("seat")), None)
            continue
        key = (payload.get("prompt"), payload.get("seat"), payload.get("commitment"))
        announced[key] = seq
        latest[key[:2]] = (key[2], seq)
        if key not in stored:
            problems.append(
                f"the sealed order of {key[1]} for prompt {key[0]} "
                f"({str(key[2])[:12]}…) logged in entry {seq} is missing from the database"
            )
    for (number, seat), (commitment, seq) in sorted(latest.items(), key=lambda item: item[1][1]):
        if stored.get((number, seat, commitment)) is False:
            problems.append(
                f"entry {seq}: the order of {seat} for prompt {number} it announced last is "
                "not the current sealed order"
            )
    for number, seat, commitment in sorted(set(stored) - set(announced)):
        problems.append(
            f"the sealed order of {seat} for prompt {number} ({commitment[:12]}…) was never "
            "announced in the log"
        )
    going_on = (Game.Status.ACTIVE, Game.Status.PAUSED)
    if game.status in going_on and not Prompt.objects.filter(game=game, status=Prompt.Status.OPEN).exists():
        problems.append(f"the game is {game.status} but has no open prompt: nobody can order")
    return problems
