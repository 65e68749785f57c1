"""Incoming order mail: every seat gets a reply address ORDERS_ADDRESS_PREFIX+<token>@ORDERS_DOMAIN."""

import json
import os
import re

from django.core.exceptions import ImproperlyConfigured

from .base import IS_PRODUCTION, env

ORDERS_DOMAIN = env.str("ORDERS_DOMAIN", default="").strip()
if IS_PRODUCTION and not ORDERS_DOMAIN:
    # Every turn email would give players a reply address at orders.localhost.
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs ORDERS_DOMAIN, the domain of the reply addresses of orders "
        "by email (e.g. orders.example.org; see the README's Orders by email)."
    )
ORDERS_DOMAIN = ORDERS_DOMAIN or "orders.localhost"
ORDERS_ADDRESS_PREFIX = env.str("ORDERS_ADDRESS_PREFIX", default="orders")

# --- Email gateway (games.mail): limits, the retry sweep and django-anymail's inbound webhooks.
MAIL_MAX_BYTES = env.int("MAIL_MAX_BYTES", default=1024 * 1024)  # bigger: answered, not read
MAIL_MAX_PARTS = env.int("MAIL_MAX_PARTS", default=200)  # more MIME parts: answered, not read
MAIL_INTAKE_PER_HOUR = env.int("MAIL_INTAKE_PER_HOUR", default=60)  # per seat; more: ignored
MAIL_SMTP_MAX_BYTES = env.int("MAIL_SMTP_MAX_BYTES", default=32 * 1024 * 1024)  # runsmtpd: 552
MAIL_REPLIES_PER_HOUR = env.int("MAIL_REPLIES_PER_HOUR", default=20)  # per seat: stops loops
MAIL_MAX_ATTEMPTS = env.int("MAIL_MAX_ATTEMPTS", default=5)  # processing retries on system errors
# Seconds one inbound message may take to process (Celery soft limit; prefork pool): a longer
# one is given up, and the player told, never retried.
MAIL_TASK_SOFT_TIME_LIMIT = env.int("MAIL_TASK_SOFT_TIME_LIMIT", default=120)
# Days inbound messages and sent emails are kept (they quote hands and orders); 0: for ever.
# Games never need them: orders are sealed orders and log entries, which are kept.
MAIL_RETENTION_DAYS = env.int("MAIL_RETENTION_DAYS", default=90)
# The receiving mail server's authserv-id (comma-separated for several): its
# Authentication-Results headers decide whether "From:" is genuine in games that only take
# orders from the player's own address. Empty: "From:" is compared, not verified.
MAIL_AUTHSERV_ID = env.str("MAIL_AUTHSERV_ID", default="")
# django-anymail's settings: any ANYMAIL_<NAME> variable becomes ANYMAIL["<NAME>"], so every
# email provider's credentials come from the environment, e.g. with
# EMAIL_BACKEND=anymail.backends.mailgun.EmailBackend: ANYMAIL_MAILGUN_API_KEY=key-...
# (and ANYMAIL_MAILGUN_SENDER_DOMAIN=...); ANYMAIL_WEBHOOK_SECRET is the "user:password" the
# provider sends (HTTP basic auth) to /anymail/<esp>/inbound/.
# Credentials and names stay text; other values are read as anymail expects them: true/false
# (yes/no, on/off) as booleans, numbers as numbers (1 and 0 count as true and false where a
# boolean is meant), {...} or [...] as JSON.
_ANYMAIL_TEXT = ("_KEY", "_TOKEN", "_SECRET", "_DOMAIN", "_URL", "_USERNAME", "_PASSWORD")


def _anymail_value(name: str, raw: str) -> object:
    if name.endswith(_ANYMAIL_TEXT):
        return raw
    word = raw.strip().lower()
    if word in ("true", "yes", "on"):
        return True
    if word in ("false", "no", "off"):
        return False
    if re.fullmatch(r"-?[0-9]+", word):  # 1 and 0 too: a timeout of 1 is a number
        return int(word)
    if re.fullmatch(r"-?[0-9]*\.[0-9]+", word):
        return float(word)
    if word[:1] in ("{", "["):
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name} is not valid JSON: {exc}") from None
    return raw


ANYMAIL = {
    name.removeprefix("ANYMAIL_"): _anymail_value(name, value)
    for name, value in os.environ.items()
    if name.startswith("ANYMAIL_") and name != "ANYMAIL_" and value
}
# The two names FiveX read before (kept working).
for _name in ("MAILGUN_WEBHOOK_SIGNING_KEY", "POSTMARK_SERVER_TOKEN"):
    if env.str(_name, default=""):
        ANYMAIL.setdefault(_name, env.str(_name))

from .celery import CELERY_BEAT_SCHEDULE  # noqa: E402 - extend the beat schedule defined there

CELERY_BEAT_SCHEDULE["mail-retry-stalled"] = {
    "task": "games.mail.tasks.retry_stalled_inbound_mail",
    "schedule": 300.0,
}
CELERY_BEAT_SCHEDULE["mail-prune"] = {
    "task": "games.tasks.prune_mail",
    "schedule": 24 * 3600.0,
}
