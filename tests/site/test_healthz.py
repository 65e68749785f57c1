"""/healthz reports the database and the broker, and answers fast when the broker is down."""

import socket
import time

import pytest

from fivex_site.celery import app as celery_app


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens here once the socket is closed


def _point_broker_at(monkeypatch, url: str) -> None:
    monkeypatch.setitem(celery_app.conf, "broker_url", url)
    monkeypatch.setenv("CELERY_BROKER_URL", url)  # Celery prefers the variable when set


@pytest.mark.django_db
def test_healthz_ok_with_database_and_broker(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "ok"
    assert body["broker"]["status"] == "ok"
    assert body["broker"]["url"].split(":")[0] == celery_app.conf.broker_url.split(":")[0]


@pytest.mark.django_db
def test_healthz_reports_a_stopped_broker_quickly(client, monkeypatch) -> None:
    port = _closed_port()
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{port}/0")
    started = time.monotonic()
    response = client.get("/healthz")
    elapsed = time.monotonic() - started
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"]["status"] == "ok"
    assert body["broker"]["status"] == "error"
    assert f"broker unreachable at redis://127.0.0.1:{port}/0" in body["broker"]["error"]
    assert elapsed < 5, f"health check took {elapsed:.1f}s with the broker down"


@pytest.mark.django_db
def test_healthz_masks_broker_password(client, monkeypatch) -> None:
    port = _closed_port()
    _point_broker_at(monkeypatch, f"redis://:hunter2@127.0.0.1:{port}/0")
    body = client.get("/healthz").json()
    assert "hunter2" not in str(body)
    assert body["broker"]["status"] == "error"


@pytest.mark.django_db
def test_healthz_reports_a_database_failure(client, monkeypatch) -> None:
    from django.db import OperationalError, connection

    def refuse():
        raise OperationalError("connection refused by the test")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"] == {
        "status": "error",
        "vendor": connection.vendor,
        "error": "database unreachable: connection refused by the test",
    }
    assert body["broker"]["status"] == "ok"


@pytest.mark.django_db
def test_healthz_in_production_names_no_internal_address_but_to_staff(client, monkeypatch, settings) -> None:
    from django.contrib.auth import get_user_model

    settings.IS_PRODUCTION = True
    port = _closed_port()
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{port}/0")
    public = client.get("/healthz")
    assert public.status_code == 503
    body = public.json()
    assert body["broker"] == {"status": "error"} and "127.0.0.1" not in public.content.decode()
    assert body["database"]["status"] == "ok" and "url" not in body["database"]
    staff = get_user_model().objects.create_user("ops", "ops@example.com", "pw", is_staff=True)
    client.force_login(staff)
    detailed = client.get("/healthz").json()
    assert f"broker unreachable at redis://127.0.0.1:{port}/0" in detailed["broker"]["error"]


@pytest.mark.django_db
def test_healthz_answers_a_probe_by_address_where_pages_refuse_the_host(client, settings) -> None:
    """A load balancer probes each machine by its address, not the public name."""
    settings.ALLOWED_HOSTS = ["fivex.example.org"]
    for host in ("10.1.2.3:8000", "localhost", "fivex.example.org"):
        response = client.get("/healthz", HTTP_HOST=host)
        assert response.status_code == 200, host
        assert response.json()["status"] == "ok"
    # Everything else still refuses a host it does not serve.
    assert client.get("/", HTTP_HOST="10.1.2.3:8000").status_code == 400
    assert client.get("/api/games/", HTTP_HOST="10.1.2.3:8000").status_code == 400
    assert client.get("/healthz/", HTTP_HOST="10.1.2.3:8000").status_code == 400


@pytest.mark.django_db
def test_healthz_by_address_still_gives_staff_the_details(client, settings, monkeypatch) -> None:
    from django.contrib.auth import get_user_model

    settings.ALLOWED_HOSTS = ["fivex.example.org"]
    settings.IS_PRODUCTION = True
    port = _closed_port()
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{port}/0")
    public = client.get("/healthz", HTTP_HOST="10.1.2.3")
    assert public.status_code == 503 and public.json()["broker"] == {"status": "error"}
    assert "127.0.0.1" not in public.content.decode()
    staff = get_user_model().objects.create_user("ops", "ops@example.com", "pw", is_staff=True)
    client.force_login(staff)
    detailed = client.get("/healthz", HTTP_HOST="10.1.2.3").json()
    assert f"broker unreachable at redis://127.0.0.1:{port}/0" in detailed["broker"]["error"]


