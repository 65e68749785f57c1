"""Error reports to the site's admins (``ADMINS``) that keep the players' secrets and
never hold up a request.

- What a report shows: Django's reports list the request's POST fields and every
  traceback frame's local variables, so a bug while an order was handled mailed its text
  (a sealed order, its ``#`` notes) to the admins in clear; and its settings (the broker's
  URL with its password), the query string, the cookies and the request's headers. In
  production (``DEBUG`` off) :class:`PrivateReporterFilter` writes every POST value and
  every local variable as ``********``, and :class:`PrivateExceptionReporter` keeps of
  the rest the method, the path with any token in it masked (an invitation's, a
  calendar's), the query's names, the user agent, and of the settings the apps and the
  middleware: the report keeps the traceback's code, the path and the exception. The
  exception's own message is kept as raised (code should not put secrets in one).
- When: Django's ``AdminEmailHandler`` sends from inside the failing request (a mail
  server that does not answer held the request for the whole mail timeout, and a
  worker's web process with it). :class:`QueuedAdminEmailHandler` queues the report in
  the outbox, which the workers send, as every other email.
- Which: a 503 (the database away: a restart, a failover) is the outage ``/healthz`` and
  the monitoring report, not a bug: :class:`NotUnavailable` keeps it out of the admins'
  mailbox (a load balancer probing ``/healthz`` every few seconds mailed hundreds an hour).
  A client's error that Django logs as an ERROR of ``django.security.*`` (a body over
  ``DATA_UPLOAD_MAX_MEMORY_SIZE``, too many fields or files, a Host not allowed: any
  ``SuspiciousOperation``, answered 400) is not a bug either: :class:`NotClientError`
  keeps it from the admins (anyone could queue a report a request) and
  :class:`ClientErrorsAsWarnings` logs it as a warning, without a traceback.
- How many: the same error (logger, exception type, the place it was raised) is mailed
  at most once per ``ADMIN_ERROR_REPEAT_MINUTES``, its next report saying how many were
  not mailed since; at most ``ADMIN_ERRORS_PER_HOUR`` reports are queued an hour in all
  (counted in the cache: per process without ``CACHE_URL``, unbounded while Redis is away).
  A bug hit in a loop cannot fill the outbox.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
from copy import copy
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.log import AdminEmailHandler
from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

logger = logging.getLogger(__name__)

CLEANSED = "********"
# A path segment this long is a token (an invitation's, a calendar's), not a word.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,}")
# Request headers a report keeps (cookies, authorization, forwarded addresses: not).
_SAFE_META = ("REQUEST_METHOD", "CONTENT_TYPE", "CONTENT_LENGTH", "HTTP_USER_AGENT",
              "HTTP_ACCEPT", "SERVER_PROTOCOL")  # fmt: skip


def mask_tokens(text: str) -> str:
    """``text`` with every token-like run (20 or more URL-safe characters) masked."""
    return _TOKEN.sub(CLEANSED, text)


class _RequestShown:
    """What the report's text template reads of the request: method and masked path."""

    def __init__(self, request: Any) -> None:
        self.path_info = mask_tokens(request.path_info)
        self.path = mask_tokens(request.path)
        self.method = request.method
        self.META = {"REQUEST_METHOD": request.META.get("REQUEST_METHOD", "")}
        self.user = getattr(request, "user", None)


class PrivateExceptionReporter(ExceptionReporter):
    """Django's report, with only what cannot carry a secret (while ``DEBUG`` is off)."""

    def get_traceback_data(self) -> dict[str, Any]:
        data = super().get_traceback_data()
        if settings.DEBUG:
            return data
        shown = data.get("settings") or {}
        data["settings"] = {key: shown[key] for key in ("SETTINGS_MODULE", "INSTALLED_APPS",
                                                         "MIDDLEWARE") if key in shown}  # fmt: skip
        if self.request is not None:
            data["request"] = _RequestShown(self.request)
            data["request_insecure_uri"] = mask_tokens(self.request.path)
            data["request_GET_items"] = [(key, CLEANSED) for key in self.request.GET]
            data["request_COOKIES_items"] = [(key, CLEANSED) for key in self.request.COOKIES]
            meta = self.request.META
            data["request_meta"] = {key: meta[key] for key in _SAFE_META if key in meta}
        return data


class PrivateReporterFilter(SafeExceptionReporterFilter):
    """Every POST value and every frame's local variables hidden in error reports (while
    ``DEBUG`` is off; the development server's error page shows them)."""

    def get_post_parameters(self, request: Any) -> Any:
        if request is None or not self.is_active(request):
            return super().get_post_parameters(request)
        cleansed = request.POST.copy()
        for key in cleansed:
            cleansed[key] = self.cleansed_substitute
        return cleansed

    def get_traceback_frame_variables(self, request: Any, tb_frame: Any) -> Any:
        if not self.is_active(request):
            return super().get_traceback_frame_variables(request, tb_frame)
        return [(name, self.cleansed_substitute) for name in tb_frame.f_locals]


