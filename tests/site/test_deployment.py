"""A Celery worker or beat started without the site's environment refuses to run on the
development defaults (fivex_site/deployment.py); one that starts says what it runs on."""

import os
import socket
import subprocess
import sys
import weakref
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError

from fivex_site import deployment
from fivex_site.deployment import REFUSED_EXIT_STATUS, refusal

ROOT = Path(__file__).resolve().parent.parent.parent
# What a systemd unit that lost its EnvironmentFile= no longer has.
SITE_ENVIRONMENT = (
    "FIVEX_ENV", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND",
    "CELERY_TASK_DEFAULT_QUEUE", "CELERY_RESOLUTION_QUEUE", "CELERY_MAIL_QUEUE",
    "CELERY_FILESYSTEM_BROKER_DIR",
)  # fmt: skip


def _start(command: list[str], tmp_path: Path, **env: str) -> tuple[int | None, str]:
    """Run ``celery -A fivex_site <command>`` (a ``-m`` module's command when it starts
    with ``-m``) with none of the site's environment but ``env``; its exit status (None:
    still running after 30 s, then stopped) and output."""
    clean = {k: v for k, v in os.environ.items() if k not in SITE_ENVIRONMENT}
    clean.update(env, DJANGO_SETTINGS_MODULE="fivex_site.settings",
                 CELERY_BEAT_SCHEDULE_FILENAME=str(tmp_path / "beat-schedule"))  # fmt: skip
    log = tmp_path / "celery.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, *(command if command[0] == "-m" else ["-m", "celery", "-A", "fivex_site", *command])],
            cwd=ROOT, env=clean, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    try:
        status = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait()
    return status, log.read_text(errors="replace")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


WORKER = ["worker", "--pool", "solo", "--without-gossip", "--without-mingle", "--without-heartbeat"]


def test_a_worker_without_the_environment_refuses_the_development_defaults(tmp_path) -> None:
    # It ran on var/db.sqlite3 and var/celery, took no job and looked alive. The process
    # itself (celery's command line, the settings read from its environment, its exit
    # status); the beat and a worker given only a database: the next test, in-process.
    status, output = _start(WORKER, tmp_path)
    assert status == REFUSED_EXIT_STATUS, output[-3000:]
    assert "started without FIVEX_ENV" in output
    assert "EnvironmentFile=" in output and "FIVEX_ENV=development" in output
    assert "embedded broker" in output and "the SQLite file" in output


def _connected(signal, receiver) -> bool:
    return any(
        (ref() if isinstance(ref, weakref.ReferenceType) else ref) is receiver
        for _, ref in signal.receivers
    )  # fmt: skip


