"""The email gateway's limits, each read from its setting (``MAIL_...``) when asked: the
size and the MIME parts of a message read, the messages a seat's address takes in an
hour, the processing attempts and the time one processing may take.
"""

from __future__ import annotations

from django.conf import settings


def max_bytes() -> int:
    """The largest message read (setting ``MAIL_MAX_BYTES``, default 1 MB); bigger ones
    are answered politely without being parsed."""
    return int(getattr(settings, "MAIL_MAX_BYTES", 1024 * 1024))


def max_parts() -> int:
    """The most MIME parts a message read may have (setting ``MAIL_MAX_PARTS``, default
    200; a reply with a few attachments has under 20): one of 1 MB in 200,000 empty parts
    held a mail worker 26 s (a security review), and the mail queue carries every
    outgoing email too. Counted before parsing, as boundary lines: an upper bound."""
    return int(getattr(settings, "MAIL_MAX_PARTS", 200))


def too_many_parts(raw: bytes, *, multipart: bool = True) -> bool:
    """Whether ``raw``, a ``multipart`` message, may hold more than ``max_parts`` MIME
    parts: its lines that start with "--" (each boundary line is one, at any depth; a
    signature's "-- " or a quoted rule counts too). A message that is not multipart has
    one part, whatever its lines."""
    if not multipart:
        return False
    limit = max_parts()
    return raw.startswith(b"--") + raw.count(b"\n--") > limit + 1  # + the closing boundary


def intake_per_hour() -> int:
    """The most messages a seat's address takes in an hour (setting
    ``MAIL_INTAKE_PER_HOUR``, default 60): more are stored as their header section,
    ``ignored`` (``rate_limited``), never read nor answered (a security review: one
    player could keep the mail workers busy, every outgoing email waiting behind)."""
    return int(getattr(settings, "MAIL_INTAKE_PER_HOUR", 60))


def max_attempts() -> int:
    """Processing attempts before giving up on a message (``MAIL_MAX_ATTEMPTS``)."""
    return int(getattr(settings, "MAIL_MAX_ATTEMPTS", 5))


def time_budget() -> float:
    """Seconds one processing may take (``MAIL_TASK_SOFT_TIME_LIMIT``, the inbound task's
    soft time limit)."""
    return float(getattr(settings, "MAIL_TASK_SOFT_TIME_LIMIT", 120))
