"""Pages are written in the signed-in player's time zone (``PlayerSettings``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

#: Paths that never show a local date: the API writes UTC (``Z``) whatever the caller.
_SKIPPED = ("/api/", "/static/", "/healthz", "/anymail/")


class PlayerTimeZoneMiddleware:
    """Activate the player's time zone for the request (one small query for a signed-in
    player's page; none for the API, static files and anonymous visitors)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(_SKIPPED) or not request.user.is_authenticated:
            return self.get_response(request)
        from games.selectors import time_zone_of

        with timezone.override(time_zone_of(user=request.user)):
            return self.get_response(request)
