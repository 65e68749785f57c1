"""Shared fixtures for the whole suite (names are relied on by every app's tests).

- ``celery_worker_process``: a real ``celery -A fivex_site worker`` subprocess on the test database
  and a private queue (and, for the embedded filesystem broker, a private folder).
- ``browser_page``: a Playwright page in headless Chromium (/usr/bin/chromium).
- ``smtp_sink``: a real SMTP server (aiosmtpd) collecting what Django sends during the test.

Tests marked ``postgres`` are skipped unless the test database is PostgreSQL (row locks,
real concurrent transactions); CI runs them all.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WORKER_READY_TIMEOUT = 60.0


# --------------------------------------------------------------------------- speed


def pytest_collection_modifyitems(config, items) -> None:
    """Skip the tests marked ``postgres`` on any other database."""
    from django.conf import settings

    if "postgresql" in settings.DATABASES["default"]["ENGINE"]:
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL (DATABASE_URL=postgres://postgres@127.0.0.1:5432/fivex): "
        "SQLite has no row locks to race on"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


SLOW_TEST_SECONDS = 60.0
_CONFIG: dict = {}


def _said_at_once(report) -> str | None:
    """The line to print the moment a test ends, or None: a failure (or error) names its
    test and its duration, and so does a test that took over SLOW_TEST_SECONDS. pytest-xdist
    prints failures' names only at the end of the run, so a run stopped from outside (a CI
    time limit) said nothing of what failed or what took the time."""
    duration = getattr(report, "duration", 0.0) or 0.0
    if report.failed:
        phase = "" if report.when == "call" else f" (in {report.when})"
        return f"FAILED {report.nodeid}{phase} after {duration:.1f} s"
    if report.when == "call" and duration > SLOW_TEST_SECONDS:
        return f"SLOW {report.nodeid}: {duration:.1f} s"
    return None


def pytest_runtest_logreport(report) -> None:
    line = _said_at_once(report)
    if line is None:
        return
    config = _CONFIG.get("config")
    if config is None or hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: its controller receives the same report and says it
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        terminal.write("\n")  # the progress dots' line is left open
        terminal.write_line(line, red=True, bold=True)


def pytest_configure(config) -> None:
    _CONFIG["config"] = config
    _flush_only_tables_with_rows()


#: The tables ``post_migrate`` fills (content types, permissions), and the receivers that
#: fill them (Django's own): a flush that finds these tables as the last ``post_migrate``
#: left them keeps them and sends no ``post_migrate``.
_POST_MIGRATE_TABLES = ("django_content_type", "auth_permission")
_POST_MIGRATE_RECEIVERS = {
    "django.contrib.contenttypes.management.create_contenttypes",
    "django.contrib.auth.management.create_permissions",
    "django.contrib.auth.management.rename_permissions_after_model_rename",  # flush: no-op
}
#: Per database alias: what the post_migrate tables held after the last post_migrate
#: (a digest of their rows), and whether the flush under way kept them.
_AFTER_POST_MIGRATE: dict[str, str] = {}
_KEPT_BY_THIS_FLUSH: dict[str, bool] = {}


def _post_migrate_digest_sql(connection) -> str:  # noqa: ANN001
    quote = connection.ops.quote_name
    return " || ".join(
        f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM {quote(table)} t)"
        for table in _POST_MIGRATE_TABLES
    )


def _post_migrate_digest(connection) -> str:  # noqa: ANN001
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + _post_migrate_digest_sql(connection))
        return cursor.fetchone()[0]


def _only_known_post_migrate_receivers() -> bool:
    from django.db.models.signals import post_migrate

    names = set()
    for receiver in post_migrate._live_receivers(None)[0]:
        names.add(f"{getattr(receiver, '__module__', '')}.{getattr(receiver, '__qualname__', '')}")
    return names <= _POST_MIGRATE_RECEIVERS


def _flush_only_tables_with_rows() -> None:
    """A transactional test (``transaction=True``, every live-server browser test) ends with
    Django's ``flush``: on PostgreSQL one ``TRUNCATE`` of every table, ~0.4 s however
    little the test wrote (each table and index is given new files). Here it deletes the
    rows of the tables that have any (one query finds them; foreign keys are deferred on
    PostgreSQL, so the order does not matter): ~0.07 s, the same empty tables after.

    The content types and permissions (written again by ``post_migrate`` after each
    flush: ~60 queries) are kept when they hold what the last ``post_migrate`` wrote
    (one query compares a digest of their rows), and then no ``post_migrate`` is sent;
    else they are deleted and written again, as before. For the test database's flush
    only; the site never flushes."""
    from django.core.management.commands import flush as flush_command
    from django.db import connections
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush
    if getattr(truncate, "only_tables_with_rows", False):
        return

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):  # noqa: ANN001, ANN202
        alias = self.connection.alias
        _KEPT_BY_THIS_FLUSH[alias] = False
        if not tables or reset_sequences:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        quote = self.quote_name
        known = (
            _AFTER_POST_MIGRATE.get(alias)
            if set(_POST_MIGRATE_TABLES) <= set(tables) and _only_known_post_migrate_receivers()
            else None
        )
        # One round trip: the tables with rows, then (if known) the post_migrate digest.
        sql = " UNION ALL ".join(f"SELECT %s WHERE EXISTS (SELECT 1 FROM {quote(t)})" for t in tables)
        if known is not None:
            sql += f" UNION ALL SELECT 'digest:' || {_post_migrate_digest_sql(self.connection)}"
        with self.connection.cursor() as cursor:
            cursor.execute(sql, list(tables))
            found = [row[0] for row in cursor.fetchall()]
        with_rows = [name for name in found if not name.startswith("digest:")]
        if known is not None and f"digest:{known}" in found:
            with_rows = [t for t in with_rows if t not in _POST_MIGRATE_TABLES]
            _KEPT_BY_THIS_FLUSH[alias] = True
        if not with_rows:
            return []
        # One statement: the flush command runs each of the list's statements in turn.
        return [" ".join(f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(quote(t))};" for t in with_rows)]

    emit = flush_command.emit_post_migrate_signal

    def emit_post_migrate_signal(verbosity, interactive, db, **kwargs):  # noqa: ANN001, ANN003, ANN202
        if _KEPT_BY_THIS_FLUSH.pop(db, False):
            return  # the tables it fills hold what it wrote last time
        emit(verbosity, interactive, db, **kwargs)
        connection = connections[db]
        if connection.vendor == "postgresql":
            _AFTER_POST_MIGRATE[db] = _post_migrate_digest(connection)

    sql_flush.only_tables_with_rows = True
    DatabaseOperations.sql_flush = sql_flush
    flush_command.emit_post_migrate_signal = emit_post_migrate_signal


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """Hashing passwords the production way costs ~0.3 s each; tests don't need that."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Each test starts with an empty cache (allauth keeps its rate limits there)."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()
    yield


