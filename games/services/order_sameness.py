"""What "the same order again" is: the order the engine reads the same (its parsed
form), not the same bytes. A retry in other spaces or another letter case gets the
receipt of the order already sealed (``games.services.orders.order_submit``)."""

from __future__ import annotations

from typing import Any

from engine.base import IllegalOrder, dumps
from games.models import SealedOrder, Seat, StateSnapshot


def same_order_played(*, seat: Seat, number: int, text: str, rules: Any) -> SealedOrder | None:
    """The seat's order for its earlier prompt ``number`` if ``text`` is that order
    (``same_reading``) and the player sent it (a client retrying after a lost answer,
    when that order closed the prompt): it was stored and played, so the retry gets its
    receipt, not a refusal that says nothing was stored."""
    if not isinstance(number, int) or number < 1:
        return None
    order = (
        SealedOrder.objects.select_related("prompt")
        .filter(prompt__game_id=seat.game_id, prompt__number=number, seat_name=seat.name,
                is_current=True, seat=seat)
        .exclude(prompt__resolved_at__isnull=True)
        .first()
    )  # fmt: skip
    if order is None or order.source not in SealedOrder.PLAYER_SOURCES:
        return None
    if order.text == text:
        return order
    state = StateSnapshot.objects.filter(game_id=seat.game_id, prompt_number=number).first()
    if state is None:
        return None
    same, _parsed, _refusal = same_reading(
        rules=rules, state=state.state, seat_name=seat.name, text=text, stored_text=order.text
    )
    return order if same else None


def same_reading(
    *, rules: Any, state: dict, seat_name: str, text: str, stored_text: str
) -> tuple[bool, dict | None, IllegalOrder | None]:
    """Whether the engine reads ``text`` as it reads ``stored_text`` (the sealed order's
    text, which is what the resolution parses again): the same order in other spaces or
    letter case (or an order sealed before tabs read as spaces) is that order; the engine
    resolves the parsed form alone (``Ruleset.submit_step``), so nothing it ignores can
    matter. A stored text the engine now refuses is no match: the new order replaces it.
    Returns ``(same, parsed, refusal)``: the text's parsed form, or the engine's refusal
    of it."""
    try:
        parsed = rules.parse_order(state, seat_name, text)
    except IllegalOrder as exc:
        return False, None, exc
    try:
        stored = rules.parse_order(state, seat_name, stored_text)
    except IllegalOrder:
        return False, parsed, None
    return dumps(parsed) == dumps(stored), parsed, None
