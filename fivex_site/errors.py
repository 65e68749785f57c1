"""Error reports to the site's admins (``ADMINS``) that keep the players' secrets and
never hold up a request.

- What a report shows: Django's reports list the request's POST fields and every
  traceback frame's local variables, so a bug while an order was handled mailed its text
  (a sealed order, its ``#`` notes) to the admins in clear. In production (``DEBUG``
  off) :class:`PrivateReporterFilter` writes every POST value and every local variable as
  ``********``: the report keeps the traceback's code, the URL and the exception.
- When: Django's ``AdminEmailHandler`` sends from inside the failing request (a mail
  server that does not answer held the request for the whole mail timeout, and a
  worker's web process with it). :class:`QueuedAdminEmailHandler` queues the report in
  the outbox, which the workers send, as every other email.
- Which: a 503 (the database away: a restart, a failover) is the outage ``/healthz`` and
  the monitoring report, not a bug: :class:`NotUnavailable` keeps it out of the admins'
  mailbox (a load balancer probing ``/healthz`` every few seconds mailed hundreds an hour).
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils.log import AdminEmailHandler
from django.views.debug import SafeExceptionReporterFilter

logger = logging.getLogger(__name__)


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


class NotUnavailable(logging.Filter):
    """Drops a 503 answer's record (the database or the broker away): no mail to the
    admins."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 503


class QueuedAdminEmailHandler(AdminEmailHandler):
    """Django's admin error email, queued in the outbox instead of sent from the request
    (a failure to queue is logged, never raised into the request)."""

    def send_mail(self, subject: str, message: str, *args: Any, **kwargs: Any) -> None:
        from django.conf import settings

        from games.services.notifications import outbox_enqueue

        try:
            for admin in settings.ADMINS:
                address = admin if isinstance(admin, str) else admin[1]  # (name, address)
                outbox_enqueue(
                    to=address, subject=f"{settings.EMAIL_SUBJECT_PREFIX}{subject}",
                    body=message, kind="admin_error",
                )  # fmt: skip
        except Exception:  # noqa: BLE001 - the report must not fail the failing request
            logger.warning("could not queue the error report for the admins", exc_info=True)
