"""Database (and cache): SQLite under var/ by default, anything django-environ reads from DATABASE_URL.

PostgreSQL: DATABASE_URL=postgres://user:password@host:5432/fivex (psycopg 3).
"""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import IS_PRODUCTION, VAR_DIR, env

# Set but empty (an env file's `DATABASE_URL=`) is unset, not a crash (KeyError: 'ENGINE').
_url = env.str("DATABASE_URL", default="").strip()
if IS_PRODUCTION and not _url:
    # Each machine would run on a SQLite file of its own: a worker machine that forgot the
    # variable worked against another database than the web's, silently.
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs DATABASE_URL (e.g. postgres://fivex:secret@db:5432/fivex): "
        "without it each machine would use a SQLite file of its own. One machine on SQLite "
        "anyway: DATABASE_URL=sqlite:////srv/fivex/db.sqlite3."
    )
# False: the development SQLite file (fivex_site/deployment.py).
FIVEX_DATABASE_URL_SET = bool(_url)
DATABASES = {
    "default": env.db_url_config(_url) if _url else env.db_url_config(f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
_default = DATABASES["default"]
# Persistent connections on PostgreSQL (a new connection per request or task costs more
# than most requests), checked before each reuse; SQLite opens its file cheaply.
_postgres = _default["ENGINE"] == "django.db.backends.postgresql"
_default["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60 if _postgres else 0)
_default["CONN_HEALTH_CHECKS"] = _postgres

if _default["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the Celery worker and beat are separate processes sharing one file:
    # WAL lets readers run beside a writer, IMMEDIATE transactions and a busy timeout make
    # writers queue instead of failing with "database is locked".
    _default["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Tests that start a real worker process need the test database to be a file it can open.
    _default["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}

# Cache (allauth's rate limits live here): per process by default; share one across machines
# with e.g. CACHE_URL=redis://127.0.0.1:6379/1.
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://fivex")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # With Redis away the site keeps answering (rate limits off); a Redis that does not
    # answer holds a request at most a second (fivex_site/cache.py).
    CACHES["default"]["BACKEND"] = "fivex_site.cache.FailSoftRedisCache"
    CACHES["default"].setdefault("OPTIONS", {})
    CACHES["default"]["OPTIONS"].setdefault("socket_connect_timeout", 1)
    CACHES["default"]["OPTIONS"].setdefault("socket_timeout", 1)
