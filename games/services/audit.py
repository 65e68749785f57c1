"""Appending to a game's hash-chained audit log (formula in ``engine.audit``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from engine.audit import GENESIS, entry_hash
from games.models import Game, LogEntry


def log_time(value: datetime) -> str:
    """The exact timestamp string covered by an entry's hash."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def log_append(*, game: Game, kind: str, payload: dict[str, Any]) -> LogEntry:
    """Append one entry to the game's log. The caller holds the game's row lock
    (``games.services.locking.lock_game``), which makes ``seq`` gap-free."""
    last = LogEntry.objects.filter(game=game).order_by("-seq").first()
    seq = 1 if last is None else last.seq + 1
    prev_hash = GENESIS if last is None else last.hash
    created_at = timezone.now()
    digest = entry_hash(
        prev_hash=prev_hash, seq=seq, kind=kind, payload=payload, created_at=log_time(created_at)
    )
    return LogEntry.objects.create(
        game=game,
        seq=seq,
        kind=kind,
        payload=payload,
        created_at=created_at,
        prev_hash=prev_hash,
        hash=digest,
    )
