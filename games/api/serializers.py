"""Input and output serializers of the API: one explicit pair per operation. They shape
data only; the services and the engine decide what is allowed."""

from __future__ import annotations

import json
import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils import html

import engine
from games import selectors
from games.api.error_codes import ERROR_CODE_CHOICES
from games.models import Game, SealedOrder, Seat

ORDER_MAX_LENGTH = 4000

# Closed sets the schema names as enums (``SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]``
# points here, so each keeps its name): the statuses of a game that is over, as an export
# has them, and the export's formats.
GAME_OVER_STATUS_CHOICES = tuple(
    (value, label) for value, label in Game.Status.choices
    if value in (Game.Status.FINISHED, Game.Status.ABANDONED)
)  # fmt: skip
EXPORT_FORMATS = ("fivex-game-log/1",)


class RulesetIdField(serializers.ChoiceField):
    """A ruleset's id: one of the engine's (``RulesetEnum`` in the schema). An answer's
    value is written as it is, as a CharField would."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=engine.ids(), **kwargs)


# --- inputs -----------------------------------------------------------------------

# A form post through the session carries Django's CSRF token as a field of its own.
_TRANSPORT_FIELDS = frozenset({"csrfmiddlewaretoken"})
# A whole number written as text (a query string, a form): ASCII digits, a minus at most.
WHOLE_NUMBER_RE = re.compile(r"-?[0-9]{1,18}")


class StrictInputSerializer(serializers.Serializer):
    """Unknown fields are refused (400, the field named), not ignored."""

    # (Ignored, a misspelt ``prompt`` would send an order unguarded to whatever prompt is
    # open. The docstring above is every input's description in the schema.)

    def to_internal_value(self, data: Any) -> Any:
        """A JSON body's numbers and booleans are JSON's own: ``"prompt": "01"`` or
        ``"is_private": "yes"`` is refused (400, named), not read as 1 or true (an API
        audit: "nothing is guessed"). A form body and a query string are text by nature."""
        text = html.is_html_input(data) or self.context.get("query")
        if text and hasattr(data, "get"):
            # A query string or a form is text, but a whole number in it is still ASCII
            # digits: int() took "١٢" and "５", DRF's IntegerField "5.0" (an audit). An
            # empty value is DRF's to read (an optional field left blank in a form is not
            # given, as before; a required one is refused by the field).
            errors = {
                name: ["Must be a whole number, in the digits 0-9 (3, not 3.0)."]
                for name, field in self.fields.items()
                if isinstance(field, serializers.IntegerField)
                and isinstance(data.get(name), str)
                and data.get(name) != ""
                and not WHOLE_NUMBER_RE.fullmatch(data.get(name))
            }
            if errors:
                raise serializers.ValidationError(errors)
        if isinstance(data, dict) and not text:
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if isinstance(field, serializers.BooleanField) and name in data and not isinstance(value, bool):
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


class GameCreateInputSerializer(StrictInputSerializer):
    ruleset = RulesetIdField()
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    seats_count = serializers.IntegerField(min_value=2, max_value=12)
    options = OptionsField(required=False, default=dict)
    is_private = serializers.BooleanField(required=False, default=False)
    require_sender_match = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Orders by email must also come from the player's account address.",
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
        help_text="hour on the clock of quiet_hours_time_zone",
    )
    quiet_hours_end = serializers.IntegerField(
        min_value=0,
        max_value=23,
        required=False,
        allow_null=True,
        help_text="hour on the clock of quiet_hours_time_zone",
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
        from games.services.games import options_within_site_limits

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
    invite_token = StrictCharField(max_length=200, required=False, allow_blank=True)


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


# --- outputs ----------------------------------------------------------------------


class WhenField(serializers.DateTimeField):
    """A moment, written as everywhere in the API (ISO 8601, UTC as ``Z``), also when the
    view holds it as ISO text already."""

    def to_representation(self, value: Any) -> Any:
        if isinstance(value, str):
            return value[:-6] + "Z" if value.endswith("+00:00") else value
        return super().to_representation(value)


class SeatSerializer(serializers.Serializer):
    name = serializers.CharField()
    position = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=Seat.Status.choices)
    user = serializers.CharField(source="user.username")


class PartOfSerializer(serializers.Serializer):
    """The series a game is part of, as the game's page links it ("Part of ...")."""

    label = serializers.CharField(
        help_text='What the game is part of, in words: for a tournament\'s game "<tournament>, '
        'round <n>".'
    )
    url = serializers.URLField(
        help_text="Its public page: for a tournament's game, the round's page (its tables, "
        "results and a link to the standings; GET /api/tournaments/{slug}/ has the same)."
    )


