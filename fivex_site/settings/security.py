"""Hosts, cookies and HTTPS: relaxed for development, strict when FIVEX_ENV=production."""

from urllib.parse import urlsplit

from .base import FIVEX_BASE_URL, IS_PRODUCTION, env

_base_host = urlsplit(FIVEX_BASE_URL).hostname or "localhost"

ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS",
    default=[_base_host] if IS_PRODUCTION else [_base_host, "localhost", "127.0.0.1", "[::1]"],
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[FIVEX_BASE_URL])

SESSION_COOKIE_SECURE = IS_PRODUCTION
CSRF_COOKIE_SECURE = IS_PRODUCTION
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

if IS_PRODUCTION:
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    # Load balancers probe /healthz over plain HTTP: a redirect would read as a failure.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    # A year (check --deploy's and the preload list's measure): HSTS protects a returning
    # player only while the browser remembers it; an hour left the next day's first request
    # in clear.
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600)
    # Off unless the operator says so: every subdomain would then have to be HTTPS for a
    # year or more of browsers' memory. check --deploy warns W005 and W021 until the
    # operator decides: either value set is a decision, and quiets its warning (README).
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
    SILENCED_SYSTEM_CHECKS = [
        check
        for name, check in (("SECURE_HSTS_INCLUDE_SUBDOMAINS", "security.W005"),
                            ("SECURE_HSTS_PRELOAD", "security.W021"))
        if env.str(name, default="").strip()
    ]  # fmt: skip
