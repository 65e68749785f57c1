"""``manage.py runsmtpd``: the SMTP server that receives order mail."""

from __future__ import annotations

import gc
import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand

from games.mail.smtpd import make_controller


class Command(BaseCommand):
    help = (
        "Run an SMTP server for order mail: refuses unknown recipients at RCPT (550), "
        "stores accepted messages and queues their processing to Celery."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
        parser.add_argument("--port", type=int, default=2525, help="port to listen on")

    def handle(self, *args: Any, **options: Any) -> None:
        controller = make_controller(options["host"], options["port"])
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        controller.start()
        # What start-up made (Django, the apps, the engines) lives as long as the process:
        # kept out of the collector, the exit after SIGTERM took 0.4 s, not 8 s (a full
        # collection of those objects took ~1 s of CPU here; at exit, several).
        gc.freeze()
        self.stdout.write(f"runsmtpd: listening on {options['host']}:{options['port']}")
        self.stdout.flush()
        try:
            stop.wait()
        finally:
            controller.stop()
            self.stdout.write("runsmtpd: stopped")
