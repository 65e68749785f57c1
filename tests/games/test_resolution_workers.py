"""Exactly-once resolution with real Celery worker processes on PostgreSQL.

- two workers and a deadline sweep racing the last order resolve the prompt once;
- a worker killed (SIGKILL) in the middle of a resolution loses nothing: the
  transaction rolls back and the prompt is resolved on redelivery (RabbitMQ, acks_late)
  or by the sweep (any broker).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

import engine
from games.errors import ApplicationError
from games.models import Game, LogEntry, OutboxMessage, Prompt
from games.selectors import current_state
from games.services.deadlines import READY_SWEEP_SECONDS, enforce_deadlines
from games.services.orders import order_submit
from games.services.resolution import SLEEP_ENV
from games.tasks import resolve_overdue_prompt, resolve_prompt
from tests.concurrency import in_background
from tests.conftest import _stop_process_group, start_worker_process
from tests.games.core_support import start_fixed

NAMES = ["ann", "bob", "cat"]
RULES = engine.get("5x")
AMQP = "amqp://guest:guest@127.0.0.1:5672//"

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.worker,
]


def _rabbitmq_up() -> bool:
    from kombu import Connection

    try:
        with Connection(AMQP, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1)
        return True
    except Exception:  # noqa: BLE001 - only deciding whether to skip
        return False


def start_worker(env: dict[str, str], queue: str, log_path: Path) -> subprocess.Popen:
    """Start one more worker process on the same queues and database; wait until ready."""
    queues = env.get("FIVEX_TEST_QUEUES", queue)  # default + resolution + mail queues
    return start_worker_process(
        env=env, queues=queues, hostname=f"{queue}-{log_path.stem}", log_path=log_path
    )


def _wait(predicate, timeout: float, what: str, logs=lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}\n{logs()}")
        time.sleep(0.2)


def _resolved_count(log_text: str) -> int:
    return len(re.findall(r"resolve_prompt\[[^\]]+\] succeeded", log_text))


@pytest.fixture
def rabbitmq_if_asked(celery_broker_url) -> None:
    """Skip the RabbitMQ variant when no RabbitMQ answers."""
    if celery_broker_url == AMQP and not _rabbitmq_up():
        pytest.skip("RabbitMQ is not reachable on 127.0.0.1:5672")


def _game_two_orders_in():
    game, seats = start_fixed(NAMES, deadline_hours=1)
    state = current_state(game=game)
    for name in ("ann", "bob"):
        order_submit(seat=seats[name], text=RULES.legal_orders(state, name)[0], source="web")
    return game, seats, state


# Workers sleep 1 s inside each resolution transaction, so concurrent attempts really
# wait on the lock.
@pytest.mark.parametrize("celery_worker_env", [{SLEEP_ENV: "1"}])
def test_two_workers_and_deadline_racing_last_order_resolve_once(
    celery_worker_process, tmp_path
) -> None:
    assert connection.vendor == "postgresql"
    extra = start_worker(
        celery_worker_process.env, celery_worker_process.queue, tmp_path / "w2.log"
    )
    try:
        game, seats, state = _game_two_orders_in()
        deadline = timezone.now() + timezone.timedelta(seconds=1)
        Prompt.objects.filter(game=game, number=1).update(deadline=deadline)
        errors: list[Exception] = []

        def last_order() -> None:
            time.sleep(max(0.0, (deadline - timezone.now()).total_seconds() - 0.005))
            try:
                order_submit(
                    seat=seats["cat"],
                    text=RULES.legal_orders(state, "cat")[0],
                    source="web",
                    expected_prompt=1,
                )
            except ApplicationError as exc:  # the deadline won: cat's order came too late
                errors.append(exc)

        # Duplicates keep both workers busy on the same prompt at the same moment.
        for _ in range(3):
            resolve_prompt.delay(game.pk, 1)
        with in_background(last_order, timeout=30):
            time.sleep(max(0.0, (deadline - timezone.now()).total_seconds()))
            swept = enforce_deadlines()
        # Too late: after the deadline (a sweep is enqueued) or after the sweep resolved.
        assert {e.code for e in errors} <= {"deadline_passed", "prompt_closed"}, errors
        late = any(e.code == "deadline_passed" for e in errors)
        expected_tasks = 3 + (0 if errors else 1)
        logs = lambda: celery_worker_process.log() + (tmp_path / "w2.log").read_text()  # noqa: E731
        _wait(
            lambda: _resolved_count(logs()) >= expected_tasks
            and (not late or re.search(r"enforce_deadlines\[[^\]]+\] succeeded", logs())),
            60,
            f"{expected_tasks} resolve_prompt tasks (and any sweep) to finish",
            logs,
        )
        resolved = LogEntry.objects.filter(game=game, kind="prompt_resolved")
        assert [e.payload["prompt"] for e in resolved] == [1], logs()
        assert LogEntry.objects.filter(game=game, kind="orders_revealed").count() == 1
        assert Prompt.objects.filter(game=game, number=2).count() == 1
        assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED
        messages = OutboxMessage.objects.filter(game=game, kind="prompt_resolved")
        assert sorted(m.seat.name for m in messages) == NAMES  # one each, not doubled
        revealed = LogEntry.objects.get(game=game, kind="orders_revealed").payload["orders"]
        nmr = LogEntry.objects.filter(game=game, kind="nmr_applied", payload__prompt=1).count()
        # Either the last order or the deadline's default made it; never both resolved.
        assert (revealed["cat"]["source"] == "default") == (nmr == 1) == bool(errors)
        # Exactly one actor resolved prompt 1: the sweep, one worker task, or the sweep a
        # refused late order enqueued.
        worker_wins = len(
            re.findall(r"resolve_prompt\[[^\]]+\] succeeded in [0-9.e-]+s: True", logs())
        )
        worker_sweeps = len(
            re.findall(r"enforce_deadlines\[[^\]]+\] succeeded in [0-9.e-]+s: 1", logs())
        )
        assert swept + worker_wins + worker_sweeps == 1, logs()
    finally:
        _stop_process_group(extra)


# The first worker hangs 60 s inside the resolution transaction: we kill it there.
@pytest.mark.parametrize("celery_worker_env", [{SLEEP_ENV: "60"}])
@pytest.mark.parametrize(
    ("celery_broker_url", "recovery"),
    [(AMQP, "redelivery"), (None, "sweep")],
    ids=["rabbitmq-redelivery", "default-broker-sweep"],
)
def test_worker_killed_mid_resolution_loses_nothing(
    rabbitmq_if_asked, celery_worker_process, recovery, tmp_path
) -> None:
    worker = celery_worker_process
    game, seats, state = _game_two_orders_in()
    order_submit(seat=seats["cat"], text=RULES.legal_orders(state, "cat")[0], source="web")
    _wait(
        lambda: "resolve_prompt" in worker.log() and "received" in worker.log(),
        30,
        "the worker to pick up resolve_prompt",
        worker.log,
    )
    # Wait until its transaction holds the game row (the lock is visible in pg_locks).
    with connection.cursor() as cursor:

        def locked() -> bool:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' "
                "AND pid <> pg_backend_pid() AND datname = current_database()"
            )
            return cursor.fetchone()[0] >= 1

        _wait(locked, 30, "the resolution transaction to be open", worker.log)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.process.wait(10)
    # Nothing was half-written: the killed transaction rolled back.
    assert Prompt.objects.get(game=game, number=1).status == Prompt.Status.OPEN
    assert not Prompt.objects.filter(game=game, number=2).exists()
    assert not LogEntry.objects.filter(game=game, kind="orders_revealed").exists()
    env = {k: v for k, v in worker.env.items() if k != SLEEP_ENV}
    second = start_worker(env, worker.queue, tmp_path / "second.log")
    try:
        if recovery == "sweep":
            # The embedded broker does not redeliver: the beat sweep re-enqueues the
            # complete-but-open prompt once it has waited READY_SWEEP_SECONDS.
            later = timezone.now() + timezone.timedelta(seconds=READY_SWEEP_SECONDS + 1)
            enforce_deadlines(now=later)
        _wait(
            lambda: Prompt.objects.get(game=game, number=1).status == Prompt.Status.RESOLVED,
            60,
            "the prompt to be resolved by the second worker",
            lambda: (tmp_path / "second.log").read_text(),
        )
    finally:
        _stop_process_group(second)
    assert LogEntry.objects.filter(game=game, kind="prompt_resolved").count() == 1
    assert Prompt.objects.filter(game=game, number=2).count() == 1
    assert OutboxMessage.objects.filter(game=game, kind="prompt_resolved").count() == 3
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_a_sweep_out_of_time_hands_due_prompts_to_worker_processes(
    celery_worker_process, tmp_path
) -> None:
    """The beat's sweep past its budget enqueues one task per due prompt on the
    resolution queue; two worker processes resolve each exactly once."""
    assert connection.vendor == "postgresql"
    extra = start_worker(
        celery_worker_process.env, celery_worker_process.queue, tmp_path / "w2.log"
    )
    try:
        games = [start_fixed(NAMES, deadline_hours=1)[0] for _ in range(4)]
        due = max(Prompt.objects.get(game=g, number=1).deadline for g in games)
        due += timezone.timedelta(minutes=1)
        assert enforce_deadlines(now=due, inline_seconds=0) == 0
        # The same prompts handed out again (as the next minute's sweep may) change nothing.
        for g in games:
            resolve_overdue_prompt.delay(g.pk, 1, due.isoformat())
        logs = lambda: celery_worker_process.log() + (tmp_path / "w2.log").read_text()  # noqa: E731
        done = r"resolve_overdue_prompt\[[^\]]+\] succeeded in [0-9.e-]+s: (True|False)"
        _wait(lambda: len(re.findall(done, logs())) >= 8, 60, "8 handed-out tasks", logs)
        assert sorted(re.findall(done, logs())) == ["False"] * 4 + ["True"] * 4, logs()
        for g in games:
            assert Prompt.objects.get(game=g, number=1).status == Prompt.Status.RESOLVED
            assert LogEntry.objects.filter(game=g, kind="prompt_resolved").count() == 1
            assert LogEntry.objects.filter(game=g, kind="nmr_applied").count() == 3
    finally:
        _stop_process_group(extra)
