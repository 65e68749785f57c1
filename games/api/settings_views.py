"""The caller's own settings over the API, as the settings page sets them:
``GET/PATCH /api/settings/`` (time zone, what new seats email, who may invite them by
name, turn emails one per prompt or a daily summary). Until when they are away is ``/api/away/``."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import BODY_ERRORS, READ_ERRORS, BaseAPIView
from games.api.input_serializers import NOT_BLANK, StrictInputSerializer
from games.errors import ValidationError
from games.models import PlayerSettings
from games.services.players import (
    player_email_default_set,
    player_invitations_set,
    player_time_zone_set,
    player_turn_emails_set,
    time_zone_valid,
)
from games.services.summaries import summary_warning


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
    turn_emails = drf_serializers.ChoiceField(
        choices=PlayerSettings.TurnEmails.values,
        help_text="Your turn and result emails: each (one per prompt) or daily (one summary a "
        "day at summary_hour in your time zone, of every game). Deadline reminders, the end "
        "of a game and notices still come one by one.",
    )
    summary_hour = drf_serializers.IntegerField(
        min_value=0, max_value=23, help_text="The daily summary's hour (0-23, your time zone)."
    )
    summary_warning = drf_serializers.CharField(
        allow_null=True,
        help_text="Null, or why the daily summary may come after a deadline: games of yours "
        "with deadlines shorter than a day (their reminders still come).",
    )


class SettingsInputSerializer(StrictInputSerializer):
    time_zone = drf_serializers.CharField(
        required=False, max_length=64, min_length=1, validators=[*NOT_BLANK],
        help_text="An IANA time zone name, e.g. Europe/Madrid.",
    )  # fmt: skip
    email_every_prompt = drf_serializers.BooleanField(required=False)
    apply_now = drf_serializers.BooleanField(
        required=False, default=False,
        help_text="With email_every_prompt: the seats of your games still going change too.",
    )  # fmt: skip
    invitations = drf_serializers.ChoiceField(
        choices=PlayerSettings.Invitations.values, required=False
    )
    turn_emails = drf_serializers.ChoiceField(
        choices=PlayerSettings.TurnEmails.values, required=False,
        help_text="each (one email per prompt) or daily (one summary a day).",
    )  # fmt: skip
    summary_hour = drf_serializers.IntegerField(
        required=False, min_value=0, max_value=23,
        help_text="The daily summary's hour, 0-23 in your time zone.",
    )  # fmt: skip

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
        "turn_emails": row.turn_emails if row else PlayerSettings.TurnEmails.EACH,
        "summary_hour": row.summary_hour if row else PlayerSettings._meta.get_field(
            "summary_hour").default,
        "summary_warning": summary_warning(user=user) or None,
    }


class SettingsView(BaseAPIView):
    """Your settings. PATCH any of ``time_zone``, ``email_every_prompt`` (with ``apply_now``),
    ``invitations``, ``turn_emails`` and ``summary_hour``: all are checked before any is
    changed (a 400 changes nothing). ``summary_warning`` is read only."""

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
            if "turn_emails" in wanted or "summary_hour" in wanted:
                player_turn_emails_set(
                    user=user, turn_emails=wanted.get("turn_emails"), hour=wanted.get("summary_hour")
                )
        return Response(SettingsSerializer(_settings(user)).data)
