"""Settings resolve from the environment: safe defaults with nothing set, real services when set."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
# A production key as the README makes one (production refuses Django's weak keys).
KEY = "q3VbX9-fT2kLm8Rz_Wc4Yp7Hn1Jd6Gs0Ae5Ui2Oo9Bt3Nv8Mx4Zk7Ql1Pw6Er0Ty5"
CONTROLLED = (
    "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_DEFAULT_QUEUE",
    "CELERY_FILESYSTEM_BROKER_DIR", "EMAIL_URL", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_BACKEND",
    "EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "FIVEX_ENV",
    "SECRET_KEY", "DJANGO_DEBUG", "DJANGO_ALLOWED_HOSTS", "FIVEX_BASE_URL", "ORDERS_DOMAIN",
    "ACCOUNT_EMAIL_VERIFICATION", "DEFAULT_FROM_EMAIL", "ADMINS", "TRUSTED_PROXY_COUNT",
    "TRUSTED_CLIENT_IP_HEADER", "SECRET_KEY_FALLBACKS", "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_SSL_REDIRECT",
)  # fmt: skip
PRINT_SETTINGS = """
import json
import fivex_site.settings as s
db = s.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "host": db.get("HOST"), "port": db.get("PORT"),
    "user": db.get("USER"), "test_name": str(db.get("TEST", {}).get("NAME")),
    "broker": s.CELERY_BROKER_URL, "result_backend": s.CELERY_RESULT_BACKEND,
    "transport_options": s.CELERY_BROKER_TRANSPORT_OPTIONS,
    "beat": {k: [v["task"], v["schedule"]] for k, v in s.CELERY_BEAT_SCHEDULE.items()},
    "mailer": s.MAILERS["default"], "from": s.DEFAULT_FROM_EMAIL,
    "redirect_level": s.CELERY_WORKER_REDIRECT_STDOUTS_LEVEL,
    "debug": s.DEBUG, "env": s.FIVEX_ENV, "verification": s.ACCOUNT_EMAIL_VERIFICATION,
    "secure_cookies": [s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE],
    "allowed_hosts": s.ALLOWED_HOSTS, "orders_domain": s.ORDERS_DOMAIN,
    "orders_prefix": s.ORDERS_ADDRESS_PREFIX, "base_url": s.FIVEX_BASE_URL,
    "max_extensions": s.GAMES_MAX_DEADLINE_EXTENSIONS,
    "default_deadline": s.GAMES_DEFAULT_DEADLINE_HOURS,
    "rest": s.REST_FRAMEWORK, "apps": s.INSTALLED_APPS,
    "ssl_redirect": getattr(s, "SECURE_SSL_REDIRECT", False),
    "redirect_exempt": getattr(s, "SECURE_REDIRECT_EXEMPT", []),
    "anymail": s.ANYMAIL, "admins": s.ADMINS,
    "proxies": [s.ALLAUTH_TRUSTED_PROXY_COUNT, s.ALLAUTH_TRUSTED_CLIENT_IP_HEADER],
}))
"""


# One interpreter per test module that has imported what the settings import (Django,
# Celery, kombu, django-environ: ~1.5 s of CPU to start each time) but nothing of FiveX;
# each resolve() runs in a fork of it, given only its ``env`` and its own output: a
# process that imports fivex_site.settings for the first time, as a fresh one does.
RESOLVER = r"""
import json, os, sys, tempfile, traceback
import celery, celery.signals, django, django.conf, django.core.exceptions, django.utils.csp
import environ, kombu.transport
requests, answers = sys.stdin, sys.stdout
for line in requests:
    request = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        answers.flush()
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.stdin = open(os.devnull)
            os.environ.clear()
            os.environ.update(request["env"])
            status = 0
            try:
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
            except SystemExit as exc:
                if isinstance(exc.code, int) or exc.code is None:
                    status = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    status = 1
            except BaseException:
                traceback.print_exc()
                status = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(status)
        _, waited = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        answers.write(json.dumps({
            "returncode": os.waitstatus_to_exitcode(waited),
            "stdout": out.read().decode(errors="replace"),
            "stderr": err.read().decode(errors="replace"),
        }) + "\n")
        answers.flush()
