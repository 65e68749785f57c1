"""What a Celery worker or beat checks at start: which environment it runs in, said in
one log line, and a refusal to run on the development defaults by accident (a production
web server loading the site too).

With no environment at all FiveX is a development site: the SQLite file ``var/db.sqlite3``
and the embedded broker in ``var/celery/``. For the web server that is the zero-config
``make run``; for a worker or beat started on a production machine without the site's
environment (a systemd unit that lost its ``EnvironmentFile=``, a ``celery -A fivex_site
worker`` typed by hand) it meant a process that ran happily on a database and a queue of
its own, took no job and looked alive (gunicorn so started refused every request for the
site's host, while its /healthz said ok). So a worker or beat that was not told which
environment it belongs to (``FIVEX_ENV``, which ``make run`` passes its own) and would
fall back on either default refuses to start, with status ``EX_CONFIG`` and what to set,
and so does a web server other than Django's development server.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from kombu.utils.url import maybe_sanitize_url

logger = logging.getLogger(__name__)

#: sysexits.h's EX_CONFIG: the process's configuration is wrong (not a crash to retry).
REFUSED_EXIT_STATUS = 78


def _development_defaults_by_kind() -> dict[str, str]:
    """``development_defaults()`` by kind: ``database``, ``broker``."""
    defaults = {}
    if not settings.FIVEX_DATABASE_URL_SET:
        defaults["database"] = f"the SQLite file {settings.DATABASES['default']['NAME']} (no DATABASE_URL)"
    if not settings.FIVEX_BROKER_URL_SET:
        folder = getattr(settings, "FIVEX_FILESYSTEM_BROKER_DIR", "var/celery")
        defaults["broker"] = f"the embedded broker in {folder} (no CELERY_BROKER_URL)"
    return defaults


def development_defaults() -> list[str]:
    """The development defaults this process would fall back on, described: the SQLite
    file when ``DATABASE_URL`` is not set, the embedded broker when ``CELERY_BROKER_URL``
    is not."""
    return list(_development_defaults_by_kind().values())


def _defaults_without_fivex_env() -> list[str]:
    """``development_defaults()`` of a process given no ``FIVEX_ENV``; none when it was
    told its environment (a development site says so, and then uses them on purpose)."""
    return [] if settings.FIVEX_ENV_NAMED else development_defaults()


def refusal(process: str) -> str | None:
    """Why ``process`` (``"worker"``, ``"beat"``: Celery's; ``"web server"``) must not
    start, or None: it was given no ``FIVEX_ENV`` and would use a development default."""
    defaults = _defaults_without_fivex_env()
    if not defaults:
        return None
    if process == "web server":
        what = ("this web server was started without FIVEX_ENV", "answer 400 to every request "
                "for the site's own host while its /healthz says ok")  # fmt: skip
        development = ("A development site: FIVEX_ENV=development, or `make run`, which "
                       "serves one with nothing set.")  # fmt: skip
    else:
        what = (f"this Celery {process} was started without FIVEX_ENV",
                "take no job while looking alive")  # fmt: skip
        development = (f"A development {process} beside `manage.py runserver`: FIVEX_ENV="
                       "development (`make run` starts its own worker and beat).")  # fmt: skip
    return (
        f"FiveX: {what[0]} and would run on {' and '.join(defaults)}, which no site of "
        f"several processes shares: it would {what[1]}. Give it the site's environment "
        "(FIVEX_ENV=production and the rest, e.g. the systemd unit's EnvironmentFile= or "
        f"the .env file beside manage.py). {development}\n"
    )


#: sysexits.h's EX_TEMPFAIL: an MTA keeps the message and delivers it again later.
TEMPORARY_FAILURE_EXIT_STATUS = 75

_NO_SITE_DATABASE = "a database no site uses"

#: The operator's commands that write the site's state (or report on it), each with what
#: it would do if run on the development defaults by accident, and the defaults that
#: matter to it: ``database`` (no ``DATABASE_URL``), ``broker`` (no ``CELERY_BROKER_URL``);
#: none: the development settings themselves (collectstatic's storage follows FIVEX_ENV).
COMMANDS_FOR_A_SITE: dict[str, tuple[str, tuple[str, ...]]] = {
    "stuck_prompts": (f"say 'nothing stuck' (exit 0) of {_NO_SITE_DATABASE}", ("database", "broker")),
    "mfa_secrets_reencrypt": (f"re-encrypt the secrets of {_NO_SITE_DATABASE}, and the old "
                              "SECRET_KEY, once dropped, would leave every two-factor secret "
                              "unreadable", ("database", "broker")),
    "migrate": ("migrate a SQLite file no site uses and say OK, the site's database left as "
                "it was", ("database",)),
    "collectstatic": ("collect the static files without the manifest production's storage "
                      "serves them by: every page of a production web server would then fail",
                      ()),
    "createsuperuser": (f"create the account in {_NO_SITE_DATABASE}", ("database",)),
    "changepassword": (f"change the password in {_NO_SITE_DATABASE}", ("database",)),
    "loaddata": (f"load the data into {_NO_SITE_DATABASE}", ("database",)),
    "flush": (f"empty {_NO_SITE_DATABASE}", ("database",)),
    "clearsessions": (f"clear the sessions of {_NO_SITE_DATABASE}", ("database",)),
    "recompute_ratings": (f"recompute the ratings of {_NO_SITE_DATABASE}", ("database",)),
    "runsmtpd": (f"refuse the seats' order mail as addressed to nobody (550), looked up in "
                 f"{_NO_SITE_DATABASE}", ("database", "broker")),
    "ingest_email": (f"bounce the seats' order mail as addressed to nobody, looked up in "
                     f"{_NO_SITE_DATABASE} (refused instead with EX_TEMPFAIL: the MTA keeps "
                     "the message and delivers it again)", ("database", "broker")),
}  # fmt: skip

#: The status a command's refusal exits with when not ``REFUSED_EXIT_STATUS``.
_REFUSED_STATUS = {"ingest_email": TEMPORARY_FAILURE_EXIT_STATUS}


def _command_refusal(name: str) -> str | None:
    """Why the operator's command ``name`` must not run, or None (not one of
    ``COMMANDS_FOR_A_SITE``, or given ``FIVEX_ENV``, or no default it depends on is used)."""
    if name not in COMMANDS_FOR_A_SITE or settings.FIVEX_ENV_NAMED:
        return None
    would, matter = COMMANDS_FOR_A_SITE[name]
    defaults = [text for kind, text in _development_defaults_by_kind().items() if kind in matter]
    if not matter:
        defaults = ["the development settings (FIVEX_ENV defaults to development)"]
    if not defaults:
        return None
    return (
        f"FiveX: `manage.py {name}` was started without FIVEX_ENV and would run on "
        f"{' and '.join(defaults)}: it would {would}. Give it the site's environment (e.g. "
        "`set -a; . /etc/fivex.env; set +a` in this shell, or the .env file beside "
        "manage.py); on a development site, FIVEX_ENV=development."
    )


def refuse_for_a_command(name: str) -> None:
    """``_command_refusal`` for the operator's command ``name`` as a CommandError with status
    ``REFUSED_EXIT_STATUS`` (``ingest_email``'s: ``TEMPORARY_FAILURE_EXIT_STATUS``), for the
    commands that check it themselves (also when called in-process)."""
    from django.core.management.base import CommandError

    reason = _command_refusal(name)
    if reason is not None:
        raise CommandError(reason, returncode=_REFUSED_STATUS.get(name, REFUSED_EXIT_STATUS))


def refuse_an_operators_command(argv: list[str]) -> None:
    """``manage.py``'s check before it runs a command (``argv`` its command line): one of
    ``COMMANDS_FOR_A_SITE`` given no ``FIVEX_ENV`` on a default it depends on exits with
    ``REFUSED_EXIT_STATUS`` (``ingest_email``: ``TEMPORARY_FAILURE_EXIT_STATUS``), the reason
    on standard error. Asking for a command's help is left alone. (Django's own commands,
    ``migrate``, ``collectstatic``, ``createsuperuser``, ..., are checked here: run from a
    shell that lacked the supervisor's environment file they wrote the development SQLite
    file or files and said OK.)"""
    if len(argv) < 2 or any(arg in ("-h", "--help") for arg in argv[2:]):
        return
    reason = _command_refusal(argv[1])
    if reason is None:
        return
    sys.stderr.write(f"CommandError: {reason}\n")
    sys.stderr.flush()
    raise SystemExit(_REFUSED_STATUS.get(argv[1], REFUSED_EXIT_STATUS))


def refuse_on_a_production_web_server() -> None:
    """``refusal`` for a web server loading the site's WSGI or ASGI application (gunicorn,
    uvicorn, ...), raised as ImproperlyConfigured: the server reports it and stops.
    Django's development server (``runserver``: ``make run``) is left alone."""
    if "django.core.management.commands.runserver" in sys.modules:
        return
    reason = refusal("web server")
    if reason is not None:
        raise ImproperlyConfigured(reason.strip())


