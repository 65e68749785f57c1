"""Reads for ``manage.py stuck_prompts``: the work an incident (a worker lost, the broker
or the beat away) may have left behind — complete prompts never resolved, prompts past
their deadline still open, emails waiting long to be sent."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q

from games.models import Game, OutboxMessage, Prompt, SealedOrder


@dataclass(frozen=True)
class StuckPrompt:
    """An open prompt of an active game that should have been resolved by now."""

    prompt_id: int
    game_id: int
    number: int
    # Every order in since (``owed`` empty), else when its deadline and grace ran out.
    since: datetime
    # The pending seats without an order: their default orders are owed.
    owed: tuple[str, ...]


def stuck_prompts(*, now: datetime, older_than: timedelta) -> list[StuckPrompt]:
    """The open prompts of active games that have had every order in (past their
    early-resolution delay), or been past their deadline plus grace, for longer than
    ``older_than`` at ``now``: the sweeps re-queue such prompts within a minute or two,
    so one older than a few minutes is stuck (no worker, no beat, a broker away). Paused
    games are not stuck; they wait for their organizer."""
    from games.services.deadlines import enforce_due_at

    cut = now - older_than
    candidates = list(
        Prompt.objects.filter(status=Prompt.Status.OPEN, game__status=Game.Status.ACTIVE)
        .filter(Q(resolve_after__lte=cut) | Q(deadline__lte=cut))
        .select_related("game")
        .order_by("game_id", "number")
    )
    have: dict[int, set[str]] = {}
    for prompt_id, seat_name in SealedOrder.objects.filter(
        prompt_id__in=[p.pk for p in candidates], is_current=True
    ).values_list("prompt_id", "seat_name"):
        have.setdefault(prompt_id, set()).add(seat_name)
    stuck = []
    for prompt in candidates:
        owed = tuple(name for name in prompt.pending if name not in have.get(prompt.pk, set()))
        if not owed and prompt.resolve_after is not None and prompt.resolve_after <= cut:
            since = prompt.ready_at or prompt.resolve_after
        else:
            due_at = enforce_due_at(game=prompt.game, prompt=prompt)
            if due_at is None or due_at > cut:
                continue
            since = due_at
        stuck.append(StuckPrompt(prompt.pk, prompt.game_id, prompt.number, since, owed))
    return stuck


def emails_waiting(*, now: datetime, older_than: timedelta) -> list[dict[str, Any]]:
    """The outbox emails still to be sent (queued or retrying) that were queued longer
    than ``older_than`` before ``now``, oldest first (no address: the admin shows it);
    not those waiting because their one address was refused (a full mailbox: the server
    is fine, the admin's outbox shows them)."""
    return list(
        OutboxMessage.objects.filter(
            status__in=OutboxMessage.UNSENT,
            created_at__lte=now - older_than,
        )
        .exclude(OutboxMessage.refused_on_its_own())
        .order_by("created_at", "id")
        .values("id", "game_id", "kind", "status", "attempts", "created_at", "last_error")
    )
