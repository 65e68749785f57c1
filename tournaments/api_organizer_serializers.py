"""Input and output serializers of the tournament organizer's API
(``tournaments.api_organizer``). Their bounds are the organizer panel's and the new
tournament form's (``tournaments.forms``); the rules are the services'."""

from __future__ import annotations

from rest_framework import serializers

from games.api.input_serializers import (
    NOT_BLANK,
    QUIET_HOURS_HELP,
    ConfirmField,
    OptionsField,
    StrictCharField,
    StrictInputSerializer,
)
from games.api.serializers import RulesetIdField
from tournaments.api import TournamentDetailSerializer
from tournaments.forms import MAX_FORBIDDEN_PAIRS
from tournaments.models import Registration
from tournaments.services.results import MAX_REASON_CHARS
from tournaments.standings import TIEBREAK_NAMES

#: A player's name as the site spells them (sign-up's characters, or Django's own).
PLAYER_NAME = r"^[\w.@+-]{1,150}$"
#: The most players one request names (a table, the byes, a forbidden pair's list).
MAX_NAMES = 1000


def _player(help_text: str = "A player's name.") -> serializers.RegexField:
    return serializers.RegexField(
        PLAYER_NAME, max_length=150,
        error_messages={"invalid": "A player's name: letters, digits and . @ + - _ only."},
        help_text=help_text,
    )  # fmt: skip


class TournamentCreateInputSerializer(StrictInputSerializer):
    name = StrictCharField(
        max_length=120, min_length=1, validators=[*NOT_BLANK],
        help_text="One line; the address (slug) comes from it.",
    )  # fmt: skip
    ruleset = RulesetIdField()
    options = OptionsField(required=False, default=dict, help_text="The game's options.")
    table_sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=2, max_value=6), min_length=1, max_length=5,
        help_text="Allowed players per table, most preferred first, e.g. [4, 3].",
    )  # fmt: skip
    rounds_count = serializers.IntegerField(min_value=1, max_value=30)
    deadline_hours = serializers.FloatField(
        min_value=1, max_value=24 * 30, required=False, default=48,
        help_text="Hours per prompt of each table's game.",
    )  # fmt: skip
    quiet_hours_start = serializers.IntegerField(
        min_value=0, max_value=23, required=False, allow_null=True, default=None,
        help_text=QUIET_HOURS_HELP,
    )  # fmt: skip
    quiet_hours_end = serializers.IntegerField(
        min_value=0, max_value=23, required=False, allow_null=True, default=None,
        help_text=QUIET_HOURS_HELP,
    )  # fmt: skip
    quiet_hours_time_zone = StrictCharField(max_length=64, required=False, default="UTC")
    points_per_place = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField(min_value=0, max_value=1000),
                                    max_length=6),
        required=False, default=dict,
        help_text='By table size, the points from first to last place, e.g. {"4": [3, 2, 1, 0]}. '
        "Default: 1 for first, 0 for last, evenly between.",
    )  # fmt: skip
    bye_points = serializers.FloatField(
        min_value=0, max_value=1000, required=False, allow_null=True, default=None
    )
    requested_bye_points = serializers.FloatField(
        min_value=0, max_value=1000, required=False, allow_null=True, default=None
    )
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=list(TIEBREAK_NAMES)), required=False,
        max_length=len(TIEBREAK_NAMES), default=["buchholz"],
        help_text="In order; the new tournament form's default: Buchholz.",
    )  # fmt: skip
    rating_pool = StrictCharField(
        max_length=48, required=False, allow_blank=True, default="",
        help_text="Default: the game's id. The league's pools are for league administrators; "
        "anyone else's tournaments are rated in pools of their own (yourname:5x).",
    )  # fmt: skip
    allow_late_entry = serializers.BooleanField(required=False, default=True)
    table_talk = serializers.BooleanField(required=False, default=True)
    away_days = serializers.ChoiceField(
        choices=[0, 1, 3, 7], required=False, default=0,
        help_text="How long, in all over each game, a table's deadlines wait for a player "
        "who is away (days).",
    )  # fmt: skip
    forbidden_pairs = serializers.ListField(
        child=serializers.ListField(child=_player(), min_length=2, max_length=2),
        required=False, default=list, max_length=MAX_FORBIDDEN_PAIRS,
        help_text="Pairs of player names who are never seated at the same table.",
    )  # fmt: skip


class RegistrationAddInputSerializer(StrictInputSerializer):
    player = StrictCharField(
        max_length=254,
        help_text="The player's name (a league administrator may give an email address). "
        "Entering another player is a league administrator's right, as on the panel.",
    )


class PairByHandInputSerializer(StrictInputSerializer):
    tables = serializers.ListField(
        child=serializers.ListField(child=_player(), min_length=1, max_length=6),
        min_length=1, max_length=MAX_NAMES,
        help_text="One list per table: its players' names in seat order.",
    )  # fmt: skip
    byes = serializers.ListField(
        child=_player(), required=False, default=list, max_length=MAX_NAMES,
        help_text="Players with a pairing bye (a requested bye is kept anyway).",
    )  # fmt: skip
    force = serializers.BooleanField(
        required=False, default=False,
        help_text="Pair anyway despite the warnings (repeats, forbidden pairs, extra byes); "
        "without it a pairing with warnings is refused (409 pairing_warnings) and nothing saved.",
    )  # fmt: skip


