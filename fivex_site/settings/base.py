"""Core Django settings: environment, paths, apps, middleware, templates, static files."""

import os
import secrets
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env()
# An optional .env file beside manage.py; real environment variables win over it.
if (BASE_DIR / ".env").is_file():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)



def _development_secret_key() -> str:
    """This checkout's own development key, made once in ``var/`` (a key written in the
    repository would let anyone who reaches a ``make run`` forge what it signs: email
    confirmations, password-reset links). Every process of the checkout (web server,
    workers, tests) reads the same file; the first to need it writes it, atomically."""
    path = VAR_DIR / "development-secret-key"
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    draft = VAR_DIR / f".development-secret-key.{os.getpid()}"
    draft.write_text(secrets.token_urlsafe(50), encoding="ascii")
    draft.chmod(0o600)
    try:
        os.link(draft, path)  # fails if another process wrote it first: use theirs
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
    return path.read_text(encoding="ascii").strip()


def _weak_secret_key(key: str) -> bool:
    """Django's measure of a weak key (check --deploy's security.W009 and W025)."""
    return len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-")


FIVEX_ENV = env.str("FIVEX_ENV", default="development").strip().lower()
# Whether the environment was named (the variable or the .env file), not defaulted: a
# Celery worker or beat that was given none refuses the development defaults
# (fivex_site/deployment.py).
FIVEX_ENV_NAMED = bool(env.str("FIVEX_ENV", default="").strip())
if FIVEX_ENV not in {"development", "production"}:
    raise ImproperlyConfigured(
        f"FIVEX_ENV must be 'development' or 'production', not {FIVEX_ENV!r}."
    )
IS_PRODUCTION = FIVEX_ENV == "production"

DEBUG = env.bool("DJANGO_DEBUG", default=not IS_PRODUCTION)
if IS_PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG must stay off when FIVEX_ENV=production.")

if IS_PRODUCTION:
    if not env.str("SECRET_KEY", default=""):
        raise ImproperlyConfigured(
            "FIVEX_ENV=production needs the SECRET_KEY environment variable "
            "(a long random string, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(50))'`)."
        )
    SECRET_KEY = env.str("SECRET_KEY")
    # Django's own measure of a weak key (check --deploy's security.W009): the README's
    # `SECRET_KEY=...` placeholder, copied as it stands, signed every session and link.
    if _weak_secret_key(SECRET_KEY):
        raise ImproperlyConfigured(
            "FIVEX_ENV=production needs a SECRET_KEY of at least 50 random characters (the "
            "same on every machine), made once, e.g. with "
            "`python3 -c 'import secrets; print(secrets.token_urlsafe(50))'`."
        )
else:
    SECRET_KEY = env.str("SECRET_KEY", default="") or _development_secret_key()
# Former keys, still accepted while a rotation is under way (comma-separated): what they
# signed (sessions, email links) stays valid and the two-factor secrets they encrypted stay
# readable (fivex_site/mfa_secrets.py) until re-encrypted, and browsers trusted to skip the
# two-factor code stay trusted (fivex_site/two_factor_trust.py).
SECRET_KEY_FALLBACKS = [key for key in env.list("SECRET_KEY_FALLBACKS", default=[]) if key.strip()]
if IS_PRODUCTION and any(_weak_secret_key(key) for key in SECRET_KEY_FALLBACKS):
    # A former key still verifies what it signed: a weak one let anyone forge sessions and
    # links for as long as the rotation lasts (check --deploy's security.W025 only warned).
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs each key of SECRET_KEY_FALLBACKS (comma-separated) to be "
        "a former SECRET_KEY of at least 50 random characters: one is not."
    )

FIVEX_BASE_URL = env.str("FIVEX_BASE_URL", default="http://127.0.0.1:8000").rstrip("/")
if IS_PRODUCTION and not FIVEX_BASE_URL.startswith("https://"):
    # Emails link to it, the allowed host comes from it, and production's cookies are
    # Secure: a default of http://127.0.0.1:8000 would leave nobody able to sign in.
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs FIVEX_BASE_URL, the https:// address players use "
        f"(e.g. https://fivex.example.org), not {FIVEX_BASE_URL!r}."
    )
