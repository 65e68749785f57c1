"""Rate limits of the addresses read without an account: a player's calendar feed (counted
per feed address, and its unknown addresses per client address) and the Atom feeds of tournaments and games (counted per client
address). Each request builds its answer from the database, and a feed reader or a
calendar app has no account the API's per-user throttles could count; the counts live in
the default cache, as the API's do (``CACHE_URL`` shares them between processes), with
rates from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``None``: off). Approximate, as
DRF's throttles are."""

from __future__ import annotations

import hashlib
import ipaddress
import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import SimpleRateThrottle

#: A throttle's period in words.
PERIODS = {1: "a second", 60: "a minute", 3600: "an hour", 86400: "a day"}


class KeyedThrottle(SimpleRateThrottle):
    """The rate ``scope`` counted for ``ident`` (a feed's address digest, a client's
    address), on GET and HEAD."""

    def __init__(self, scope: str, ident: str) -> None:
        self.scope, self.ident = scope, ident
        super().__init__()

    def get_rate(self) -> str | None:
        return settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def client_address(request: HttpRequest) -> str:
    """The client's address as the account limits read it (``TRUSTED_PROXY_COUNT``,
    ``TRUSTED_CLIENT_IP_HEADER``: behind the proxy, not the proxy's own), as a limit counts
    it: an IPv6 address by its /64 network, which one client holds whole (a home line, a
    rented server): counted per address, each request from a new address of it was a
    fresh count."""
    from allauth.account.adapter import get_adapter

    address = get_adapter(request).get_client_ip(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.7, a dual-stack socket's IPv4 client
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


def secret_ident(secret: str) -> str:
    """What a count is kept under for a secret address: a digest, never the secret."""
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def over_rate(request: HttpRequest, *, scope: str, ident: str, what: str) -> HttpResponse | None:
    """None while ``ident`` is under the rate ``scope`` (this request counted); else the
    429 to answer: plain text saying so, with ``Retry-After`` (whole seconds)."""
    throttle = KeyedThrottle(scope, ident)
    if throttle.allow_request(request, None):
        return None
    return _too_many(throttle, what)


def over_count(request: HttpRequest, *, scope: str, ident: str, what: str) -> HttpResponse | None:
    """``over_rate`` without counting this request: ``count`` counts what the rate is of
    (a miss, known only after the request's own work)."""
    throttle = KeyedThrottle(scope, ident)
    if throttle.rate is None:
        return None
    throttle.key = throttle.get_cache_key(request, None)
    throttle.now = throttle.timer()
    throttle.history = [
        at for at in throttle.cache.get(throttle.key, []) if at > throttle.now - throttle.duration
    ]
    if len(throttle.history) < throttle.num_requests:
        return None
    return _too_many(throttle, what)


def count(request: HttpRequest, *, scope: str, ident: str) -> None:
    """One more of what the rate ``scope`` limits for ``ident`` (``over_count``'s)."""
    KeyedThrottle(scope, ident).allow_request(request, None)


def _too_many(throttle: KeyedThrottle, what: str) -> HttpResponse:
    """The 429: plain text saying so, with ``Retry-After`` (whole seconds)."""
    wait = max(1, math.ceil(throttle.wait() or 1))
    per = PERIODS.get(throttle.duration, f"per {throttle.duration} seconds")
    response = HttpResponse(
        f"Too many requests for {what} (at most {throttle.num_requests} {per}): "
        f"try again in {wait} second{'s' if wait != 1 else ''}.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(wait)
    response["Cache-Control"] = "no-store"
    return response
