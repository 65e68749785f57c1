"""Input serializers of the API: what each operation takes, strictly (unknown fields and
wrongly typed values refused). They shape data only; the services and the engine decide
what is allowed."""

from __future__ import annotations

import json
import re
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils import html

import engine
from games.api.serializers import RulesetIdField

ORDER_MAX_LENGTH = 4000


# A form post through the session carries Django's CSRF token as a field of its own.
_TRANSPORT_FIELDS = frozenset({"csrfmiddlewaretoken"})


# A whole number written as text (a query string, a form): ASCII digits, a minus at most.
WHOLE_NUMBER_RE = re.compile(r"-?[0-9]+")
# More digits than any bound of a field here (talk's ``after`` goes to 2**62, 19 digits):
# refused before int() reads them (a 5,000-digit number is Python's ValueError).
WHOLE_NUMBER_DIGITS = 19
# A boolean written as text (a query string, a form): true or false in any letter case
# (Python's requests sends True), or 1 or 0 (PHP's http_build_query); nothing else.
TEXT_BOOLEANS = frozenset({"true", "false", "1", "0"})
TEXT_BOOLEAN_REFUSAL = "Must be true or false (1 or 0 also do)."


def _out_of_bounds(field: serializers.IntegerField) -> str:
    """The refusal of a whole number too long to read: the field's bounds, as DRF says
    them for a number past one (a 20-digit ``after`` was told it was not in the digits
    0-9; one of 19, within the schema's maximum, too: a fuzzing find)."""
    low, high = field.min_value, field.max_value
    if low is not None and high is not None:
        return f"Must be a whole number from {low} to {high}."
    if high is not None:
        return f"Ensure this value is less than or equal to {high}."
    return f"Must be a whole number of at most {WHOLE_NUMBER_DIGITS} digits."


class StrictInputSerializer(serializers.Serializer):
    """Unknown fields are refused (400, the field named), not ignored. In a JSON body a
    number and a boolean are JSON's own ("3" or "true" is refused), and a whole number
    (an integer field) has no fraction part: 3.0 is refused, though OpenAPI 3.1 counts it
    an integer."""

    # (Ignored, a misspelt ``prompt`` would send an order unguarded to whatever prompt is
    # open. The docstring above is every input's description in the schema.)

    def to_internal_value(self, data: Any) -> Any:
        """A JSON body's numbers and booleans are JSON's own: ``"prompt": "01"`` or
        ``"is_private": "yes"`` is refused (400, named), not read as 1 or true (an API
        audit: "nothing is guessed"). A form body and a query string are text by nature."""
        query = bool(self.context.get("query"))
        text = html.is_html_input(data) or query
        if text and hasattr(data, "get"):
            # A query string or a form is text, but a whole number in it is still ASCII
            # digits: int() took "١٢" and "５", DRF's IntegerField "5.0" (an audit); and a
            # boolean is true or false (any case), or 1 or 0: DRF's BooleanField took
            # "yes", "on", "t", "y" too, and an empty query value as no filter at all. An
            # empty value in a form is DRF's to read (an optional field left blank is not
            # given, as before; a required one is refused by the field).
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if not isinstance(value, str):
                    continue
                if isinstance(field, serializers.IntegerField):
                    if value != "" and not WHOLE_NUMBER_RE.fullmatch(value):
                        errors[name] = ["Must be a whole number, in the digits 0-9 (3, not 3.0)."]
                    elif len(value.lstrip("-")) > WHOLE_NUMBER_DIGITS:
                        errors[name] = [_out_of_bounds(field)]
                elif isinstance(field, serializers.BooleanField):
                    # Blank: in a form, not given; in a query, refused (it was no filter).
                    if (value != "" or query) and value.lower() not in TEXT_BOOLEANS:
                        errors[name] = [TEXT_BOOLEAN_REFUSAL]
            if errors:
                raise serializers.ValidationError(errors)
        if isinstance(data, dict) and not text:
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if (
                    isinstance(field, serializers.BooleanField)
                    and name in data
                    and not isinstance(value, bool)
                ):
                    errors[name] = ["Must be true or false (a JSON boolean)."]
                elif isinstance(field, serializers.IntegerField | serializers.FloatField) and (
                    isinstance(value, str | bool)
                ):
                    errors[name] = ["Must be a number (a JSON number, not a string)."]
                elif isinstance(field, serializers.IntegerField) and isinstance(value, float):
                    errors[name] = ["Must be a whole number (3, not 3.0)."]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        data = self.initial_data
        keys = data.keys() if hasattr(data, "keys") else ()
        unknown = sorted(k for k in keys if k not in self.fields and k not in _TRANSPORT_FIELDS)
        if unknown:
            known = ", ".join(sorted(self.fields)) or "none"
            raise serializers.ValidationError(
                {k: f"Unknown field (this operation takes: {known})." for k in unknown}
            )
        return attrs