PART_OF_HELP = (
    "What the game is part of: a tournament's round, for the games a round made (their "
    "results count in its standings); null for any other game."
)


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    ruleset = RulesetIdField()
    options = serializers.JSONField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    seats_count = serializers.IntegerField()
    is_private = serializers.BooleanField()
    require_sender_match = serializers.BooleanField()
    organizer = serializers.CharField(source="organizer.username")
    seed_commitment = serializers.SerializerMethodField(
        help_text="SHA-256 of the game's seed, published when it starts (the log reveals the "
        "seed at the end); null before the start."
    )
    deadline_hours = serializers.FloatField()
    grace_minutes = serializers.IntegerField()
    quiet_hours_start = serializers.IntegerField(allow_null=True)
    quiet_hours_end = serializers.IntegerField(allow_null=True)
    quiet_hours_time_zone = serializers.CharField()
    reminder_hours = serializers.FloatField()
    early_resolution_delay_seconds = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Once the game is over: the seats in groups, best first, tied seats in one "
        "group (``[[\"ann\"], [\"bob\", \"cat\"]]``); null before.",
    )
    end_reason = serializers.CharField(
        help_text="Why the game ended before its rules ended it: \"every player but <seat> "
        "resigned; <seat> wins\" (a walkover: ``ranking`` is that seat, then the resigned seats tied), "
        "or the organizer's reason for ending it (``abandoned``); empty otherwise."
    )
    seats = serializers.SerializerMethodField(
        help_text="The seats as they are held now (a replaced player's old seat is left out: "
        "the seat keeps its name, ``user`` is who holds it)."
    )
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text="The game's options that are allowed but not recommended, in words (5X "
        "without Great Leaders for 5 or 6 players); empty for most games.",
    )

    part_of = serializers.SerializerMethodField(help_text=PART_OF_HELP)

    @extend_schema_field(PartOfSerializer(allow_null=True))
    def get_part_of(self, game: Any) -> dict[str, str] | None:
        return selectors.part_of(label=game.part_of_label, path=game.part_of_path)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_seed_commitment(self, game: Any) -> str | None:
        return game.seed_commitment or None  # "" before the start read as a commitment

    @extend_schema_field(SeatSerializer(many=True))
    def get_seats(self, game: Any) -> list[dict[str, Any]]:
        held = [seat for seat in game.seats.all() if seat.status != "replaced"]
        return SeatSerializer(held, many=True).data


class MyGameSerializer(GameSerializer):
    """One of the caller's games (``GET /api/games/``)."""

    order_needed = serializers.SerializerMethodField(
        help_text="The number of the open prompt that waits for your order (none sent yet), "
        "or null: poll this list to know where to play."
    )

    order_deadline = serializers.SerializerMethodField(
        help_text="When ``order_needed`` is a prompt: its deadline (null while the game is "
        "paused); null otherwise. Which game next is the nearest of these."
    )

    invite_token = serializers.SerializerMethodField(
        help_text="A private game's invitation token, for its organizer to share; null "
        "for everyone else and for public games."
    )

    def get_order_needed(self, game: Any) -> int | None:
        prompt = (self.context.get("needed") or {}).get(game.pk)
        return None if prompt is None else prompt.number

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_order_deadline(self, game: Any) -> str | None:
        prompt = (self.context.get("needed") or {}).get(game.pk)
        if prompt is None or prompt.deadline is None:
            return None
        return WhenField().to_representation(prompt.deadline)

    def get_invite_token(self, game: Any) -> str | None:
        user = self.context.get("user")
        if game.is_private and user is not None and game.organizer_id == user.pk:
            return str(game.invite_token)
        return None