class StartInputSerializer(StrictInputSerializer):
    pairing = serializers.RegexField(
        r"^[0-9a-f]{16}$", required=False,
        help_text="Recommended: the round's `pairing` as you saw it (GET .../organizer/): a "
        "round paired again since is not started (409).",
    )  # fmt: skip


class RepairInputSerializer(StrictInputSerializer):
    pairing = serializers.RegexField(
        r"^[0-9a-f]{16}$", required=False,
        help_text="Recommended for retries: the round's `pairing` as you saw it (GET "
        ".../organizer/): a round paired again since (your first attempt went through) is "
        "not paired once more (409 already_done).",
    )  # fmt: skip


class ExtendRoundInputSerializer(StrictInputSerializer):
    hours = serializers.IntegerField(
        min_value=1, max_value=168,
        help_text="Whole hours, 1 to 168, added to the open prompt's deadline of every game "
        "of the round being played (each game's extension cap applies).",
    )  # fmt: skip
    reason = StrictCharField(max_length=200, required=False, allow_blank=True, default="")


class ResultInputSerializer(StrictInputSerializer):
    ranking = serializers.ListField(
        child=serializers.ListField(child=_player(), min_length=1, max_length=6),
        max_length=6, required=False, default=list,
        help_text='Best first; tied players share a group: [["ann"], ["bob", "cat"]]. May be '
        "empty with nobody_played (everyone level).",
    )  # fmt: skip
    reason = StrictCharField(
        max_length=MAX_REASON_CHARS, min_length=1, validators=[*NOT_BLANK],
        help_text="Why the result is entered or corrected (logged).",
    )  # fmt: skip
    forfeit = serializers.BooleanField(
        required=False, default=False,
        help_text="Not played out (a forfeit): it counts in the standings, not the ratings.",
    )  # fmt: skip
    nobody_played = serializers.BooleanField(
        required=False, default=False,
        help_text="Nobody played it (a double forfeit): no points for anyone, not rated.",
    )  # fmt: skip

    def validate(self, data: dict) -> dict:
        if data["forfeit"] and data["nobody_played"]:
            # The panel's own words (tournaments.panel, action "result").
            raise serializers.ValidationError({"nobody_played": [
                "Tick one of \"not played (a forfeit)\" and \"nobody played (a double "
                "forfeit)\": a forfeit has a winner, a double forfeit none."
            ]})  # fmt: skip
        if not data["ranking"] and not data["nobody_played"]:
            raise serializers.ValidationError(
                {"ranking": ["Rank the table's players, best first: [[\"ann\"], [\"bob\"]]."]}
            )
        return data


class CloseInputSerializer(StrictInputSerializer):
    confirm = ConfirmField(
        error_messages={"required": "Send \"confirm\": true to close: nothing was closed."},
        help_text="Must be true: a closed tournament cannot be reopened.",
    )

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError("Send \"confirm\": true to close: nothing was closed.")
        return value


class RenameInputSerializer(StrictInputSerializer):
    name = StrictCharField(
        max_length=120, min_length=1, validators=[*NOT_BLANK],
        help_text="The new name, one line. The address (slug) stays: links keep working.",
    )


class DeleteInputSerializer(StrictInputSerializer):
    confirm = ConfirmField(
        error_messages={"required": "Send \"confirm\": true to delete: nothing was deleted."},
        help_text="Must be true: a deleted draft is gone, its log with it.",
    )

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError("Send \"confirm\": true to delete: nothing was deleted.")
        return value


class OrganizerRegistrationSerializer(serializers.Serializer):
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=Registration.Status.choices)
    first_round = serializers.IntegerField()
    withdrawn_after_round = serializers.IntegerField(allow_null=True)
    requested_byes = serializers.ListField(child=serializers.IntegerField())


class TournamentLogEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    actor = serializers.CharField(allow_null=True)
    at = serializers.CharField()
    payload = serializers.DictField(help_text="A pairing's input is left out (it is large).")


class OrganizerTournamentSerializer(TournamentDetailSerializer):
    registrations = OrganizerRegistrationSerializer(many=True)
    pairing = serializers.CharField(
        help_text="The paired round's pairing digest (send it to start the round); \"\" when "
        "no round waits to start."
    )
    warnings = serializers.ListField(
        child=serializers.CharField(), help_text="What the latest round's pairing could not avoid."
    )
    results_changed_since_pairing = serializers.BooleanField(
        help_text="A result was entered or corrected since the paired round was paired: "
        "re-pair it before starting it."
    )
    log = TournamentLogEntrySerializer(many=True, help_text="The audit log, newest first (30 entries).")