class _LoggerStream:
    """What the beat makes of sys.stderr by then: a logger's stream, below its level."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    ("process", "database_set"),
    [
        ("beat", False),  # the unit's EnvironmentFile= lost: nothing at all
        # Only the database named (the unit's own Environment= line): the queue would be
        # the machine's own folder, where no web server puts anything.
        ("worker", True),
    ],
    ids=["beat", "worker with a database but no broker"],
)
def test_a_worker_or_beat_refuses_at_its_start_signal(
    settings, capfd, monkeypatch, process, database_set
) -> None:
    # Each was a Celery process of its own (~4 s of CPU each to start and refuse): the
    # refusal is the receiver of the signal that process sends at start (celeryd_init,
    # beat_init), checked here in-process; the process boundary: the test above.
    from celery import signals

    from fivex_site import celery as site_celery

    signal, receiver = {
        "worker": (signals.celeryd_init, site_celery._worker_environment_named),
        "beat": (signals.beat_init, site_celery._beat_environment_named),
    }[process]
    assert _connected(signal, receiver)
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = database_set
    settings.FIVEX_BROKER_URL_SET = False
    monkeypatch.setattr(sys, "stderr", _LoggerStream())
    with pytest.raises(SystemExit) as refused:
        receiver(sender=None)
    assert refused.value.code == REFUSED_EXIT_STATUS
    output = capfd.readouterr().err  # the process's own standard error
    assert f"this Celery {process} was started without FIVEX_ENV" in output
    assert "EnvironmentFile=" in output and "FIVEX_ENV=development" in output
    assert "embedded broker" in output
    assert ("the SQLite file" in output) is not database_set
    settings.FIVEX_ENV_NAMED = True  # FIVEX_ENV=development: it starts
    receiver(sender=None)


def test_a_web_server_without_the_environment_refuses_the_development_defaults(tmp_path) -> None:
    # gunicorn so started answered 400 to every request for the site's host (its allowed
    # host was 127.0.0.1) while its /healthz said ok to the load balancer.
    gunicorn = ["-m", "gunicorn", "fivex_site.wsgi", "--bind", f"127.0.0.1:{_free_port()}",
                "--workers", "1", "--no-control-socket"]  # fmt: skip
    status, output = _start(gunicorn, tmp_path)
    assert status is not None and status != 0, output[-3000:]
    assert "this web server was started without FIVEX_ENV" in output
    assert "Worker failed to boot" in output  # gunicorn stops, not a loop of workers


def test_the_development_server_is_not_refused(settings, monkeypatch) -> None:
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = False
    monkeypatch.delitem(sys.modules, "django.core.management.commands.runserver", raising=False)
    with pytest.raises(ImproperlyConfigured, match="web server was started without FIVEX_ENV"):
        deployment.refuse_on_a_production_web_server()
    monkeypatch.setitem(sys.modules, "django.core.management.commands.runserver", sys)
    deployment.refuse_on_a_production_web_server()  # make run, manage.py runserver


def test_refusal_needs_both_no_environment_named_and_a_default(settings) -> None:
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = True
    settings.FIVEX_BROKER_URL_SET = True
    assert refusal("worker") is None  # everything it needs named: it runs
    settings.FIVEX_BROKER_URL_SET = False
    assert "the embedded broker" in refusal("worker")
    assert "SQLite" not in refusal("worker")
    settings.FIVEX_DATABASE_URL_SET = False
    assert "the SQLite file" in refusal("beat") and "Celery beat" in refusal("beat")
    settings.FIVEX_ENV_NAMED = True  # FIVEX_ENV=development, as make run passes it
    assert refusal("worker") is None


def test_the_line_a_worker_logs_names_its_environment_database_and_broker(monkeypatch) -> None:
    production = SimpleNamespace(
        FIVEX_ENV="production", FIVEX_ENV_NAMED=True,
        DATABASES={"default": {
            "ENGINE": "django.db.backends.postgresql", "NAME": "fivex", "HOST": "db.example.org",
            "PORT": 5432, "USER": "fivex", "PASSWORD": "secret",
        }},
        CELERY_BROKER_URL="redis://:hunter2@redis.example.org:6379/0",
    )  # fmt: skip
    monkeypatch.setattr(deployment, "settings", production)
    line = deployment.describe("worker")
    assert line.startswith("FiveX worker: production environment, ")
    assert "postgresql db.example.org:5432/fivex" in line
    assert "redis.example.org:6379/0" in line
    assert "secret" not in line and "hunter2" not in line


@pytest.mark.worker
def test_a_started_worker_logs_what_it_runs_on(celery_worker_process) -> None:
    log = celery_worker_process.log()
    assert "FiveX worker: development environment" in log
    assert ", database sqlite3 " in log or ", database postgresql " in log


def test_make_run_names_the_development_environment_for_its_worker_and_beat() -> None:
    # make run (runall) with nothing configured: its own worker and beat must not refuse.
    from fivex_site.management.commands.runall import children_environment

    assert children_environment("127.0.0.1:8000", {})["FIVEX_ENV"] == "development"
    named = children_environment("127.0.0.1:8000", {"FIVEX_ENV": "production"})
    assert named["FIVEX_ENV"] == "production"


def _manage_in_process(arguments: list[str], settings, monkeypatch) -> int | None:
    """``manage.py ARGUMENTS`` run as its own script in this process, on settings as a
    process given none of the site's environment reads them (the process itself, its
    settings read from its environment: ``test_a_command_that_writes_the_sites_state_
    refuses_without_the_environment``); its exit status (None: it returned)."""
    import runpy

    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = False
    settings.FIVEX_BROKER_URL_SET = False
    monkeypatch.setattr(sys, "argv", ["manage.py", *arguments])
    try:
        runpy.run_path(str(ROOT / "manage.py"), run_name="__main__")
    except SystemExit as exited:
        return exited.code
    return None


@pytest.mark.parametrize("command", ["stuck_prompts", "mfa_secrets_reencrypt"])
def test_an_operators_command_without_the_environment_refuses_the_development_defaults(
    command, settings, monkeypatch, capsys
) -> None:
    # Run from a shell without the supervisor's environment file, stuck_prompts said
    # "nothing stuck" (exit 0, a cron check's all clear) of the development database.
    status = _manage_in_process([command], settings, monkeypatch)
    said = capsys.readouterr()
    assert status == REFUSED_EXIT_STATUS, said.out + said.err[-3000:]
    assert f"`manage.py {command}` was started without FIVEX_ENV" in said.err
    assert "the embedded broker" in said.err and "/etc/fivex.env" in said.err
    assert "nothing stuck" not in said.out


def test_an_operators_command_runs_once_the_environment_is_named(settings) -> None:
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = True
    settings.FIVEX_BROKER_URL_SET = True
    deployment.refuse_for_a_command("stuck_prompts")  # everything named: no refusal
    settings.FIVEX_BROKER_URL_SET = False
    with pytest.raises(CommandError) as refused:
        deployment.refuse_for_a_command("stuck_prompts")
    assert refused.value.returncode == REFUSED_EXIT_STATUS
    settings.FIVEX_ENV_NAMED = True  # FIVEX_ENV=development
    deployment.refuse_for_a_command("stuck_prompts")


@pytest.mark.django_db
def test_migrate_names_the_database_it_works_on(settings) -> None:
    # From a shell without the environment file, migrate worked on var/db.sqlite3 and
    # said OK as if it had been the site's database.
    from io import StringIO

    from django.core.management import call_command
    from django.db import connection

    settings.FIVEX_ENV_NAMED = False
    out = StringIO()
    call_command("migrate", verbosity=1, stdout=out)
    lines = out.getvalue().splitlines()
    [said] = [line for line in lines if line.startswith("Database: ")]
    assert said.startswith(f"Database: {connection.vendor}")
    assert str(connection.settings_dict["NAME"]) in said
    assert said.endswith(", development environment (FIVEX_ENV not set)")
    # before what it does to it
    assert lines.index(said) < lines.index("Running migrations:")


def _manage(arguments: list[str], **env: str) -> subprocess.CompletedProcess:
    """``manage.py ARGUMENTS`` with none of the site's environment but ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in SITE_ENVIRONMENT}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=clean, capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_command_that_writes_the_sites_state_refuses_without_the_environment() -> None:
    # It migrated var/db.sqlite3 and said OK ("--plan" only lists: nothing is written
    # should the refusal be missing). A process of its own: the settings it reads from an
    # environment without the site's, manage.py's check, its exit status.
    done = _manage(["migrate", "--plan"])
    assert done.returncode == REFUSED_EXIT_STATUS, done.stdout + done.stderr[-3000:]
    assert "`manage.py migrate` was started without FIVEX_ENV" in done.stderr
    assert "migrate a SQLite file no site uses" in done.stderr
    assert "/etc/fivex.env" in done.stderr and "FIVEX_ENV=development" in done.stderr
    assert "Running migrations" not in done.stdout and "Operations to perform" not in done.stdout


