"""Celery beat during a broker outage (a resilience audit): every scheduled task it could
not send was an ERROR with two tracebacks (the exception's and the stack's), 26 in a
minute of a Redis outage, drowning the log. Now one warning line per task not sent; any
other failure stays an ERROR with its traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from celery.beat import ScheduleEntry
from kombu.exceptions import OperationalError as BrokerUnreachable

import games.tasks  # noqa: F401 - registered, as in the beat (its tasks' options: no result)
from fivex_site.celery import app
from tests.conftest import private_celery_route

# A port of this checkout's range where nothing listens: Redis refuses the connection.
REFUSED_BROKER = "redis://127.0.0.1:8119/0"


def _beat(tmp_path: Path):
    """The beat's scheduler as ``celery -A fivex_site beat`` builds it, and a producer on
    the app's broker (the beat's own connects, retrying for ever, before its first send)."""
    from celery.utils.imports import symbol_by_name

    scheduler = symbol_by_name(app.conf.beat_scheduler)(
        app=app, schedule_filename=str(tmp_path / "schedule")
    )
    return scheduler, app.amqp.Producer(app.connection_for_write(), auto_declare=False)


def _entry(**kwargs) -> ScheduleEntry:
    return ScheduleEntry(
        name="enforce-deadlines", task="games.tasks.enforce_deadlines", schedule=60.0, app=app,
        **kwargs,
    )  # fmt: skip


def test_a_task_the_beat_cannot_send_to_a_broker_away_is_one_warning(tmp_path, caplog) -> None:
    with private_celery_route(tmp_path / "route", broker_url=REFUSED_BROKER):
        scheduler, producer = _beat(tmp_path)
        with caplog.at_level(logging.INFO):
            scheduler.apply_entry(_entry(), producer=producer)
        scheduler.close()
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.levelname, r.exc_info) for r in logged] == [("WARNING", None)], [
        (r.levelname, r.getMessage()[:200]) for r in logged
    ]
    message = logged[0].getMessage()
    assert "enforce-deadlines" in message and "8119" in message
    assert "\n" not in message  # one line: no stack


@pytest.mark.redis
def test_another_failure_to_send_is_still_an_error_with_its_traceback(tmp_path, caplog) -> None:
    """Not the broker: an argument that cannot be written as JSON."""
    with private_celery_route(tmp_path / "route"):
        scheduler, producer = _beat(tmp_path)
        with caplog.at_level(logging.INFO):
            scheduler.apply_entry(_entry(args=(object(),)), producer=producer)
        scheduler.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert "enforce-deadlines" in errors[0].getMessage()


def test_a_beat_that_cannot_connect_says_so_once_not_an_error_each_retry(tmp_path, caplog, monkeypatch) -> None:
    """Regression: a beat started while Redis was away logged Celery's "beat: Connection
    error ... Trying again" ERROR on every retry, for as long as the outage lasted."""
    from fivex_site.beat import Scheduler

    monkeypatch.setattr(Scheduler, "connect_retry", {"interval_start": 0, "interval_step": 0, "interval_max": 0})
    monkeypatch.setitem(app.conf, "broker_connection_max_retries", 4)
    with private_celery_route(tmp_path / "route", broker_url=REFUSED_BROKER):
        scheduler, _producer = _beat(tmp_path)
        with caplog.at_level(logging.DEBUG), pytest.raises(BrokerUnreachable) as gave_up:
            scheduler._ensure_connected()
        scheduler.close()
    assert "8119" in str(gave_up.value) or "refused" in str(gave_up.value).lower()
    logged = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1, logged
    level, message = logged[0]
    assert level == "WARNING" and message.startswith("beat: the broker is unreachable: ")
    assert "\n" not in message
    retries = [r for r in caplog.records if r.levelno == logging.DEBUG and "next try in" in r.getMessage()]
    assert len(retries) == 3  # five tries, four failures told: the first said, the others at debug
    # A long outage is said again every ``still_away_every`` seconds.
    caplog.clear()
    monkeypatch.setattr(Scheduler, "still_away_every", 0.0)
    with private_celery_route(tmp_path / "route2", broker_url=REFUSED_BROKER):
        scheduler, _producer = _beat(tmp_path)
        with caplog.at_level(logging.INFO), pytest.raises(BrokerUnreachable):
            scheduler._ensure_connected()
        scheduler.close()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 4 and all(m.startswith("beat: the broker is still unreachable after ") for m in said[1:])


@pytest.mark.redis
def test_a_beat_that_reaches_the_broker_logs_nothing_on_connecting(tmp_path, caplog) -> None:
    with private_celery_route(tmp_path / "route"):
        scheduler, _producer = _beat(tmp_path)
        with caplog.at_level(logging.DEBUG):
            connection = scheduler._ensure_connected()
        assert connection.connected
        scheduler.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