"""


@pytest.fixture(scope="module", autouse=True)
def _resolver() -> Iterator[None]:
    clean = {k: v for k, v in os.environ.items() if k not in CONTROLLED}
    process = subprocess.Popen(
        [sys.executable, "-c", RESOLVER], cwd=ROOT, env=clean, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    _resolvers.append(process)
    yield
    _resolvers.remove(process)
    process.stdin.close()
    process.wait(timeout=30)


_resolvers: list[subprocess.Popen] = []


def resolve(code: str = PRINT_SETTINGS, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` (by default: print the settings) in a fresh process with only ``env``
    configured (a fork of the module's resolver, which has imported no FiveX module)."""
    clean = {k: v for k, v in os.environ.items() if k not in CONTROLLED}
    clean.update(env, DJANGO_SETTINGS_MODULE="fivex_site.settings")
    [resolver] = _resolvers
    resolver.stdin.write(json.dumps({"code": code, "env": clean}) + "\n")
    resolver.stdin.flush()
    answer = json.loads(resolver.stdout.readline())
    return subprocess.CompletedProcess([sys.executable, "-c", code], answer["returncode"],
                                       answer["stdout"], answer["stderr"])  # fmt: skip


def settings_with(**env: str) -> dict:
    done = resolve(**env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_defaults_use_sqlite_and_the_embedded_broker_under_var() -> None:
    s = settings_with()
    assert s["engine"] == "django.db.backends.sqlite3"
    assert s["name"] == str(ROOT / "var" / "db.sqlite3")
    # The test database is a file a worker process can open too.
    assert s["test_name"].startswith(str(ROOT / "var" / "test-"))
    assert s["broker"] == "filesystem://"
    queue_dir = ROOT / "var" / "celery" / "queue"
    assert s["transport_options"]["data_folder_in"] == str(queue_dir)
    assert s["transport_options"]["data_folder_out"] == str(queue_dir)
    assert queue_dir.is_dir()  # created automatically
    assert s["result_backend"] == f"file://{ROOT / 'var' / 'celery' / 'results'}"
    assert s["mailer"] == {"BACKEND": "fivex_site.devmail.EmailBackend"}
    assert s["redirect_level"] == "INFO"  # what tasks print is no warning
    assert s["env"] == "development" and s["debug"] is True
    assert s["verification"] == "optional"
    assert s["secure_cookies"] == [False, False]
    assert (s["orders_domain"], s["orders_prefix"]) == ("orders.localhost", "orders")
    assert s["base_url"] == "http://127.0.0.1:8000"
    assert (s["max_extensions"], s["default_deadline"]) == (3, 48)


def test_beat_runs_the_game_sweeps_on_schedule() -> None:
    beat = settings_with()["beat"]
    assert beat["enforce-deadlines"] == ["games.tasks.enforce_deadlines", 60.0]
    assert beat["send-reminders"] == ["games.tasks.send_reminders", 300.0]
    assert beat["send-turn-summaries"] == ["games.tasks.send_turn_summaries", 300.0]
    assert beat["send-outbox"] == ["games.tasks.send_outbox", 60.0]


def test_environment_selects_postgresql_and_redis() -> None:
    s = settings_with(
        DATABASE_URL="postgres://fx:s3cret@db.example.org:5433/fivex_prod",
        CELERY_BROKER_URL="redis://cache.example.org:6379/3",
    )
    assert s["engine"] == "django.db.backends.postgresql"
    assert (s["name"], s["host"], s["port"], s["user"]) == (
        "fivex_prod", "db.example.org", 5433, "fx",
    )  # fmt: skip
    assert s["broker"] == "redis://cache.example.org:6379/3"
    assert s["result_backend"] == "redis://cache.example.org:6379/3"
    assert s["transport_options"] == {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}


def test_smtp_from_separate_variables() -> None:
    s = settings_with(
        EMAIL_HOST="smtp.example.org", EMAIL_PORT="587", EMAIL_HOST_USER="mailer",
        EMAIL_HOST_PASSWORD="pw", DEFAULT_FROM_EMAIL="FiveX <games@example.org>",
    )  # fmt: skip
    assert s["mailer"]["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    options = s["mailer"]["OPTIONS"]
    assert (options["host"], options["port"], options["username"]) == (
        "smtp.example.org",
        587,
        "mailer",
    )
    assert options["use_tls"] is True and options["use_ssl"] is False
    assert s["from"] == "FiveX <games@example.org>"


def test_smtp_from_email_url() -> None:
    s = settings_with(EMAIL_URL="smtp+ssl://bot:pw@mail.example.org:465")
    options = s["mailer"]["OPTIONS"]
    assert s["mailer"]["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (options["host"], options["port"], options["use_ssl"]) == ("mail.example.org", 465, True)


# What every production machine names: the shared database, broker and reply domain.
SERVICES = {
    "DATABASE_URL": "postgres://fivex:pw@db.example.org:5432/fivex",
    "CELERY_BROKER_URL": "redis://redis.example.org:6379/0",
    "ORDERS_DOMAIN": "orders.example.org",
}
READY = {"FIVEX_BASE_URL": "https://fivex.example.org", "EMAIL_URL": "smtp://mail.example.org:25"}


@pytest.mark.parametrize(
    ("missing", "said"),
    [
        ("DATABASE_URL", "FIVEX_ENV=production needs DATABASE_URL"),
        ("CELERY_BROKER_URL", "FIVEX_ENV=production needs CELERY_BROKER_URL"),
        ("ORDERS_DOMAIN", "FIVEX_ENV=production needs ORDERS_DOMAIN"),
    ],
)
def test_production_names_its_shared_services(missing: str, said: str) -> None:
    """An operations audit: production without DATABASE_URL or CELERY_BROKER_URL ran on a
    SQLite file and a queue directory of each machine's own (a worker machine that forgot
    one worked on another database, silently), and without ORDERS_DOMAIN it gave players
    reply addresses at orders.localhost. Each is refused by name; set but empty counts
    as missing; a single machine may still name SQLite and the embedded broker."""
    env = {**PRODUCTION, **READY}
    done = resolve(**{k: v for k, v in env.items() if k != missing})
    assert done.returncode != 0 and said in done.stderr, done.stderr[-500:]
    done = resolve(**{**env, missing: ""})
    assert done.returncode != 0 and said in done.stderr, done.stderr[-500:]
    one = settings_with(**{**env, "DATABASE_URL": "sqlite:////tmp/fivex-one.sqlite3",
                           "CELERY_BROKER_URL": "filesystem://"})  # fmt: skip
    assert (one["engine"], one["broker"]) == ("django.db.backends.sqlite3", "filesystem://")


def test_settings_refuse_a_broker_address_that_is_no_url_and_take_an_empty_database_url() -> None:
    done = resolve(CELERY_BROKER_URL="redis//127.0.0.1:6379/9")
    assert done.returncode != 0
    assert "CELERY_BROKER_URL 'redis//127.0.0.1:6379/9' is not a URL" in done.stderr
    # `DATABASE_URL=` in an env file: the default (it crashed with KeyError: 'ENGINE').
    assert settings_with(DATABASE_URL="")["engine"] == "django.db.backends.sqlite3"
    # A Redis broker that takes the connection but never answers: commands time out.
    options = settings_with(CELERY_BROKER_URL="redis://127.0.0.1:6379/9")["transport_options"]
    assert options == {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}


def test_production_requires_a_secret_key() -> None:
    done = resolve(FIVEX_ENV="production")
    assert done.returncode != 0
    assert "FIVEX_ENV=production needs the SECRET_KEY environment variable" in done.stderr


def test_production_is_strict() -> None:
    s = settings_with(
        FIVEX_ENV="production", SECRET_KEY=KEY, FIVEX_BASE_URL="https://fivex.example.org",
        EMAIL_URL="smtp+tls://bot:pw@mail.example.org:587", **SERVICES,
    )
    assert s["debug"] is False
    assert s["verification"] == "mandatory"
    assert s["secure_cookies"] == [True, True]
    assert s["allowed_hosts"] == ["fivex.example.org"]
    assert s["ssl_redirect"] is True
    # allauth's login limits count the client behind the proxy, not the proxy.
    assert s["proxies"] == [1, None]


PRODUCTION = {"FIVEX_ENV": "production", "SECRET_KEY": KEY, **SERVICES}


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"EMAIL_URL": "smtp://mail.example.org:25"}, "FIVEX_ENV=production needs FIVEX_BASE_URL, the https:// address"),
        ({"EMAIL_URL": "smtp://mail.example.org:25", "FIVEX_BASE_URL": "http://fivex.example.org"},
         "not 'http://fivex.example.org'"),
        ({"FIVEX_BASE_URL": "https://fivex.example.org"},
         "FIVEX_ENV=production needs outgoing email: EMAIL_URL, EMAIL_HOST or EMAIL_BACKEND."),
    ],
)  # fmt: skip
def test_production_refuses_to_start_on_development_defaults(env: dict, said: str) -> None:
    """With only FIVEX_ENV and SECRET_KEY, production ran on http://127.0.0.1:8000 (no
    one could sign in) and printed every confirmation link and reply address in the logs."""
    done = resolve(**PRODUCTION, **env)
    assert done.returncode != 0
    assert said in done.stderr