# --------------------------------------------------------------------------- Celery


def database_url_for_worker() -> str:
    """The DATABASE_URL of the database this test process uses right now (the test database)."""
    from django.db import connection

    conf = connection.settings_dict
    engine = conf["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        name = str(conf["NAME"])
        if name == ":memory:" or name.startswith("file:"):
            raise RuntimeError("A worker process cannot share an in-memory SQLite database.")
        return f"sqlite:///{Path(name).resolve()}"
    if engine == "django.db.backends.postgresql":
        user = quote(conf.get("USER") or "", safe="")
        password = quote(conf.get("PASSWORD") or "", safe="")
        credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = conf.get("HOST") or "127.0.0.1"
        port = f":{conf['PORT']}" if conf.get("PORT") else ""
        return f"postgres://{credentials}{host}{port}/{quote(str(conf['NAME']), safe='')}"
    raise RuntimeError(f"No DATABASE_URL mapping for database engine {engine!r}.")


@contextmanager
def private_celery_route(folder: Path, broker_url: str | None = None) -> Iterator[dict[str, str]]:
    """Point the in-process Celery app at a private queue (and a private filesystem broker folder).

    ``broker_url`` switches broker for the duration (default: the configured one). Yields the
    environment a worker needs to consume exactly those messages and share the result backend;
    restores the previous configuration afterwards. A Redis broker stays the same server,
    isolated by queue name.
    """
    from fivex_site.celery import app

    conf = app.conf
    keys = (
        "broker_url", "broker_transport_options", "task_default_queue", "result_backend",
        "task_routes",
    )  # fmt: skip
    saved = {key: conf[key] for key in keys}
    queue = f"fivex-test-{uuid.uuid4().hex[:12]}"
    # The routed queues (resolution, mail) are private too: "<queue>.resolution", ...
    # (The last dot-part names the role, also when this context nests in another one.)
    routes = {
        task: {"queue": f"{queue}.{str(route['queue']).rsplit('.', 1)[-1]}"}
        for task, route in (conf.task_routes or {}).items()
    }
    changes: dict[str, object] = {"task_default_queue": queue, "task_routes": routes}
    if broker_url and broker_url != conf.broker_url:
        changes["broker_url"] = broker_url
        changes["broker_transport_options"] = {}
        changes["result_backend"] = broker_url if broker_url.startswith("redis") else None
    url = str(changes.get("broker_url", conf.broker_url))
    env = {
        "CELERY_BROKER_URL": url,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "CELERY_RESOLUTION_QUEUE": f"{queue}.resolution",
        "CELERY_MAIL_QUEUE": f"{queue}.mail",
        # every queue the worker must consume, comma-separated
        "FIVEX_TEST_QUEUES": ",".join(
            [queue, *sorted({str(r["queue"]) for r in routes.values()})]
        ),
    }
    if url.startswith("filesystem:"):
        for sub in ("queue", "control", "results"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        changes["broker_transport_options"] = {
            "polling_interval": 0.1,
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "control_folder": str(folder / "control"),
        }
        changes["result_backend"] = f"file://{folder / 'results'}"
        env["CELERY_FILESYSTEM_BROKER_DIR"] = str(folder)
    result_backend = changes.get("result_backend", conf.result_backend)
    env["CELERY_RESULT_BACKEND"] = str(result_backend or "")
    _reconfigure_celery(app, changes)
    try:
        yield env
    finally:
        for name in env["FIVEX_TEST_QUEUES"].split(","):
            _purge_queue(app, name)
        _reconfigure_celery(app, saved)


def _reconfigure_celery(app, changes: dict[str, object]) -> None:
    """Apply conf changes and drop cached broker connections/routes so they take effect now."""
    from kombu import pools

    app.conf.update(changes)
    if "broker_url" in changes and "CELERY_BROKER_URL" in os.environ:
        # Celery prefers this variable over its configuration: keep it in step.
        os.environ["CELERY_BROKER_URL"] = str(changes["broker_url"])
    # kombu keeps pools in a global registry keyed by connection: closing only ours would hand
    # the same closed pool back the next time this broker URL is used.
    pools.reset()
    app._pool = None
    app.__dict__.pop("amqp", None)  # cached routing (default queue) and producer pool
    if "result_backend" in changes:  # the backend object is cached per app (or per thread)
        app._backend_cache = None
        app._local.__dict__.pop("backend", None)


def _purge_queue(app, queue: str) -> None:
    """Best effort: drop what is left in a private queue so Redis does not collect test junk."""
    try:
        with app.connection_for_write() as conn:
            # A broker that is not there (a test of an outage) is given up at once.
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.1, interval_max=0.1)
            channel = conn.default_channel
            channel.queue_purge(queue)
            channel.queue_delete(queue)
            if conn.transport.driver_type == "redis":  # the exchange's binding tables too
                channel.client.delete(
                    f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"
                )
    except Exception:  # noqa: BLE001 - cleanup only; the test result does not depend on it
        pass


@pytest.fixture(scope="session", autouse=True)
def _development_environment_named() -> None:
    """The suite is a development site named as ``make run`` names its own: the operator's
    commands it calls in-process (stuck_prompts, ...) do not refuse the development
    defaults of a run without DATABASE_URL (fivex_site/deployment.py)."""
    from django.conf import settings

    settings.FIVEX_ENV_NAMED = True


@pytest.fixture(scope="session", autouse=True)
def _private_celery_queue(tmp_path_factory) -> Iterator[dict[str, str]]:
    """Tasks the suite enqueues never reach a developer's `make run` worker or another run."""
    with private_celery_route(tmp_path_factory.mktemp("celery-session")) as env:
        yield env


@pytest.fixture
def private_celery_env(_private_celery_queue) -> dict[str, str]:
    """The environment a ``manage.py`` subprocess needs so that the tasks it enqueues go
    to this run's private queues (not a developer's ``var/celery`` or Redis queue)."""
    return dict(_private_celery_queue)


@dataclass
class CeleryWorker:
    """A running worker subprocess: its pid, queue, environment and log file."""

    process: subprocess.Popen
    queue: str
    env: dict[str, str]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        """Everything the worker wrote so far (handy in assertion messages)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _stop_process_group(process: subprocess.Popen, grace: float = 2.0) -> None:
    """SIGTERM the worker's process group; SIGKILL what is left after ``grace`` seconds.

    A warm Celery shutdown takes several seconds; a test's private queue needs none of it.
    """
    for signum, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def celery_broker_url() -> str | None:
    """The broker ``celery_worker_process`` uses; None = the configured one (override to switch)."""
    return None


@pytest.fixture
def celery_worker_env() -> dict[str, str]:
    """Extra environment for the worker (override to pass settings, e.g. {"ORDERS_DOMAIN": ...}).

    The worker is another process: ``settings`` overrides made in the test do not reach it.
    """
    return {}


@pytest.fixture
def celery_worker_process(
    request, transactional_db, tmp_path, celery_broker_url, celery_worker_env
) -> Iterator[CeleryWorker]:
    """Start a real Celery worker on the test database and a private queue; stop it afterwards.

    Use with ``transactional_db`` (requested here) so the worker sees committed rows. When the test
    also uses ``smtp_sink`` the worker sends its email there. Tasks the test process enqueues (also
    through ``transaction.on_commit``) go to this worker. Override ``celery_broker_url`` to pick a
    broker (e.g. ``@pytest.mark.parametrize("celery_broker_url", ["filesystem://"])``) and
    ``celery_worker_env`` to give the worker extra environment.
    """
    extra_env: dict[str, str] = dict(celery_worker_env)
    if "smtp_sink" in request.fixturenames:
        sink: SmtpSink = request.getfixturevalue("smtp_sink")
        extra_env.update(sink.env())
    with private_celery_route(tmp_path / "broker", celery_broker_url) as route_env:
        env = {
            **os.environ,
            **route_env,
            **extra_env,
            "DATABASE_URL": database_url_for_worker(),
            "DJANGO_SETTINGS_MODULE": "fivex_site.settings",
            "DJANGO_DEBUG": "false",
            "PYTHONUNBUFFERED": "1",
        }
        log_path = tmp_path / "worker.log"
        queue = route_env["CELERY_TASK_DEFAULT_QUEUE"]
        process = start_worker_process(
            env=env, queues=route_env["FIVEX_TEST_QUEUES"], hostname=queue, log_path=log_path
        )
        try:
            yield CeleryWorker(process=process, queue=queue, env=env, log_path=log_path)
        finally:
            _stop_process_group(process)


def start_worker_process(
    *, env: dict[str, str], queues: str, hostname: str, log_path: Path, pool: str = "solo"
) -> subprocess.Popen:
    """Start ``celery -A fivex_site worker`` (one process of ``pool``, consuming ``queues``,
    a comma-separated list) with ``env``, its output in ``log_path``, in a process group of
    its own (``_stop_process_group`` stops it); return once it says it is ready. A worker
    that exits or is not ready within WORKER_READY_TIMEOUT fails the test with its log."""
    command = [
        sys.executable, "-m", "celery", "-A", "fivex_site", "worker",
        "--pool", pool, "--concurrency", "1", "--queues", queues,
        "--hostname", f"{hostname}@%h", "--loglevel", "INFO",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + WORKER_READY_TIMEOUT
    while " ready." not in log_path.read_text(errors="replace"):
        code = process.poll()
        if code is not None or time.monotonic() > deadline:
            _stop_process_group(process)
            said = f"exited with {code}" if code is not None else f"not ready after {WORKER_READY_TIMEOUT}s"
            pytest.fail(f"Celery worker {said}:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.1)
    return process


# --------------------------------------------------------------------------- SMTP


@dataclass
class ReceivedMail:
    """One message the sink accepted: the SMTP envelope and the parsed message."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    raw: bytes


@dataclass
class SmtpSink:
    """A live SMTP server on 127.0.0.1; ``messages`` fills as mail arrives."""

    host: str
    port: int
    messages: list[ReceivedMail] = field(default_factory=list)
    _arrived: threading.Condition = field(default_factory=threading.Condition)

    def env(self) -> dict[str, str]:
        """Environment that makes another process (a worker) send its mail here."""
        return {
            "EMAIL_URL": "",
            "EMAIL_BACKEND": "",
            "EMAIL_HOST": self.host,
            "EMAIL_PORT": str(self.port),
            "EMAIL_HOST_USER": "",
            "EMAIL_HOST_PASSWORD": "",
            "EMAIL_USE_TLS": "false",
            "EMAIL_USE_SSL": "false",
        }

    def wait_for(self, count: int = 1, timeout: float = 10.0) -> list[ReceivedMail]:
        """Block until at least ``count`` messages arrived; fail the test after ``timeout``."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.messages) >= count, timeout):
                pytest.fail(
                    f"expected {count} email(s) within {timeout}s, got {len(self.messages)}"
                )
        return list(self.messages)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd hook)
        raw = envelope.original_content or envelope.content
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        with self._arrived:
            self.messages.append(
                ReceivedMail(envelope.mail_from, list(envelope.rcpt_tos), parsed, raw)  # type: ignore[arg-type]
            )
            self._arrived.notify_all()
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def smtp_server(settings, handler: object, port: int | None = None) -> Iterator[int]:
    """A real SMTP server (aiosmtpd, ``handler`` its hooks) on 127.0.0.1 for the block;
    the default mailer (SMTP backend) sends to it. Yields its port."""
    from aiosmtpd.controller import Controller

    port = port or _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "use_tls": False, "use_ssl": False},
        }
    }
    try:
        yield port
    finally:
        controller.stop()


@pytest.fixture
def smtp_sink(settings) -> Iterator[SmtpSink]:
    """A real SMTP server for this test; the default mailer (SMTP backend) sends to it."""
    sink = SmtpSink(host="127.0.0.1", port=_free_port())
    with smtp_server(settings, sink, port=sink.port):
        yield sink


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def _chromium() -> Iterator[object]:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(
            f"Chromium is not installed at {CHROMIUM} (run `make test` as root to install it)"
        )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; Django's ORM then refuses to run
    # unless told it is safe (it is: nothing else runs concurrently in this thread).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:  # noqa: BLE001 - a broken install is a skip reason, with the cause
        playwright.stop()
        pytest.skip(f"Chromium at {CHROMIUM} could not be started: {exc}")
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()


#: A phone held upright (390 x 844 CSS px), touch, as mobile Chromium lays it out (its
#: layout viewport grows with anything that sticks out, as a phone's does).
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 3}  # fmt: skip


@pytest.fixture
def phone_page(_chromium) -> Iterator[object]:
    """A fresh page in a phone's browser (``PHONE``), in a context of its own."""
    context = _chromium.new_context(**PHONE)  # type: ignore[attr-defined]
    context.set_default_timeout(10_000)
    # A page load may wait longer: the API docs' 1.5 MB of Swagger UI took over 10 s
    # from the test server while the machine ran two test processes and helpers.
    context.set_default_navigation_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def browser_page(_chromium) -> Iterator[object]:
    """A fresh Playwright page (own context: no cookies shared between tests) in headless Chromium.

    Use with pytest-django's ``live_server``: ``browser_page.goto(live_server.url + "/")``.
    """
    context = _chromium.new_context()  # type: ignore[attr-defined]
    context.set_default_timeout(10_000)
    # A page load may wait longer: the API docs' 1.5 MB of Swagger UI took over 10 s
    # from the test server while the machine ran two test processes and helpers.
    context.set_default_navigation_timeout(30_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()
