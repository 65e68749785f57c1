"""order_submit: sealing, replacing, idempotency, refusals, scheduling, secrecy."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import engine
from games.errors import GameStateError, NotPending, OrderRefused
from games.models import LogEntry, OutboxMessage, Prompt, SealedOrder
from games.selectors import current_order, current_state, legal_orders, seat_view, spectator_view
from games.selectors_log import game_log
from games.services.orders import order_submit
from games.services.resolution import prompt_resolve
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def _submit(capture, seat, text, source="web"):
    with capture(execute=True):
        return order_submit(seat=seat, text=text, source=source)


def test_refused_order_gives_engine_reason_and_stores_nothing(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES)
    before = LogEntry.objects.filter(game=game).count()
    state = current_state(game=game)
    with pytest.raises(OrderRefused) as info:
        _submit(django_capture_on_commit_callbacks, seats["ann"], "PASS NOBODY")
    # The message is the engine's own reason for this seat and state.
    with pytest.raises(engine.IllegalOrder) as expected:
        RULES.parse_order(state, "ann", "PASS NOBODY")
    assert info.value.message == expected.value.reason
    assert info.value.code == "order_refused"
    with pytest.raises(OrderRefused, match="empty"):
        _submit(django_capture_on_commit_callbacks, seats["ann"], "   ")
    assert SealedOrder.objects.count() == 0
    assert LogEntry.objects.filter(game=game).count() == before


def test_order_is_sealed_replaced_and_idempotent(django_capture_on_commit_callbacks) -> None:
    game, seats = start_fixed(NAMES)
    dealt = RULES.view(current_state(game=game), "ann")["dealt"]
    first = _submit(django_capture_on_commit_callbacks, seats["ann"], f"PASS {dealt[0]}")
    assert len(first.salt) == 32
    assert first.commitment == hashlib.sha256(f"{first.salt}:PASS {dealt[0]}".encode()).hexdigest()
    # The same text again (a double click) changes nothing.
    again = _submit(django_capture_on_commit_callbacks, seats["ann"], f"PASS {dealt[0]}")
    assert again.pk == first.pk
    second = _submit(django_capture_on_commit_callbacks, seats["ann"], f"pass {dealt[1]}")
    first.refresh_from_db()
    assert first.is_current is False and first.replaced_by_id == second.pk
    assert current_order(seat=seats["ann"]).pk == second.pk
    entries = list(LogEntry.objects.filter(game=game, kind__startswith="order_").order_by("seq"))
    assert [e.kind for e in entries] == ["order_received", "order_replaced"]
    assert entries[1].payload == {
        "prompt": 1, "seat": "ann", "commitment": second.commitment, "source": "web",
    }  # fmt: skip
    # Neither text nor salt is in the log before resolution.
    dump = json.dumps([e.payload for e in LogEntry.objects.filter(game=game)])
    for secret in (dealt[0], dealt[1], first.salt, second.salt):
        assert secret not in dump
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.OPEN


def test_last_order_resolves_the_prompt_once(django_capture_on_commit_callbacks) -> None:
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    for name in NAMES[:-1]:
        _submit(django_capture_on_commit_callbacks, seats[name], RULES.legal_orders(state, name)[0])
        assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.OPEN
    _submit(django_capture_on_commit_callbacks, seats["cat"], RULES.legal_orders(state, "cat")[0])
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
    assert Prompt.objects.get(game=game, number=2).phase == "play"
    # A second resolution attempt is a no-op.
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False
    assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True) is False
    assert LogEntry.objects.filter(game=game, kind="prompt_resolved").count() == 1
    # An order for the resolved prompt is refused; the next prompt takes orders.
    with pytest.raises(OrderRefused):
        _submit(django_capture_on_commit_callbacks, seats["ann"], "PASS CAESAR")


def test_not_pending_seat_is_refused(django_capture_on_commit_callbacks) -> None:
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    for name in NAMES:
        _submit(django_capture_on_commit_callbacks, seats[name], RULES.legal_orders(state, name)[0])
    # Round 1: ann explores, so in round 2 she is not asked in the first play prompt.
    _submit(django_capture_on_commit_callbacks, seats["ann"], "PLAY EXPLORE")
    _submit(django_capture_on_commit_callbacks, seats["bob"], "PLAY EXPLOIT")
    _submit(django_capture_on_commit_callbacks, seats["cat"], "PLAY EXPLOIT")
    prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
    assert prompt.pending == ["bob", "cat"]
    assert legal_orders(seat=seats["ann"]) == []
    with pytest.raises(NotPending, match="waiting for: bob, cat") as info:
        _submit(django_capture_on_commit_callbacks, seats["ann"], "PLAY EXPLOIT")
    assert info.value.code == "not_your_turn"


def test_early_resolution_delay_lets_orders_be_replaced(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, early_resolution_delay_seconds=120)
    state = current_state(game=game)
    for name in NAMES:
        _submit(django_capture_on_commit_callbacks, seats[name], RULES.legal_orders(state, name)[0])
    prompt = Prompt.objects.get(game=game, number=1)
    # Complete, but the delay has not passed: the (eager) task did nothing.
    assert prompt.status == Prompt.Status.OPEN and prompt.ready_at is not None
    last = RULES.legal_orders(state, "bob")[-1]
    _submit(django_capture_on_commit_callbacks, seats["bob"], last)
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is False
    later = timezone.now() + timedelta(seconds=121)
    assert prompt_resolve(game_id=game.pk, prompt_number=1, now=later) is True
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed").payload
    assert revealed["orders"]["bob"]["text"] == last


def _hidden_from(viewer: str, state: dict) -> set[str]:
    """Leader ids held or dealt by other seats that the viewer's own engine view never
    mentions: what the viewer must not learn."""
    own = json.dumps(RULES.view(state, viewer))
    hidden = set()
    for other in state["players"]:
        if other == viewer:
            continue
        view = RULES.view(state, other)
        for card in view.get("hand", []) + view.get("dealt", []):
            if card not in own:
                hidden.add(card)
    return hidden


def test_selectors_and_emails_never_leak_other_seats_secrets(
    django_capture_on_commit_callbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    hidden = _hidden_from("ann", state)
    assert hidden  # bob's and cat's dealt leaders
    # bob and cat order; ann has not yet.
    orders = {}
    for name in ("bob", "cat"):
        orders[name] = _submit(
            django_capture_on_commit_callbacks, seats[name], RULES.legal_orders(state, name)[0]
        )
    view = json.dumps(seat_view(seat=seats["ann"]))
    log = json.dumps(game_log(game=game, for_user=seats["ann"].user))
    spectator = json.dumps(spectator_view(game=game))
    for text in (view, log, spectator):
        for card in hidden:
            assert card not in text
        for order in orders.values():
            assert order.salt not in text
    assert orders["bob"].commitment in log  # the receipt is public
    # Ann orders: the draft resolves. Other seats' draft passes stay hidden from her,
    # in her view, her events, her log and her email.
    _submit(django_capture_on_commit_callbacks, seats["ann"], RULES.legal_orders(state, "ann")[0])
    state = current_state(game=game)
    hidden = _hidden_from("ann", state)
    assert hidden
    view = seat_view(seat=seats["ann"])
    log = game_log(game=game, for_user=seats["ann"].user)
    revealed = next(e for e in log if e["kind"] == "orders_revealed")
    assert set(revealed["payload"]["orders"]["ann"]) >= {"text", "salt"}
    assert set(revealed["payload"]["orders"]["bob"]) == {"commitment", "source"}
    bodies = [m.body for m in OutboxMessage.objects.filter(seat=seats["ann"])]
    assert len(bodies) == 2  # game started, draft resolved
    for text in (json.dumps(view), json.dumps(log), *bodies):
        for card in hidden:
            assert card not in text
        assert orders["bob"].salt not in text
        assert orders["bob"].text not in text
    # Ann's own received leader is in her email (she may know it).
    received = RULES.view(state, "ann")["received"]["leader"]
    assert received in bodies[-1]


def test_paused_and_finished_games_refuse_orders(django_capture_on_commit_callbacks) -> None:
    from games.services.organizer import game_end, game_pause

    game, seats = start_fixed(NAMES)
    game_pause(game=game, by=game.organizer)
    with pytest.raises(GameStateError, match="paused"):
        _submit(django_capture_on_commit_callbacks, seats["ann"], "PASS X")
    game.refresh_from_db()
    game_end(game=game, by=game.organizer, reason="test")
    with pytest.raises(GameStateError) as info:
        _submit(django_capture_on_commit_callbacks, seats["ann"], "PASS X")
    assert info.value.code == "game_finished"
    assert SealedOrder.objects.count() == 0


def test_stored_order_and_its_log_entry_read_back_as_returned(
    django_capture_on_commit_callbacks,
) -> None:
    """The order's row and its log entry are written by hand-written SQL: what the ORM
    reads back is what order_submit returned, and the entry extends the hash chain."""
    from engine.audit import entry_hash
    from games.services.audit import log_time

    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    dealt = RULES.view(state, "bob")["dealt"]
    before = LogEntry.objects.filter(game=game).order_by("-seq").first()
    order = _submit(django_capture_on_commit_callbacks, seats["bob"], f" pass {dealt[1]} ")
    stored = SealedOrder.objects.get(pk=order.pk)
    for name in ("prompt_id", "seat_id", "seat_name", "text", "parsed", "source", "salt",
                 "commitment", "submitted_at", "is_current", "replaced_by_id"):  # fmt: skip
        assert getattr(stored, name) == getattr(order, name), name
    assert stored.text == f" pass {dealt[1]} " and stored.source == "web"
    assert stored.parsed == RULES.parse_order(state, "bob", f"PASS {dealt[1]}")
    assert stored.is_current is True and stored.replaced_by_id is None
    assert abs(stored.submitted_at - timezone.now()) < timedelta(seconds=30)
    entry = LogEntry.objects.filter(game=game).order_by("-seq").first()
    assert (entry.seq, entry.prev_hash, entry.kind) == (before.seq + 1, before.hash, "order_received")
    assert entry.payload == {
        "prompt": 1, "seat": "bob", "commitment": order.commitment, "source": "web",
    }  # fmt: skip
    assert entry.hash == entry_hash(
        prev_hash=before.hash, seq=entry.seq, kind=entry.kind, payload=entry.payload,
        created_at=log_time(entry.created_at),
    )  # fmt: skip


def test_a_replacing_order_reads_back_as_returned_and_points_from_the_old_one(
    django_capture_on_commit_callbacks,
) -> None:
    """Replacing an order writes three rows (the old order no longer current and pointing
    at the new one, the new order, its log entry); on PostgreSQL in one statement after
    the lock and the read."""
    from engine.audit import entry_hash
    from games.services.audit import log_time

    game, seats = start_fixed(NAMES)
    dealt = RULES.view(current_state(game=game), "cat")["dealt"]
    first = _submit(django_capture_on_commit_callbacks, seats["cat"], f"PASS {dealt[0]}")
    before = LogEntry.objects.filter(game=game).order_by("-seq").first()
    # The lock, the read, then the writes: one statement on PostgreSQL, four elsewhere.
    writes = 1 if connection.vendor == "postgresql" else 4
    with CaptureQueriesContext(connection) as sent:
        second = _submit(django_capture_on_commit_callbacks, seats["cat"], f"PASS {dealt[1]}")
    statements = [q["sql"] for q in sent.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 2 + writes, statements
    old, new = SealedOrder.objects.get(pk=first.pk), SealedOrder.objects.get(pk=second.pk)
    assert (old.is_current, old.replaced_by_id) == (False, second.pk)
    assert (new.is_current, new.replaced_by_id, new.text) == (True, None, f"PASS {dealt[1]}")
    for name in ("prompt_id", "seat_id", "seat_name", "text", "parsed", "source", "salt",
                 "commitment", "submitted_at", "is_current", "replaced_by_id"):  # fmt: skip
        assert getattr(new, name) == getattr(second, name), name
    assert (first.is_current, first.replaced_by_id) == (True, None)  # the caller's copy
    assert new.salt != old.salt and len(new.salt) == 32
    assert new.commitment == hashlib.sha256(f"{new.salt}:PASS {dealt[1]}".encode()).hexdigest()
    assert SealedOrder.objects.filter(prompt_id=new.prompt_id, seat_name="cat").count() == 2
    entry = LogEntry.objects.filter(game=game).order_by("-seq").first()
    assert (entry.seq, entry.prev_hash, entry.kind) == (before.seq + 1, before.hash, "order_replaced")
    assert entry.payload == {
        "prompt": 1, "seat": "cat", "commitment": new.commitment, "source": "web",
    }  # fmt: skip
    assert entry.hash == entry_hash(
        prev_hash=before.hash, seq=entry.seq, kind=entry.kind, payload=entry.payload,
        created_at=log_time(entry.created_at),
    )  # fmt: skip
    # A third order replaces the second the same way; the first stays as it was.
    third = _submit(django_capture_on_commit_callbacks, seats["cat"], f"PASS {dealt[0]}")
    assert SealedOrder.objects.get(pk=second.pk).replaced_by_id == third.pk
    assert SealedOrder.objects.get(pk=first.pk).replaced_by_id == second.pk
    assert [o.pk for o in SealedOrder.objects.filter(prompt_id=new.prompt_id, is_current=True)] == [third.pk]


def test_a_replacement_does_not_restart_the_early_resolution_delay(
    django_capture_on_commit_callbacks,
) -> None:
    """A race audit: each replacement during the delay set it again and queued another
    resolution task, so a player could hold a complete prompt open to its deadline."""
    game, seats = start_fixed(NAMES, early_resolution_delay_seconds=120)
    state = current_state(game=game)
    for name in NAMES:
        _submit(django_capture_on_commit_callbacks, seats[name], RULES.legal_orders(state, name)[0])
    prompt = Prompt.objects.get(game=game, number=1)
    ready_at, resolve_after = prompt.ready_at, prompt.resolve_after
    assert resolve_after == ready_at + timedelta(seconds=120)
    for text in RULES.legal_orders(state, "bob")[1:4]:
        with django_capture_on_commit_callbacks(execute=False) as queued:
            order_submit(seat=seats["bob"], text=text, source="web")
        tasks = [getattr(getattr(c, "task", None), "name", "") for c in queued]
        assert not [t for t in tasks if t.endswith("resolve_prompt")], tasks  # none more
    prompt.refresh_from_db()
    assert (prompt.ready_at, prompt.resolve_after) == (ready_at, resolve_after)
    later = resolve_after + timedelta(seconds=1)
    assert prompt_resolve(game_id=game.pk, prompt_number=1, now=later) is True