class GameCreatedSerializer(GameSerializer):
    """The new game, with its invitation token (for the organizer to share)."""

    invite_token = serializers.SerializerMethodField(
        help_text="A private game's invitation token (null for a public game)."
    )

    def get_invite_token(self, game: Any) -> str | None:
        return str(game.invite_token) if game.is_private else None


class GameBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    ruleset = RulesetIdField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Once the game is over: the seats in groups, best first, tied seats in one "
        "group; null before (as in ``GET /api/games/``).",
    )
    end_reason = serializers.CharField(
        allow_blank=True,
        help_text="Why the game ended before its rules ended it (a walkover, the organizer's "
        "reason); empty otherwise.",
    )
    finished_at = WhenField(allow_null=True)
    part_of = PartOfSerializer(allow_null=True, help_text=PART_OF_HELP)


class PromptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    round = serializers.IntegerField(required=False)
    phase = serializers.CharField()
    deadline = WhenField(allow_null=True)
    pending = serializers.ListField(
        child=serializers.CharField(),
        help_text="The seats this prompt asks for an order, whether or not theirs is in "
        "(``ready`` lists those sealed; ``my_order`` is yours): not only those still to order.",
    )
    ready = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Seats whose order is sealed."
    )


class ReceiptSerializer(serializers.Serializer):
    """The receipt of a sealed order: the commitment is public, the text is the
    submitter's own."""

    commitment = serializers.CharField()
    prompt = serializers.IntegerField()
    submitted_at = WhenField()
    text = serializers.CharField()
    source = serializers.ChoiceField(
        choices=SealedOrder.Source.choices,
        help_text="How the order came in: web, api, email; default (a no-show or resigned"
        " seat's default order) or forced (entered for the seat: its only legal order, or one no choice would change)."
    )


class SubmittedReceiptSerializer(ReceiptSerializer):
    """The receipt of the order just sent: with how the server read it."""

    understood_as = serializers.CharField(
        help_text="How the server read the order, in the order language as the legal orders"
        " are written (e.g. ALLOCATE EXPLORE EXPAND for 'allocate explore expand'), as the game"
        " page's and the email confirmation's 'Understood as'; empty when the text is written"
        " that way already."
    )


class EventSerializer(serializers.Serializer):
    """One event of the last resolved prompt that the caller may see, as the engine
    wrote it (the game log holds every prompt's)."""

    kind = serializers.CharField()
    text = serializers.CharField()
    data = serializers.JSONField(
        required=False,
        help_text="The engine's structured form of the event, where the view gives it; null "
        "otherwise (the text says it all).",
    )  # fmt: skip


class SeatViewSerializer(serializers.Serializer):
    """What the caller may see of a game: its seat's view, or the spectator's."""

    game = GameBriefSerializer()
    seat = serializers.CharField(allow_null=True)
    prompt = PromptSerializer(allow_null=True)
    my_order = ReceiptSerializer(allow_null=True)
    legal_orders = serializers.ListField(
        child=serializers.CharField(),
        help_text="Every order the seat may give now, in the game's order language (the "
        "rules pages, /games/rules/<ruleset>/, describe it), as the engine lists them. "
        "Empty when the seat is not asked.",
    )
    legal_orders_complete = serializers.BooleanField(
        help_text="False when the list was cut (4X Dice's eXterminate lists at most 1,000 "
        "hit lists, in the engine's order): other orders of the same language are legal too. "
        "HIT dice are numbered from 1 in the order of their owner's ALLOCATE."
    )
    events = EventSerializer(many=True)
    view = serializers.JSONField(help_text="The ruleset's own per-seat view.")


class LogEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="1, 2, 3, ... in order")
    kind = serializers.CharField(
        help_text="game_created, seat_joined, seat_left, privacy_changed, game_started, "
        "order_received, "
        "order_replaced, order_forced, nmr_applied, orders_revealed, prompt_resolved, "
        "deadline_extended, reminder_sent, game_paused, game_resumed, seat_offered, "
        "seat_offer_withdrawn, seat_offer_declined, seat_replaced, seat_resigned, "
        "game_finished, game_ended, game_walkover (an organizer action's payload says who did it: "
        "``by``, a user name, and ``as``, ``organizer`` or ``staff``; entries written before "
        "carry neither)"
    )
    payload = serializers.JSONField(help_text="what happened; its keys depend on ``kind``")
    created_at = serializers.CharField(help_text="ISO 8601 in UTC, microseconds, ``Z``")
    prev_hash = serializers.CharField(help_text="the previous entry's ``hash`` (64 zeros first)")
    hash = serializers.CharField(
        help_text="SHA-256 over this entry and ``prev_hash`` (``python -m engine verify``)"
    )
    redacted = serializers.BooleanField(
        required=False,
        help_text="present (true) on an ``orders_revealed`` entry while the game runs: other "
        "seats' orders are shown as their commitments only",
    )


class LogSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    entries = LogEntrySerializer(many=True)


class ExportGameSerializer(serializers.Serializer):
    """The game record of an export: what ``python -m engine verify`` replays it from."""

    id = serializers.IntegerField()
    public_id = serializers.CharField()
    name = serializers.CharField()
    ruleset = RulesetIdField()
    engine_version = serializers.CharField()
    options = serializers.DictField(help_text="The ruleset's options as the game was created.")
    setup = serializers.DictField(
        allow_null=True, help_text="The fixed set-up the game was created with, if any."
    )
    status = serializers.ChoiceField(choices=GAME_OVER_STATUS_CHOICES, help_text="finished or abandoned")
    players = serializers.ListField(child=serializers.CharField(), help_text="In seating order.")
    seed = serializers.IntegerField(allow_null=True, help_text="The RNG seed, revealed.")
    seed_salt = serializers.CharField(allow_null=True)
    setup_salt = serializers.CharField(allow_null=True)
    seed_commitment = serializers.CharField(help_text="SHA-256 published at the start.")
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="The seats in groups, best first; null for a game ended early.",
    )


class ExportSerializer(serializers.Serializer):
    """A game that is over, whole: verifiable offline with ``python -m engine verify``."""

    format = serializers.ChoiceField(choices=EXPORT_FORMATS, help_text="``fivex-game-log/1``")
    game = ExportGameSerializer()
    entries = LogEntrySerializer(many=True)
    final_state = serializers.DictField(
        allow_null=True, help_text="The engine's state at the end (its keys depend on the ruleset)."
    )


class PingSerializer(serializers.Serializer):
    ok = serializers.BooleanField()


class ErrorSerializer(serializers.Serializer):
    """Every refusal: a code for programs and a message for people."""

    error = serializers.ChoiceField(
        choices=ERROR_CODE_CHOICES,
        help_text="What went wrong, for programs: one of these codes, each with the HTTP "
        "status it comes with and what it means (the API answers no other).",
    )
    message = serializers.CharField(help_text="For people: what was refused and why.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="With 400 invalid: the message of each field that was refused.",
    )


class RulesetOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    default = serializers.JSONField()
    help = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class RulesetSerializer(serializers.Serializer):
    """A game the server plays: what ``POST /api/games/`` takes as ``ruleset`` and
    ``options``."""

    id = RulesetIdField(help_text="The ruleset's id, as games name it.")
    name = serializers.CharField()
    version = serializers.CharField(help_text="The engine version new games get.")
    players = serializers.ListField(
        child=serializers.IntegerField(), help_text="The fewest and the most seats."
    )
    options = RulesetOptionSerializer(many=True)
    rules_url = serializers.CharField(help_text="The rules page for players, order language included.")
