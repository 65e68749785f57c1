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