def test_proxies_admins_and_smtp_over_ssl_from_the_environment() -> None:
    s = settings_with(
        TRUSTED_PROXY_COUNT="2", TRUSTED_CLIENT_IP_HEADER="X-Real-IP",
        ADMINS="ops@example.org,Ann <ann@example.org>", EMAIL_HOST="smtp.example.org",
        EMAIL_USE_SSL="true",
    )  # fmt: skip
    assert s["proxies"] == [2, "X-Real-IP"]
    assert s["admins"] == ["ops@example.org", "Ann <ann@example.org>"]
    options = s["mailer"]["OPTIONS"]
    assert (options["port"], options["use_ssl"], options["use_tls"]) == (465, True, False)
    assert settings_with()["proxies"] == [0, None]  # development: no proxy in front
    both = resolve(EMAIL_HOST="smtp.example.org", EMAIL_USE_SSL="true", EMAIL_USE_TLS="true")
    assert both.returncode != 0 and "exclude each other" in both.stderr


@pytest.mark.django_db
def test_production_redirects_to_https_but_not_the_health_probe(client, settings) -> None:
    # A load balancer probes /healthz over plain HTTP: a 301 would read as "down".
    production = settings_with(
        FIVEX_ENV="production", SECRET_KEY=KEY, FIVEX_BASE_URL="https://fivex.example.org",
        EMAIL_URL="smtp+tls://bot:pw@mail.example.org:587", **SERVICES,
    )
    settings.SECURE_SSL_REDIRECT = production["ssl_redirect"]
    settings.SECURE_REDIRECT_EXEMPT = production["redirect_exempt"]
    assert client.get("/").status_code == 301
    assert client.get("/healthz").status_code in (200, 503)
    assert client.get("/healthzz").status_code == 301


