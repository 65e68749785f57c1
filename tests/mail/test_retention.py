"""Mail retention: done inbound messages and sent emails go after MAIL_RETENTION_DAYS;
anything still to do stays, and so does everything the game itself is made of."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games.mail.models import InboundMail
from games.models import LogEntry, OutboxMessage, SealedOrder
from games.services import retention
from games.tasks import prune_mail
from tests.games.core_support import make_game

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def _inbound(status: str, age: timedelta, n: int, outcome: str = "") -> InboundMail:
    row = InboundMail.objects.create(
        raw=b"Subject: x\r\n\r\nPLAY EXPAND\r\n", message_id=f"<m{n}@example.com>",
        recipient_digest=f"d{n}", status=status, outcome=outcome,
    )
    InboundMail.objects.filter(pk=row.pk).update(created_at=timezone.now() - age)
    return row


def _outbox(status: str, age: timedelta, n: int) -> OutboxMessage:
    row = OutboxMessage.objects.create(
        to=f"p{n}@example.com", subject="s", body="your hand: ...", status=status, key=f"k{n}"
    )
    OutboxMessage.objects.filter(pk=row.pk).update(created_at=timezone.now() - age)
    return row


def test_old_done_rows_go_and_the_rest_stays(settings):
    settings.MAIL_RETENTION_DAYS = 30
    S, M = InboundMail.Status, OutboxMessage.Status
    old, recent = 31 * DAY, 29 * DAY
    gone = [
        _inbound(S.PROCESSED, old, 1), _inbound(S.REJECTED, old, 2),
        _inbound(S.IGNORED, old, 3), _inbound(S.FAILED, old, 4, outcome="gave_up"),
    ]
    kept = [
        _inbound(S.RECEIVED, old, 5), _inbound(S.PROCESSED, recent, 6),
        _inbound(S.FAILED, old, 7),  # not given up: the retry sweep may still read it
    ]
    sent_gone = [_outbox(M.SENT, old, 1), _outbox(M.FAILED, old, 2)]
    sent_kept = [
        _outbox(M.QUEUED, old, 3), _outbox(M.RETRYING, old, 4), _outbox(M.SENT, recent, 5)
    ]

    assert retention.mail_prune() == {"inbound": 4, "outbox": 2}

    assert set(InboundMail.objects.values_list("pk", flat=True)) == {r.pk for r in kept}
    assert set(OutboxMessage.objects.values_list("pk", flat=True)) == {r.pk for r in sent_kept}
    assert not InboundMail.objects.filter(pk__in=[r.pk for r in gone]).exists()
    assert not OutboxMessage.objects.filter(pk__in=[r.pk for r in sent_gone]).exists()
    # A second sweep finds nothing more.
    assert retention.mail_prune() == {"inbound": 0, "outbox": 0}


def test_zero_keeps_everything(settings):
    settings.MAIL_RETENTION_DAYS = 0
    _inbound(InboundMail.Status.PROCESSED, 4000 * DAY, 1)
    _outbox(OutboxMessage.Status.SENT, 4000 * DAY, 1)
    assert retention.mail_prune() == {"inbound": 0, "outbox": 0}
    assert InboundMail.objects.count() == 1 and OutboxMessage.objects.count() == 1


def test_batches_cover_a_backlog(settings, monkeypatch):
    settings.MAIL_RETENTION_DAYS = 10
    monkeypatch.setattr(retention, "BATCH", 3)
    for n in range(8):
        _outbox(OutboxMessage.Status.SENT, 11 * DAY, n)
    _outbox(OutboxMessage.Status.SENT, 9 * DAY, 99)
    assert prune_mail() == {"inbound": 0, "outbox": 8}
    assert list(OutboxMessage.objects.values_list("key", flat=True)) == ["k99"]


def test_the_game_survives_its_mail(settings):
    """A game's orders and log are not mail: pruning its emails leaves them whole."""
    settings.MAIL_RETENTION_DAYS = 1
    game, seats = make_game(["ann", "bob", "cat"])
    assert OutboxMessage.objects.filter(game=game).exists()  # the start emails
    OutboxMessage.objects.update(
        status=OutboxMessage.Status.SENT, created_at=timezone.now() - 2 * DAY
    )
    entries = list(LogEntry.objects.filter(game=game).values_list("hash", flat=True))
    orders = SealedOrder.objects.filter(prompt__game=game).count()

    pruned = prune_mail()

    assert pruned["outbox"] > 0 and not OutboxMessage.objects.exists()
    assert list(LogEntry.objects.filter(game=game).values_list("hash", flat=True)) == entries
    assert SealedOrder.objects.filter(prompt__game=game).count() == orders


def test_beat_runs_it_daily_by_default():
    entry = settings.CELERY_BEAT_SCHEDULE["mail-prune"]
    assert entry["task"] == "games.tasks.prune_mail"
    assert entry["schedule"] == 24 * 3600
    assert settings.MAIL_RETENTION_DAYS == 90


def test_failed_mail_out_of_attempts_goes_too(settings):
    settings.MAIL_RETENTION_DAYS = 30
    settings.MAIL_MAX_ATTEMPTS = 5
    spent = _inbound(InboundMail.Status.FAILED, 31 * DAY, 1)
    InboundMail.objects.filter(pk=spent.pk).update(attempts=5)
    retrying = _inbound(InboundMail.Status.FAILED, 31 * DAY, 2)
    InboundMail.objects.filter(pk=retrying.pk).update(attempts=2)
    assert retention.mail_prune() == {"inbound": 1, "outbox": 0}
    assert list(InboundMail.objects.values_list("pk", flat=True)) == [retrying.pk]


def test_the_log_line_counts_in_english(settings, caplog):
    """It read "pruned 1 inbound message(s), 2 sent email(s)"."""
    settings.MAIL_RETENTION_DAYS = 30
    _inbound(InboundMail.Status.PROCESSED, 31 * DAY, 1)
    _outbox(OutboxMessage.Status.SENT, 31 * DAY, 1)
    _outbox(OutboxMessage.Status.SENT, 31 * DAY, 2)
    with caplog.at_level("INFO", logger="games.tasks"):
        prune_mail()
    assert [r.getMessage() for r in caplog.records if r.name == "games.tasks"] == [
        "pruned 1 inbound message, 2 sent emails"
    ]
    _inbound(InboundMail.Status.PROCESSED, 31 * DAY, 2)
    _inbound(InboundMail.Status.IGNORED, 31 * DAY, 3)
    _outbox(OutboxMessage.Status.SENT, 31 * DAY, 3)
    caplog.clear()
    with caplog.at_level("INFO", logger="games.tasks"):
        prune_mail()
    assert [r.getMessage() for r in caplog.records if r.name == "games.tasks"] == [
        "pruned 2 inbound messages, 1 sent email"
    ]
