"""The cost of resolving one prompt (the Celery task the load benchmark waits for):
its SQL statements, and that the cheaper paths write the same rows as the plain ones."""

from __future__ import annotations

from datetime import timedelta

import pytest

import engine
from engine.audit import check_chain
from games.models import LogEntry, OutboxMessage, Prompt, SealedOrder, Seat
from games.selectors import current_state
from games.selectors_log import game_export_unchecked
from games.services import notifications, outbox
from games.services.orders import order_submit
from games.services.outbox import outbox_enqueue, outbox_enqueue_many
from games.services.resolution import prompt_resolve
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat", "dan", "eve"]
RULES = engine.get("5x")


def _all_in(game, seats) -> None:
    state = current_state(game=game)
    for name in NAMES:
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[-1], source="api")


def test_prompt_resolve_query_budget(
    django_assert_max_num_queries, django_capture_on_commit_callbacks
) -> None:
    # Guards against the resolution growing back its per-row queries (it was 19, then 13).
    game, seats = start_fixed(NAMES)
    _all_in(game, seats)
    # savepoint (the test's transaction), game lock, the prompt with its snapshot, log
    # tail, orders and the seats with their users, prompt update, log entries, next
    # prompt, its snapshot, the emails (no savepoint: ON CONFLICT), release
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with django_assert_max_num_queries(9):
            assert prompt_resolve(game_id=game.pk, prompt_number=1) is True
    assert len(callbacks) == 1  # one sending task for all the emails
    assert Prompt.objects.get(game=game, number=2).status == Prompt.Status.OPEN
    entries = game_export_unchecked(game=game)["entries"]
    assert [e["kind"] for e in entries[-2:]] == ["orders_revealed", "prompt_resolved"]
    assert check_chain(entries) == []


def test_game_with_default_orders_played_to_the_end_verifies() -> None:
    # Guards the log tail read with the prompt: default orders (resigned, deadline,
    # refused) logged during a resolution must not fork the chain, nor must the end.
    from io import StringIO

    from django.core.management import call_command

    from games.services.games import seat_resign

    game, seats = start_fixed(NAMES[:3])
    kinds: set[str] = set()
    for step in range(1, 200):
        game.refresh_from_db()
        if game.status != game.Status.ACTIVE:
            break
        prompt = Prompt.objects.get(game=game, status=Prompt.Status.OPEN)
        state = current_state(game=game)
        if step == 2:
            seat_resign(seat=seats["cat"])
        live = [n for n in prompt.pending if n != "cat" or step < 2]
        deadline = step >= 3 and "deadline" not in kinds and len(live) >= 2
        for name in live[1:] if deadline else live:
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
        if step >= 4 and "refused" not in kinds and live:
            kinds.add("refused")
            SealedOrder.objects.filter(prompt=prompt, seat_name=live[-1], is_current=True).update(
                text="PASS NOBODY"
            )
        if deadline:
            kinds.add("deadline")
        due = prompt.deadline + timedelta(minutes=1) if deadline else None  # as the sweep
        assert prompt_resolve(
            game_id=game.pk, prompt_number=prompt.number, fill_missing=deadline, now=due
        )
    assert game.status == game.Status.FINISHED
    reasons = set(
        LogEntry.objects.filter(game=game, kind="nmr_applied").values_list(
            "payload__reason", flat=True
        )
    )
    assert reasons == {"resigned", "deadline", "refused"}
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)  # chain, commitments, replay
    assert "OK" in out.getvalue()