@pytest.mark.parametrize("value", ["staging", "prod"])
def test_unknown_environment_name_is_refused(value: str) -> None:
    done = resolve(FIVEX_ENV=value)
    assert done.returncode != 0
    assert "FIVEX_ENV must be 'development' or 'production'" in done.stderr


def test_api_uses_session_and_token_auth_read_only_for_visitors() -> None:
    s = settings_with()
    assert "rest_framework.authtoken" not in s["apps"]  # games.ApiToken keeps hashes only
    assert s["rest"]["DEFAULT_AUTHENTICATION_CLASSES"] == [
        "rest_framework.authentication.SessionAuthentication",
        "games.api.authentication.FastTokenAuthentication",
    ]
    assert s["rest"]["DEFAULT_PERMISSION_CLASSES"] == [
        "rest_framework.permissions.IsAuthenticatedOrReadOnly"
    ]


def test_tasks_go_to_their_queues() -> None:
    # Resolution alone on its queue; mail in and out on the mail queue; the sweeps on the
    # default queue. Asked of Celery's own router, as a publisher does (the suite may run
    # on private queue names: compared with each other, not with the settings' names).
    from fivex_site.celery import app

    def queue(name: str) -> str:
        return app.amqp.router.route({}, name)["queue"].name

    mail = queue("games.tasks.send_outbox_batch")
    resolution = queue("games.tasks.resolve_prompt")
    default = queue("games.tasks.enforce_deadlines")
    assert len({mail, resolution, default}) == 3
    assert queue("games.mail.tasks.process_inbound_mail") == mail
    assert mail.endswith("mail") and resolution.endswith("resolution")


