"""The caller's own settings over the API, as the settings page sets them:
``GET/PATCH /api/settings/`` (time zone, what new seats email, who may invite them by
name). Until when they are away is ``/api/away/``."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import BODY_ERRORS, READ_ERRORS, BaseAPIView
from games.api.input_serializers import StrictInputSerializer
from games.errors import ValidationError
from games.models import PlayerSettings
from games.services.players import (
    player_email_default_set,
    player_invitations_set,
    player_time_zone_set,
    time_zone_valid,
)


class SettingsSerializer(drf_serializers.Serializer):
    time_zone = drf_serializers.CharField(
        allow_null=True,
        help_text="The time zone pages and emails write your dates in (IANA name); null: none "
        "chosen (emails in UTC). The API itself always answers in UTC.",
    )
    email_every_prompt = drf_serializers.BooleanField(
        help_text="What the seats you take from now on email: true after every prompt, false "
        "only when your order is wanted (a game's own seat setting may differ)."
    )
    invitations = drf_serializers.ChoiceField(
        choices=PlayerSettings.Invitations.values,
        help_text="Who may invite you to a game by name: anyone, played_with (players you have "
        "played a game with) or nobody.",
    )


class SettingsInputSerializer(StrictInputSerializer):
    time_zone = drf_serializers.CharField(
        required=False, max_length=64, help_text="An IANA time zone name, e.g. Europe/Madrid."
    )
    email_every_prompt = drf_serializers.BooleanField(required=False)
    apply_now = drf_serializers.BooleanField(
        required=False, default=False,
        help_text="With email_every_prompt: the seats of your games still going change too.",
    )  # fmt: skip
    invitations = drf_serializers.ChoiceField(
        choices=PlayerSettings.Invitations.values, required=False
    )

    def validate_time_zone(self, value: str) -> str:
        try:
            return time_zone_valid(value)
        except ValidationError as exc:
            raise drf_serializers.ValidationError(exc.message) from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)  # unknown fields refused
        if "apply_now" in self.initial_data and "email_every_prompt" not in attrs:
            raise drf_serializers.ValidationError(
                {"apply_now": ["Give it with email_every_prompt (it changes your seats to that)."]}
            )
        return attrs


def _settings(user: Any) -> dict[str, Any]:
    row = PlayerSettings.objects.filter(user=user).first()  # fresh, not the user's cache
    return {
        "time_zone": (row.time_zone if row else "") or None,
        "email_every_prompt": row.email_every_prompt if row else True,
        "invitations": row.invitations if row else PlayerSettings.Invitations.ANYONE,
    }


class SettingsView(BaseAPIView):
    """Your settings. PATCH any of ``time_zone``, ``email_every_prompt`` (with ``apply_now``)
    and ``invitations``: all are checked before any is changed (a 400 changes nothing)."""

    @extend_schema(responses={200: SettingsSerializer, **READ_ERRORS})
    def get(self, request: Request) -> Response:
        return Response(SettingsSerializer(_settings(request.user)).data)

    @extend_schema(
        request=SettingsInputSerializer,
        responses={200: SettingsSerializer, **READ_ERRORS, **BODY_ERRORS},
    )
    def patch(self, request: Request) -> Response:
        data = SettingsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wanted = data.validated_data
        user = request.user
        with transaction.atomic():
            if "time_zone" in wanted:
                player_time_zone_set(user=user, time_zone=wanted["time_zone"])
            if "email_every_prompt" in wanted:
                player_email_default_set(
                    user=user, every=wanted["email_every_prompt"], apply_now=wanted["apply_now"]
                )
            if "invitations" in wanted:
                player_invitations_set(user=user, who=wanted["invitations"])
        return Response(SettingsSerializer(_settings(user)).data)
