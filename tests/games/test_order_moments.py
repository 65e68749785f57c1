"""An order's moments (a time audit against a real beat on a busy machine): the moment its
deadline is checked against is the one it is recorded with, its row and its log entry
alike (an order taken in time was recorded 2 s after its deadline); a refusal for a
deadline that is not a whole minute names its seconds; and a player whose order lost to
the deadline's sweep by a moment is told their seat's default order was played."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

import engine
from games.errors import NotPending
from games.models import LogEntry, Prompt, SealedOrder
from games.selectors import current_state
from games.services.deadlines import enforce_deadlines
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def test_an_order_and_its_log_entry_carry_one_moment() -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    before = timezone.now()
    order = order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[0], source="api")
    after = timezone.now()
    stored = SealedOrder.objects.get(pk=order.pk)
    entry = LogEntry.objects.get(game=game, kind="order_received", payload__seat="ann")
    assert before <= stored.submitted_at <= after
    assert entry.created_at == stored.submitted_at == order.submitted_at
    # A replacement too, and the entry's time is the one its hash covers.
    replaced = order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[1], source="web")
    again = LogEntry.objects.filter(game=game, payload__seat="ann").order_by("-seq").first()
    assert again.created_at == SealedOrder.objects.get(pk=replaced.pk).submitted_at
    out = io.StringIO()
    call_command("verify_game", str(game.pk), stdout=out)  # raises CommandError on a bad hash
    assert "OK" in out.getvalue(), out.getvalue()


def test_a_refusal_names_the_second_a_deadline_not_on_the_minute_closed() -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    Prompt.objects.filter(game=game, number=1).update(deadline=datetime(2026, 11, 20, 10, 57, 54, 219000, tzinfo=UTC))
    with pytest.raises(NotPending) as refused:
        order_submit(seat=seats["cat"], text=RULES.legal_orders(state, "cat")[0], source="api")
    assert refused.value.code == "deadline_passed"
    assert str(refused.value).startswith("Orders for prompt 1 closed at Fri 20 Nov 2026, 10:57:54 UTC; nothing was stored.")


def test_an_order_that_lost_to_the_sweep_is_told_the_default_order_was_played() -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[0], source="api", expected_prompt=1)
    Prompt.objects.filter(game=game, number=1).update(deadline=timezone.now() - timedelta(seconds=1))
    assert enforce_deadlines() == 1
    late = RULES.legal_orders(state, "cat")[0]
    with pytest.raises(NotPending) as refused:
        order_submit(seat=seats["cat"], text=late, source="api", expected_prompt=1)
    assert refused.value.code == "prompt_closed"
    assert str(refused.value).startswith(
        "Prompt 1 is not open any more (its deadline passed: your seat's default order was "
        "played): prompt 2 is open now ("
    ), str(refused.value)
    assert str(refused.value).endswith("). Nothing was stored.")
    # A seat whose own order counted is not told of a default order.
    with pytest.raises(NotPending) as other:
        order_submit(seat=seats["ann"], text="PLAY NOTHING", source="api", expected_prompt=1)
    assert str(other.value).startswith("Prompt 1 is not open any more: prompt 2 is open now (")
    assert not SealedOrder.objects.filter(prompt__game=game, prompt__number=2).exclude(source="forced").exists()
