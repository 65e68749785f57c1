"""Input and output serializers of the organizer's tools over the API
(games.api.organizer_views). Their bounds and messages are the organizer panel's forms'
(games.forms), so the API and the web refuse the same input with the same words."""

from __future__ import annotations

from rest_framework import serializers

from games.api.handover_serializers import OrganizerOfferSerializer
from games.api.input_serializers import ConfirmField, StrictCharField, StrictInputSerializer
from games.api.serializers import SeatSerializer, WhenField
from games.forms import (
    EXTEND_HOURS_MAX,
    EXTEND_HOURS_MESSAGES,
    EXTEND_HOURS_MIN,
    ORGANIZER_REASON_MAX,
)
from games.models import Game


def _reason(help_text: str) -> StrictCharField:
    return StrictCharField(
        max_length=ORGANIZER_REASON_MAX,
        required=False,
        allow_blank=True,
        default="",
        help_text=help_text,
    )


class ExtendInputSerializer(StrictInputSerializer):
    hours = serializers.IntegerField(
        min_value=EXTEND_HOURS_MIN,
        max_value=EXTEND_HOURS_MAX,
        error_messages=EXTEND_HOURS_MESSAGES,
        help_text=f"Whole hours to push the open prompt's deadline back by, "
        f"{EXTEND_HOURS_MIN} to {EXTEND_HOURS_MAX} (a week), as on the organizer's panel. A "
        "new deadline in the game's quiet hours moves to their end; while the game is "
        "paused, the time left when it resumes grows instead.",
    )
    reason = _reason("Told to the players and kept in the log (at most 200 characters).")
    prompt = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Recommended: the open prompt's number as you saw it (``prompt`` of "
        "GET .../organizer/). If that prompt was resolved meanwhile, nothing is extended "
        "(409 prompt_closed) instead of extending the next prompt's deadline; a prompt "
        "not opened yet is a 400.",
    )
    extensions = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Recommended for retries: how often that prompt's deadline was extended "
        "as you saw it (``extensions`` of GET .../organizer/ or of the last answer). If it "
        "was extended since (your first attempt went through), nothing more is extended "
        "(409 already_extended); more than the prompt's extensions so far is a 400. Without "
        "it, every call that passes is one more extension.",
    )


class PauseInputSerializer(StrictInputSerializer):
    reason = _reason("Told to the players and kept in the log (at most 200 characters).")


class EndInputSerializer(StrictInputSerializer):
    reason = _reason(
        "Told to the players, kept in the log and shown as the game's end_reason (at most "
        "200 characters)."
    )
    confirm = ConfirmField(
        error_messages={"required": "Send \"confirm\": true to end the game: nothing was ended."},
        help_text="Must be true: ending a game is final (the organizer's panel asks for a "
        "tick too). A game not started yet is cancelled."
    )

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError(
                "Send \"confirm\": true to end the game: nothing was ended."
            )
        return value


class ToolsAllowedSerializer(serializers.Serializer):
    """Which tools the game's state, and who you are in the game, allow now (each call
    checks again)."""

    extend = serializers.BooleanField()
    remind = serializers.BooleanField()
    pause = serializers.BooleanField()
    resume = serializers.BooleanField()
    end = serializers.BooleanField()
    offer = serializers.BooleanField(help_text="Offer (or, staff, hand over) a seat: in progress.")
    privacy = serializers.BooleanField(help_text="Make the game private or public: before the start.")


class OrganizerToolsSerializer(serializers.Serializer):
    """The game as its organizer's tools see it: what they may still do. Every tool
    answers with it, as it stands after the call."""

    game = serializers.IntegerField(help_text="The game's id.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    private = serializers.BooleanField(help_text="Whether the game is private.")
    talk_open = serializers.BooleanField(
        help_text="Whether its players write at its table (the organizer always may)."
    )
    prompt = serializers.IntegerField(
        allow_null=True, help_text="The open prompt's number; null when none is open."
    )
    deadline = WhenField(allow_null=True, help_text="The open prompt's deadline; null while paused.")
    remaining_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="While paused: the time the prompt gets back when the game resumes "
        "(negative: paused in the grace after its deadline); null otherwise.",
    )
    extensions = serializers.IntegerField(help_text="How often the open prompt's deadline was extended.")
    extensions_max = serializers.IntegerField(help_text="How often a prompt's deadline may be extended.")
    pauses_left = serializers.IntegerField(
        help_text="How often the game may still be paused in the last day's window (every "
        "pause and resume emails each seat)."
    )
    waiting = serializers.ListField(
        child=serializers.CharField(), help_text="The seats whose order the open prompt still waits for."
    )
    reminded = serializers.ListField(
        child=serializers.CharField(),
        help_text="Of those, the seats reminded for this prompt already (once per prompt and seat).",
    )
    unreachable = serializers.ListField(
        child=serializers.CharField(),
        help_text="Of those, the seats not reminded that no email reaches (no address, a "
        "deactivated account).",
    )
    seats = SeatSerializer(
        many=True,
        help_text="The seats as they are held now (a replaced player's old seat left out), "
        "with the ``position`` a seat's offer or handover names.",
    )
    offers = OrganizerOfferSerializer(
        many=True, help_text="The seat offers still waiting for their players' answers."
    )
    refused = serializers.CharField(
        allow_null=True,
        help_text="Why every tool but remind is refused to you, whatever the game's state "
        "(you play in this tournament's game: a tournament's games are managed by its site "
        "administrators), the message each such call's 403 gives; null when they are not.",
    )
    can = ToolsAllowedSerializer()


class RemindedSerializer(OrganizerToolsSerializer):
    """The seats reminded by this call, and the game as its organizer's tools see it now."""

    reminded_now = serializers.ListField(
        child=serializers.CharField(), help_text="The seats this call emailed a reminder."
    )


class OfferedSerializer(OrganizerToolsSerializer):
    """The offer made (or the same one, made before), and the game as its organizer's tools
    see it now."""

    offer = OrganizerOfferSerializer(help_text="The offer, waiting for the player's answer.")


class HandedSerializer(OrganizerToolsSerializer):
    """The seat as its new player holds it, and the game as its organizer's tools see it now."""

    seat = SeatSerializer(help_text="The seat, now its new player's.")
