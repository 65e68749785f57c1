"""Sending the outbox's queued mail, with retries.

Sending is a state change on the row: queued -> sent, or retrying (temporary SMTP
failure, with back-off, at most ``MAX_ATTEMPTS`` attempts) -> failed (permanent
failure, or out of attempts). ``outbox_send`` sends one message, ``outbox_send_many``
a batch over one connection; ``outbox_due`` is what the minute sweep (re)tries,
``outbox_wake_retries`` makes the messages that waited for the mail server due once it
is back, ``outbox_requeue_failed`` is the admin's "send again". Queueing is in
``games.services.outbox``.
"""

from __future__ import annotations

import logging
import smtplib
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.utils import timezone

from games.models import OutboxMessage
from games.services.outbox import _OUTBOX_TABLE
from games.shutdown import sigterm_deferred
from games.sql import db_datetime, instance

# The name it logged under before sending had a module of its own.
logger = logging.getLogger("games.services.outbox")


# A temporary failure (the mail server away or busy) is tried again for about two days:
# 30 s, 1, 2, 4, 8, 16 minutes, then every 30 minutes (it gave up after five attempts,
# 7.5 minutes: a short mail outage lost every email of its games). Once any email goes
# out again, the others waiting are tried at the next sweep (``outbox_wake_retries``).
MAX_ATTEMPTS = 100
BACKOFF_SECONDS = 30
MAX_BACKOFF_SECONDS = 30 * 60
# How ``last_error`` begins when the mail server itself failed (away, silent, refusing our
# login), not one message.
SERVER_SIDE = "mail server: "


def classify_smtp_error(exc: BaseException) -> str:
    """``"temporary"`` (retry later) or ``"permanent"`` (give up) for a sending error."""
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return "temporary"  # the server refuses our login: fixed by an operator, then sent
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _msg in exc.recipients.values()]
        return "temporary" if codes and all(400 <= c < 500 for c in codes) else "permanent"
    if isinstance(exc, smtplib.SMTPConnectError):
        return "temporary"
    if isinstance(exc, smtplib.SMTPResponseException):
        return "temporary" if 400 <= exc.smtp_code < 500 else "permanent"
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return "temporary"
    if isinstance(exc, smtplib.SMTPException):
        return "permanent"
    if isinstance(exc, OSError):
        return "temporary"
    return "permanent"


