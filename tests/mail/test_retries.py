"""System errors: the message is kept, retried with back-off, and after the last attempt
the player is told; a crash before processing is picked up by the sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

import games.services.orders
from games.mail.models import InboundMail
from games.mail.processing import process_message, process_stored, stalled_rows
from games.mail.tasks import process_inbound_mail
from games.models import OutboxMessage, SealedOrder
from tests.mail.conftest import eml

pytestmark = pytest.mark.django_db


def broken_order_submit(**kwargs):
    raise RuntimeError("simulated bug in order_submit")


def test_system_error_keeps_the_message_and_a_retry_succeeds(table, monkeypatch) -> None:
    address = table.address("ann")
    monkeypatch.setattr(games.services.orders, "order_submit", broken_order_submit)
    row = process_message(eml("plain.eml", to=address), address)
    row.refresh_from_db()
    assert (row.status, row.outcome, row.attempts) == ("failed", "system_error", 1)
    assert "simulated bug" in row.error
    assert SealedOrder.objects.count() == 0
    # nothing half-done: no answer was queued by the failed attempt
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == 0

    monkeypatch.undo()
    row = process_stored(row.pk)
    assert (row.status, row.outcome, row.attempts) == ("processed", "order_accepted", 2)
    assert SealedOrder.objects.filter(seat=table.seats["ann"], is_current=True).count() == 1
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == 1


def test_task_gives_up_after_the_last_attempt_and_tells_the_player(
    table, monkeypatch, settings
) -> None:
    settings.MAIL_MAX_ATTEMPTS = 3
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address, defer=True)
    assert row.status == "received"
    monkeypatch.setattr(games.services.orders, "order_submit", broken_order_submit)
    # apply(): the task and its retries run here, one after the other (no countdown)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "failed"
    row.refresh_from_db()
    assert (row.status, row.outcome, row.attempts) == ("failed", "gave_up", 3)
    [notice] = OutboxMessage.objects.filter(kind="mail_reply")
    assert notice.to == "ann@example.com"
    assert "could not be processed because of an internal error" in notice.body
    assert "simulated bug" not in notice.body  # internals stay in the row, not the email


def test_task_is_a_noop_for_a_finished_row(table) -> None:
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address)
    assert process_inbound_mail.apply(args=[row.pk]).get() == "processed"
    assert OutboxMessage.objects.filter(kind="mail_reply").count() == 1
    assert process_inbound_mail.apply(args=[999999]).get() == "missing"


def test_sweep_finds_rows_a_crash_left_behind(table) -> None:
    address = table.address("ann")
    fresh = process_message(eml("plain.eml", to=address), address, defer=True)
    old = process_message(eml("base64.eml", to=address), address, defer=True)
    InboundMail.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert stalled_rows() == [old.pk]
    assert fresh.pk not in stalled_rows(now=timezone.now() + timedelta(minutes=1))


class WorkerLost(BaseException):
    """What a worker killed mid-task looks like from inside: nothing catches it."""


def test_a_message_that_kills_its_workers_is_given_up_and_the_player_told(
    table, monkeypatch, settings
) -> None:
    # Each delivery dies while reading the message (out of memory, the hard time limit):
    # the attempt still counts, so after MAIL_MAX_ATTEMPTS the next delivery gives up
    # and tells the player instead of dying again forever.
    import games.mail.processing

    settings.MAIL_MAX_ATTEMPTS = 2
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address), address, defer=True)

    def dies(row):  # noqa: ANN001, ANN202
        raise WorkerLost

    monkeypatch.setattr(games.mail.processing, "_decide", dies)
    for attempt in (1, 2):
        with pytest.raises(WorkerLost):
            process_stored(row.pk)
        row.refresh_from_db()
        assert (row.status, row.attempts) == ("received", attempt)  # the try was counted
    # The third delivery (the broker's redelivery, or the sweep) does not try again.
    assert process_inbound_mail.apply(args=[row.pk]).get() == "failed"
    row.refresh_from_db()
    assert (row.status, row.outcome, row.attempts) == ("failed", "gave_up", 2)
    [notice] = OutboxMessage.objects.filter(kind="mail_reply")
    assert "could not be processed because of an internal error" in notice.body
    assert SealedOrder.objects.count() == 0
    assert row.pk not in stalled_rows(now=timezone.now() + timedelta(days=1))
