"""prompt_resolve in one process: exactly once, the unique constraint, odd cases."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, transaction

import engine
from games.models import LogEntry, OutboxMessage, Prompt, SealedOrder, StateSnapshot
from games.selectors import current_state
from games.services.orders import order_submit
from games.services.organizer import game_pause
from games.services.resolution import prompt_resolve
from tests.concurrency import in_background
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def _all_in(game, seats) -> None:
    # Outside capture: the on-commit resolution task does not run.
    state = current_state(game=game)
    for name in NAMES:
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")


def test_resolves_once_and_second_call_is_noop() -> None:
    game, seats = start_fixed(NAMES)
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False  # orders missing
    _all_in(game, seats)
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is True
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False
    assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True) is False
    assert prompt_resolve(game_id=game.pk, prompt_number=99) is False
    assert LogEntry.objects.filter(game=game, kind="prompt_resolved").count() == 1
    assert Prompt.objects.filter(game=game).count() == 2
    assert StateSnapshot.objects.filter(game=game).count() == 2
    assert OutboxMessage.objects.filter(kind="prompt_resolved").count() == 3


def test_unique_constraint_is_the_last_line_of_defence() -> None:
    game, _seats = start_fixed(NAMES)
    with pytest.raises(IntegrityError), transaction.atomic():
        Prompt.objects.create(game=game, number=1, phase="draft", pending=[])


def test_paused_game_is_not_resolved_until_resumed(django_capture_on_commit_callbacks) -> None:
    from games.services.organizer import game_resume

    game, seats = start_fixed(NAMES)
    _all_in(game, seats)
    game_pause(game=game, by=game.organizer)
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game=game, by=game.organizer)
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED


def test_order_the_engine_refuses_at_resolution_falls_back_to_default() -> None:
    # Guards against an engine bug blocking a game forever: a stored order the engine
    # refuses is replaced by the seat's default order, logged.
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    _all_in(game, seats)
    SealedOrder.objects.filter(seat_name="bob", is_current=True).update(text="PASS NOBODY")
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is True
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed").payload["orders"]
    assert revealed["bob"]["text"] == RULES.default_order(state, "bob")
    nmr = LogEntry.objects.get(game=game, kind="nmr_applied")
    assert nmr.payload["seat"] == "bob" and nmr.payload["reason"] == "refused"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_lock_wait_is_bounded_and_answered_with_game_busy(monkeypatch) -> None:
    from games.errors import GameBusy
    from games.services import locking

    game, seats = start_fixed(NAMES)
    monkeypatch.setattr(locking, "LOCK_TIMEOUT_SECONDS", 0.3)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            locking.lock_game(game_id=game.pk)
            held.set()
            release.wait(10)

    with in_background(hold):
        try:
            assert held.wait(10)
            with pytest.raises(GameBusy) as info:
                order_submit(seat=seats["ann"], text="PASS X", source="web")
            assert info.value.code == "busy"
        finally:
            release.set()
    assert SealedOrder.objects.count() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_lock_bounds_its_own_transaction_only() -> None:
    """The game lock sets the 10 s bound for its transaction in the locking statement
    itself: inside it the bound holds; outside (other locks, later transactions) the
    server's default (no bound) is left alone."""
    from django.db import connection, transaction

    from games.services.locking import lock_game

    def show() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW lock_timeout")
            return cursor.fetchone()[0]

    game, _seats = start_fixed(NAMES)
    with transaction.atomic():
        outside = show()
        lock_game(game_id=game.pk)
        inside = show()
    assert (outside, inside, show()) == ("0", "10s", "0")
