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
        # The zone the player chose ("" if none): pages leave its dates as written
        # instead of letting the browser rewrite them in the browser's own zone.
        request.player_time_zone = ""
        # path_info: under a prefix (SCRIPT_NAME /fivex) request.path starts with it, and the
        # API wrote a signed-in player's times in the player's zone.
        if request.path_info.startswith(_SKIPPED) or not request.user.is_authenticated:
            return self.get_response(request)
        from games.selectors_players import chosen_time_zone, time_zone_of

        zone = time_zone_of(user=request.user)
        request.player_time_zone = zone.key if chosen_time_zone(user=request.user) else ""
        with timezone.override(zone):
            return self.get_response(request)
