"""Sealed orders: submit, replace, fill by default; schedule resolution when complete.

Commitment (the receipt published at once, in the log and to the player):
``commitment = sha256((salt + ":" + text).encode("utf-8")).hexdigest()`` where ``salt``
is 32 lowercase hex digits (``secrets.token_hex(16)``) and ``text`` the order exactly
as submitted (not stripped, not re-cased). After resolution the ``orders_revealed``
log entry publishes ``text`` and ``salt`` so anyone can recompute it
(``engine.audit.order_commitment``).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from engine.audit import order_commitment
from engine.base import IllegalOrder
from games.errors import GameStateError, NotPending, OrderRefused, PermissionDenied
from games.models import Game, Prompt, SealedOrder, Seat, StateSnapshot
from games.services.audit import log_append
from games.services.locking import lock_game

MAX_ORDER_CHARS = 4000
PLAYER_SOURCES = ("web", "api", "email")


def prompt_state(*, prompt: Prompt) -> dict:
    """The engine state while ``prompt`` is open (its snapshot)."""
    return StateSnapshot.objects.get(game_id=prompt.game_id, prompt_number=prompt.number).state


def current_orders(*, prompt: Prompt) -> dict[str, SealedOrder]:
    """The current order of each seat name for ``prompt``."""
    return {o.seat_name: o for o in SealedOrder.objects.filter(prompt=prompt, is_current=True)}


def _store(
    *,
    game: Game,
    prompt: Prompt,
    seat: Seat,
    text: str,
    parsed: dict,
    source: str,
    reason: str = "",
    previous: SealedOrder | None | bool = False,
) -> SealedOrder:
    """Store a sealed order (replacing the seat's current one) and log its commitment.
    ``previous``: the seat's current order if the caller already read it (under the game
    lock), ``None`` if it has none, ``False`` (default) to look it up here."""
    if previous is False:
        previous = SealedOrder.objects.filter(
            prompt=prompt, seat_name=seat.name, is_current=True
        ).first()
    if previous is not None:
        previous.is_current = False
        previous.save(update_fields=["is_current"])
    salt = secrets.token_hex(16)
    order = SealedOrder.objects.create(
        prompt=prompt,
        seat=seat,
        seat_name=seat.name,
        text=text,
        parsed=parsed,
        source=source,
        salt=salt,
        commitment=order_commitment(salt=salt, text=text),
    )
    if previous is not None:
        previous.replaced_by = order
        previous.save(update_fields=["replaced_by"])
    payload = {
        "prompt": prompt.number,
        "seat": seat.name,
        "commitment": order.commitment,
        "source": source,
    }
    if source == SealedOrder.Source.DEFAULT:
        kind = "nmr_applied"
        payload["reason"] = reason
    else:
        kind = "order_replaced" if previous is not None else "order_received"
    log_append(game=game, kind=kind, payload=payload)
    return order


def order_fill_default(*, game: Game, prompt: Prompt, seat: Seat, reason: str) -> SealedOrder:
    """Give a pending seat the engine's default order (source ``default``), logged as
    ``nmr_applied``. The caller holds the game lock."""
    from games.services.games import ruleset_get

    rules = ruleset_get(game.ruleset)
    state = prompt_state(prompt=prompt)
    text = rules.default_order(state, seat.name)
    parsed = rules.parse_order(state, seat.name, text)
    # The reason is public (deadline, resigned); the order itself stays sealed.
    return _store(
        game=game,
        prompt=prompt,
        seat=seat,
        text=text,
        parsed=parsed,
        source="default",
        reason=reason,
    )


def prompt_check_ready(*, game: Game, prompt: Prompt, have: set[str] | None = None) -> bool:
    """If every pending seat has a current order, mark the prompt ready and schedule
    its resolution after commit (after the game's early-resolution delay). The caller
    holds the game lock; ``have`` (the seat names with a current order) spares a query
    when the caller knows it. Returns whether the prompt is complete."""
    if prompt.status != Prompt.Status.OPEN:
        return False
    if have is None:
        have = set(current_orders(prompt=prompt))
    if not set(prompt.pending) <= have:
        return False
    now = timezone.now()
    delay = game.early_resolution_delay_seconds
    prompt.ready_at = now
    prompt.resolve_after = now + timedelta(seconds=delay)
    prompt.save(update_fields=["ready_at", "resolve_after"])
    if game.status == Game.Status.ACTIVE:
        schedule_resolution(game_id=game.pk, prompt_number=prompt.number, countdown=delay)
    return True


def schedule_resolution(*, game_id: int, prompt_number: int, countdown: int = 0) -> None:
    """Enqueue ``resolve_prompt`` once the current transaction commits."""
    from games.tasks import resolve_prompt

    def enqueue() -> None:
        if countdown:
            resolve_prompt.apply_async((game_id, prompt_number), countdown=countdown)
        else:
            resolve_prompt.delay(game_id, prompt_number)

    transaction.on_commit(enqueue)


def order_submit(*, seat: Seat, text: str, source: str) -> SealedOrder:
    """Submit (or replace) a seat's sealed order for the prompt it is pending on.

    The text is parsed by the engine for this seat; a refusal raises OrderRefused with
    the engine's reason and stores nothing. Submitting the same text again returns the
    current order unchanged. When every pending seat has an order, resolution is
    scheduled on commit. Raises OrderRefused, NotPending, GameStateError,
    PermissionDenied."""
    from games.services.games import ruleset_get
    from games.services.resolution import open_prompt_locked

    if source not in PLAYER_SOURCES:
        raise OrderRefused(f"Unknown order source {source!r}.", code="invalid")
    if not isinstance(text, str) or not text.strip():
        raise OrderRefused("The order is empty.")
    if len(text) > MAX_ORDER_CHARS:
        raise OrderRefused(f"The order is too long (at most {MAX_ORDER_CHARS} characters).")
    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        seat = Seat.objects.get(pk=seat.pk)
        if seat.status == Seat.Status.REPLACED:
            raise PermissionDenied("This seat has been handed to another player.")
        if game.status == Game.Status.FORMING:
            raise GameStateError("The game has not started yet.", code="not_started")
        if game.status == Game.Status.PAUSED:
            raise GameStateError("The game is paused; orders are accepted again when it resumes.")
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameStateError("The game is over.", code="game_finished")
        if seat.status == Seat.Status.RESIGNED:
            raise NotPending("You resigned from this game; your orders are the default ones.")
        prompt = open_prompt_locked(game=game)
        if prompt is None or seat.name not in prompt.pending:
            waiting = ", ".join(prompt.pending) if prompt is not None else "nobody"
            raise NotPending(f"You are not asked for an order now (waiting for: {waiting}).")
        # One read of the prompt's current orders: this seat's (a double click returns
        # it unchanged) and who else is in (is the prompt complete after this one?).
        orders = current_orders(prompt=prompt)
        current = orders.get(seat.name)
        if current is not None and current.text == text and current.source != "default":
            current.prompt = prompt  # already read: spares the receipt a query
            return current
        rules = ruleset_get(game.ruleset)
        try:
            parsed = rules.parse_order(prompt_state(prompt=prompt), seat.name, text)
        except IllegalOrder as exc:
            raise OrderRefused(exc.reason) from None
        order = _store(
            game=game, prompt=prompt, seat=seat, text=text, parsed=parsed, source=source,
            previous=current,
        )  # fmt: skip
        prompt_check_ready(game=game, prompt=prompt, have={*orders, seat.name})
    return order