def test_resolution_emails_are_the_ones_notifying_seat_by_seat_writes(monkeypatch) -> None:
    # Guards the seats read once by the resolution: the emails are exactly what the
    # notification builds from its own query of the recipients, one per seat, in order.
    game, seats = start_fixed(NAMES)
    _all_in(game, seats)
    calls: list[dict] = []
    real = notifications.notify_prompt_resolved

    def spy(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(notifications, "notify_prompt_resolved", spy)
    assert prompt_resolve(game_id=game.pk, prompt_number=1) is True
    rows = list(OutboxMessage.objects.filter(game=game, kind="prompt_resolved").order_by("id"))

    built: list[dict] = []
    monkeypatch.setattr(
        notifications, "outbox_enqueue_many", lambda *, messages: built.extend(messages)
    )
    real(**{**calls[0], "seats": None})  # the recipients read by the notification itself
    fields = ("to", "subject", "body", "reply_to", "kind", "key")
    assert [{f: getattr(r, f) for f in fields} for r in rows] == [
        {f: m[f] for f in fields} for m in built
    ]
    # The headers too, but for each email's own Message-ID, which names the next prompt.
    def other(headers):
        return {k: v for k, v in headers.items() if k != "Message-ID"}

    assert [other(r.headers) for r in rows] == [other(m["headers"]) for m in built]
    for r in rows:
        assert outbox.prompt_answered(in_reply_to=r.headers["Message-ID"], game_id=game.pk) == 2
    assert len({r.headers["Message-ID"] for r in rows}) == len(rows)
    assert [r.seat_id for r in rows] == [m["seat"].pk for m in built]
    order = Seat.objects.filter(game=game).order_by("position").values_list("pk", flat=True)
    assert [r.seat_id for r in rows] == list(order)
    assert all(r.status == OutboxMessage.Status.QUEUED and r.html == "" for r in rows)
    assert {r.key for r in rows} == {f"resolved:{game.pk}:1:{pk}" for pk in order}


def test_outbox_enqueue_many_skips_keys_already_queued(
    django_capture_on_commit_callbacks,
) -> None:
    # Guards the optimistic batch insert: a key already queued is neither doubled nor
    # sent again, and the others are still queued, with one task for them.
    old = outbox_enqueue(to="a@example.com", subject="s", body="old", key="k1")
    messages = [
        {"to": f"{k}@example.com", "subject": "s", "body": k, "key": k} for k in ("k1", "k2", "k3")
    ]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        created = outbox_enqueue_many(messages=messages)
    assert [m.key for m in created] == ["k2", "k3"] and all(m.pk for m in created)
    assert len(callbacks) == 1
    assert OutboxMessage.objects.get(key="k1").body == "old" == old.body
    assert OutboxMessage.objects.count() == 3
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert outbox_enqueue_many(messages=messages) == []
    assert callbacks == [] and OutboxMessage.objects.count() == 3


def test_outbox_batch_task_gets_the_new_ids(monkeypatch, django_capture_on_commit_callbacks):
    from games import tasks

    sent: list[list[int]] = []
    monkeypatch.setattr(tasks.send_outbox_batch, "apply_async",
                        lambda args, **options: sent.append(args[0]))  # fmt: skip
    messages = [{"to": "x@example.com", "subject": "s", "body": "b", "key": k} for k in "ab"]
    with django_capture_on_commit_callbacks(execute=True):
        created = outbox_enqueue_many(messages=messages)
    assert sent == [[m.pk for m in created]]
    assert sorted(sent[0]) == sorted(OutboxMessage.objects.values_list("pk", flat=True))


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_resolution_reads_exactly_what_the_orm_reads() -> None:
    # Guards the hand-written lock and read of the resolution: the same game, prompt,
    # snapshot state, log tail, current orders (a replaced order left out, the order of
    # a replaced seat kept) and seats with their users (the replaced seat left out, in
    # seating order) as the ORM queries they stand for.
    from django.db import transaction

    from games.errors import NotFound
    from games.models import Game, StateSnapshot
    from games.services.audit import log_tail
    from games.services.games import seat_resign
    from games.services.handover import seat_replace
    from games.services.locking import lock_game as _lock_game
    from games.services.notifications import seats_for_mail
    from games.services.orders import current_orders
    from games.services.resolution import _read_for_resolution
    from tests.games.core_support import make_users

    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    for name in ("ann", "bob"):
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="api")
    # cat resigns (its default order is entered at once) and its seat is handed over: the
    # default is withdrawn with it. A forced order would stay in force (there is no choice
    # to hand over): that order, of the replaced seat, stands in for one here.
    seat_resign(seat=seats["cat"])
    stand_in = SealedOrder.objects.get(seat_name="cat", is_current=True)
    order_submit(seat=seats["bob"], text=RULES.legal_orders(state, "bob")[-1], source="web")
    [newcomer] = make_users(["zed"])
    seat_replace(seat=Seat.objects.get(pk=seats["cat"].pk), new_user=newcomer, by=game.organizer)
    SealedOrder.objects.filter(pk=stand_in.pk).update(is_current=True, source="forced")
    with transaction.atomic():
        locked = _lock_game(game_id=game.pk)
        assert _fields(locked) == _fields(Game.objects.get(pk=game.pk))
        prompt, snapshot_state, tail, orders, mail_seats = _read_for_resolution(
            game=locked, number=1
        )
        assert _read_for_resolution(game=locked, number=2) is None
    expected = Prompt.objects.get(game=game, number=1)
    assert _fields(prompt) == _fields(expected)
    assert snapshot_state == StateSnapshot.objects.get(game=game, prompt_number=1).state
    assert tail == log_tail(game=game)
    want = current_orders(prompt=expected)
    assert list(orders) == list(want) == ["ann", "cat", "bob"]  # submission order
    assert {n: _fields(o) for n, o in orders.items()} == {n: _fields(o) for n, o in want.items()}
    assert orders["cat"].seat_id == seats["cat"].pk  # the replaced seat's order stays
    want_seats = seats_for_mail(game=game)
    assert [_fields(s) for s in mail_seats] == [_fields(s) for s in want_seats]
    assert [_fields(s.user) for s in mail_seats] == [_fields(s.user) for s in want_seats]
    assert "zed" in [s.user.username for s in mail_seats]
    with transaction.atomic(), pytest.raises(NotFound):
        _lock_game(game_id=game.pk + 1000)


