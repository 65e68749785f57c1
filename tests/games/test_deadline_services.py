"""Deadlines: policy, default orders at the deadline, reminders once, resignation."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

import engine
from games.errors import NotPending
from games.models import LogEntry, OutboxMessage, Prompt, Reminder, SealedOrder, Seat
from games.selectors import current_state
from games.services.deadlines import (
    READY_SWEEP_SECONDS,
    deadline_for,
    enforce_deadlines,
    push_out_of_quiet_hours,
    send_reminders,
)
from games.services.games import seat_resign
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def test_quiet_hours_push_the_deadline_to_the_end_of_the_window() -> None:
    def at(h: int, m: int = 0, day: int = 10) -> datetime:
        return datetime(2026, 1, day, h, m, tzinfo=UTC)

    # Window 22:00-07:00 wraps past midnight.
    assert push_out_of_quiet_hours(moment=at(23, 30), start=22, end=7) == at(7, 0, day=11)
    assert push_out_of_quiet_hours(moment=at(3), start=22, end=7) == at(7)
    assert push_out_of_quiet_hours(moment=at(7), start=22, end=7) == at(7)
    assert push_out_of_quiet_hours(moment=at(21, 59), start=22, end=7) == at(21, 59)
    # Window 12:00-14:00 inside one day.
    assert push_out_of_quiet_hours(moment=at(13, 15), start=12, end=14) == at(14)
    assert push_out_of_quiet_hours(moment=at(11), start=12, end=14) == at(11)
    assert push_out_of_quiet_hours(moment=at(13), start=None, end=None) == at(13)


def test_prompt_deadline_follows_game_policy() -> None:
    game, _seats = start_fixed(NAMES, deadline_hours=24, quiet_hours_start=0, quiet_hours_end=6)
    prompt = Prompt.objects.get(game=game, number=1)
    assert (
        prompt.deadline == deadline_for(game=game, start=prompt.opened_at)
        or abs((prompt.deadline - deadline_for(game=game, start=prompt.opened_at)).total_seconds())
        < 1
    )
    expected = prompt.opened_at + timedelta(hours=24)
    if expected.hour < 6:
        expected = expected.replace(hour=6, minute=0, second=0, microsecond=0)
    assert abs((prompt.deadline - expected).total_seconds()) < 1


def test_deadline_fills_missing_orders_with_defaults_after_grace(
    django_capture_on_commit_callbacks, caplog,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1, grace_minutes=10)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[-1], source="web")
    prompt = Prompt.objects.get(game=game, number=1)
    # Before the deadline, and during the grace period: nothing happens.
    assert enforce_deadlines(now=prompt.deadline - timedelta(minutes=1)) == 0
    assert enforce_deadlines(now=prompt.deadline + timedelta(minutes=9)) == 0
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.OPEN
    with django_capture_on_commit_callbacks(execute=True), caplog.at_level("INFO"):
        assert enforce_deadlines(now=prompt.deadline + timedelta(minutes=11)) == 1
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.RESOLVED
    # The operator's log says the deadline closed it, and for whom it ordered (an
    # operations audit: only "prompt 1 resolved"); no order's text.
    assert f"game {game.pk}: prompt 1 resolved at its deadline, default orders for bob, cat" in caplog.text
    assert RULES.default_order(state, "bob") not in caplog.text
    nmr = list(LogEntry.objects.filter(game=game, kind="nmr_applied").order_by("seq"))
    assert [(e.payload["seat"], e.payload["reason"]) for e in nmr] == [
        ("bob", "deadline"), ("cat", "deadline"),
    ]  # fmt: skip
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed").payload["orders"]
    # The defaults are the engine's default orders, sealed like any other.
    assert revealed["bob"]["text"] == RULES.default_order(state, "bob")
    assert revealed["bob"]["source"] == "default"
    assert revealed["ann"]["source"] == "web"
    assert revealed["cat"]["commitment"] == nmr[1].payload["commitment"]
    assert (
        hashlib.sha256(f"{revealed['cat']['salt']}:{revealed['cat']['text']}".encode()).hexdigest()
        == (nmr[1].payload["commitment"])
    )
    # Running the sweep again does nothing more.
    assert enforce_deadlines(now=prompt.deadline + timedelta(hours=1)) == 0
    assert LogEntry.objects.filter(game=game, kind="prompt_resolved").count() == 1


def test_reminder_sent_once_to_seats_without_order(django_capture_on_commit_callbacks) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[0], source="web")
    prompt = Prompt.objects.get(game=game, number=1)
    assert send_reminders(now=prompt.deadline - timedelta(hours=7)) == 0
    assert send_reminders(now=prompt.deadline - timedelta(hours=5)) == 2
    assert send_reminders(now=prompt.deadline - timedelta(hours=4)) == 0
    reminders = OutboxMessage.objects.filter(kind="reminder")
    assert sorted(m.seat.name for m in reminders) == ["bob", "cat"]
    assert Reminder.objects.count() == 2
    body = reminders.get(seat__name="bob").body
    assert "decision 1" in body and RULES.legal_orders(state, "bob")[0] in body
    # It names the order the deadline would play (an email-only player learnt it after).
    default = RULES.default_order(state, "bob")
    assert f"the default order is played for you: {default}." in body
    assert (
        reminders.get(seat__name="bob").reply_to
        == f"orders+{seats['bob'].mail_token}@orders.localhost"
    )


def test_resigned_seat_gets_default_orders_and_never_blocks(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        seat_resign(seat=seats["cat"])
    assert Seat.objects.get(pk=seats["cat"].pk).status == Seat.Status.RESIGNED
    order = SealedOrder.objects.get(seat_name="cat", is_current=True)
    assert order.source == "default" and order.text == RULES.default_order(state, "cat")
    with pytest.raises(NotPending, match="resigned"):
        order_submit(seat=seats["cat"], text="PASS X", source="web")
    with pytest.raises(NotPending):
        seat_resign(seat=seats["cat"])
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("ann", "bob"):
            order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    # Prompt 1 resolved; prompt 2 already has cat's default order.
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
    p2 = Prompt.objects.get(game=game, number=2)
    assert SealedOrder.objects.filter(prompt=p2, seat_name="cat", source="default").exists()
    kinds = list(LogEntry.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds.count("seat_resigned") == 1
    assert kinds.count("nmr_applied") == 2
    game.refresh_from_db()
    assert timezone.now() < p2.deadline


def test_resigning_after_ordering_keeps_the_sealed_order(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES)
    state = current_state(game=game)
    chosen = RULES.legal_orders(state, "cat")[-1]
    assert chosen != RULES.default_order(state, "cat")  # otherwise the test proves nothing
    order_submit(seat=seats["cat"], text=chosen, source="web")
    with django_capture_on_commit_callbacks(execute=True):
        seat_resign(seat=seats["cat"])
    order = SealedOrder.objects.get(seat_name="cat", is_current=True)
    assert (order.text, order.source) == (chosen, "web")
    kinds = list(LogEntry.objects.filter(game=game).values_list("kind", flat=True))
    assert "nmr_applied" not in kinds and kinds.count("seat_resigned") == 1


def test_sweep_reenqueues_a_complete_prompt_whose_task_was_lost(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=24)
    state = current_state(game=game)
    # Orders submitted without running on-commit callbacks: the resolution task is lost.
    for name in NAMES:
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    prompt = Prompt.objects.get(game=game, number=1)
    assert prompt.status == Prompt.Status.OPEN and prompt.ready_at is not None
    with django_capture_on_commit_callbacks(execute=True):
        enforce_deadlines(now=timezone.now() + timedelta(seconds=5))  # too early
    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.OPEN
    with django_capture_on_commit_callbacks(execute=True):
        enforce_deadlines(now=timezone.now() + timedelta(seconds=READY_SWEEP_SECONDS + 1))
    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.RESOLVED
    assert not LogEntry.objects.filter(game=game, kind="nmr_applied").exists()


def test_orders_close_at_the_deadline_plus_grace_not_at_the_next_sweep(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1, grace_minutes=10)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[-1], source="web")
    prompt = Prompt.objects.get(game=game, number=1)
    # Inside the grace period an order is still taken.
    Prompt.objects.filter(pk=prompt.pk).update(
        deadline=timezone.now() - timedelta(minutes=9, seconds=50)
    )
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["bob"], text=RULES.legal_orders(state, "bob")[-1], source="web")
    # Once deadline + grace is over, cat's order is refused and nothing is stored ...
    # (A deadline in the past at a known moment: the message names when orders closed, as
    # the game page and the emails write moments.)
    Prompt.objects.filter(pk=prompt.pk).update(deadline=datetime(2026, 11, 20, 9, 0, tzinfo=UTC))
    closes = "Fri 20 Nov 2026, 09:10"
    entries = LogEntry.objects.filter(game=game).count()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(NotPending) as refused:
            order_submit(
                seat=seats["cat"], text=RULES.legal_orders(state, "cat")[-1], source="email"
            )
    assert refused.value.code == "deadline_passed"
    assert str(refused.value) == (
        f"Orders for prompt 1 closed at {closes} UTC (its deadline plus the grace period); "
        "nothing was stored. The missing orders are being filled with default orders (unless"
        " the organizer extends the deadline first: you would be told)."
    )
    assert not SealedOrder.objects.filter(prompt=prompt, seat_name="cat", source="email").exists()
    # ... and the sweep runs at once (eager here): cat's order is the default one.
    assert callbacks[0].task.name.endswith("enforce_deadlines")
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.RESOLVED
    revealed = LogEntry.objects.get(game=game, kind="orders_revealed").payload["orders"]
    assert {name: revealed[name]["source"] for name in NAMES} == {
        "ann": "web", "bob": "web", "cat": "default",
    }  # fmt: skip
    assert LogEntry.objects.filter(game=game).count() > entries


def test_a_retried_order_after_the_deadline_answers_its_receipt(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    text = RULES.legal_orders(state, "ann")[-1]
    first = order_submit(seat=seats["ann"], text=text, source="api")
    Prompt.objects.filter(game=game, number=1).update(
        deadline=timezone.now() - timedelta(seconds=5)
    )
    # The same order again (a client's retry): its receipt, not a refusal.
    assert order_submit(seat=seats["ann"], text=text, source="api").pk == first.pk
    # A different one: too late.
    other = next(t for t in RULES.legal_orders(state, "ann") if t != text)
    with pytest.raises(NotPending, match="closed at .* UTC; nothing was stored"):
        order_submit(seat=seats["ann"], text=other, source="api")
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).pk == (
        first.pk
    )


def test_quiet_hours_are_read_on_the_clock_of_their_time_zone() -> None:
    from datetime import UTC, datetime

    paris = "Europe/Paris"
    # Winter (UTC+1): 22:00-07:00 Paris is 21:00-06:00 UTC.
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 1, 10, 21, 30, tzinfo=UTC), start=22, end=7, zone=paris
    ) == datetime(2027, 1, 11, 6, 0, tzinfo=UTC)
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 1, 10, 20, 59, tzinfo=UTC), start=22, end=7, zone=paris
    ) == datetime(2027, 1, 10, 20, 59, tzinfo=UTC)
    # Summer (UTC+2): the same window is 20:00-05:00 UTC.
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 7, 10, 20, 30, tzinfo=UTC), start=22, end=7, zone=paris
    ) == datetime(2027, 7, 11, 5, 0, tzinfo=UTC)
    # Across the spring change (28 March 2027, 02:00 -> 03:00): a deadline at 23:30 local
    # on the 27th (22:30 UTC) waits until 07:00 local on the 28th, which is 05:00 UTC.
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 3, 27, 22, 30, tzinfo=UTC), start=22, end=7, zone=paris
    ) == datetime(2027, 3, 28, 5, 0, tzinfo=UTC)
    # A window ending in the skipped hour (02:00 on the 28th does not exist in Paris).
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 3, 28, 0, 30, tzinfo=UTC), start=1, end=2, zone=paris
    ) == datetime(2027, 3, 28, 1, 0, tzinfo=UTC)
    # UTC stays the default.
    assert push_out_of_quiet_hours(
        moment=datetime(2027, 1, 10, 23, 30, tzinfo=UTC), start=22, end=7
    ) == datetime(2027, 1, 11, 7, 0, tzinfo=UTC)


def test_quiet_hours_across_clock_changes_end_at_the_first_open_moment() -> None:
    from datetime import UTC, datetime

    # London, 29 March 2026: 01:00 GMT jumps to 02:00 BST. A window from 02:00 to 01:00
    # leaves only 01:00-02:00 open, an hour that does not exist that day: the next open
    # moment is 01:00 BST on the 30th (00:00 UTC), not 02:00 BST on the 29th (in the window).
    assert push_out_of_quiet_hours(
        moment=datetime(2026, 3, 28, 12, 0, tzinfo=UTC), start=2, end=1, zone="Europe/London"
    ) == datetime(2026, 3, 30, 0, 0, tzinfo=UTC)
    # Chatham, 5 April 2026: 03:45 (+13:45) goes back to 02:45 (+12:45) at 14:00 UTC on the
    # 4th. A window from 03:00 to 01:00: at 03:10 local the clocks soon go back into the
    # open hours, so the deadline is the change itself, not 01:00 the next day.
    assert push_out_of_quiet_hours(
        moment=datetime(2026, 4, 4, 13, 25, tzinfo=UTC), start=3, end=1, zone="Pacific/Chatham"
    ) == datetime(2026, 4, 4, 14, 0, tzinfo=UTC)
    # New York, 1 November 2026 (02:00 EDT -> 01:00 EST at 06:00 UTC): a window from 01:00
    # to 02:00 on the clock lasts two hours of real time that night.
    assert push_out_of_quiet_hours(
        moment=datetime(2026, 11, 1, 5, 30, tzinfo=UTC), start=1, end=2, zone="America/New_York"
    ) == datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


def test_the_reminder_sweep_reads_every_prompt_at_once(django_capture_on_commit_callbacks) -> None:
    """A data-at-scale audit: with 229 games in their reminder window, a sweep with nothing
    left to send cost 1,638 queries (two reads a prompt, and an insert tried again for every
    seat already reminded), every five minutes. Now: three reads, whatever the games."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.models import Game

    games = []
    for i in range(3):
        names = [f"{n}{i}" for n in NAMES]
        game, _seats = start_fixed(names, deadline_hours=24, reminder_hours=6)
        games.append(game)
    Prompt.objects.filter(game__in=games).update(deadline=timezone.now() + timedelta(hours=2))
    assert send_reminders() == 9
    with CaptureQueriesContext(connection) as again:
        assert send_reminders() == 0
    assert len(again.captured_queries) == 3, [q["sql"][:80] for q in again.captured_queries]
    assert not any("INSERT" in q["sql"] for q in again.captured_queries)
    # A paused game, or one with reminders off, is not reminded.
    Game.objects.filter(pk=games[0].pk).update(status=Game.Status.PAUSED)
    Game.objects.filter(pk=games[1].pk).update(reminder_hours=0)
    Reminder.objects.all().delete()
    assert send_reminders() == 3


