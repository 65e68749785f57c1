"""Appending to a game's hash-chained audit log (formula in ``engine.audit``)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from engine.audit import GENESIS, entry_hash, setup_commitment
from games.models import Game, LogEntry


def log_time(value: datetime) -> str:
    """The exact timestamp string covered by an entry's hash."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def log_append(*, game: Game, kind: str, payload: dict[str, Any]) -> LogEntry:
    """Append one entry to the game's log. The caller holds the game's row lock
    (``games.services.locking.lock_game``), which makes ``seq`` gap-free."""
    last = LogEntry.objects.filter(game=game).order_by("-seq").values_list("seq", "hash").first()
    seq = 1 if last is None else last[0] + 1
    prev_hash = GENESIS if last is None else last[1]
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