GAMES_MAX_DEADLINE_EXTENSIONS = env.int("GAMES_MAX_DEADLINE_EXTENSIONS", default=3)
GAMES_DEFAULT_DEADLINE_HOURS = env.int("GAMES_DEFAULT_DEADLINE_HOURS", default=48)
# The beat's deadline sweep resolves due prompts itself for this long, then hands the rest
# to the workers (one task each on the resolution queue).
GAMES_DEADLINE_SWEEP_INLINE_SECONDS = env.float("GAMES_DEADLINE_SWEEP_INLINE_SECONDS", default=20.0)
# How often an open table talk page asks for new messages (seconds, 1 at least).
TALK_POLL_SECONDS = max(1, env.int("TALK_POLL_SECONDS", default=10))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, not a CDN
    "allauth",
    "allauth.account",
    "allauth.mfa",  # two-factor: an authenticator app (TOTP) and recovery codes
    "allauth.usersessions",  # the account's signed-in sessions; "log out the others"
    "fivex_site",
    "games",
    "games.mail",
    "anymail",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # /healthz for load-balancer probes, whatever their Host header (before CommonMiddleware
    # validates it).
    "fivex_site.middleware.HealthCheckMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signed-in pages: Cache-Control private, no-store (unless the view set its own).
    "fivex_site.middleware.PrivatePagesMiddleware",
    "games.middleware.PlayerTimeZoneMiddleware",
    # A signed-in session's "last seen" on the Sessions page, written at most hourly.
    "fivex_site.middleware.SessionSeenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A two-factor secret no key opens: a page that says so, not a server error.
    "fivex_site.middleware.TwoFactorKeyUnreadableMiddleware",
]

# Content-Security-Policy: only the site's own scripts run (an injected script could read
# a player's hand off its page); inline ones only with the page's nonce (the API docs).
# Inline style attributes stay allowed (the 6x5 board's colours, htmx's indicator style).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

ROOT_URLCONF = "fivex_site.urls"
WSGI_APPLICATION = "fivex_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "fivex_site.context_processors.site",
            ]
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The site's words over django-allauth's ("Log in", not "Sign In"): locale/en/LC_MESSAGES.
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"  # filled by `collectstatic` for production
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing one
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, compressed files need `collectstatic`; development serves from the apps.
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if IS_PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Error reports to ADMINS: the same error at most once in this many minutes, and at most
# this many reports an hour in all (fivex_site/errors.py).
ADMIN_ERROR_REPEAT_MINUTES = env.float("ADMIN_ERROR_REPEAT_MINUTES", default=15.0)
ADMIN_ERRORS_PER_HOUR = env.int("ADMIN_ERRORS_PER_HOUR", default=20)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        # The paths Django's request, server and security lines name may hold a token (a
        # calendar's, an invitation's): masked (fivex_site/errors.py).
        # A client's error Django logs as an ERROR (django.security.*: a body too big, too
        # many fields, a Host not allowed, answered 400) is a warning, with no traceback.
        "console": {"class": "logging.StreamHandler", "formatter": "plain",
                    "filters": ["masked_path_tokens", "client_errors_as_warnings"]},
        # A server error (not a 503: an outage; not a client's error) to ADMINS, in
        # production, through the outbox, with no POST value and no local variable in
        # it, the same error once per ADMIN_ERROR_REPEAT_MINUTES and at most
        # ADMIN_ERRORS_PER_HOUR reports an hour (fivex_site/errors.py).
        "mail_admins": {
            "level": "ERROR",
            "filters": ["require_debug_false", "not_unavailable", "not_client_error"],
            "class": "fivex_site.errors.QueuedAdminEmailHandler",
        },
    },
    "filters": {
        "no_hostname_noise": {"()": "fivex_site.broker.NoHostnameNoise"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
        "not_unavailable": {"()": "fivex_site.errors.NotUnavailable"},
        "not_client_error": {"()": "fivex_site.errors.NotClientError"},
        "client_errors_as_warnings": {"()": "fivex_site.errors.ClientErrorsAsWarnings"},
        "masked_path_tokens": {"()": "fivex_site.errors.MaskedPathTokens"},
    },
    "loggers": {
        "kombu.connection": {"filters": ["no_hostname_noise"]},
        # aiosmtpd (the SMTP gateway) logs every session's steps at INFO ("Connection lost
        # during _handle_client()" for every ordinary QUIT): its warnings only.
        "mail.log": {"level": "WARNING"},
        # Django's own console handler (DEBUG only) is left out: the root's prints it.
        "django": {"handlers": ["mail_admins"], "level": "INFO"},
        # (Configuring a logger drops its handlers: the development server's request
        # lines go to the console as every other line.)
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
DEFAULT_EXCEPTION_REPORTER_FILTER = "fivex_site.errors.PrivateReporterFilter"
DEFAULT_EXCEPTION_REPORTER = "fivex_site.errors.PrivateExceptionReporter"
