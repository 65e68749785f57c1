"""The caller's calendar feed address over the API, as the Calendar page sets it
(``games.services.players``): ``GET/POST/DELETE /api/calendar/``.

The address is in an answer only when it was made by that call (POST): the site keeps
only its SHA-256, and never shows it again. New addresses are capped per player
(``API_CALENDAR_RATE``, the page's and the API's counted together)."""

from __future__ import annotations

import math

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions as drf_exceptions
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import errors
from games.api import serializers as s
from games.api.base import BODY_ERRORS, ERRORS, BaseAPIView, UserThrottle
from games.api.input_serializers import EmptyInputSerializer
from games.calendar_feed import feed_addresses
from games.models import PlayerSettings
from games.rate_limits import PERIODS
from games.services.players import calendar_feed_create, calendar_feed_revoke


class CalendarSerializer(drf_serializers.Serializer):
    """Whether your calendar feed address works; the address itself only in the answer
    of the POST that made it."""

    active = drf_serializers.BooleanField(
        help_text="Whether you have a calendar address (it is shown once, when made)."
    )
    url = drf_serializers.URLField(
        required=False,
        help_text="The feed's address (iCalendar, no login): subscribe to it in a calendar "
        "app. Only in the POST's answer; anyone holding it sees your games' names and "
        "deadlines.",
    )
    webcal_url = drf_serializers.CharField(
        required=False,
        help_text="The same address as a webcal:// link (opens a calendar app's "
        "subscription). Only in the POST's answer.",
    )


class CalendarThrottle(UserThrottle):
    """``API_CALENDAR_RATE``: new calendar addresses a player makes (each a new secret),
    the API's POSTs and the Calendar page's together."""

    scope = "calendar"


def _too_many(throttle: CalendarThrottle) -> str:
    return (
        f"Too many new calendar addresses (at most {throttle.num_requests} "
        f"{PERIODS.get(throttle.duration, f'per {throttle.duration} seconds')}): "
        "the one you have still works."
    )


def over_calendar_rate(request: Request) -> str:
    """"" while the player is under ``API_CALENDAR_RATE`` (this new address counted,
    the API's too), else what to tell them (the Calendar page's form)."""
    throttle = CalendarThrottle()
    if throttle.allow_request(request, None):
        return ""
    minutes = max(1, math.ceil((throttle.wait() or 60) / 60))
    return f"{_too_many(throttle)} Try again in {minutes} minute{'s' if minutes != 1 else ''}."


NO_CALENDAR = OpenApiResponse(s.ErrorSerializer, description="You have no calendar address")


def _active(user) -> bool:
    return PlayerSettings.objects.filter(user=user).exclude(calendar_digest="").exists()


class CalendarView(BaseAPIView):
    """Your calendar feed of deadlines: whether its address works (GET), a new address
    (POST: the old one stops working at once; at most ``API_CALENDAR_RATE``), turn it
    off (DELETE)."""

    throttle_classes = [CalendarThrottle]

    def throttled(self, request: Request, wait: float | None) -> None:
        raise drf_exceptions.Throttled(wait, detail=_too_many(CalendarThrottle()))

    @extend_schema(responses={200: CalendarSerializer, **{k: ERRORS[k] for k in (400, 401)}})
    def get(self, request: Request) -> Response:
        return Response(CalendarSerializer({"active": _active(request.user)}).data)

    @extend_schema(
        request=EmptyInputSerializer,
        responses={
            201: OpenApiResponse(
                CalendarSerializer,
                description="Made: the answer holds the address, once; the one before it "
                "(if any) no longer works",
            ),
            **{k: ERRORS[k] for k in (400, 401)},
            **BODY_ERRORS,
            429: OpenApiResponse(
                s.ErrorSerializer,
                description="Too many new addresses lately (throttled; `API_CALENDAR_RATE`): "
                "try again after Retry-After seconds; the address you have still works",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        self.no_input(request)
        token = calendar_feed_create(user=request.user)
        return Response(
            CalendarSerializer({"active": True, **feed_addresses(token)}).data, status=201
        )

    @extend_schema(
        responses={204: None, **{k: ERRORS[k] for k in (400, 401)}, 404: NO_CALENDAR}
    )
    def delete(self, request: Request) -> Response:
        if not calendar_feed_revoke(user=request.user):
            raise errors.NotFound("You have no calendar address to turn off.")
        return Response(status=204)