def test_the_reminder_sweep_reads_only_prompts_whose_reminder_may_be_due(
    django_capture_on_commit_callbacks,
) -> None:
    """A data-at-scale audit: the sweep read every open prompt of every active game, every
    column of it and of its game, every five minutes, and chose in Python (league games with
    deadlines of days: most prompts). The database now leaves out prompts whose reminder is
    more than a day away, and the choice reads only the columns it needs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    soon, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    league, _seats = start_fixed([f"{n}2" for n in NAMES], deadline_hours=240, reminder_hours=6)
    now = timezone.now()
    Prompt.objects.filter(game=soon).update(deadline=now + timedelta(hours=2))
    Prompt.objects.filter(game=league).update(deadline=now + timedelta(days=5))
    # Fifty more open prompts whose deadlines are two days away or more.
    Prompt.objects.bulk_create(
        Prompt(game=league, number=100 + i, phase="x", pending=["ann2"],
               deadline=now + timedelta(days=2, hours=i))
        for i in range(50)
    )  # fmt: skip
    with CaptureQueriesContext(connection) as sweep:
        assert send_reminders(now=now) == 3
    chosen = sweep.captured_queries[0]["sql"]
    with connection.cursor() as cursor:  # what that statement returned
        cursor.execute(chosen)
        rows = cursor.fetchall()
    assert len(rows) == 1, chosen
    assert '"events"' not in chosen and '"setup"' not in chosen, chosen
    assert sorted(Reminder.objects.values_list("seat_name", flat=True)) == NAMES


def test_an_extension_after_the_sweep_read_the_prompt_keeps_it_open(
    django_capture_on_commit_callbacks,
) -> None:
    """The sweep reads due prompts, then resolves them one by one: an organizer's
    extension committed in between must win (players were just told the new deadline);
    the deadline is checked again under the game's lock."""
    from games.services.organizer import deadline_extend
    from games.services.resolution import prompt_resolve

    game, seats = start_fixed(NAMES, deadline_hours=1)
    prompt = Prompt.objects.get(game=game, number=1)
    swept_at = prompt.deadline + timedelta(minutes=1)  # what the sweep saw: due
    with django_capture_on_commit_callbacks(execute=True):
        deadline_extend(game=game, by=game.organizer, hours=24, reason="holiday")
    assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True, now=swept_at) is False
    prompt.refresh_from_db()
    assert prompt.status == Prompt.Status.OPEN
    assert not LogEntry.objects.filter(game=game, kind="nmr_applied").exists()
    assert not SealedOrder.objects.filter(prompt=prompt).exists()
    # Once the new deadline has passed, the sweep fills the orders as usual.
    with django_capture_on_commit_callbacks(execute=True):
        assert enforce_deadlines(now=prompt.deadline + timedelta(seconds=1)) == 1
    assert LogEntry.objects.filter(game=game, kind="nmr_applied").count() == 3


