"""The race helpers of tests/concurrency.py: what the race tests rely on them for."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections

from tests.concurrency import (
    Hung,
    at_once,
    elsewhere,
    in_background,
    until_a_connection_waits_for_a_lock,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LOCK_KEY = 424242  # an advisory lock's key, for a statement that waits


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _live(pids) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_stat_clear_snapshot(), pid FROM pg_stat_activity WHERE pid = ANY(%s)",
            [list(pids)],
        )
        return {row[1] for row in cursor.fetchall()}


def _until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _wait_for_the_advisory_lock() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
    return "got it"


@pytest.fixture
def advisory_lock_held():
    """The advisory lock held by the test's own connection (released at the end)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
    yield
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])


def test_the_calls_run_at_the_same_time_and_report_in_their_order() -> None:
    # Each call returns only once the other has started: run one after the other, the
    # first would wait out its second and raise BrokenBarrierError.
    both = threading.Barrier(2)

    def meet(name: str):
        both.wait(2)
        return name

    def refuse():
        both.wait(2)
        raise ValueError("refused")

    assert at_once(lambda: meet("a"), lambda: meet("b")) == (["a", "b"], [])
    both.reset()
    values, errors = at_once(refuse, lambda: meet("c"))
    assert values == ["c"]
    assert [(type(e), str(e)) for e in errors] == [(ValueError, "refused")]


def test_each_call_has_its_own_connection_closed_when_it_ends() -> None:
    def pid_and_connection():
        # The connection handed back outlives the thread: only closing it ends it.
        return _backend_pid(), connections["default"]

    mine = _backend_pid()
    values, errors = at_once(pid_and_connection, pid_and_connection, pid_and_connection)
    assert errors == []
    pids = [pid for pid, _ in values]
    assert len(set(pids)) == 3 and mine not in pids
    # Closed: no server process left for them (a closing backend leaves within moments).
    assert _until(lambda: not _live(pids)), _live(pids)
    assert _live([mine]) == {mine}


def test_a_call_that_does_not_end_fails_the_race_instead_of_blocking_it() -> None:
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(Hung, match="still running after 0.3 s"):
        at_once(lambda: "quick", lambda: release.wait(30), timeout=0.3)
    assert time.monotonic() - started < 10
    release.set()


def test_a_call_stuck_on_a_lock_is_cancelled_so_that_it_ends(advisory_lock_held) -> None:
    pids: list[int] = []

    def stuck():
        pids.append(_backend_pid())
        return _wait_for_the_advisory_lock()

    with pytest.raises(Hung):
        elsewhere(stuck, timeout=0.5)
    # Its statement was cancelled: the thread ended and closed its connection.
    assert _until(lambda: not _live(pids)), pids
    assert not any(t.name.startswith("race:") for t in threading.enumerate())


def test_elsewhere_returns_the_value_or_raises_the_exception_here() -> None:
    assert elsewhere(_backend_pid) != _backend_pid()

    def fails():
        raise KeyError("from the other thread")

    with pytest.raises(KeyError, match="from the other thread"):
        elsewhere(fails)


def test_in_background_raises_the_work_s_exception_at_the_block_s_end() -> None:
    go = threading.Event()

    def fails_once_told():
        go.wait(10)
        raise RuntimeError("background failure")

    with pytest.raises(RuntimeError, match="background failure"):
        with in_background(fails_once_told) as job:
            assert not job.done  # running while the block runs
            go.set()
    with in_background(lambda: 7) as job:
        pass
    assert job.done and job.value == 7


def test_in_background_fails_the_test_when_the_work_hangs() -> None:
    release = threading.Event()
    with pytest.raises(Hung):
        with in_background(lambda: release.wait(30), timeout=0.3):
            pass
    release.set()


def test_a_connection_waiting_for_a_lock_is_seen(advisory_lock_held) -> None:
    assert until_a_connection_waits_for_a_lock(timeout=0.2) is False  # nobody waits
    with in_background(_wait_for_the_advisory_lock) as job:
        assert until_a_connection_waits_for_a_lock(timeout=10) is True
        assert not job.done  # still waiting: this connection holds the lock
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])  # for the fixture
    assert job.value == "got it"


def test_the_wait_for_a_waiting_connection_stops_when_told(advisory_lock_held) -> None:
    started = time.monotonic()
    assert until_a_connection_waits_for_a_lock(timeout=30, or_until=lambda: True) is False
    assert time.monotonic() - started < 5