#: A string field's validators when it must hold a character other than white space
#: (trimmed, a blank one is refused): the schema says so with its pattern, as the order
#: text's does (an API audit: "player": "" was refused, the schema allowed it). Give the
#: field ``min_length=1`` too.
NOT_BLANK = (RegexValidator(r"\S"),)


@extend_schema_field({"type": "boolean", "const": True})
class ConfirmField(serializers.BooleanField):
    """A ``confirm`` that must be true (the serializer's ``validate_confirm`` refuses false,
    naming what was not done): the schema says so with ``const``."""


class StrictCharField(serializers.CharField):
    """A string, and only a string: a number or a boolean is refused, not turned into
    text (``"text": 5`` is a client's bug, not an order)."""

    default_error_messages = {
        "not_a_string": "Must be a string.",
        "not_unicode": "Must be valid Unicode text (it holds a lone surrogate).",
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string")
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("not_unicode")
        return super().to_internal_value(data)


class OptionsField(serializers.DictField):
    """The ruleset's options: a JSON object (in a form-encoded body, the field's value
    is that object's JSON text)."""

    default_error_messages = {"not_json": "Must be a JSON object (in a form: its JSON text)."}

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary) and self.field_name in dictionary:
            raw = dictionary.get(self.field_name)
            try:
                value = json.loads(raw)
            except (TypeError, ValueError, RecursionError):  # too deeply nested: as garbage
                return raw  # refused by to_internal_value
            return value
        return super().get_value(dictionary)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            self.fail("not_json")
        return super().to_internal_value(data)


QUIET_HOURS_HELP = (
    "Hour on the clock of quiet_hours_time_zone. Give quiet_hours_start and quiet_hours_end "
    "both (different hours: they must not start and end at the same hour) or neither."
)