def _unreachable(exc: BaseException) -> bool:
    """Whether a sending error is the mail server's, not one message's: it cannot be
    reached or does not answer (no connection, a timeout, a dropped connection), or it
    refuses FiveX's login (a password changed): every message would fail alike."""
    if isinstance(exc, smtplib.SMTPConnectError | smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return True
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        # 421 to RCPT TO: the server is closing the connection (smtplib closes it too),
        # not refusing this address as a full mailbox (452) does.
        return any(code == 421 for code, _msg in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return False
    return isinstance(exc, OSError)


class SharedMailer:
    """One connection of the default mailer for several messages: opened on the first
    message sent, reopened after a failure, closed by ``close()``."""

    def __init__(self) -> None:
        self.backend: Any = None
        # The server could not be reached or stopped answering (not a reply refusing one
        # message): the caller stops trying the rest for now.
        self.unreachable = False

    def send(self, email: EmailMultiAlternatives) -> None:
        from django.core.mail import mailers

        try:
            if self.backend is None:
                backend = mailers["default"]
                backend.open()
                self.backend = backend
            self.backend.send_messages([email])
        except Exception as exc:
            self.unreachable = self.unreachable or _unreachable(exc)
            self.close()  # a fresh connection for the next message
            raise

    def close(self) -> None:
        backend, self.backend = self.backend, None
        if backend is not None:
            try:
                backend.close()
            except Exception:  # noqa: BLE001 - closing a broken connection
                logger.debug("closing the mail connection failed", exc_info=True)


# Everything FiveX mails is sent by a machine: out-of-office responders and
# autoresponders are asked not to answer it (RFC 3834; Exchange's own header).
AUTOMATIC_HEADERS = {"Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All"}


ACCOUNT_KIND = "account"
# An account email (sign-up confirmation, password reset) holds a one-time link: once it
# is sent the outbox keeps that it was sent, not the link (a database dump, the admin's
# outbox and MAIL_RETENTION_DAYS of rows would otherwise hold working reset links).
ACCOUNT_TEXT_DROPPED = (
    "(An account email: its text, which held a one-time link, is not kept once it is sent.)"
)


def _with_stable_message_id(message: OutboxMessage) -> dict[str, str]:
    """The message's headers, with a Message-ID when they name none. Queueing chooses one
    (``games.services.outbox``); a row without (queued before that, from the admin, a
    script) got a new one from Django at each attempt, so a copy the server had taken
    before answering an error was a second message to its reader. This one is the same
    at every attempt: made of the row's id and when it was queued (not the id alone: a
    database started afresh reuses ids)."""
    headers = dict(message.headers or {})
    if any(name.lower() == "message-id" for name in headers) or message.pk is None or message.created_at is None:
        return headers  # (a message not stored is sent once: Django's own Message-ID)
    from games.mail.addresses import orders_domain

    queued = message.created_at.strftime("%Y%m%d%H%M%S%f")
    headers["Message-ID"] = f"<outbox.{message.pk}.{queued}@{orders_domain()}>"
    return headers


def _deliver(message: OutboxMessage, mailer: SharedMailer | None = None) -> None:
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=message.body,
        # The admins' error reports come from SERVER_EMAIL, as Django sends them.
        from_email=getattr(settings, "SERVER_EMAIL" if message.kind == "admin_error"
                           else "DEFAULT_FROM_EMAIL", None),  # fmt: skip
        to=[message.to],
        reply_to=[message.reply_to] if message.reply_to else None,
        headers={**AUTOMATIC_HEADERS, **_with_stable_message_id(message)},
    )
    if message.html:
        email.attach_alternative(message.html, "text/html")
    if mailer is None:
        email.send(using="default")
    else:
        mailer.send(email)


def outbox_send(
    *, message_id: int, now: datetime | None = None, mailer: SharedMailer | None = None
) -> tuple[str, float]:
    """Try to send one queued message. Returns ``(status, retry_in_seconds)``: the row's
    new status (``"sent"``, ``"retrying"``, ``"failed"``), or ``"skipped"`` when it is
    already final, not due yet or missing. ``mailer``: a connection shared with other
    messages (``outbox_send_many``); by default one of its own."""
    now = now or timezone.now()
    delivered: list[str] = []  # the message's kind, once the mail server took it
    # A SIGTERM to this pool process (the whole worker's group stopped) waits until the
    # email is recorded: dying between the server's answer and the commit sent it twice.
    with sigterm_deferred():
        try:
            return _outbox_send_locked(message_id, now, mailer, delivered)
        except DatabaseError:
            if not delivered or connection.in_atomic_block:  # a caller's transaction: its own
                raise
            return _sent_after_a_lost_commit(message_id, now, delivered[0])


def _outbox_send_locked(
    message_id: int, now: datetime, mailer: SharedMailer | None, delivered: list[str]
) -> tuple[str, float]:
    with transaction.atomic():
        message = OutboxMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None or message.status in (
            OutboxMessage.Status.SENT,
            OutboxMessage.Status.FAILED,
        ):
            return "skipped", 0
        if message.next_attempt_at is not None and message.next_attempt_at > now:
            return "skipped", (message.next_attempt_at - now).total_seconds()
        message.attempts += 1
        try:
            _deliver(message, mailer)
        except Exception as exc:  # classified below; never lost
            message.status, delay, message.last_error, next_at = _failure(
                message.pk, message.attempts, exc, now
            )
            if next_at is not None:
                message.next_attempt_at = next_at
            message.save()
            return message.status, delay
        delivered.append(message.kind)
        message.status = OutboxMessage.Status.SENT
        message.sent_at = now
        message.next_attempt_at = None
        if message.kind == ACCOUNT_KIND:
            message.body, message.html = ACCOUNT_TEXT_DROPPED, ""
        message.save()
        return message.status, 0


def _failure(
    message_id: int, attempts: int, exc: BaseException, now: datetime
) -> tuple[str, float, str, datetime | None]:
    """What a failed attempt (the ``attempts``-th) makes of a message: ``(status, retry in
    seconds, last error, next attempt time or None to keep the old one)`` - retrying
    with exponential backoff after a temporary error, failed after a permanent one or
    the last attempt."""
    last_error = f"{type(exc).__name__}: {exc}"
    if _unreachable(exc):  # what outbox_wake_retries wakes once the server is back
        last_error = SERVER_SIDE + last_error
    last_error = last_error[:2000]
    if classify_smtp_error(exc) == "temporary" and attempts < MAX_ATTEMPTS:
        delay = min(BACKOFF_SECONDS * 2 ** min(attempts - 1, 20), MAX_BACKOFF_SECONDS)
        return OutboxMessage.Status.RETRYING, delay, last_error, now + timedelta(seconds=delay)
    # An error: an operator should look (the admin's outbox can send it again).
    logger.error("outbox message %s failed for good: %s", message_id, last_error)
    return OutboxMessage.Status.FAILED, 0, last_error, None


def outbox_requeue_failed(*, ids: list[int]) -> int:
    """Failed messages among ``ids`` queued again from scratch (an operator's choice, in
    the admin): the outbox sweep sends them. Returns how many."""
    return OutboxMessage.objects.filter(pk__in=ids, status=OutboxMessage.Status.FAILED).update(
        status=OutboxMessage.Status.RETRYING, attempts=0, next_attempt_at=timezone.now(), sent_at=None
    )


def outbox_wake_retries(*, now: datetime | None = None) -> int:
    """An email just went out: the mail server is back. Messages waiting for a later
    attempt because the server was away (not those refused on their own, a full mailbox
    say: they keep their back-off) become due now, so the next sweep sends them within a
    minute instead of after their back-off (up to 30 minutes: newer emails of a game
    overtook older ones). Returns how many were woken."""
    now = now or timezone.now()
    return OutboxMessage.objects.filter(
        status=OutboxMessage.Status.RETRYING,
        next_attempt_at__gt=now,
        last_error__startswith=SERVER_SIDE,
    ).update(next_attempt_at=now)


def outbox_send_many(
    *, message_ids: list[int], now: datetime | None = None
) -> list[tuple[str, float]]:
    """``outbox_send`` for each message, in order, over one connection of the mailer
    (one SMTP session for the emails of a resolution instead of one each); every
    message still commits its own status as soon as it is sent.

    The messages' states are read first, in one statement, without locks. A message
    that is due then takes one statement of its own (``_send_claimed``) instead of
    ``outbox_send``'s two; any other (final, not due, missing, or changed since that
    read) goes through ``outbox_send`` itself."""
    mailer = SharedMailer()
    try:
        states = _outbox_states(message_ids)
        results: list[tuple[str, float]] = []
        for message_id in message_ids:
            if mailer.unreachable:
                # The server is away or not answering: the rest stay as they are, for the
                # sweep, rather than each waiting for its own timeout (a server that never
                # answers held a worker 30 s a message, 25 minutes a batch).
                results.append(("skipped", 0))
                continue
            at = now or timezone.now()
            result = None
            state = states.get(message_id)
            if state is not None and _CLAIMS and _claimable(state, at):
                result = _send_claimed(message_id, state, at, mailer)
            if result is None:
                result = outbox_send(message_id=message_id, now=at, mailer=mailer)
            results.append(result)
        if mailer.unreachable:
            # Said once a batch (the sweep's, every minute or so, while it lasts): each
            # message's own retry is no log line, and an outage was silent until the
            # first email failed for good two days later (a resilience audit).
            waiting = sum(1 for status, _ in results if status in ("retrying", "skipped"))
            logger.warning(
                "the mail server cannot be reached (%s); %s of %s emails of this batch wait"
                " for the next attempt", _mail_server(), waiting, len(results),
            )  # fmt: skip
        return results
    finally:
        mailer.close()


def _mail_server() -> str:
    options = (getattr(settings, "MAILERS", {}) or {}).get("default", {}).get("OPTIONS", {})
    host = options.get("host") or getattr(settings, "EMAIL_HOST", "")
    port = options.get("port") or getattr(settings, "EMAIL_PORT", "")
    return f"{host}:{port}"


def _outbox_states(message_ids: list[int]) -> dict[int, tuple[Any, ...]]:
    """``(status, attempts, next_attempt_at, sent_at)`` of each message, by id."""
    if not message_ids:
        return {}
    sql = (
        f"SELECT id, status, attempts, next_attempt_at, sent_at FROM {_OUTBOX_TABLE}"
        f" WHERE id IN ({', '.join(['%s'] * len(message_ids))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, list(message_ids))
        rows = cursor.fetchall()
    return {
        pk: (status, attempts, db_datetime(next_at), db_datetime(sent_at))
        for pk, status, attempts, next_at, sent_at in rows
    }


def _claimable(state: tuple[Any, ...], now: datetime) -> bool:
    status, _attempts, next_attempt_at, sent_at = state
    return (
        status in OutboxMessage.UNSENT
        and sent_at is None
        and (next_attempt_at is None or next_attempt_at <= now)
    )


def _send_claimed(
    message_id: int, state: tuple[Any, ...], now: datetime, mailer: SharedMailer
) -> tuple[str, float] | None:
    """``outbox_send`` of a due message whose state was read (``_outbox_states``) as
    ``state``, in one statement when it is sent: one UPDATE, made only if the row still
    has that state, both locks the row (as ``outbox_send``'s SELECT ... FOR UPDATE does;
    a concurrent sender waits, then finds it sent) and writes it as sent, in the
    transaction that stays open while the email goes out and commits right after (a
    crash before that rolls it back, as ``outbox_send``'s would be). Should sending
    fail, a second UPDATE writes the failure instead: the same row as ``outbox_send``
    writes, whose other fields the claim left as they were. None (nothing done) when
    the row's state has changed since it was read: ``outbox_send`` decides."""
    delivered: list[str] = []
    with sigterm_deferred():  # as in outbox_send
        try:
            return _send_claimed_locked(message_id, state, now, mailer, delivered)
        except DatabaseError:
            if not delivered or connection.in_atomic_block:  # a caller's transaction: its own
                raise
            return _sent_after_a_lost_commit(message_id, now, delivered[0])


def _send_claimed_locked(
    message_id: int, state: tuple[Any, ...], now: datetime, mailer: SharedMailer, delivered: list[str]
) -> tuple[str, float] | None:
    status, attempts, next_attempt_at, _sent_at = state
    attempts += 1
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                _CLAIM_SQL[next_attempt_at is None],
                [
                    OutboxMessage.Status.SENT.value,
                    attempts,
                    _prep(_SENT_AT, now),
                    message_id,
                    status,
                    attempts - 1,
                    *([] if next_attempt_at is None else [_prep(_NEXT_AT, next_attempt_at)]),
                ],
            )
            row = cursor.fetchone()
        if row is None:
            return None
        message = instance(OutboxMessage, _CLAIM_RETURNS, (message_id, *row))
        try:
            _deliver(message, mailer)
        except Exception as exc:  # classified below; never lost
            status, delay, last_error, next_at = _failure(message_id, attempts, exc, now)
            if next_at is not None:
                next_attempt_at = next_at
            with connection.cursor() as cursor:
                cursor.execute(
                    _FAILED_SQL,
                    [status.value, last_error, _prep(_NEXT_AT, next_attempt_at), message_id],
                )
            return status, delay
        delivered.append(message.kind)
        if message.kind == ACCOUNT_KIND:
            OutboxMessage.objects.filter(pk=message_id).update(body=ACCOUNT_TEXT_DROPPED, html="")
        return OutboxMessage.Status.SENT, 0


#: Tries, and the pause before each, at writing "sent" again on a new connection.
LOST_COMMIT_PAUSES = (0.0, 0.5, 2.0)


def _sent_after_a_lost_commit(message_id: int, now: datetime, kind: str) -> tuple[str, float]:
    """The mail server took the message, then the transaction that had it "sent" did
    not commit (the database connection was lost: a restart, a fail-over, a killed
    backend). Rolled back, the row was "queued" again and the sweep sent the email a
    second time (a resilience audit: 7 emails twice). It is written "sent" again on a
    new connection, tried three times; should the database stay away, the error goes
    up and the email may go out again later (at least once, never lost)."""
    fields: dict[str, Any] = {
        "status": OutboxMessage.Status.SENT, "sent_at": now, "next_attempt_at": None,
        "attempts": F("attempts") + 1,
    }  # fmt: skip
    if kind == ACCOUNT_KIND:
        fields.update(body=ACCOUNT_TEXT_DROPPED, html="")
    for attempt, pause in enumerate(LOST_COMMIT_PAUSES, start=1):
        time.sleep(pause)
        connection.close()  # the broken one; the next statement opens another
        try:
            OutboxMessage.objects.filter(pk=message_id, sent_at__isnull=True).update(**fields)
        except DatabaseError:
            if attempt == len(LOST_COMMIT_PAUSES):
                raise
            continue
        logger.warning(
            "outbox message %s: sent, then the database connection was lost before it was"
            " recorded; recorded on a new connection", message_id,
        )  # fmt: skip
        return OutboxMessage.Status.SENT, 0
    raise AssertionError("unreachable")


def _prep(field: Any, value: Any) -> Any:
    return field.get_db_prep_save(value, connection)


# The claim needs UPDATE ... RETURNING (PostgreSQL, SQLite); elsewhere outbox_send.
_CLAIMS = connection.features.can_return_rows_from_update
_SENT_AT, _NEXT_AT = (OutboxMessage._meta.get_field(n) for n in ("sent_at", "next_attempt_at"))
# The claim's RETURNING, after the id: what ``_deliver`` reads, and the kind.
_CLAIM_RETURNS = ("id", "to", "subject", "body", "html", "reply_to", "headers", "kind")
_CLAIM_SQL = {
    unscheduled: (
        f"UPDATE {_OUTBOX_TABLE} SET status = %s, attempts = %s, sent_at = %s,"
        " next_attempt_at = NULL"
        " WHERE id = %s AND status = %s AND attempts = %s AND sent_at IS NULL"
        f" AND next_attempt_at {'IS NULL' if unscheduled else '= %s'}"
        f" RETURNING {', '.join(connection.ops.quote_name(n) for n in _CLAIM_RETURNS[1:])}"
    )
    for unscheduled in (True, False)
}
_FAILED_SQL = (
    f"UPDATE {_OUTBOX_TABLE} SET status = %s, last_error = %s, next_attempt_at = %s,"
    " sent_at = NULL WHERE id = %s"
)


# The beat's sweep hands at most this many messages to the workers a minute: behind a
# mail outage it re-queued every waiting message (52,000 tasks) each minute.
OUTBOX_SWEEP_MAX = 500


def outbox_due(*, now: datetime | None = None, limit: int = OUTBOX_SWEEP_MAX) -> list[int]:
    """Ids of messages to (re)try now, at most ``limit``: retrying ones whose time has
    come (longest due first), then queued ones older than a minute (their task was lost;
    oldest first)."""
    now = now or timezone.now()
    retrying = OutboxMessage.objects.filter(
        status=OutboxMessage.Status.RETRYING, next_attempt_at__lte=now
    ).order_by("next_attempt_at", "id")
    due = list(retrying.values_list("pk", flat=True)[:limit])
    if len(due) < limit:
        stale = OutboxMessage.objects.filter(
            status=OutboxMessage.Status.QUEUED, created_at__lte=now - timedelta(minutes=1)
        ).order_by("id")
        due += list(stale.values_list("pk", flat=True)[: limit - len(due)])
    return due
