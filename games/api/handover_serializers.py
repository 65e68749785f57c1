"""Input and output serializers of a seat's handover over the API
(games.api.handover_views): the organizer's offer (or staff's handover at once) and its
withdrawal, the organizer's privacy switch, and the offered player's view of an offer.
An offer as its player sees it holds nothing of the seat's hand (as the offer's page and
email), only what the game's public page would show of it."""

from __future__ import annotations

from rest_framework import serializers

from games.api.input_serializers import (
    NOT_BLANK,
    ConfirmField,
    StrictCharField,
    StrictInputSerializer,
)
from games.api.serializers import RulesetIdField, WhenField
from games.models import Game, SeatOffer

#: Who made an offer: the game's organizer, or a site administrator (``acting``'s ``as``).
OFFERED_AS = (("organizer", "organizer"), ("staff", "staff"))


def _player(help_text: str) -> StrictCharField:
    # The organizer's replace form's field (SeatReplaceForm.username): at most 150.
    return StrictCharField(max_length=150, min_length=1, validators=[*NOT_BLANK], help_text=help_text)


class OfferInputSerializer(StrictInputSerializer):
    player = _player(
        "The player offered the seat: their player name, in any case (as the organizer's "
        "panel takes it). A closed account is nobody. Site administrators may give an "
        "email address instead."
    )


class ReplaceInputSerializer(StrictInputSerializer):
    player = _player(
        "The player who takes the seat: their player name, in any case, or an email address."
    )
    confirm = ConfirmField(
        error_messages={
            "required": "Send \"confirm\": true to hand the seat over: nothing was changed."
        },
        help_text="Must be true: a handover at once is final, its player does not come back "
        "(the panel asks for a tick too).",
    )

    def validate_confirm(self, value: bool) -> bool:
        if value is not True:
            raise serializers.ValidationError(
                "Send \"confirm\": true to hand the seat over: nothing was changed."
            )
        return value


class PrivacyInputSerializer(StrictInputSerializer):
    private = serializers.BooleanField(
        help_text="true: private (joined by its invitation link only, its pages shown to its "
        "players); false: public (listed among the open games). Before the start only."
    )


class OrganizerOfferSerializer(serializers.Serializer):
    """A seat offer still waiting for its player's answer, as the organizer's tools see it."""

    id = serializers.IntegerField(help_text="The offer's id (to withdraw it).")
    seat = serializers.CharField(help_text="The seat offered.")
    position = serializers.IntegerField(allow_null=True, help_text="The seat's position.")
    player = serializers.CharField(help_text="The player offered the seat.")
    by = serializers.CharField(help_text="Who offered it: the organizer or a site administrator.")
    created = WhenField(help_text="When it was offered.")
    lapses_at = WhenField(
        help_text="When it lapses unanswered (7 days after it was made; the hourly sweep "
        "closes it): the seat may be offered to another player then."
    )


class SeatOfferSerializer(serializers.Serializer):
    """A seat offered to you: the game, the seat and who offers it, as the offer's page
    shows it. Nothing of the seat's hand: you see that once you have accepted (the game's
    seat view)."""

    id = serializers.IntegerField(help_text="The offer's id (to accept or decline it).")
    status = serializers.ChoiceField(
        choices=SeatOffer.Status.choices,
        help_text="pending until answered; accepted, declined, or withdrawn (by the organizer, "
        "or closed: the seat was handed to another player, the game ended, the offer lapsed).",
    )
    standing = serializers.BooleanField(
        help_text="Whether it can still be accepted: pending, in a game in progress."
    )
    game = serializers.IntegerField(help_text="The game's id.")
    game_name = serializers.CharField()
    ruleset = RulesetIdField()
    organizer = serializers.CharField(help_text="The game's organizer.")
    game_status = serializers.ChoiceField(choices=Game.Status.choices)
    seat = serializers.CharField(help_text="The seat offered.")
    position = serializers.IntegerField(allow_null=True, help_text="The seat's position.")
    seat_resigned = serializers.BooleanField(
        help_text="Whether its player resigned (you would order for it from now on)."
    )
    offered_as = serializers.ChoiceField(
        choices=OFFERED_AS, help_text="Who offers it: the game's organizer, or a site administrator."
    )
    offered_by = serializers.CharField(
        allow_null=True,
        help_text="The organizer's name when the organizer offers it; null for a site "
        "administrator (not named, as on the offer's page).",
    )
    prompt = serializers.IntegerField(
        allow_null=True, help_text="The game's open prompt, while the offer stands; else null."
    )
    deadline = WhenField(
        allow_null=True,
        help_text="That prompt's deadline; null while the game is paused or the offer closed.",
    )
    created = WhenField(help_text="When it was offered.")
    lapses_at = WhenField(help_text="When it lapses if you have not answered it.")


def organizer_offer(offer: SeatOffer) -> dict:
    """``offer`` (its seat, player and offerer read) as ``OrganizerOfferSerializer`` takes it."""
    from games.services.handover import offer_lapses_at

    return {
        "id": offer.pk,
        "seat": offer.seat.name,
        "position": offer.seat.position,
        "player": offer.to_user.username,
        "by": offer.by.username,
        "created": offer.created_at,
        "lapses_at": offer_lapses_at(offer),
    }
