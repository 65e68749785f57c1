"""A worker stopped with SIGTERM while its pool process hands an email to the mail server:
the email is recorded sent, not sent again. systemd's default KillMode=control-group sends
SIGTERM to the pool processes too, which Celery leaves at the default action (die at
once): the server had taken the email, its row's transaction rolled back, and the sweep
sent it a second time. A real prefork worker, a real SMTP server (aiosmtpd) that takes a
while to answer the message's end."""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import signal
import subprocess
import threading
from collections.abc import Iterator

import pytest

from games.models import OutboxMessage
from games.services.outbox import outbox_enqueue
from tests.conftest import (
    _free_port,
    _stop_process_group,
    database_url_for_worker,
    private_celery_route,
    start_worker_process,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


class _SlowToAnswerData:
    """Keeps each message it is given, then answers its end (250) after ``pause`` seconds:
    the time a server's checks take, in which a sender's process may be stopped."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.taken: list[email.message.EmailMessage] = []
        self.first_taken = threading.Event()

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd hook)
        raw = envelope.original_content or envelope.content
        self.taken.append(email.message_from_bytes(raw, policy=email.policy.default))
        self.first_taken.set()
        await asyncio.sleep(self.pause)
        return "250 Message accepted for delivery"


@pytest.fixture
def slow_smtp() -> Iterator[tuple[_SlowToAnswerData, int]]:
    from aiosmtpd.controller import Controller

    handler = _SlowToAnswerData(pause=2.0)
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def _prefork_worker(tmp_path, route_env: dict[str, str], smtp_port: int) -> tuple[subprocess.Popen, object]:
    env = {
        **os.environ, **route_env, "DATABASE_URL": database_url_for_worker(),
        "DJANGO_SETTINGS_MODULE": "fivex_site.settings", "PYTHONUNBUFFERED": "1",
        "EMAIL_URL": "", "EMAIL_BACKEND": "", "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port), "EMAIL_HOST_USER": "", "EMAIL_HOST_PASSWORD": "",
        "EMAIL_USE_TLS": "false", "EMAIL_USE_SSL": "false",
    }  # fmt: skip
    log_path = tmp_path / "worker.log"
    process = start_worker_process(
        env=env, queues=route_env["FIVEX_TEST_QUEUES"],
        hostname=route_env["CELERY_TASK_DEFAULT_QUEUE"], log_path=log_path, pool="prefork",
    )  # fmt: skip
    return process, log_path


@pytest.mark.parametrize(
    "stop",
    ["group", "main process"],
    ids=["SIGTERM to the group (KillMode=control-group)", "SIGTERM to the main process (KillMode=mixed)"],
)
def test_an_email_the_server_took_while_the_worker_was_stopped_is_recorded_sent_once(
    tmp_path, slow_smtp, stop
) -> None:
    from games.tasks import send_outbox_batch

    handler, port = slow_smtp
    first = outbox_enqueue(to="ann@example.com", subject="first", body="b", queue_task=False)
    second = outbox_enqueue(to="bob@example.com", subject="second", body="b", queue_task=False)
    with private_celery_route(tmp_path / "broker") as route_env:
        process, log_path = _prefork_worker(tmp_path, route_env, port)
        try:
            send_outbox_batch.delay([first.pk, second.pk])
            assert handler.first_taken.wait(30), log_path.read_text(errors="replace")
            # The server has the first email and has not answered yet: the stop arrives.
            if stop == "group":
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        finally:
            _stop_process_group(process)
    log = log_path.read_text(errors="replace")
    taken = [m["Subject"] for m in handler.taken]
    first.refresh_from_db()
    second.refresh_from_db()
    # The email in the server's hands when the stop came is recorded sent: no sweep sends
    # it again.
    assert first.status == OutboxMessage.Status.SENT, log[-3000:]
    assert taken.count("first") == 1
    # The next one is sent once or left for the sweep, never both.
    assert taken.count("second") == (1 if second.status == OutboxMessage.Status.SENT else 0)
    assert second.status in (OutboxMessage.Status.SENT, *OutboxMessage.UNSENT)