def test_a_sweep_out_of_time_hands_the_due_prompts_to_the_workers(
    django_capture_on_commit_callbacks, caplog,
) -> None:
    """A minute with more deadlines than the beat's sweep resolves in its budget: the
    rest become one resolution task each (run here eagerly), each resolving its prompt
    once; a prompt extended before its task runs stays open."""
    from games.services.organizer import deadline_extend
    from games.tasks import resolve_overdue_prompt

    games = [start_fixed(NAMES, deadline_hours=1)[0] for _ in range(3)]
    due = max(Prompt.objects.get(game=g, number=1).deadline for g in games) + timedelta(minutes=1)
    with django_capture_on_commit_callbacks(execute=True), caplog.at_level("INFO"):
        assert enforce_deadlines(now=due, inline_seconds=0) == 0  # none resolved in the sweep
    assert "deadline sweep: 3 due prompts handed to the workers" in caplog.text
    for g in games:
        assert Prompt.objects.get(game=g, number=1).status == Prompt.Status.RESOLVED
        assert LogEntry.objects.filter(game=g, kind="nmr_applied").count() == 3
        assert LogEntry.objects.filter(game=g, kind="prompt_resolved").count() == 1
    # A task handed out twice (a duplicate, or run late) changes nothing more.
    assert resolve_overdue_prompt(games[0].pk, 1, due.isoformat()) is False
    assert LogEntry.objects.filter(game=games[0], kind="prompt_resolved").count() == 1
    # Prompt 2 of the first game, extended after the sweep handed it out: kept open.
    second = Prompt.objects.get(game=games[0], number=2)
    handed_at = second.deadline + timedelta(minutes=1)
    with django_capture_on_commit_callbacks(execute=True):
        deadline_extend(game=games[0], by=games[0].organizer, hours=2)
    assert resolve_overdue_prompt(games[0].pk, 2, handed_at.isoformat()) is False
    assert Prompt.objects.get(pk=second.pk).status == Prompt.Status.OPEN


