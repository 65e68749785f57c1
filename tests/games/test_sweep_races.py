"""The beat's sweeps racing an organizer's tool or a resolution on another connection.

Each test lets another connection commit at the moment the reminder sweep has read what
is due and is about to write (its first transaction): the outcome must be the one of
running the two one after the other, in either order.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from django.db import transaction

from games.models import OutboxMessage, Prompt
from games.services import deadlines
from games.services.deadlines import send_reminders
from tests.concurrency import elsewhere, in_background, until_a_connection_waits_for_a_lock
from tests.games.core_support import start_fixed

NAMES = ["ann", "bob", "cat"]

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _before_first_write(monkeypatch, work) -> None:
    """``work`` commits (on another connection) just before the reminder sweep opens its
    first transaction: after its reads, before its writes."""
    real_atomic = transaction.atomic
    done: list[bool] = []

    class _Transaction:
        @staticmethod
        def atomic(*args, **kwargs):
            if not done:
                done.append(True)
                elsewhere(work)
            return real_atomic(*args, **kwargs)

    monkeypatch.setattr(deadlines, "transaction", _Transaction)


def test_a_deadline_extended_while_the_reminder_sweep_runs_is_reminded_before_the_new_one(
    monkeypatch,
) -> None:
    """Extended just after the sweep found the reminder due (on the old deadline): the
    players must still be reminded before the new deadline, as when the extension comes
    just before the sweep (not due yet) or just after it (``reminders_reset``). The
    sweep stored its reminder over the reset and none came before the new deadline."""
    from games.services.organizer import deadline_extend

    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    prompt = Prompt.objects.get(game=game, number=1)
    old_deadline = prompt.deadline

    def extend() -> None:
        deadline_extend(game=game, by=game.organizer, hours=48)

    _before_first_write(monkeypatch, extend)
    send_reminders(now=old_deadline - timedelta(hours=5))
    monkeypatch.undo()

    prompt.refresh_from_db()
    assert prompt.deadline == old_deadline + timedelta(hours=48)
    # Six hours before the new deadline, every seat (none has ordered) is reminded.
    send_reminders(now=prompt.deadline - timedelta(hours=5))
    before_new = OutboxMessage.objects.filter(
        kind="reminder", key__endswith=f":{prompt.deadline:%Y%m%d%H%M%S}"
    )
    assert sorted(m.seat.name for m in before_new) == NAMES


def test_no_reminder_for_a_prompt_resolved_while_the_reminder_sweep_runs(monkeypatch) -> None:
    """The deadline resolved the prompt just after the sweep found its reminder due: no
    email may ask for an order to a prompt that is closed (a reply would be refused)."""
    from games.services.resolution import prompt_resolve

    game, _seats = start_fixed(NAMES, deadline_hours=24, reminder_hours=6)
    prompt = Prompt.objects.get(game=game, number=1)

    def resolve() -> None:
        assert prompt_resolve(
            game_id=game.pk, prompt_number=1, fill_missing=True,
            now=prompt.deadline + timedelta(minutes=1),
        )  # fmt: skip

    _before_first_write(monkeypatch, resolve)
    send_reminders(now=prompt.deadline - timedelta(hours=5))
    monkeypatch.undo()

    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.RESOLVED
    reminded = OutboxMessage.objects.filter(kind="reminder", subject__contains="(prompt 1)")
    assert list(reminded.values_list("seat__name", flat=True)) == []


def test_a_prompt_handed_out_then_paused_and_resumed_is_resolved_at_the_next_sweep(
    monkeypatch,
) -> None:
    """The sweep hands a due prompt to the workers; the organizer pauses the game before
    a worker takes it (the task finds it paused and does nothing) and resumes it with
    its deadline and grace passed: the next sweep must resolve it, not leave it to the
    task that already gave up (five minutes during which every order was refused as
    late, "being filled with default orders")."""
    from django.utils import timezone

    from games.services.organizer import game_pause, game_resume
    from games.tasks import resolve_overdue_prompt

    game, _seats = start_fixed(NAMES, deadline_hours=24, grace_minutes=10)
    prompt = Prompt.objects.get(game=game, number=1)
    now = timezone.now()
    Prompt.objects.filter(pk=prompt.pk).update(deadline=now - timedelta(minutes=11))
    queued: list[tuple] = []
    monkeypatch.setattr(resolve_overdue_prompt, "delay", lambda *args: queued.append(args))
    assert deadlines.enforce_deadlines(now=now, inline_seconds=0) == 0
    assert queued == [(game.pk, 1, now.isoformat())]  # handed to a worker, not run yet

    game_pause(game=game, by=game.organizer)
    assert resolve_overdue_prompt(*queued[0]) is False  # paused: the worker does nothing
    game_resume(game=game, by=game.organizer)  # its deadline and grace had passed

    later = timezone.now() + timedelta(minutes=1)
    assert deadlines.enforce_deadlines(now=later) == 1
    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.RESOLVED


def test_a_prompt_handed_out_then_extended_is_resolved_at_its_new_deadline(monkeypatch) -> None:
    """Handed to a worker, then extended a little before the worker ran (it found the
    prompt not due): once the new deadline passes, the next sweep resolves it."""
    from django.utils import timezone

    from games.services.organizer import deadline_extend
    from games.tasks import resolve_overdue_prompt

    game, _seats = start_fixed(NAMES, deadline_hours=24)
    prompt = Prompt.objects.get(game=game, number=1)
    now = timezone.now()
    Prompt.objects.filter(pk=prompt.pk).update(deadline=now - timedelta(seconds=30))
    queued: list[tuple] = []
    monkeypatch.setattr(resolve_overdue_prompt, "delay", lambda *args: queued.append(args))
    deadlines.enforce_deadlines(now=now, inline_seconds=0)
    assert len(queued) == 1

    deadline_extend(game=game, by=game.organizer, hours=0.05)  # three minutes
    assert resolve_overdue_prompt(*queued[0]) is False  # not due any more

    new_deadline = Prompt.objects.get(pk=prompt.pk).deadline
    assert deadlines.enforce_deadlines(now=new_deadline + timedelta(seconds=30)) == 1
    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.RESOLVED


def test_reply_addresses_rotated_while_an_email_is_being_queued_are_the_new_ones(
    monkeypatch,
) -> None:
    """A password change rotates the player's reply addresses (the old ones stop
    working) while the organizer's reminder to that seat is being written, its seat read
    already: the email must not go out with the dead address, as it does not when either
    comes first (the rotation rewrites the emails still waiting)."""
    from games.models import Seat
    from games.services import organizer
    from games.services.organizer import game_remind
    from games.services.seats import mail_tokens_rotate_for_user, seat_reply_address

    game, seats = start_fixed(NAMES, deadline_hours=24)
    ann = seats["ann"].user
    real_log_append = organizer.log_append
    rotation = contextlib.ExitStack()

    def log_append_then_wait(**kwargs):
        # The reminder's seats were read: the password change happens now, on its own
        # connection; with the game's lock it waits for this one, else it is done first.
        job = rotation.enter_context(in_background(lambda: mail_tokens_rotate_for_user(user=ann)))
        until_a_connection_waits_for_a_lock(timeout=10, or_until=lambda: job.done)
        return real_log_append(**kwargs)

    monkeypatch.setattr(organizer, "log_append", log_append_then_wait)
    with rotation:  # the rotation waited for at its end (its exception raised here)
        game_remind(game=game, by=game.organizer)

    seat = Seat.objects.get(pk=seats["ann"].pk)
    new_address = seat_reply_address(seat=seat)
    assert seat_reply_address(seat=seats["ann"]) != new_address  # rotated
    waiting = OutboxMessage.objects.filter(seat=seat, status__in=OutboxMessage.UNSENT)
    assert waiting.filter(kind="reminder").exists()
    assert {m.reply_to for m in waiting} == {new_address}


def test_a_deadline_extended_while_the_sweep_hands_the_prompt_out_is_enforced_in_time(
    monkeypatch,
) -> None:
    """The sweep read a due prompt, then (its inline time spent) hands it to the
    workers; the organizer extended the deadline a little in between, and the worker
    finds the prompt not due. Once the new deadline passes, the next sweep resolves it:
    the hand-out of the old deadline must not keep the sweep off the new one."""
    from django.utils import timezone

    from games.services.organizer import deadline_extend
    from games.tasks import resolve_overdue_prompt

    game, _seats = start_fixed(NAMES, deadline_hours=24)
    prompt = Prompt.objects.get(game=game, number=1)
    now = timezone.now()
    Prompt.objects.filter(pk=prompt.pk).update(deadline=now - timedelta(seconds=30))
    queued: list[tuple] = []
    monkeypatch.setattr(resolve_overdue_prompt, "delay", lambda *args: queued.append(args))
    real_hand_out = deadlines._hand_out

    def extended_first(*args, **kwargs):
        elsewhere(lambda: deadline_extend(game=game, by=game.organizer, hours=0.05))
        return real_hand_out(*args, **kwargs)

    monkeypatch.setattr(deadlines, "_hand_out", extended_first)
    deadlines.enforce_deadlines(now=now, inline_seconds=0)
    monkeypatch.setattr(deadlines, "_hand_out", real_hand_out)
    assert len(queued) == 1
    assert resolve_overdue_prompt(*queued[0]) is False  # not due any more

    new_deadline = Prompt.objects.get(pk=prompt.pk).deadline
    assert new_deadline > now
    assert deadlines.enforce_deadlines(now=new_deadline + timedelta(seconds=30)) == 1
    assert Prompt.objects.get(pk=prompt.pk).status == Prompt.Status.RESOLVED
