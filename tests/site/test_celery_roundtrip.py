"""A task travels through a real broker to a real worker process and its answer comes back."""

import os

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from fivex_site.tasks import ping

CONFIGURED_BROKER = settings.CELERY_BROKER_URL


def _round_trip(worker) -> None:
    get_user_model().objects.create_user(username="pinger", email="pinger@example.com")
    result = ping.delay("pinger")
    answer = result.get(timeout=30)
    assert answer["pong"] == "pinger"
    # A different process answered, on the same database: it can see the user we committed.
    assert answer["pid"] == worker.pid != os.getpid()
    assert answer["user_exists"] is True, worker.log()


@pytest.mark.worker
@pytest.mark.parametrize("celery_broker_url", ["filesystem://"])
def test_ping_round_trip_through_embedded_filesystem_broker(celery_worker_process) -> None:
    assert celery_worker_process.env["CELERY_BROKER_URL"] == "filesystem://"
    _round_trip(celery_worker_process)


@pytest.mark.worker
@pytest.mark.redis
@pytest.mark.skipif(
    not CONFIGURED_BROKER.startswith("redis"),
    reason="needs Redis: set CELERY_BROKER_URL=redis://127.0.0.1:6379/0 (as .ci/run does)",
)
def test_ping_round_trip_through_redis(celery_worker_process) -> None:
    assert celery_worker_process.env["CELERY_BROKER_URL"].startswith("redis://")
    _round_trip(celery_worker_process)


@pytest.mark.worker
def test_task_enqueued_on_commit_reaches_the_worker(celery_worker_process) -> None:
    # The documented pattern: enqueue only after the transaction that wrote the rows commits.
    results = []
    with transaction.atomic():
        get_user_model().objects.create_user(username="committed", email="c@example.com")
        transaction.on_commit(lambda: results.append(ping.delay("committed")))
        assert results == []  # nothing is sent while the transaction is open
    assert results[0].get(timeout=30)["user_exists"] is True


@pytest.mark.worker
@pytest.mark.postgres
def test_worker_keeps_its_database_connection_between_tasks(celery_worker_process) -> None:
    """CONN_MAX_AGE holds in workers as in the web server: one PostgreSQL connection for
    many tasks, not a new one per task (Celery's Django fixup would close it each time)."""
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0
    backends = {ping.delay(f"p{i}").get(timeout=30)["database_backend_pid"] for i in range(4)}
    assert len(backends) == 1 and None not in backends, celery_worker_process.log()
