"""An order racing a resolution for the game's lock never lands on a resolved prompt."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

import engine
from games.errors import ApplicationError
from games.models import SealedOrder
from games.selectors import current_state
from games.services.orders import order_submit
from tests.concurrency import in_background, until_a_connection_waits_for_a_lock
from tests.games.core_support import start_fixed

NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("via", ["seat", "api"])
def test_order_that_waited_for_a_resolution_never_lands_on_the_resolved_prompt(via) -> None:
    """The deadline resolves prompt 1 (cat's default filled in) while cat's own order
    waits for the game's lock: once it gets the lock, cat's order must see prompt 2 and
    never be stored on prompt 1 (a statement that waited for a lock sees other tables
    as they were before; the reads must come after the lock)."""
    from games.services.locking import lock_game
    from games.services.orders import order_submit_for_user
    from games.services.resolution import prompt_resolve

    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    for name in NAMES:
        if name != "cat":
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    held = threading.Event()

    def deadline() -> bool:
        with transaction.atomic():
            lock_game(game_id=game.pk)  # what the resolution takes first
            held.set()
            waited = until_a_connection_waits_for_a_lock(timeout=10)  # cat's order waits
            # as the sweep would once the deadline has passed (cat's order came first)
            later = timezone.now() + timedelta(days=30)
            assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True, now=later)
        return waited

    with in_background(deadline) as resolution:
        assert held.wait(10)
        text = RULES.legal_orders(state, "cat")[0]
        try:
            if via == "seat":
                order = order_submit(seat=seats["cat"], text=text, source="web")
            else:
                order = order_submit_for_user(
                    game_id=game.pk, user=seats["cat"].user, text=text, source="api"
                )
        except ApplicationError:
            order = None  # refused for prompt 2: fine
    assert resolution.value is True  # cat's order waited for the game's lock
    first = SealedOrder.objects.get(prompt__game=game, prompt__number=1, seat_name="cat")
    assert first.source == "default" and first.is_current
    assert not SealedOrder.objects.filter(
        prompt__game=game, prompt__number=1, seat_name="cat", source__in=["web", "api"]
    ).exists()
    if order is not None:
        assert order.prompt.number == 2