MANIFEST_STORAGE = "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"


@pytest.mark.django_db
def test_healthz_fails_on_a_machine_without_collected_static_files(client, settings, tmp_path) -> None:
    """Hashed static files (production): a machine where collectstatic was not run serves
    no page (500), so it must not report healthy; once collected it does."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path / "static"
    settings.STATIC_ROOT.mkdir()
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"]["status"] == "ok" and body["broker"]["status"] == "ok"
    assert body["static"]["status"] == "error"
    assert "collectstatic" in body["static"]["error"]

    call_command("collectstatic", "--noinput", verbosity=0)
    # A new process (the restart the message asks for) loads the manifest.
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["static"]["status"] == "ok"
    assert response.json()["static"]["files"] > 10


@pytest.mark.django_db
def test_healthz_static_error_is_not_detailed_to_the_public(client, settings, tmp_path) -> None:
    settings.IS_PRODUCTION = True
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["static"] == {"status": "error"}


@pytest.mark.django_db
def test_healthz_answers_head_probes(client) -> None:
    response = client.head("/healthz", HTTP_HOST="10.1.2.3")
    assert response.status_code == 200
    assert response.content == b""
    assert client.post("/healthz").status_code == 405  # it changes nothing: no POST


@pytest.mark.django_db
def test_healthz_tells_whether_the_workers_run_the_beats_sweep(client) -> None:
    """An operations audit: with both workers and the beat stopped /healthz said ok while
    prompts, deadlines and mail stood still. It reports when a worker last ran the
    beat's deadline sweep (every minute); late after five minutes. The web machine's own
    status stays 200: a load balancer must not take the site away for it."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Heartbeat
    from games.tasks import enforce_deadlines

    assert client.get("/healthz").json()["workers"] == {"status": "unknown", "last_sweep": None}
    enforce_deadlines()  # what the beat asks a worker to run
    body = client.get("/healthz").json()
    assert body["workers"]["status"] == "ok" and body["workers"]["seconds_ago"] <= 5
    Heartbeat.objects.filter(name="sweep").update(at=timezone.now() - timedelta(minutes=6))
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    assert answer.json()["workers"]["status"] == "late"
    assert 355 <= answer.json()["workers"]["seconds_ago"] <= 370


def test_a_worker_never_gives_up_on_its_broker() -> None:
    """A resilience audit: Celery's default (100 reconnection tries, about 46 minutes of a
    Redis outage) made the worker exit with status 0, which a supervisor restarting on
    failure leaves down. None: keep trying (Celery's documented "retry forever")."""
    assert celery_app.conf.broker_connection_max_retries is None
    assert celery_app.conf.broker_connection_retry_on_startup is True


def _email(status: str, *, minutes_old: int, last_error: str = "") -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import OutboxMessage

    message = OutboxMessage.objects.create(
        to="ann@example.com", subject="s", body="b", status=status, last_error=last_error
    )
    # created_at is set on insert (auto_now_add): age it afterwards.
    OutboxMessage.objects.filter(pk=message.pk).update(
        created_at=timezone.now() - timedelta(minutes=minutes_old)
    )


@pytest.mark.postgres
@pytest.mark.django_db
def test_healthz_reports_emails_waiting_too_long_without_failing_the_machine(client, settings) -> None:
    """A resilience audit: with the mail server away for hours /healthz said ok while every
    email waited. It reports how many emails wait (queued or retrying) and the oldest's
    age, late past HEALTHZ_MAIL_LATE_MINUTES; the status code stays 200 (a slow mail
    server must not take the web machines out of a load balancer)."""
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    _email("queued", minutes_old=90)
    _email("retrying", minutes_old=10)
    _email("sent", minutes_old=600)  # sent and failed emails wait for nothing
    _email("failed", minutes_old=600)
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"
    mail = response.json()["mail"]
    assert mail["status"] == "late"
    assert mail["waiting"] == 2
    assert 90 * 60 - 5 <= mail["oldest_seconds_ago"] <= 90 * 60 + 30
    settings.HEALTHZ_MAIL_LATE_MINUTES = 120  # the threshold is the setting's
    assert client.get("/healthz").json()["mail"]["status"] == "ok"


