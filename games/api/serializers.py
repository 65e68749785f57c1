"""Input and output serializers of the API: one explicit pair per operation. They shape
data only; the services and the engine decide what is allowed."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import engine

ORDER_MAX_LENGTH = 4000


# --- inputs -----------------------------------------------------------------------


class GameCreateInputSerializer(serializers.Serializer):
    ruleset = serializers.ChoiceField(choices=[])
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    seats_count = serializers.IntegerField(min_value=2, max_value=12)
    options = serializers.DictField(required=False, default=dict)
    is_private = serializers.BooleanField(required=False, default=False)
    deadline_hours = serializers.IntegerField(min_value=1, max_value=24 * 14, required=False)
    grace_minutes = serializers.IntegerField(min_value=0, max_value=24 * 60, required=False)
    quiet_hours_start = serializers.IntegerField(
        min_value=0, max_value=23, required=False, allow_null=True, help_text="UTC hour"
    )
    quiet_hours_end = serializers.IntegerField(
        min_value=0, max_value=23, required=False, allow_null=True, help_text="UTC hour"
    )
    reminder_hours = serializers.FloatField(min_value=0, max_value=24 * 14, required=False)
    early_resolution_delay_seconds = serializers.IntegerField(
        min_value=0, max_value=24 * 3600, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ruleset"].choices = engine.ids()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        ruleset = engine.get(attrs["ruleset"])
        try:
            attrs["options"] = ruleset.normalize_options(attrs.get("options") or {})
        except engine.ScriptError as exc:
            raise serializers.ValidationError({"options": str(exc)}) from None
        seats = attrs["seats_count"]
        if not ruleset.min_players <= seats <= ruleset.max_players:
            raise serializers.ValidationError(
                {
                    "seats_count": f"{ruleset.name} is for {ruleset.min_players} to "
                    f"{ruleset.max_players} players"
                }
            )
        return attrs


class JoinInputSerializer(serializers.Serializer):
    invite_token = serializers.CharField(max_length=200, required=False, allow_blank=True)


class EmptyInputSerializer(serializers.Serializer):
    """No fields: the operation takes nothing but the game in the URL."""


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": ORDER_MAX_LENGTH, "pattern": r"\S"}
)
class OrderTextField(serializers.CharField):
    """An order's text: surrounding white space dropped, so it must hold a character that
    is not white space (the schema says so with its pattern)."""


class OrderInputSerializer(serializers.Serializer):
    text = OrderTextField(max_length=ORDER_MAX_LENGTH, trim_whitespace=True)
    prompt = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Recommended: the prompt number this order answers (a retry or a double "
        "click is then safe). If that prompt is no longer open the order is refused (409) "
        "instead of landing on the next prompt.",
    )


# --- outputs ----------------------------------------------------------------------


class SeatSerializer(serializers.Serializer):
    name = serializers.CharField()
    position = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    user = serializers.CharField(source="user.username")


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.JSONField()
    status = serializers.CharField()
    seats_count = serializers.IntegerField()
    is_private = serializers.BooleanField()
    organizer = serializers.CharField(source="organizer.username")
    seed_commitment = serializers.CharField(allow_null=True, allow_blank=True)
    deadline_hours = serializers.FloatField()
    grace_minutes = serializers.IntegerField()
    quiet_hours_start = serializers.IntegerField(allow_null=True)
    quiet_hours_end = serializers.IntegerField(allow_null=True)
    reminder_hours = serializers.FloatField()
    early_resolution_delay_seconds = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ranking = serializers.JSONField(allow_null=True)
    seats = SeatSerializer(many=True)
    warnings = serializers.JSONField()


class MyGameSerializer(GameSerializer):
    """One of the caller's games (``GET /api/games/``)."""

    order_needed = serializers.SerializerMethodField(
        help_text="The number of the open prompt that waits for your order (none sent yet), "
        "or null: poll this list to know where to play."
    )

    def get_order_needed(self, game: Any) -> int | None:
        prompt = (self.context.get("needed") or {}).get(game.pk)
        return None if prompt is None else prompt.number


class GameCreatedSerializer(GameSerializer):
    """The new game, with its invitation token (for the organizer to share)."""

    invite_token = serializers.CharField()


class GameBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    ruleset = serializers.CharField()
    status = serializers.CharField()


class PromptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    round = serializers.IntegerField(required=False)
    phase = serializers.CharField()
    deadline = serializers.CharField(allow_null=True)
    pending = serializers.ListField(child=serializers.CharField())
    ready = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Seats whose order is sealed."
    )


class ReceiptSerializer(serializers.Serializer):
    """The receipt of a sealed order: the commitment is public, the text is the
    submitter's own."""

    commitment = serializers.CharField()
    prompt = serializers.IntegerField()
    submitted_at = serializers.DateTimeField()
    text = serializers.CharField()
    source = serializers.CharField(
        help_text="How the order came in: web, api, email; default (a no-show or resigned"
        " seat's default order) or forced (the seat's only legal order, entered for it)."
    )


class EventSerializer(serializers.Serializer):
    kind = serializers.CharField()
    text = serializers.CharField()
    data = serializers.JSONField(required=False)


class SeatViewSerializer(serializers.Serializer):
    """What the caller may see of a game: its seat's view, or the spectator's."""

    game = GameBriefSerializer()
    seat = serializers.CharField(allow_null=True)
    prompt = PromptSerializer(allow_null=True)
    my_order = ReceiptSerializer(allow_null=True)
    legal_orders = serializers.ListField(child=serializers.CharField())
    events = EventSerializer(many=True)
    view = serializers.JSONField(help_text="The ruleset's own per-seat view.")


class LogEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    payload = serializers.JSONField()
    created_at = serializers.CharField(allow_null=True, required=False)
    hash = serializers.CharField(required=False)
    prev_hash = serializers.CharField(required=False, allow_blank=True)


class LogSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    entries = serializers.ListField(child=serializers.DictField())


class PingSerializer(serializers.Serializer):
    ok = serializers.BooleanField()


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