def test_outbox_enqueue_many_writes_the_rows_bulk_create_writes(
    django_capture_on_commit_callbacks,
) -> None:
    # Guards the hand-written INSERT ... ON CONFLICT of outbox_enqueue_many: the rows
    # the ORM's bulk_create writes (defaults, seat, game, headers, created_at), one row
    # for a key given twice (the first), and the keys already queued skipped.
    from django.utils import timezone

    from games.services.outbox import _outbox_insert, _outbox_row

    game, seats = start_fixed(NAMES)
    OutboxMessage.objects.all().delete()
    seat = seats["ann"]

    def batch(prefix: str) -> list[dict]:
        return [
            {
                "to": "ann@example.com", "subject": "s" * 300, "body": "b\n", "seat": seat,
                "game": game, "kind": "prompt_resolved", "reply_to": "r@x",
                "headers": {"X-FiveX-Game": str(game.pk)}, "key": f"{prefix}1",
            },
            {"to": "bob@example.com", "subject": "t", "body": "c", "key": f"{prefix}2"},
            {"to": "cat@example.com", "subject": "u", "body": "d", "key": f"{prefix}2"},
        ]  # fmt: skip

    started = timezone.now()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        created = outbox_enqueue_many(messages=batch("new"))
    assert len(callbacks) == 1
    assert [(m.key, m.to) for m in created] == [
        ("new1", "ann@example.com"),
        ("new2", "bob@example.com"),
    ]
    plain = _outbox_insert([_outbox_row(m) for m in batch("orm")[:2]])

    def fields(m: OutboxMessage) -> dict:
        skip = ("id", "key", "created_at")
        row = {
            f.attname: getattr(m, f.attname)
            for f in m._meta.concrete_fields
            if f.attname not in skip
        }
        assert row["headers"].pop("Message-ID").endswith("@orders.localhost>")  # one each
        return row

    rows = {m.key: m for m in OutboxMessage.objects.all()}
    assert set(rows) == {"new1", "new2", "orm1", "orm2"}
    assert [fields(rows[f"new{i}"]) for i in (1, 2)] == [fields(rows[f"orm{i}"]) for i in (1, 2)]
    assert [fields(m) for m in created] == [fields(m) for m in plain]
    assert [m.pk for m in created] == [rows["new1"].pk, rows["new2"].pk]
    assert all(started <= rows[k].created_at <= timezone.now() for k in ("new1", "new2"))
    assert all(m.created_at == rows[m.key].created_at for m in created)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        again = outbox_enqueue_many(messages=[*batch("new"), *batch("more")[1:]])
    assert [m.key for m in again] == ["more2"] and len(callbacks) == 1