@pytest.mark.django_db
def test_healthz_mail_is_ok_when_no_email_waits(client, settings) -> None:
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    _email("sent", minutes_old=600)
    mail = client.get("/healthz").json()["mail"]
    assert mail == {"status": "ok", "waiting": 0, "refused": 0, "oldest": None}
    _email("queued", minutes_old=1)  # one just queued is on its way, not late
    mail = client.get("/healthz").json()["mail"]
    assert mail["status"] == "ok" and mail["waiting"] == 1


@pytest.mark.django_db
def test_healthz_mail_is_not_late_for_an_email_one_address_refuses(client, settings) -> None:
    """One recipient's mailbox full (452 to RCPT TO) is retried for about two days: the
    mail server is fine, the other emails go out. /healthz said ``late`` for those two
    days. Such an email is counted (``waiting``, ``refused``), not taken for late; one
    the server itself failed, or never tried, still is."""
    settings.HEALTHZ_MAIL_LATE_MINUTES = 30
    full = "SMTPRecipientsRefused: {'ann@example.com': (452, b'4.2.2 Mailbox full')}"
    _email("retrying", minutes_old=600, last_error=full)
    _email("queued", minutes_old=5)
    mail = client.get("/healthz").json()["mail"]
    assert mail["status"] == "ok", mail
    assert mail["waiting"] == 2 and mail["refused"] == 1
    assert 5 * 60 - 5 <= mail["oldest_seconds_ago"] <= 5 * 60 + 30  # the one not refused
    _email("retrying", minutes_old=45, last_error="mail server: SMTPServerDisconnected: gone")
    mail = client.get("/healthz").json()["mail"]
    assert mail["status"] == "late" and mail["waiting"] == 3 and mail["refused"] == 1
    assert 45 * 60 - 5 <= mail["oldest_seconds_ago"] <= 45 * 60 + 30


@pytest.mark.postgres
@pytest.mark.django_db
def test_healthz_mail_check_reads_the_outbox_by_its_status_index() -> None:
    """The check runs on every probe (every few seconds), on an outbox of every email
    kept for MAIL_RETENTION_DAYS: one query finding the waiting rows through an
    index led by status, not a scan of the table. (Seq scans discouraged: on a
    tiny test table the planner prefers one.)"""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from fivex_site.health import check_mail

    with CaptureQueriesContext(connection) as queries:
        check_mail()
    assert len(queries) == 1
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {queries[0]['sql']}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    # Either index led by status serves (the planner picks by the test database's
    # statistics: a parallel run once chose the (status, next_attempt_at) one).
    assert "games_outbox_status_created" in plan or "games_outbo_status_6c5980_idx" in plan, plan
    assert "Seq Scan" not in plan, plan


@pytest.mark.django_db
def test_a_probe_answered_503_is_logged_once_as_a_warning(client, monkeypatch, caplog) -> None:
    """Regression: each probe answered 503 for the broker also logged Django's ERROR
    "Service Unavailable: /healthz" (mailed to admins where they are set), every few
    seconds while the broker was away. Now one warning naming what fails."""
    import logging

    port = _closed_port()
    _point_broker_at(monkeypatch, f"redis://:hunter2@127.0.0.1:{port}/0")
    with caplog.at_level(logging.DEBUG):
        assert client.get("/healthz").status_code == 503
    said = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1, said
    name, level, message = said[0]
    assert (name, level) == ("fivex_site.views", "WARNING")
    assert message.startswith("healthz: 503: broker: broker unreachable at redis://")
    assert f"127.0.0.1:{port}/0" in message and "hunter2" not in message


@pytest.mark.django_db
def test_a_healthy_probe_logs_nothing(client, caplog) -> None:
    import logging

    with caplog.at_level(logging.DEBUG):
        assert client.get("/healthz").status_code == 200
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