def test_any_email_provider_is_configured_from_anymail_variables() -> None:
    """EMAIL_BACKEND may name any anymail backend: its credentials come from ANYMAIL_*
    variables (the names anymail's docs give inside its ANYMAIL setting)."""
    got = settings_with(
        EMAIL_BACKEND="anymail.backends.mailgun.EmailBackend",
        ANYMAIL_MAILGUN_API_KEY="key-123",
        ANYMAIL_MAILGUN_SENDER_DOMAIN="mg.example.org",
        ANYMAIL_WEBHOOK_SECRET="user:pw",
        POSTMARK_SERVER_TOKEN="tok",
        ANYMAIL_EMPTY="",
    )
    assert got["mailer"] == {"BACKEND": "anymail.backends.mailgun.EmailBackend"}
    assert got["anymail"] == {
        "MAILGUN_API_KEY": "key-123",
        "MAILGUN_SENDER_DOMAIN": "mg.example.org",
        "WEBHOOK_SECRET": "user:pw",
        "POSTMARK_SERVER_TOKEN": "tok",
    }


def test_anymail_backend_takes_its_key_from_the_environment() -> None:
    """The backend itself accepts the configuration (anymail refuses one without a key)."""
    code = (
        "import django; django.setup()\n"
        "from django.core.mail import get_connection\n"
        "print(get_connection().api_key)\n"
    )
    done = resolve(
        code,
        EMAIL_BACKEND="anymail.backends.mailgun.EmailBackend",
        ANYMAIL_MAILGUN_API_KEY="key-456",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "key-456"


def test_anymail_values_are_read_as_anymail_expects_them() -> None:
    """A false is false (a string "false" would be true: rejected mail marked sent), a
    timeout a number, a dict a dict; credentials stay text even when they look numeric."""
    got = settings_with(
        ANYMAIL_IGNORE_RECIPIENT_STATUS="false",
        ANYMAIL_DEBUG_API_REQUESTS="Yes",
        ANYMAIL_REQUESTS_TIMEOUT="10",
        ANYMAIL_SEND_DEFAULTS='{"tags": ["fivex"]}',
        ANYMAIL_MAILJET_SECRET_KEY="123456",
        ANYMAIL_SENDINBLUE_API_KEY="0",
        ANYMAIL_AMAZON_SES_GENERATE_MESSAGE_ID="false",
        ANYMAIL_MAILGUN_REQUESTS_RETRIES="1",
    )["anymail"]
    assert got == {
        "AMAZON_SES_GENERATE_MESSAGE_ID": False,
        "MAILGUN_REQUESTS_RETRIES": 1,
        "IGNORE_RECIPIENT_STATUS": False,
        "DEBUG_API_REQUESTS": True,
        "REQUESTS_TIMEOUT": 10,
        "SEND_DEFAULTS": {"tags": ["fivex"]},
        "MAILJET_SECRET_KEY": "123456",
        "SENDINBLUE_API_KEY": "0",
    }


def test_a_broken_anymail_json_value_is_refused_by_name() -> None:
    done = resolve(ANYMAIL_SEND_DEFAULTS="{tags: fivex}")
    assert done.returncode != 0
    assert "ANYMAIL_SEND_DEFAULTS is not valid JSON" in done.stderr


def test_development_makes_its_own_secret_key_once_for_the_checkout() -> None:
    """The development key was a constant in the repository: anyone who reached a
    ``make run`` could forge what it signs. Now each checkout makes its own in var/, and
    every process of the checkout reads the same one."""
    code = "import fivex_site.settings as s; print(s.SECRET_KEY)"
    first, second = resolve(code).stdout.strip(), resolve(code).stdout.strip()
    stored = (ROOT / "var" / "development-secret-key").read_text(encoding="ascii").strip()
    assert first == second == stored and len(stored) >= 50
    assert "insecure" not in stored
    assert resolve(code, SECRET_KEY="from-the-environment").stdout.strip() == "from-the-environment"


SHOWS_NO_HOSTNAME_WARNING = """
import logging
import django
django.setup()
from fivex_site.broker import NoHostnameNoise
record = logging.LogRecord("kombu.connection", logging.WARNING, "kombu", 1,
                           "No hostname was supplied. Reverting to default 'localhost'", None, None)
print(NoHostnameNoise().filter(record))
"""


@pytest.mark.parametrize(
    ("broker", "shown"),
    [(None, "False"), ("", "False"), ("  ", "False"), ("filesystem://", "False"),
     ("redis://", "True")],
)  # fmt: skip
def test_no_hostname_warning_is_dropped_whenever_the_settings_use_the_embedded_broker(
    broker: str | None, shown: str
) -> None:
    """CELERY_BROKER_URL set but empty selects the embedded broker (as unset does), yet the
    filter read the raw variable and showed kombu's warning again (a README audit)."""
    env = {} if broker is None else {"CELERY_BROKER_URL": broker}
    done = resolve(SHOWS_NO_HOSTNAME_WARNING, **env)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == shown


@pytest.mark.parametrize("value", ["bogus", "Mandatory-ish"])
def test_an_unknown_email_verification_mode_is_refused(value: str) -> None:
    """ACCOUNT_EMAIL_VERIFICATION=bogus was taken silently (a README audit)."""
    done = resolve(ACCOUNT_EMAIL_VERIFICATION=value)
    assert done.returncode != 0
    assert (
        f"ACCOUNT_EMAIL_VERIFICATION must be 'none', 'optional' or 'mandatory', not {value!r}"
        in done.stderr
    )


def test_each_email_verification_mode_is_taken() -> None:
    for value in ("none", "optional", "mandatory"):
        assert settings_with(ACCOUNT_EMAIL_VERIFICATION=value)["verification"] == value


def test_former_secret_keys_come_from_the_environment() -> None:
    """SECRET_KEY_FALLBACKS: the keys of a rotation under way (README), comma-separated;
    none by default. Two-factor secrets are read with them too (test_two_factor_secrets)."""
    code = "import json, fivex_site.settings as s; print(json.dumps(s.SECRET_KEY_FALLBACKS))"
    done = resolve(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
    done = resolve(code, SECRET_KEY_FALLBACKS="old-key-one,old-key-two")
    assert json.loads(done.stdout) == ["old-key-one", "old-key-two"]


def test_production_refuses_a_weak_secret_key_and_takes_hsts_subdomains_and_preload() -> None:
    """`SECRET_KEY=...` (the README's placeholder) or fifty times the same letter signed
    every session in production; HSTS for subdomains and preloading could not be turned on."""
    env = {**PRODUCTION, **READY}
    for weak in ("...", "x" * 50, "django-insecure-" + KEY):
        done = resolve(**{**env, "SECRET_KEY": weak})
        assert done.returncode != 0 and "SECRET_KEY of at least 50 random" in done.stderr
    code = "import fivex_site.settings as s; print(s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD)"
    assert resolve(code, **env).stdout.split() == ["False", "False"]
    on = resolve(code, **env, SECURE_HSTS_INCLUDE_SUBDOMAINS="true", SECURE_HSTS_PRELOAD="true")
    assert on.stdout.split() == ["True", "True"], on.stderr


def test_production_hsts_lasts_a_year_by_default() -> None:
    # An hour (the default before) left a returning player's first request after it in
    # clear: HSTS protects only while the browser remembers it.
    code = "import fivex_site.settings as s; print(s.SECURE_HSTS_SECONDS)"
    assert resolve(code, **PRODUCTION, **READY).stdout.split() == ["31536000"]
    assert resolve(code, **PRODUCTION, **READY, SECURE_HSTS_SECONDS="600").stdout.split() == ["600"]


def test_production_refuses_a_weak_former_secret_key() -> None:
    # A fallback key still verifies what it signed: a weak one lets anyone forge sessions
    # and links during the rotation (check --deploy's security.W025 only warned).
    done = resolve(**PRODUCTION, **READY, SECRET_KEY_FALLBACKS=f"{KEY[::-1]},short")
    assert done.returncode != 0
    assert "SECRET_KEY_FALLBACKS" in done.stderr and "at least 50 random" in done.stderr
    assert "short" not in done.stderr  # no key is ever written out
    code = "import fivex_site.settings as s; print(len(s.SECRET_KEY_FALLBACKS))"
    fine = resolve(code, **PRODUCTION, **READY, SECRET_KEY_FALLBACKS=KEY[::-1])
    assert fine.stdout.split() == ["1"], fine.stderr