class GameCreateInputSerializer(StrictInputSerializer):
    ruleset = RulesetIdField()
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    seats_count = serializers.IntegerField(
        min_value=2, max_value=12,
        help_text="Within the ruleset's players (GET /api/rulesets/): "
        + ", ".join(f"{r.id}: {r.min_players} to {r.max_players}" for r in engine.rulesets())
        + ".",
    )  # fmt: skip
    options = OptionsField(required=False, default=dict)
    is_private = serializers.BooleanField(required=False, default=False)
    require_sender_match = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Orders by email must also come from the player's account address.",
    )
    talk_open = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Whether its players write on its talk page (its organizer always may).",
    )
    away_days = serializers.IntegerField(
        min_value=0,
        max_value=14,
        required=False,
        default=0,
        help_text="Days a deadline may wait, in all over the game, for each seat whose player "
        "said they are away (0, the default: deadlines never wait).",
    )
    deadline_hours = serializers.FloatField(
        min_value=1, max_value=24 * 14, required=False,
        help_text="Hours per prompt, 1 to 336 (fractions allowed: 1.5 is 90 minutes).",
    )  # fmt: skip
    grace_minutes = serializers.IntegerField(min_value=0, max_value=24 * 60, required=False)
    quiet_hours_start = serializers.IntegerField(
        min_value=0,
        max_value=23,
        required=False,
        allow_null=True,
        help_text=QUIET_HOURS_HELP,
    )
    quiet_hours_end = serializers.IntegerField(
        min_value=0,
        max_value=23,
        required=False,
        allow_null=True,
        help_text=QUIET_HOURS_HELP,
    )
    quiet_hours_time_zone = StrictCharField(
        max_length=64,
        required=False,
        default="UTC",
        help_text="IANA time zone of the quiet hours, e.g. Europe/Paris (default UTC)",
    )
    reminder_hours = serializers.FloatField(min_value=0, max_value=24 * 14, required=False)
    early_resolution_delay_seconds = serializers.IntegerField(
        min_value=0, max_value=24 * 3600, required=False
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        ruleset = engine.get(attrs["ruleset"])
        from games.errors import ValidationError as ServiceError
        from games.services.game_options import options_within_site_limits

        try:
            attrs["options"] = ruleset.normalize_options(attrs.get("options") or {})
            options_within_site_limits(ruleset_id=ruleset.id, options=attrs["options"])
        except (engine.ScriptError, ServiceError) as exc:
            raise serializers.ValidationError({"options": str(exc)}) from None
        start, end = attrs.get("quiet_hours_start"), attrs.get("quiet_hours_end")
        if (start is None) != (end is None):
            missing = "quiet_hours_end" if end is None else "quiet_hours_start"
            raise serializers.ValidationError(
                {missing: "Quiet hours need both a start and an end hour, or neither."}
            )
        if start is not None and start == end:
            raise serializers.ValidationError(
                {"quiet_hours_end": "Quiet hours must not start and end at the same hour."}
            )
        from games.services.players import time_zone_valid

        try:
            attrs["quiet_hours_time_zone"] = time_zone_valid(
                attrs.get("quiet_hours_time_zone") or "UTC"
            )
        except ServiceError as exc:
            raise serializers.ValidationError({"quiet_hours_time_zone": str(exc)}) from None
        seats = attrs["seats_count"]
        if not ruleset.min_players <= seats <= ruleset.max_players:
            raise serializers.ValidationError(
                {
                    "seats_count": f"{ruleset.name} is for {ruleset.min_players} to "
                    f"{ruleset.max_players} players"
                }
            )
        return attrs


class JoinInputSerializer(StrictInputSerializer):
    invite_token = StrictCharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="A private game's invitation token: the last part of its invitation link, "
        "/games/{id}/invite/{token}/ (the organizer's page shows the link); a wrong or old one is "
        "refused for a private game. An open game needs none and does not read one given.",
    )


class EmptyInputSerializer(StrictInputSerializer):
    """No fields: the operation takes nothing but the game in the URL."""


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": ORDER_MAX_LENGTH, "pattern": r"\S"}
)
class OrderTextField(StrictCharField):
    """An order's text: surrounding white space dropped, so it must hold a character that
    is not white space (the schema says so with its pattern)."""


class OrderInputSerializer(StrictInputSerializer):
    text = OrderTextField(
        max_length=ORDER_MAX_LENGTH,
        trim_whitespace=True,
        help_text="The order in the game's order language. Notes (a line starting with #, or "
        "# after a space at a line's end) and a full stop or ! at a line's end are dropped "
        "before it is sealed, as on the web and by email: the receipt's text is what was "
        "sealed. A text of notes only is refused (400), as an empty one is.",
    )
    prompt = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Recommended: the prompt number this order answers (a retry or a double "
        "click is then safe). If that prompt is no longer open the order is refused (409) "
        "instead of landing on the next prompt.",
    )

    def validate_text(self, value: str) -> str:
        from games.notes import order_text

        text = order_text(value)
        if not text:
            raise serializers.ValidationError(
                "The order is empty: lines starting with # are notes, not orders."
                if "#" in value
                else "The order is empty."
            )
        return text