class MaskedPathTokens(logging.Filter):
    """The tokens of the paths Django's request loggers name ("Not Found:
    /calendar/<token>.ics", the development server's request lines, "Forbidden (CSRF
    cookie not set.): /games/5/invite/<token>/") masked: an operator's log is no place for
    the keys of a player's calendar or a game's invitation. A filter of the handlers, for
    the records of those loggers only (``PATH_LOGGERS`` and their children): elsewhere a
    long run is a task id or a hash that an operator needs."""

    PATH_LOGGERS = ("django.request", "django.server", "django.security")

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(self.PATH_LOGGERS):
            return True
        if isinstance(record.args, tuple):
            record.args = tuple(
                mask_tokens(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


class NotUnavailable(logging.Filter):
    """Drops a 503 answer's record (the database or the broker away): no mail to the
    admins."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 503


# Django logs each SuspiciousOperation (answered 400) as an ERROR of this logger's children.
CLIENT_ERROR_LOGGERS = "django.security."


def _client_error(record: logging.LogRecord) -> bool:
    status = getattr(record, "status_code", None)
    return record.name.startswith(CLIENT_ERROR_LOGGERS) or (
        isinstance(status, int) and 400 <= status < 500
    )


class NotClientError(logging.Filter):
    """Drops a client's error (``django.security.*``, any 4xx answer): no mail to the
    admins for what a request's sender did wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _client_error(record)


class ClientErrorsAsWarnings(logging.Filter):
    """A ``django.security.*`` ERROR (a client's request refused with a 400) logged as the
    WARNING it is, without the traceback (Django's own code, the same each time), on the
    console handler whose filter it is; other handlers get the record unchanged."""

    def filter(self, record: logging.LogRecord) -> bool | logging.LogRecord:
        if record.name.startswith(CLIENT_ERROR_LOGGERS) and record.levelno > logging.WARNING:
            # A changed copy, for this handler only (a filter may answer a record since
            # Python 3.12): handlers after this one (a file log, an error tracker) still
            # see the record as it was logged, traceback included.
            record = copy(record)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
            return record
        return True


_PROJECT_DIR = str(Path(__file__).resolve().parent.parent) + os.sep


def _ours(filename: str) -> bool:
    """A frame of the project's own code (not an installed library's, even in a virtualenv
    inside the checkout)."""
    return filename.startswith(_PROJECT_DIR) and "site-packages" not in filename


def _signature(record: logging.LogRecord) -> str:
    """What makes two reports the same error: the logger, the exception's type and where
    it was raised: every frame of the project's own code on its way, and the innermost
    frame (a library's line is the same for every database error: two bugs raising an
    IntegrityError in different views differ by the project's frames). Without an
    exception, the logging call's place."""
    place = f"{record.pathname}:{record.lineno}:{record.msg}"
    kind = ""
    if record.exc_info and record.exc_info[0] is not None:
        kind = f"{record.exc_info[0].__module__}.{record.exc_info[0].__qualname__}"
        frames = []
        tb = record.exc_info[2]
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            if _ours(filename) or tb.tb_next is None:
                frames.append(f"{filename}:{tb.tb_lineno}")
            tb = tb.tb_next
        if frames:  # each once: an exception object raised again grows its traceback
            place = ">".join(dict.fromkeys(frames))
    return hashlib.sha256(f"{record.name}|{kind}|{place}".encode()).hexdigest()[:32]


def report_allowed(record: logging.LogRecord) -> tuple[bool, int]:
    """Whether ``record`` may be mailed now, and how many of the same error were not
    mailed since its last report (``ADMIN_ERROR_REPEAT_MINUTES``, ``ADMIN_ERRORS_PER_HOUR``)."""
    from django.core.cache import cache

    key = f"fivex:admin-error:{_signature(record)}"
    window = max(1, round(float(getattr(settings, "ADMIN_ERROR_REPEAT_MINUTES", 15)) * 60))
    if cache.add(key, 1, timeout=window):
        hour = f"fivex:admin-errors:{int(time.time() // 3600)}"
        cache.add(hour, 0, timeout=3700)
        try:
            sent = cache.incr(hour)
        except ValueError:  # expired between the two calls
            sent = 1
        if sent <= int(getattr(settings, "ADMIN_ERRORS_PER_HOUR", 20)):
            suppressed = cache.get(f"{key}:suppressed", 0)
            if suppressed:
                cache.delete(f"{key}:suppressed")
            return True, suppressed
    # Not mailed: counted for this error's next report (kept a day at most).
    if not cache.add(f"{key}:suppressed", 1, timeout=86400):
        try:
            cache.incr(f"{key}:suppressed")
        except ValueError:
            cache.add(f"{key}:suppressed", 1, timeout=86400)
    return False, 0


class QueuedAdminEmailHandler(AdminEmailHandler):
    """Django's admin error email, queued in the outbox instead of sent from the request:
    the row only, no task (the outbox's minute sweep sends it), so a broker that does not
    answer cannot hold the failing request either. A failure to queue is logged, never
    raised into the request. The subject and the log line above the report have any
    token of the path masked."""

    def emit(self, record: logging.LogRecord) -> None:
        if not settings.ADMINS:
            return
        try:
            allowed, suppressed = report_allowed(record)
        except Exception:  # noqa: BLE001 - a cache that fails: the report goes out
            logger.warning("could not count the error reports for the admins", exc_info=True)
            allowed, suppressed = True, 0
        if not allowed:
            return
        if suppressed:
            record = copy(record)  # the other handlers' record stays as logged
            record.msg = f"{record.msg} ({suppressed} more not mailed since the last report)"
        super().emit(record)

    def format_subject(self, subject: str) -> str:
        return super().format_subject(mask_tokens(subject))

    def send_mail(self, subject: str, message: str, *args: Any, **kwargs: Any) -> None:
        from games.services.outbox import outbox_enqueue

        line, sep, report = message.partition("\n\n")
        message = mask_tokens(line) + sep + report
        try:
            for admin in settings.ADMINS:
                address = admin if isinstance(admin, str) else admin[1]  # (name, address)
                outbox_enqueue(
                    to=address, subject=f"{settings.EMAIL_SUBJECT_PREFIX}{subject}",
                    body=message, kind="admin_error", queue_task=False,
                )  # fmt: skip
        except Exception:  # noqa: BLE001 - the report must not fail the failing request
            logger.warning("could not queue the error report for the admins", exc_info=True)
