"""Site-wide middleware: /healthz answered whatever the Host header; pages shown to a
signed-in player are not kept by caches; a signed-in session's "last seen", hourly; a
two-factor secret no key opens answered plainly."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import SESSION_KEY, get_user
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

HEALTHZ_PATH = "/healthz"


class HealthCheckMiddleware:
    """Answer ``/healthz`` before Django validates the Host header.

    Load balancers and orchestrators probe each machine by its address (``Host:
    10.0.0.5:8000``), not by the public name in ``ALLOWED_HOSTS``; Django would answer
    them 400 and every machine would look down. The health report builds no URL from the
    Host, so it is safe to give whatever the Host. It sits after the session middleware so
    that staff signed in still see the details; the rest of the stack (CSRF, the page
    middleware) is not needed by a JSON report that changes nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != HEALTHZ_PATH:
            return self.get_response(request)
        from fivex_site.views import healthz

        request.user = SimpleLazyObject(lambda: get_user(request))
        return healthz(request)


class PrivatePagesMiddleware:
    """A page answered to a signed-in player (its hand, its sealed order, its reply
    address) gets ``Cache-Control: private, no-store`` unless the view chose its own:
    no shared proxy may keep it, and no browser cache may keep it on disk after logout
    (a shared computer). Anonymous pages (public games, standings) stay cacheable."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if "Cache-Control" not in response and user is not None and user.is_authenticated:
            response["Cache-Control"] = "private, no-store"
        return response


SEEN_EVERY = 3600
"""Seconds: a session's "last seen" is written at most once an hour."""


def seen_mark(session_key: str) -> str:
    """The cache key marking that the session was seen within the hour (the session key
    hashed: whoever reads the cache cannot use a key to sign in)."""
    return "fivex:seen:" + hashlib.sha256(session_key.encode("utf-8")).hexdigest()


def session_seen_at_login(sender, request, user, **kwargs) -> None:  # noqa: ANN001, ARG001
    """``user_logged_in``: the log-in is the session's mark (allauth's row of it is made
    now with this moment), so its next hour of requests write nothing."""
    from django.core.cache import cache

    session = getattr(request, "session", None)
    if session is not None and session.session_key:
        cache.set(seen_mark(session.session_key), 1, SEEN_EVERY)


class SessionSeenMiddleware:
    """The Sessions page's "last seen" of each log-in, to the hour.

    allauth's own activity tracking writes the session's row on every request; here a
    request by a signed-in session writes it only when the hour has passed since the last
    write, so a player's clicks cost nothing more and the page still tells an old forgotten
    log-in from one in use. The hour's mark is in the cache (``seen_mark``, living an hour:
    no query while it is there), and the write is allauth's row alone, made only when its
    "last seen" is over an hour old (so several processes, or a cache that forgot, write
    it once). Never the session itself: saving the session would write back this
    request's whole copy of it over what a concurrent request of the same session stored
    meanwhile (a new API token waiting to be shown once). Only a session the request read
    anyway is looked at (an API token or an anonymous request reads none), after the
    view, so a log-out or a log-in in the request counts."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        session = getattr(request, "session", None)
        if session is None or not session.accessed or SESSION_KEY not in session:
            return response
        key = session.session_key
        if key is None:
            return response
        from django.core.cache import cache

        if not cache.add(seen_mark(key), 1, SEEN_EVERY):
            return response  # seen within the hour
        from allauth.usersessions.models import UserSession
        from django.utils import timezone

        now = timezone.now()
        rows = UserSession.objects.filter(session_key=key)
        if rows.filter(last_seen_at__lt=now - timedelta(seconds=SEEN_EVERY)).update(last_seen_at=now):
            return response
        if request.user.is_authenticated and not rows.exists():
            # A log-in made before the Sessions page existed (or kept by no log-in view):
            # listed from now on, so that "Log out the other sessions" ends it too.
            UserSession.objects.create_from_request(request)
        return response


class TwoFactorKeyUnreadableMiddleware:
    """A two-factor page that needs a stored secret no key of the site opens any more
    (SECRET_KEY changed, the old key dropped: ``fivex_site.mfa_secrets``) answers what
    happened and what to do, 409, instead of a server error. The log-in's code form says
    it in the form itself (``fivex_site.mfa_forms``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.shortcuts import render

        from fivex_site.mfa_secrets import SecretUnreadable

        if not isinstance(exception, SecretUnreadable):
            return None
        return render(request, "mfa/key_unreadable.html", status=409)
