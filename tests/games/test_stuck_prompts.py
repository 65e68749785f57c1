"""``manage.py stuck_prompts``: after an incident (a worker lost, the broker away), what
is stuck — complete prompts never resolved, prompts past their deadline still open,
emails waiting long — listed, exit 1 (a cron or monitoring check), exit 0 and "nothing
stuck" otherwise; ``--resolve`` queues the prompts' resolution again through the sweeps'
own path (exactly once however often it runs)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

import engine
from games.models import Game, LogEntry, OutboxMessage, Prompt
from games.selectors import current_state
from games.services.orders import order_submit
from tests.games.core_support import eager_celery, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]
NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")


def _run(*args: str) -> tuple[int, str]:
    """The command's exit status and what it printed."""
    out = StringIO()
    try:
        call_command("stuck_prompts", *args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def _lost_resolution(minutes_ago: int) -> Game:
    """A game whose first prompt has every order in, its resolution task lost (the
    on-commit callbacks that queue it never run), ``minutes_ago``."""
    game, seats = start_fixed(NAMES, deadline_hours=24)
    state = current_state(game=game)
    for name in NAMES:
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    then = timezone.now() - timedelta(minutes=minutes_ago)
    Prompt.objects.filter(game=game, number=1).update(ready_at=then, resolve_after=then)
    return game


def _resolutions(game: Game) -> int:
    return LogEntry.objects.filter(game=game, kind="prompt_resolved").count()


def test_nothing_stuck_exits_0_with_one_line() -> None:
    start_fixed(NAMES, deadline_hours=24)  # an open prompt waiting for orders: not stuck
    status, out = _run()
    assert (status, out) == (0, "nothing stuck\n")


@pytest.mark.postgres
def test_a_complete_prompt_whose_resolution_was_lost_is_listed_and_resolved_once(
    django_capture_on_commit_callbacks,
) -> None:
    game = _lost_resolution(minutes_ago=10)
    status, out = _run()
    assert status == 1
    line = next(line for line in out.splitlines() if f"game {game.pk} " in line)
    assert "prompt 1" in line and "every order in" in line and "resolution" in line
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.OPEN  # only listed

    # --resolve twice before any worker runs: two queueings, one resolution.
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert _run("--resolve")[0] == 1
        assert _run("--resolve")[0] == 1
    assert len(queued) == 2
    for enqueue in queued:
        enqueue()
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
    assert _resolutions(game) == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert _run("--resolve") == (0, "nothing stuck\n")
    assert _resolutions(game) == 1


@pytest.mark.postgres
def test_a_prompt_past_its_deadline_is_listed_with_the_orders_owed_and_resolved(
    django_capture_on_commit_callbacks,
) -> None:
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    with django_capture_on_commit_callbacks(execute=True):
        order_submit(seat=seats["ann"], text=RULES.legal_orders(state, "ann")[0], source="web")
    # The beat stopped: the deadline passed 20 minutes ago, nobody filled the defaults.
    Prompt.objects.filter(game=game, number=1).update(
        deadline=timezone.now() - timedelta(minutes=20)
    )
    status, out = _run()
    assert status == 1
    line = next(line for line in out.splitlines() if f"game {game.pk} " in line)
    assert "prompt 1" in line and "deadline" in line
    assert "bob" in line and "cat" in line and "ann" not in line  # what is owed, by whom
    with django_capture_on_commit_callbacks(execute=True):
        assert _run("--resolve")[0] == 1
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
    assert LogEntry.objects.filter(game=game, kind="nmr_applied").count() == 2
    assert _run() == (0, "nothing stuck\n")


def test_a_prompt_just_complete_or_a_paused_game_is_not_stuck() -> None:
    game = _lost_resolution(minutes_ago=1)  # the sweep's 30 s and a little: not yet
    assert _run() == (0, "nothing stuck\n")
    Prompt.objects.filter(game=game, number=1).update(resolve_after=timezone.now() - timedelta(hours=1))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PAUSED)  # waits for its organizer
    assert _run() == (0, "nothing stuck\n")


