"""Health checks for /healthz: can we reach the database and the Celery broker, quickly,
and does this machine have the static files its pages name?"""

import time
from typing import Any

from django.db import connection
from kombu import Connection
from kombu.utils.url import maybe_sanitize_url

from fivex_site.celery import app as celery_app

BROKER_TIMEOUT_SECONDS = 2.0
# The beat asks a worker for the deadline sweep every minute: five without one is news.
WORKERS_LATE_SECONDS = 300


def check_workers() -> dict[str, Any]:
    """When a worker last ran the beat's deadline sweep (``Heartbeat`` "sweep"): ``late``
    after WORKERS_LATE_SECONDS without one (the beat or every worker stopped; deadlines,
    emails and prompts wait), ``unknown`` before the first. Reported, not part of this
    web machine's own health: a load balancer must not take the web away for it."""
    from django.utils import timezone

    from games.models import Heartbeat

    try:
        beat = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
    except Exception as exc:  # the database check reports the database
        return {"status": "unknown", "error": f"cannot read the last sweep: {exc}"}
    if beat is None:
        return {"status": "unknown", "last_sweep": None}
    ago = (timezone.now() - beat).total_seconds()
    return {
        "status": "ok" if ago <= WORKERS_LATE_SECONDS else "late",
        "last_sweep": beat.isoformat(),
        "seconds_ago": round(ago),
    }


def check_mail() -> dict[str, Any]:
    """How many outbox emails wait to be sent (queued, or retrying after a failure), how
    many of them because their one address was refused (``refused``: a full mailbox,
    retried for two days while the rest go out), and how long the oldest of the others
    has waited: ``late`` past ``HEALTHZ_MAIL_LATE_MINUTES`` (the mail server away or
    refusing, or no worker sending). Reported, not part of this web machine's own health,
    as ``workers``. One query on the outbox's (status, created_at) index."""
    from django.conf import settings
    from django.db.models import Count, Min
    from django.utils import timezone

    from games.models import OutboxMessage

    refused = OutboxMessage.refused_on_its_own()
    try:
        found = OutboxMessage.objects.filter(status__in=OutboxMessage.UNSENT).aggregate(
            count=Count("*"), refused=Count("pk", filter=refused),
            oldest=Min("created_at", filter=~refused),
        )  # fmt: skip
    except Exception as exc:  # the database check reports the database
        return {"status": "unknown", "error": f"cannot read the outbox: {exc}"}
    if found["oldest"] is None:
        return {"status": "ok", "waiting": found["count"], "refused": found["refused"], "oldest": None}
    ago = (timezone.now() - found["oldest"]).total_seconds()
    late = ago > settings.HEALTHZ_MAIL_LATE_MINUTES * 60
    return {
        "status": "late" if late else "ok",
        "waiting": found["count"],
        "refused": found["refused"],
        "oldest": found["oldest"].isoformat(),
        "oldest_seconds_ago": round(ago),
    }


def check_database() -> dict[str, Any]:
    """Run ``SELECT 1`` on the default database and report how it went."""
    started = time.monotonic()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is an unhealthy database, reported, not raised
        return {
            "status": "error",
            "vendor": connection.vendor,
            "error": f"database unreachable: {exc}",
        }
    return {
        "status": "ok",
        "vendor": connection.vendor,
        "latency_ms": round((time.monotonic() - started) * 1000, 1),
    }


def check_broker(*, timeout: float = BROKER_TIMEOUT_SECONDS) -> dict[str, Any]:
    """Open one connection to the Celery broker, giving up after ``timeout`` seconds."""
    conf = celery_app.conf
    options = dict(conf.broker_transport_options or {})
    # Redis honours these; other transports ignore them.
    options.update(socket_connect_timeout=timeout, socket_timeout=timeout, max_retries=0)
    started = time.monotonic()
    broker = Connection(conf.broker_url, connect_timeout=timeout, transport_options=options)
    safe_url = maybe_sanitize_url(conf.broker_url)  # a password becomes **
    try:
        broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:  # a broker that is down must be reported, not crash the check
        return {
            "status": "error",
            "transport": broker.transport_cls,
            "url": safe_url,
            "error": f"broker unreachable at {safe_url}: {exc}",
        }
    finally:
        broker.release()
    return {
        "status": "ok",
        "transport": broker.transport_cls,
        "url": safe_url,
        "latency_ms": round((time.monotonic() - started) * 1000, 1),
    }


def check_static() -> dict[str, Any]:
    """With hashed static files (production), the manifest ``collectstatic`` writes must
    have been loaded by this process: without it every page fails (HTTP 500) while the API
    still answers, so a machine where ``collectstatic`` was not run must not look healthy."""
    from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage

    if not isinstance(staticfiles_storage, ManifestFilesMixin):
        return {"status": "ok"}
    if staticfiles_storage.hashed_files:
        return {"status": "ok", "files": len(staticfiles_storage.hashed_files)}
    return {
        "status": "error",
        "error": "no static files manifest on this machine: run "
        "`manage.py collectstatic --noinput` here, then restart the web server",
    }
