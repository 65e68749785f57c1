"""Saying over the API until when the caller is away (``games.services.away``), as the
settings page's *Away*: ``GET/PUT/DELETE /api/away/``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import serializers as s
from games.api.base import BODY_ERRORS, READ_ERRORS, BaseAPIView
from games.api.input_serializers import StrictInputSerializer
from games.services.away import AWAY_AHEAD_DAYS, away_until, player_away_set


class AwayInputSerializer(StrictInputSerializer):
    until = drf_serializers.DateField(
        help_text="The last day you are away (YYYY-MM-DD): it ends at midnight in your time "
        f"zone (the settings page's). Today to {AWAY_AHEAD_DAYS} days ahead."
    )


class AwaySerializer(drf_serializers.Serializer):
    away_until = s.WhenField(
        allow_null=True,
        help_text="Until when you are away (UTC); null when you are not. Games made to wait "
        "for players who are away (their away_days) move a passing deadline to it.",
    )


class AwayView(BaseAPIView):
    """Until when you are away. PUT ``{"until": "2026-12-05"}`` says it (400 for a day past
    or too far); DELETE says you are back; GET reads it."""

    @extend_schema(responses={200: AwaySerializer, **READ_ERRORS})
    def get(self, request: Request) -> Response:
        return Response(AwaySerializer({"away_until": away_until(user=request.user)}).data)

    @extend_schema(
        request=AwayInputSerializer, responses={200: AwaySerializer, **READ_ERRORS, **BODY_ERRORS}
    )
    def put(self, request: Request) -> Response:
        data = AwayInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        until = player_away_set(user=request.user, until=data.validated_data["until"])
        return Response(AwaySerializer({"away_until": until}).data)

    @extend_schema(responses={200: AwaySerializer, **READ_ERRORS})
    def delete(self, request: Request) -> Response:
        player_away_set(user=request.user, until=None)
        return Response(AwaySerializer({"away_until": None}).data)
