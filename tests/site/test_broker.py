"""The embedded filesystem broker never shows a worker a half-written message, picks a
message up within a fifth of a second and lets a worker asked to stop stop waiting."""

import threading
import time
from pathlib import Path

import pytest
from celery.worker import state
from kombu import Connection

import fivex_site.broker
from fivex_site.celery import app  # noqa: F401 - registers our transport for filesystem://


def test_filesystem_url_uses_the_atomic_transport(tmp_path: Path) -> None:
    with Connection("filesystem://") as conn:
        assert conn.transport_cls == "filesystem"
        assert isinstance(conn.transport, fivex_site.broker.Transport)


def test_message_file_appears_only_when_complete(tmp_path: Path, monkeypatch) -> None:
    # Regression: kombu wrote "<time>_<id>.<queue>.msg" in place, so a polling worker could
    # read it empty and die with JSONDecodeError.
    visible_while_writing: list[list[str]] = []
    real = fivex_site.broker.str_to_bytes

    def spy(text: str) -> bytes:
        visible_while_writing.append([p.name for p in folder.glob("*.jobs.msg")])
        return real(text)

    monkeypatch.setattr(fivex_site.broker, "str_to_bytes", spy)
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(tmp_path / "control"),
    }
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("jobs")
        queue.put({"n": 1})
        queue.put({"n": 2})
        # While a message is being written only the messages finished before it are visible.
        assert [len(names) for names in visible_while_writing] == [0, 1]
        received = [queue.get(timeout=1) for _ in range(2)]
        assert [message.payload for message in received] == [{"n": 1}, {"n": 2}]
        for message in received:
            message.ack()
        queue.close()
    assert list(folder.iterdir()) == []  # no partial files left behind


def test_many_messages_all_arrive(tmp_path: Path) -> None:
    count = 50
    options = {
        "data_folder_in": str(tmp_path),
        "data_folder_out": str(tmp_path),
        "control_folder": str(tmp_path / "control"),
    }
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("bulk")
        for n in range(count):
            queue.put({"n": n})
        received = [queue.get(timeout=1) for _ in range(count)]
        for message in received:
            message.ack()
        got = [message.payload["n"] for message in received]
        queue.close()
    # Regression: names carried whole milliseconds then a uuid, so messages written in
    # the same millisecond came out in random order. Fifty quick puts stay in order.
    assert got == list(range(count))


def test_a_broker_that_never_answers_does_not_hold_the_request() -> None:
    """An operations audit: a Redis that took the connection and never answered held an
    order request for good (curl gave up after 190 s). Commands time out
    (BROKER_SOCKET_TIMEOUT), one retry at most: the task is logged as not queued (a sweep
    of the beat picks the work up) and the request goes on."""
    import os
    import socket
    import subprocess
    import sys
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    port = silent.getsockname()[1]
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(silent.accept()[0])  # and never a byte back
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    code = (
        "import django, logging, time; django.setup(); logging.basicConfig(level=logging.WARNING)\n"
        "from games.services.queueing import enqueue_on_commit\n"
        "from games.tasks import send_outbox_message\n"
        "started = time.monotonic(); enqueue_on_commit(send_outbox_message, 1)\n"
        "print(f'returned after {time.monotonic() - started:.1f} s')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "FIVEX_ENV")}
    env.update(DJANGO_SETTINGS_MODULE="fivex_site.settings", BROKER_SOCKET_TIMEOUT="1",
               CELERY_BROKER_URL=f"redis://127.0.0.1:{port}/0")  # fmt: skip
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                              env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    finally:
        silent.close()
        for connection in accepted:
            connection.close()
    assert done.returncode == 0, done.stderr[-2000:]
    assert "returned after" in done.stdout
    assert "could not queue games.tasks.send_outbox_message" in done.stderr
    assert accepted  # it did reach the silent broker


def _options(tmp_path: Path) -> dict:
    return {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path),
            "control_folder": str(tmp_path / "control")}  # fmt: skip


def test_a_waiting_worker_picks_a_message_up_at_once(tmp_path: Path) -> None:
    # kombu read the folder once a second: a task sent 0.1 s into a wait was picked up
    # ~0.9 s later (each prompt's resolution and email waited that on `make run`).
    got: list[float] = []
    with Connection("filesystem://", transport_options=_options(tmp_path)) as conn:
        def received(body: dict, message) -> None:
            got.append(time.monotonic())
            message.ack()

        with conn.Consumer(conn.SimpleQueue("soon").queue, callbacks=[received]):
            sender = Connection("filesystem://", transport_options=_options(tmp_path))
            sent: list[float] = []

            def send() -> None:
                time.sleep(0.1)
                sent.append(time.monotonic())
                sender.SimpleQueue("soon").put({"n": 1})

            thread = threading.Thread(target=send)
            thread.start()
            conn.drain_events(timeout=5)  # as Celery's loop waits
            thread.join()
            sender.release()
    assert got and got[0] - sent[0] < 0.5, got[0] - sent[0]


def test_a_wait_keeps_its_whole_timeout(tmp_path: Path) -> None:
    # Read more often, a wait for a message still lasts the time asked for.
    with Connection("filesystem://", transport_options=_options(tmp_path)) as conn:
        queue = conn.SimpleQueue("empty")
        began = time.monotonic()
        with pytest.raises(queue.Empty):
            queue.get(timeout=1.0)
        assert 1.0 <= time.monotonic() - began < 1.6
        began = time.monotonic()
        with pytest.raises(TimeoutError):
            conn.drain_events(timeout=0.7)
        assert 0.7 <= time.monotonic() - began < 1.3


def test_a_worker_asked_to_stop_stops_waiting_for_messages(tmp_path: Path, monkeypatch) -> None:
    # Celery's loop for polled transports waits 2 s at a time and looks for a shutdown only
    # between waits: Ctrl-C on `make run` took 2-3 s more than the rest of the stop.
    monkeypatch.setattr(state, "should_stop", None)
    with Connection("filesystem://", transport_options=_options(tmp_path)) as conn:
        conn.SimpleQueue("idle")  # a queue consumed, nothing in it
        timer = threading.Timer(0.1, lambda: setattr(state, "should_stop", 0))  # EX_OK: 0
        timer.start()
        began = time.monotonic()
        with pytest.raises(TimeoutError):
            conn.drain_events(timeout=2.0)
        timer.join()
    assert time.monotonic() - began < 0.7