def test_emails_waiting_long_are_listed(settings) -> None:
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    game, _seats = start_fixed(NAMES, deadline_hours=24)
    OutboxMessage.objects.all().delete()  # the game's start emails: just queued
    old = OutboxMessage.objects.create(to="ann@example.com", subject="s", body="b", game=game)
    OutboxMessage.objects.create(to="bob@example.com", subject="s", body="b", game=game)
    OutboxMessage.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(hours=2), status=OutboxMessage.Status.RETRYING, attempts=3,
        # as smtplib words a refused sender: an address in the error (a review: it was printed)
        last_error="SMTPSenderRefused: (451, b'4.7.1 Try again later', 'ann@example.com')",
    )  # fmt: skip
    status, out = _run()
    assert status == 1
    lines = [line for line in out.splitlines() if "email" in line and f"#{old.pk}" in line]
    assert len(lines) == 1 and f"game {game.pk}" in lines[0]
    assert "ann@example.com" not in out  # an address is personal: the admin has it
    assert "***@example.com" in lines[0] and "Try again later" in lines[0]


def test_an_email_one_address_refuses_is_not_stuck(settings) -> None:
    """A full mailbox (452 to RCPT TO) is retried for about two days while the mail
    server sends the rest: it was listed as stuck (exit 1) all that time. Not stuck: the
    admin's outbox shows it. An email the server itself failed still is."""
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    game, _seats = start_fixed(NAMES, deadline_hours=24)
    OutboxMessage.objects.all().delete()  # the game's start emails: just queued
    full = OutboxMessage.objects.create(to="ann@example.com", subject="s", body="b", game=game)
    OutboxMessage.objects.filter(pk=full.pk).update(
        created_at=timezone.now() - timedelta(hours=20), status=OutboxMessage.Status.RETRYING, attempts=40,
        last_error="SMTPRecipientsRefused: {'ann@example.com': (452, b'4.2.2 Mailbox full')}",
    )  # fmt: skip
    assert _run() == (0, "nothing stuck\n")
    away = OutboxMessage.objects.create(to="bob@example.com", subject="s", body="b", game=game)
    OutboxMessage.objects.filter(pk=away.pk).update(
        created_at=timezone.now() - timedelta(hours=1), status=OutboxMessage.Status.RETRYING, attempts=8,
        last_error="mail server: SMTPServerDisconnected: Connection unexpectedly closed",
    )  # fmt: skip
    status, out = _run()
    assert status == 1 and f"email #{away.pk} " in out and f"#{full.pk} " not in out
    assert "1 email waiting" in out


def _late_emails(game: Game, attempts: list[int]) -> None:
    """Emails waiting two hours, retried ``attempts[i]`` times each (no other email)."""
    OutboxMessage.objects.all().delete()
    for i, n in enumerate(attempts):
        row = OutboxMessage.objects.create(to=f"p{i}@example.com", subject="s", body="b", game=game)
        OutboxMessage.objects.filter(pk=row.pk).update(
            created_at=timezone.now() - timedelta(hours=2), status=OutboxMessage.Status.RETRYING,
            attempts=n, last_error="mail server: SMTPServerDisconnected: Connection unexpectedly closed",
        )  # fmt: skip


@pytest.mark.postgres
def test_the_counts_read_as_english_for_one(settings, django_capture_on_commit_callbacks) -> None:
    """They read "1 prompt(s)", "1 email(s)", "1 attempt(s)"."""
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    game = _lost_resolution(minutes_ago=10)
    _late_emails(game, [1])
    status, out = _run()
    assert status == 1
    assert ", 1 attempt; last error: " in out
    assert out.endswith("stuck: 1 prompt, 1 email waiting over 30 min")
    with django_capture_on_commit_callbacks(execute=False):
        status, out = _run("--resolve")
    assert status == 1 and "queued again: the resolution of 1 prompt\n" in out


@pytest.mark.postgres
def test_the_counts_read_as_english_for_two(settings, monkeypatch, django_capture_on_commit_callbacks) -> None:
    from games.management.commands import stuck_prompts

    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    monkeypatch.setattr(stuck_prompts, "EMAIL_LINES", 1)  # the list's cut, shown with two emails
    game = _lost_resolution(minutes_ago=10)
    _lost_resolution(minutes_ago=10)
    _late_emails(game, [2, 3])
    status, out = _run()
    assert status == 1
    assert ", 2 attempts; last error: " in out or ", 3 attempts; last error: " in out
    assert "... and 1 more email\n" in out
    assert out.endswith("stuck: 2 prompts, 2 emails waiting over 30 min")
    with django_capture_on_commit_callbacks(execute=False):
        status, out = _run("--resolve")
    assert status == 1 and "queued again: the resolution of 2 prompts\n" in out
