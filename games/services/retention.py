"""Retention of mail: inbound messages and sent emails are kept ``MAIL_RETENTION_DAYS``.

Both tables hold what players wrote and what each seat was shown (hands, sealed orders
in the email quoted back), so they are not kept for ever. The game itself never depends
on them: orders live as sealed orders and in the hash-chained log, which are never
pruned. Only rows that are done are removed: an inbound message still waiting to be read
(``received``, or ``failed`` and not given up yet) and an email still to be sent
(``queued``, ``retrying``) stay whatever their age.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.models import OutboxMessage

BATCH = 1000
"""Rows deleted per transaction: a big backlog never holds a long lock."""


def retention_days() -> int:
    """``MAIL_RETENTION_DAYS`` (0: keep everything)."""
    return max(0, int(getattr(settings, "MAIL_RETENTION_DAYS", 90)))


OUTBOX_DONE = (OutboxMessage.Status.SENT, OutboxMessage.Status.FAILED)
"""The emails done with: sent, or failed for good. One queued or retrying is still to go
(a prompt's orders, a deadline): deleted, it is lost without a trace."""


def inbound_done() -> Q:
    """The inbound messages dealt with: processed, rejected, ignored, or failed and given
    up (the player was told) or out of attempts. Before that an order may still be read."""
    from games.mail.limits import max_attempts
    from games.mail.models import InboundMail

    done = [InboundMail.Status.PROCESSED, InboundMail.Status.REJECTED, InboundMail.Status.IGNORED]
    return Q(status__in=done) | Q(status=InboundMail.Status.FAILED) & (
        Q(outcome="gave_up") | Q(attempts__gte=max_attempts())
    )


def _delete_in_batches(queryset, order: tuple[str, ...] = ("pk",)) -> int:  # noqa: ANN001
    deleted = 0
    while True:
        with transaction.atomic():
            ids = list(queryset.order_by(*order).values_list("pk", flat=True)[:BATCH])
            if not ids:
                return deleted
            deleted += queryset.model.objects.filter(pk__in=ids).delete()[0]


def mail_prune(*, now: datetime | None = None) -> dict[str, int]:
    """Delete the inbound messages that were dealt with and the emails that were sent (or
    failed for good) more than ``MAIL_RETENTION_DAYS`` ago. Returns how many of each."""
    from games.mail.models import InboundMail

    days = retention_days()
    if not days:
        return {"inbound": 0, "outbox": 0}
    cutoff = (now or timezone.now()) - timedelta(days=days)
    inbound = InboundMail.objects.filter(created_at__lt=cutoff).filter(inbound_done())
    # One status at a time, oldest first, along the (status, created_at) index: by id, a
    # backlog of 250,000 rows took 80 s, each batch walking the table past the rows it did
    # not want (and an IN of two statuses cannot read that index in order).
    outbox = sum(
        _delete_in_batches(
            OutboxMessage.objects.filter(created_at__lt=cutoff, status=status),
            ("created_at", "pk"),
        )
        for status in OUTBOX_DONE
    )
    return {"inbound": _delete_in_batches(inbound), "outbox": outbox}


def sessions_prune() -> dict[str, int]:
    """Delete the expired log-in sessions and, with them, what the Sessions page lists of
    them (allauth's ``UserSession`` rows whose session is gone: logged out, expired, or
    closed by "Log out the other sessions").

    Django keeps an expired session's row until someone clears it (``clearsessions``),
    and allauth forgets a listed session only when its owner opens the Sessions page; a
    player who never does would keep every address and browser they ever logged in from.
    Returns how many rows of each went."""
    from importlib import import_module

    from allauth.usersessions.models import UserSession
    from django.contrib.sessions.models import Session

    engine = import_module(settings.SESSION_ENGINE)
    database_backed = issubclass(engine.SessionStore, import_module("django.contrib.sessions.backends.db").SessionStore)
    expired = 0
    if database_backed:
        expired = _delete_in_batches(Session.objects.filter(expire_date__lt=timezone.now()))
        gone = UserSession.objects.exclude(session_key__in=Session.objects.values("session_key"))
        return {"sessions": expired, "listed": _delete_in_batches(gone)}
    engine.SessionStore.clear_expired()  # a cache or file store: its own way
    listed = sum(1 for user_session in UserSession.objects.iterator() if user_session.purge())
    return {"sessions": expired, "listed": listed}