def test_collectstatic_without_the_environment_refuses(settings, monkeypatch, capsys) -> None:
    # It copied the files without the manifest production's storage serves them by
    # ("--dry-run": nothing is copied should the refusal be missing).
    status = _manage_in_process(["collectstatic", "--noinput", "--dry-run"], settings, monkeypatch)
    said = capsys.readouterr()
    assert status == REFUSED_EXIT_STATUS, said.out + said.err[-3000:]
    assert "`manage.py collectstatic` was started without FIVEX_ENV" in said.err
    assert "without the manifest" in said.err
    assert "/etc/fivex.env" in said.err and "FIVEX_ENV=development" in said.err
    assert "static file" not in said.out  # collectstatic's own summary


def test_an_mta_pipe_without_the_environment_keeps_the_message_for_later(
    settings, monkeypatch, capsys
) -> None:
    # ingest_email run by the MTA without the site's environment looked the address up in
    # the development database: unknown there, the order was bounced (67) for good.
    status = _manage_in_process(["ingest_email", "orders+abc@orders.example.org"], settings, monkeypatch)
    said = capsys.readouterr()
    assert status == 75, said.out + said.err[-3000:]  # EX_TEMPFAIL: kept, retried
    assert "`manage.py ingest_email` was started without FIVEX_ENV" in said.err


