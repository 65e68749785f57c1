"""Run the web server, a Celery worker and Celery beat together; stop them all together.

Ctrl-C (SIGINT), SIGTERM or SIGHUP (the terminal closed; unless started under nohup)
stops every process, and so does any one of them exiting. With ``--stop-with-parent`` (as
``make run`` passes it) so does the parent's death: make killed with SIGTERM exits without
passing the signal on, and this command would be left running.
"""

import os
import signal
import subprocess
import sys
import time
from types import FrameType

from django.conf import settings
from django.core.management.base import BaseCommand
from kombu.utils.url import maybe_sanitize_url

STOP_TIMEOUT_SECONDS = 10.0


def children_environment(addrport: str, environ: dict[str, str]) -> dict[str, str]:
    """The environment of the web server, worker and beat: this one, ``FIVEX_ENV``
    named (``development`` when it is not), and ``FIVEX_BASE_URL`` set to the address served when none is configured (emails, the
    invitation and the calendar linked to port 8000 while the site ran on another).
    A wildcard address (``0.0.0.0``) names no host: this machine's, on the port served
    (links went to port 8000 whatever was served: a README audit)."""
    env = dict(environ)
    # Their lines appear as they are written when the output is a file or a pipe (a
    # service manager's log), not in blocks or at exit.
    env.setdefault("PYTHONUNBUFFERED", "1")
    # The environment is named for them: a worker or beat given none refuses the
    # development defaults (fivex_site/deployment.py); here they are what was asked for.
    env.setdefault("FIVEX_ENV", "development")
    if env.get("FIVEX_BASE_URL"):  # the .env file's is in the environment too
        return env
    host, _sep, port = addrport.rpartition(":")
    if not port.isdigit():
        return env
    host = host or "127.0.0.1"
    if host in ("0.0.0.0", "[::]", "::"):
        host = "127.0.0.1" if host == "0.0.0.0" else "[::1]"
    env["FIVEX_BASE_URL"] = f"http://{host}:{port}"
    return env


class Command(BaseCommand):
    help = "Serve FiveX: runserver + celery worker + celery beat, supervised as one."

    def add_arguments(self, parser) -> None:  # noqa: ANN001 - argparse parser
        parser.add_argument("--addrport", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
        parser.add_argument(
            "--stop-with-parent", action="store_true",
            help="stop everything when the parent process is gone (make run passes it)",
        )  # fmt: skip

    def handle(self, *args: object, **options: object) -> None:
        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        celery = [python, "-m", "celery", "-A", "fivex_site"]
        commands = {
            "web": [python, manage, "runserver", str(options["addrport"]), "--noreload"],
            "worker": [*celery, "worker", "--loglevel", "INFO",
                       "--queues", ",".join(settings.FIVEX_CELERY_QUEUES),
                       "--concurrency", str(options["concurrency"])],
            "beat": [*celery, "beat", "--loglevel", "INFO"],
        }  # fmt: skip
        stopping = False

        def request_stop(signum: int, frame: FrameType | None) -> None:
            nonlocal stopping
            stopping = True

        parent = os.getppid() if options["stop_with_parent"] else None
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            # A hang-up ignored on purpose (nohup) stays ignored.
            if signum != signal.SIGHUP or signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, request_stop)

        processes: dict[str, subprocess.Popen] = {}
        for name, command in commands.items():
            # Own process group each: we decide when they stop, and stop their children too.
            processes[name] = subprocess.Popen(
                command, cwd=settings.BASE_DIR, start_new_session=True, stdin=subprocess.DEVNULL,
                env=children_environment(str(options["addrport"]), dict(os.environ)),
            )  # fmt: skip
        self.stdout.write(
            f"FiveX is starting on http://{options['addrport']}/ "
            f"(broker: {maybe_sanitize_url(settings.CELERY_BROKER_URL)}). Press Ctrl-C to stop."
        )
        self.stdout.flush()  # at once, also into a file or a pipe
        exit_code = 0
        while not stopping:
            if parent is not None and os.getppid() != parent:
                self.stderr.write("The parent process is gone; stopping all.")
                break
            for name, process in processes.items():
                if process.poll() is not None:
                    self.stderr.write(
                        f"{name} exited with code {process.returncode}; stopping all."
                    )
                    exit_code = process.returncode or 1
                    stopping = True
                    break
            else:
                time.sleep(0.5)
        self._stop_all(processes)
        if exit_code:
            sys.exit(exit_code)

    def _stop_all(self, processes: dict[str, subprocess.Popen]) -> None:
        self.stdout.write("Stopping web server, worker and beat...")
        for process in processes.values():
            if process.poll() is None:
                # Only the main process: Celery stops its own pool children cleanly.
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
        for process in processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # the process and its children
                except ProcessLookupError:
                    pass
                process.wait()