def test_a_prompt_handed_to_the_workers_is_not_queued_again_by_the_next_sweeps() -> None:
    """From a review: every sweep (one a minute, and one per late order) queued every
    prompt still due again while the workers were behind."""
    from unittest import mock

    from games.services.deadlines import HANDED_OUT_FOR

    games = [start_fixed(NAMES, deadline_hours=1)[0] for _ in range(3)]
    due = max(Prompt.objects.get(game=g, number=1).deadline for g in games) + timedelta(minutes=1)
    with mock.patch("games.tasks.resolve_overdue_prompt.delay") as delay:  # the workers are behind
        assert enforce_deadlines(now=due, inline_seconds=0) == 0
        assert delay.call_count == 3
        assert enforce_deadlines(now=due + timedelta(minutes=1), inline_seconds=0) == 0
        assert enforce_deadlines(now=due + timedelta(minutes=2)) == 0  # nor raced inline
        assert delay.call_count == 3
        # A task lost on the way (a broker restart): handed out again once its time is up.
        assert enforce_deadlines(now=due + HANDED_OUT_FOR + timedelta(seconds=1), inline_seconds=0) == 0
        assert delay.call_count == 6
    assert {p.status for p in Prompt.objects.filter(game__in=games, number=1)} == {Prompt.Status.OPEN}


