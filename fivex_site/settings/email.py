"""Outgoing email (Django's MAILERS): the console by default, SMTP from the environment.

- EMAIL_URL=smtp+tls://user:password@smtp.example.com:587 (django-environ syntax), or
- EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_USE_SSL.
- EMAIL_BACKEND may name another backend class (e.g. an anymail one; configure it as its docs say).
DEFAULT_FROM_EMAIL is the sender of everything FiveX sends.
"""

from django.core.exceptions import ImproperlyConfigured

from .base import IS_PRODUCTION, env

DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="FiveX <fivex@localhost>")
SERVER_EMAIL = env.str("SERVER_EMAIL", default=DEFAULT_FROM_EMAIL)
EMAIL_SUBJECT_PREFIX = "[FiveX] "

_SMTP = "django.core.mail.backends.smtp.EmailBackend"
_timeout = env.int("EMAIL_TIMEOUT", default=30)

if env.str("EMAIL_URL", default=""):
    _url = env.email_url("EMAIL_URL")
    _mailer = {
        "BACKEND": _url["EMAIL_BACKEND"],
        "OPTIONS": {
            "host": _url["EMAIL_HOST"],
            "port": _url["EMAIL_PORT"],
            "username": _url["EMAIL_HOST_USER"],
            "password": _url["EMAIL_HOST_PASSWORD"],
            "use_tls": bool(_url.get("EMAIL_USE_TLS", False)),
            "use_ssl": bool(_url.get("EMAIL_USE_SSL", False)),
            "timeout": _timeout,
        },
    }
    if _mailer["BACKEND"] != _SMTP:
        _mailer["OPTIONS"] = {}
elif env.str("EMAIL_HOST", default=""):
    _ssl = env.bool("EMAIL_USE_SSL", default=env.int("EMAIL_PORT", default=587) == 465)
    _port = env.int("EMAIL_PORT", default=465 if _ssl else 587)
    # STARTTLS by default on 587, never with SSL (Django refuses both at once).
    _tls = env.bool("EMAIL_USE_TLS", default=_port == 587 and not _ssl)
    if _tls and _ssl:
        raise ImproperlyConfigured(
            "EMAIL_USE_TLS (STARTTLS, port 587) and EMAIL_USE_SSL (port 465) exclude each "
            "other: set one."
        )
    _mailer = {
        "BACKEND": _SMTP,
        "OPTIONS": {
            "host": env.str("EMAIL_HOST"),
            "port": _port,
            "username": env.str("EMAIL_HOST_USER", default=""),
            "password": env.str("EMAIL_HOST_PASSWORD", default=""),
            "use_tls": _tls,
            "use_ssl": _ssl,
            "timeout": _timeout,
        },
    }
else:
    # Printed in the terminal, decoded (fivex_site/devmail.py).
    _mailer = {"BACKEND": "fivex_site.devmail.EmailBackend"}

if env.str("EMAIL_BACKEND", default="") and env.str("EMAIL_BACKEND") != _mailer["BACKEND"]:
    _mailer = {"BACKEND": env.str("EMAIL_BACKEND")}

if IS_PRODUCTION and _mailer["BACKEND"] == "fivex_site.devmail.EmailBackend":
    # The console mailer would print every confirmation link, password reset and seat
    # reply address (a credential) into the logs, and nobody could confirm an address.
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs outgoing email: EMAIL_URL, EMAIL_HOST or EMAIL_BACKEND."
    )

MAILERS = {"default": _mailer}

# /healthz reports its mail "late" when an email has waited to be sent (queued or retrying)
# longer than this: the mail server away or refusing, or no worker sending.
HEALTHZ_MAIL_LATE_MINUTES = env.int("HEALTHZ_MAIL_LATE_MINUTES", default=30)

# Who is emailed the site's errors (a 500 in production), from SERVER_EMAIL:
# comma-separated addresses.
ADMINS = env.list("ADMINS", default=[])