def test_a_command_runs_on_the_database_named_without_the_environment(settings, capsys) -> None:
    # The database named is the operator's choice: migrate it (its Database: line says
    # "FIVEX_ENV not set"). collectstatic's storage follows FIVEX_ENV alone: still refused.
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = True
    settings.FIVEX_BROKER_URL_SET = False
    for command in ("migrate", "createsuperuser", "recompute_ratings"):
        deployment.refuse_an_operators_command(["manage.py", command])
    for command in ("collectstatic", "runsmtpd", "stuck_prompts"):  # (these two: the broker)
        with pytest.raises(SystemExit):
            deployment.refuse_an_operators_command(["manage.py", command])
    assert "the embedded broker" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", ["createsuperuser", "changepassword", "loaddata", "flush", "recompute_ratings", "runsmtpd"]
)
def test_each_command_that_writes_the_sites_state_is_refused_on_the_development_database(
    settings, command, capsys
) -> None:
    settings.FIVEX_ENV_NAMED = False
    settings.FIVEX_DATABASE_URL_SET = False
    with pytest.raises(SystemExit) as refused:
        deployment.refuse_an_operators_command(["manage.py", command])
    assert refused.value.code == REFUSED_EXIT_STATUS
    assert f"`manage.py {command}` was started without FIVEX_ENV" in capsys.readouterr().err
    settings.FIVEX_ENV_NAMED = True  # FIVEX_ENV=development: a development site's own
    deployment.refuse_an_operators_command(["manage.py", command])
    settings.FIVEX_ENV_NAMED = False
    deployment.refuse_an_operators_command(["manage.py", "help", command])  # only asks
    deployment.refuse_an_operators_command(["manage.py", command, "--help"])
    deployment.refuse_an_operators_command(["manage.py", "showmigrations"])  # only reads
    deployment.refuse_an_operators_command(["manage.py"])


def _database_url(database: dict) -> str:
    if database["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{database['NAME']}"
    return (f"postgres://{database['USER']}:{database['PASSWORD']}@{database['HOST']}:"
            f"{database['PORT'] or 5432}/{database['NAME']}")  # fmt: skip


def test_make_names_the_development_environment_for_its_commands(tmp_path, django_db_setup) -> None:
    # `make run`, `make migrate`, `make demo` with nothing configured: their manage.py
    # commands are told FIVEX_ENV=development and so are not refused.
    from django.db import connection

    stamp = tmp_path / "installed"
    stamp.touch()  # newer than pyproject.toml: nothing to install
    clean = {k: v for k, v in os.environ.items() if k not in SITE_ENVIRONMENT and not k.startswith("MAKE")}
    # The test database, migrated already (not the checkout's var/db.sqlite3).
    clean["DATABASE_URL"] = _database_url(connection.settings_dict)
    done = subprocess.run(
        ["make", "--no-print-directory", "migrate", f"PY={sys.executable}", f"STAMP={stamp}"],
        cwd=ROOT, env=clean, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [said] = [line for line in done.stdout.splitlines() if line.startswith("Database: ")]
    assert said.endswith(f"/{connection.settings_dict['NAME']}, development environment"), said