def test_a_default_order_costs_its_two_writes_and_nothing_more() -> None:
    """Performance audit: each missing seat's default order re-read the seat's current
    order and the log's tail (17 statements a prompt in a sweep of 500). They are known
    under the lock: a missing seat has no order, and each entry follows the one before.
    The chain stays whole (verify_game's replay)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from engine.audit import verify_export
    from games.selectors_log import game_export_unchecked
    from games.services.resolution import prompt_resolve

    counts = []
    games = []
    for ordered in (2, 0):
        names = [f"d{ordered}a", f"d{ordered}b", f"d{ordered}c"]
        game, seats = start_fixed(names)
        prompt = Prompt.objects.get(game=game, number=1)
        rules = engine.get("5x")
        state = current_state(game=game)
        for name in names[:ordered]:
            order_submit(seat=seats[name], text=rules.default_order(state, name), source="web")
        later = prompt.deadline + timedelta(hours=1)
        with CaptureQueriesContext(connection) as queries:
            assert prompt_resolve(game_id=game.pk, prompt_number=1, fill_missing=True, now=later)
        counts.append(len(queries))
        games.append(game)
    per_seat = (counts[1] - counts[0]) / 2
    writes = 1 if connection.vendor == "postgresql" else 2  # the order and its entry
    assert per_seat == writes, counts
    for game in games:
        export = game_export_unchecked(game=game)
        assert verify_export(export, final_state=current_state(game=game), running=True) == []


def test_a_deadline_of_24_hours_across_a_clock_change_is_24_real_hours() -> None:
    """The deadline is counted in real hours, not on the clock: across the night the clocks
    change, a 24-hour deadline ends an hour earlier or later on the clock than it opened."""
    from games.models import Game

    game = Game(deadline_hours=24, quiet_hours_start=None, quiet_hours_end=None)
    # Paris, 25 Oct 2026 (03:00 CEST -> 02:00 CET at 01:00 UTC): opened Sat 12:00 CEST
    # (10:00 UTC), due Sun 10:00 UTC, which is 11:00 CET.
    paris = datetime(2026, 10, 24, 10, 0, tzinfo=UTC)
    assert deadline_for(game=game, start=paris) == datetime(2026, 10, 25, 10, 0, tzinfo=UTC)
    # New York, 8 Mar 2026 (02:00 EST -> 03:00 EDT at 07:00 UTC): opened Sat 12:00 EST
    # (17:00 UTC), due Sun 17:00 UTC, which is 13:00 EDT.
    new_york = datetime(2026, 3, 7, 17, 0, tzinfo=UTC)
    assert deadline_for(game=game, start=new_york) == datetime(2026, 3, 8, 17, 0, tzinfo=UTC)
    # Quiet hours 22:00-07:00 Paris: the same Saturday, opened 23:30 CEST (21:30 UTC), due
    # 24 real hours later, Sun 21:30 UTC = 22:30 CET, in the window: Mon 07:00 CET (06:00 UTC).
    game.quiet_hours_start, game.quiet_hours_end = 22, 7
    game.quiet_hours_time_zone = "Europe/Paris"
    late = datetime(2026, 10, 24, 21, 30, tzinfo=UTC)
    assert deadline_for(game=game, start=late) == datetime(2026, 10, 26, 6, 0, tzinfo=UTC)


ZONES_AROUND_CLOCK_CHANGES = (
    "Europe/Paris", "America/New_York", "Pacific/Auckland", "Australia/Lord_Howe",
    "America/Santiago", "Asia/Kolkata", "Asia/Kathmandu",
)  # fmt: skip


def _clock_changes(zone, year: int) -> list[datetime]:
    """The UTC moments (on quarter hours) at which ``zone``'s offset changes in ``year``;
    the middle of the year for a zone without any."""
    moment, end = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    found, offset = [], moment.astimezone(zone).utcoffset()
    while moment < end:
        moment += timedelta(hours=1)
        if moment.astimezone(zone).utcoffset() != offset:
            back = moment - timedelta(hours=1)  # the quarter hour within that hour
            while back.astimezone(zone).utcoffset() == offset:
                back += timedelta(minutes=15)
            found.append(back)
            offset = moment.astimezone(zone).utcoffset()
    return found or [datetime(year, 7, 1, tzinfo=UTC)]


@pytest.mark.parametrize("zone_name", ZONES_AROUND_CLOCK_CHANGES)
def test_the_pushed_deadline_is_the_first_open_moment_around_every_clock_change(zone_name) -> None:
    """Every 7 minutes over 36 hours around each clock change of 2026 and 2027, for
    windows that wrap past midnight and windows that do not (some holding the changed
    hour, one leaving open only the hour the spring change skips): the pushed deadline is never earlier than the deadline, never in the quiet
    hours, and no open moment lies between them. Read on the zone's clock directly (every
    window end and clock change of these zones falls on a UTC quarter hour)."""
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(zone_name)

    def quiet(moment: datetime, start: int, end: int) -> bool:
        local = moment.astimezone(zone)
        clock = (local.hour, local.minute)
        if start < end:
            return (start, 0) <= clock < (end, 0)
        return clock >= (start, 0) or clock < (end, 0)

    for change in _clock_changes(zone, 2026) + _clock_changes(zone, 2027):
        for start, end in ((22, 7), (1, 4), (2, 3), (23, 2), (1, 2), (3, 2)):
            moment = change - timedelta(hours=18)
            while moment < change + timedelta(hours=18):
                pushed = push_out_of_quiet_hours(moment=moment, start=start, end=end, zone=zone_name)
                where = f"{zone_name} {start}-{end} {moment:%Y-%m-%d %H:%M}Z -> {pushed}"
                if not quiet(moment, start, end):
                    assert pushed == moment, where
                else:
                    assert pushed > moment and not quiet(pushed, start, end), where
                    # Every quarter hour before it (and after the deadline) is quiet.
                    step = moment.replace(minute=moment.minute - moment.minute % 15) + _QUARTER
                    while step < pushed:
                        assert quiet(step, start, end), f"{where}: open at {step}"
                        step += _QUARTER
                    assert pushed.minute % 15 == 0 and pushed.second == 0, where
                moment += timedelta(minutes=7)


_QUARTER = timedelta(minutes=15)