def _environment() -> str:
    return f"{settings.FIVEX_ENV} environment" + (
        "" if settings.FIVEX_ENV_NAMED else " (FIVEX_ENV not set)"
    )


def _database(database: dict) -> str:
    """``postgresql db.example.org:5432/fivex``, ``sqlite3 /srv/fivex/var/db.sqlite3``."""
    where = str(database.get("NAME") or "")
    if database.get("HOST"):
        port = f":{database['PORT']}" if database.get("PORT") else ""
        where = f"{database['HOST']}{port}/{where}"
    return f"{database['ENGINE'].rsplit('.', 1)[-1]} {where}"


def describe(process: str) -> str:
    """One line saying what the ``process`` runs on: environment, database, broker."""
    return (
        f"FiveX {process}: {_environment()}, database {_database(settings.DATABASES['default'])}, "
        f"broker {maybe_sanitize_url(settings.CELERY_BROKER_URL)}"
    )


def say_which_database_is_migrated(sender, verbosity: int = 1, stdout=None, using: str = "default",  # noqa: ANN001
                                   **kwargs) -> None:  # fmt: skip
    """``pre_migrate`` (once: for the ``games`` app; the signal skips apps without
    models, this one's): ``migrate`` names the database it works on before it does.
    Run from a shell without the supervisor's environment file it migrated the
    development ``var/db.sqlite3`` and said OK, as if it had been the site's."""
    if sender.label != "games" or verbosity < 1 or stdout is None:
        return
    from django.db import connections

    stdout.write(f"Database: {_database(connections[using].settings_dict)}, {_environment()}\n")


def refuse_development_defaults(process: str) -> None:
    """Exit with ``REFUSED_EXIT_STATUS``, the reason on standard error (logging may not be
    set up yet), when ``refusal`` says so."""
    reason = refusal(process)
    if reason is None:
        return
    # The process's own standard error: the beat has made sys.stderr a logger by now,
    # which drops this below its level.
    sys.__stderr__.write(reason)
    sys.__stderr__.flush()
    raise SystemExit(REFUSED_EXIT_STATUS)


def log_what_it_runs_on(process: str) -> None:
    """``describe``'s line in the log, at INFO."""
    logger.info("%s", describe(process))
