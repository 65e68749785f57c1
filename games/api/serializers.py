"""Output serializers of the API, and the fields inputs share with them (the inputs:
``games.api.input_serializers``; one explicit pair per operation). They shape data only;
the services and the engine decide what is allowed."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import engine
from games import selectors
from games.api.error_codes import ERROR_CODE_CHOICES
from games.models import Game, SealedOrder, Seat

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
    talk_open = serializers.BooleanField(
        help_text="Whether its players write on its talk page (its organizer always may)."
    )
    away_days = serializers.IntegerField(
        help_text="Days a deadline may wait, in all over the game, for each seat whose player "
        "said they are away; 0: deadlines never wait."
    )
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
