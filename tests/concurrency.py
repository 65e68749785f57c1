"""Racing work against PostgreSQL from tests: each piece of work on a thread of its own,
with a database connection of its own (closed when it ends), and a time limit, so that a
hang fails the test instead of blocking it.

- ``at_once(*calls)``: the calls released together; their values and their exceptions.
- ``elsewhere(work)``: ``work`` on another connection, waited for; its value, or its
  exception raised here.
- ``in_background(work)``: ``work`` on another connection while the ``with`` block runs;
  joined at the block's end, its exception raised there.
- ``until_a_connection_waits_for_a_lock()``: return once another connection to the test
  database waits for a lock (the racing statement is blocked where the test wants it).

A call still running at its time limit fails the test (``Hung``); its statement is
cancelled on the server, so that a thread blocked on a lock ends and the test database
can be flushed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, connections

TIMEOUT = 60.0


class Hung(AssertionError):
    """A racing call still running at its time limit."""


class _Runner:
    """One call on a daemon thread with its own connection (opened before ``start_gate``
    lets it go, closed when it ends)."""

    def __init__(self, call: Callable[[], Any], start_gate: threading.Barrier | None = None):
        self.call, self.start_gate = call, start_gate
        self.value: Any = None
        self.error: BaseException | None = None
        self.backend_pid: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"race:{call!r}")

    def _run(self) -> None:
        try:
            try:
                with connection.cursor() as cursor:  # connect now: not part of the race
                    cursor.execute("SELECT pg_backend_pid()")
                    self.backend_pid = cursor.fetchone()[0]
            except BaseException:
                if self.start_gate is not None:
                    self.start_gate.abort()  # the others are not kept waiting for this one
                raise
            if self.start_gate is not None:
                self.start_gate.wait(TIMEOUT)
            self.value = self.call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self.error = exc
        finally:
            connections.close_all()


def _join(runners: list[_Runner], timeout: float) -> None:
    """Wait for the runners; raise ``Hung`` naming those still running at ``timeout``
    (their statements cancelled, so that they end)."""
    deadline = time.monotonic() + timeout
    for runner in runners:
        runner.thread.join(max(0.0, deadline - time.monotonic()))
    hung = [r for r in runners if r.thread.is_alive()]
    if not hung:
        return
    pids = [r.backend_pid for r in hung if r.backend_pid is not None]
    cancelled: set[int] = set()
    if pids:
        with connection.cursor() as cursor:  # those running a statement (waiting for a lock)
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s) AND state = 'active'"
                " AND pg_cancel_backend(pid)",
                [pids],
            )
            cancelled = {row[0] for row in cursor.fetchall()}
    for runner in hung:
        if runner.backend_pid in cancelled:
            runner.thread.join(5)
    raise Hung(f"still running after {timeout:g} s: {', '.join(repr(r.call) for r in hung)}")


def at_once(
    *calls: Callable[[], Any], timeout: float = TIMEOUT
) -> tuple[list[Any], list[BaseException]]:
    """Run ``calls`` on threads released together (each connected first); return the
    values of those that returned and the exceptions of those that raised, each in the
    calls' order. Raise ``Hung`` if any is still running after ``timeout`` seconds."""
    gate = threading.Barrier(len(calls))
    runners = [_Runner(call, gate) for call in calls]
    for runner in runners:
        runner.thread.start()
    _join(runners, timeout)
    values = [r.value for r in runners if r.error is None]
    errors = [r.error for r in runners if r.error is not None]
    return values, errors


def elsewhere(work: Callable[[], Any], *, timeout: float = TIMEOUT) -> Any:
    """Run ``work`` on another thread and connection and wait for it: its value, or its
    exception raised here."""
    runner = _Runner(work)
    runner.thread.start()
    _join([runner], timeout)
    if runner.error is not None:
        raise runner.error
    return runner.value


class Background:
    """The handle ``in_background`` yields: ``done`` is set once the work has ended."""

    def __init__(self, runner: _Runner):
        self._runner = runner

    @property
    def done(self) -> bool:
        return not self._runner.thread.is_alive()

    @property
    def value(self) -> Any:
        return self._runner.value


@contextmanager
def in_background(work: Callable[[], Any], *, timeout: float = TIMEOUT) -> Iterator[Background]:
    """Run ``work`` on another thread and connection while the ``with`` block runs. At
    the block's end wait for it (``Hung`` after ``timeout`` seconds) and raise its
    exception, if it raised (after the block's own exception, if the block raised)."""
    runner = _Runner(work)
    runner.thread.start()
    try:
        yield Background(runner)
    except BaseException:
        try:
            _join([runner], timeout)
        except Hung:
            pass
        raise
    _join([runner], timeout)
    if runner.error is not None:
        raise runner.error


def until_a_connection_waits_for_a_lock(
    *, timeout: float, or_until: Callable[[], bool] | None = None
) -> bool:
    """Return True once another connection to this database waits for a lock (as seen
    from this thread's connection), False if none did within ``timeout`` seconds or
    once ``or_until()`` is true (the other side finished without waiting)."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while or_until is None or not or_until():
            # pg_stat_activity is read once a transaction unless told to read it again
            cursor.execute(
                "SELECT pg_stat_clear_snapshot(), EXISTS (SELECT 1 FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND wait_event_type = 'Lock')"
            )
            if cursor.fetchone()[1]:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
    return False
