"""A seat's handover over the API, as the organizer's panel and the offer's page do it
(games.views.actions), through the same services (games.services.handover) with the same
checks, caps and messages.

The organizer (or staff) offers a seat to a player (``POST .../seats/{position}/offer/``):
nothing changes until that player accepts. A site administrator may instead hand it at
once (``POST .../seats/{position}/replace/``, ``"confirm": true``): the panel does that for
staff only, and it is a call of its own here, not a flag of the offer, since it is final
and answers with a seat, not an offer. The organizer may withdraw an offer still waiting.

The player offered a seat lists their offers (``GET /api/offers/``) and accepts or
declines one: an offer as they see it holds nothing of the seat's hand (as the offer's
page and email); they see the hand in the game's seat view once they have accepted."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import errors, selectors
from games.api import handover_serializers as h
from games.api import organizer_serializers as o
from games.api import serializers as s
from games.api.base import BODY_ERRORS, ERRORS, BaseAPIView
from games.api.input_serializers import EmptyInputSerializer
from games.api.organizer_views import THROTTLED, OrganizerBaseView, _conflict
from games.errors import GameStateError, NotFound, PermissionDenied
from games.forms import handover_player
from games.models import Game, Seat, SeatOffer
from games.services import handover

IN_PROGRESS = (Game.Status.ACTIVE, Game.Status.PAUSED)
SEAT_HELD = "seat_held (the player holds a seat in this game already)"
#: An offer's other refusals by the game's seats, each a 409 of its own (they were 400
#: invalid: a client told them apart, and from a typo, only by the message's words).
OFFER_REFUSALS = (
    "player_replaced (the player was replaced in this game before), player_is_organizer "
    "(the player is the game's organizer), offered_another_seat (the player is offered "
    "another seat of this game, still waiting: withdraw that offer first)"
)
OFFERS_CAPPED = OpenApiResponse(
    s.ErrorSerializer,
    description="offers_capped: the day's caps on offers are reached (10 a game, 3 to one "
    "player in a game, 5 to one player from any game), or the player declined a seat in "
    "this game less than a day ago; Retry-After says when the next offer may be made. "
    "Or too many organizer calls (throttled).",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    int,
    OpenApiParameter.HEADER,
    response=[429],
    description="Seconds until the next offer may be made (or the next call).",
)


def _seat_at(game: Game, position: int) -> Seat:
    """The seat at ``position`` that may be handed over: its player's, or resigned (a
    substitute takes it over). A game not in progress: 409, as the service says it."""
    if game.status not in IN_PROGRESS:
        raise GameStateError(handover.NOT_IN_PROGRESS)
    seats = Seat.objects.filter(game=game, status__in=(Seat.Status.ACTIVE, Seat.Status.RESIGNED))
    for seat in seats.select_related("user"):
        if seat.position == position:
            return seat
    raise NotFound(f"This game has no seat at position {position} to hand over.")


def _player(text: str, *, staff: bool) -> Any:
    """The account named ``text``, looked up as the panel's form does; nobody: a 400
    naming the field, with the form's words."""
    try:
        return handover_player(text, staff=staff)
    except errors.ValidationError as exc:
        raise drf_serializers.ValidationError({"player": [exc.message]}) from None


POSITION = OpenApiParameter(
    "position",
    int,
    OpenApiParameter.PATH,
    description="The seat's position, 0 first: ``position`` in the ``seats`` of GET "
    ".../organizer/ (or of the game in GET /api/games/).",
)


def _handover_schema(
    request: Any, answer: str, serializer: type, conflicts: str, *, capped: bool = False
) -> Any:
    """A seat handover's schema: its body, its answer, its refusals (``capped``: an
    offer's, whose 429 may be its caps')."""
    return extend_schema(
        request=request,
        parameters=[POSITION, *([RETRY_AFTER] if capped else [])],
        responses={
            200: OpenApiResponse(serializer, description=answer),
            400: OpenApiResponse(
                s.ErrorSerializer, description="A bad body (invalid, `fields` says why), an unknown player"
            ),
            **{k: ERRORS[k] for k in (401, 403)},
            404: OpenApiResponse(s.ErrorSerializer, description="Unknown game, or no such seat"),
            409: _conflict(conflicts),
            **BODY_ERRORS,
            429: OFFERS_CAPPED if capped else THROTTLED,
        },
    )


class SeatOfferView(OrganizerBaseView):
    """Offer the seat at ``position`` (an active seat, or one whose player resigned) to a
    player, who is emailed (the game, the seat, who offers it; nothing of its hand):
    nothing changes until they accept. An offer of the same seat to another player still
    waiting is withdrawn (that player is told); the same offer again is that offer.
    Capped: 10 offers a game, 3 to one player in a game and 5 to one player a day (429
    offers_capped, with Retry-After)."""

    @_handover_schema(
        h.OfferInputSerializer,
        "Offered: the offer, and what the tools can still do now",
        o.OfferedSerializer,
        "conflict (the game is not in progress: players can only be replaced in a game in "
        f"progress), {SEAT_HELD}, {OFFER_REFUSALS}.",
        capped=True,
    )
    def post(self, request: Request, game_id: int, position: int) -> Response:
        game = self.organized_game(request, game_id)
        data_in = h.OfferInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        seat = _seat_at(game, position)
        new_user = _player(data_in.validated_data["player"], staff=request.user.is_staff)
        offer = handover.seat_offer(seat=seat, new_user=new_user, by=request.user)
        offer = SeatOffer.objects.select_related("seat", "to_user", "by").get(pk=offer.pk)
        return self.tools(request, game_id, o.OfferedSerializer, offer=h.organizer_offer(offer))


class SeatReplaceView(OrganizerBaseView):
    """Site administrators only: hand the seat at ``position`` to a player at once
    (``"confirm": true``): its player is replaced and does not come back, the player's
    order for the open prompt is withdrawn unread, and the new player holds the seat now.
    The game's organizer offers the seat instead (``.../offer/``)."""

    @_handover_schema(
        h.ReplaceInputSerializer,
        "Handed over: the seat, and what the tools can still do now",
        o.HandedSerializer,
        f"conflict (the game is not in progress), {SEAT_HELD}.",
    )
    def post(self, request: Request, game_id: int, position: int) -> Response:
        game = self.organized_game(request, game_id)
        if not request.user.is_staff:
            raise PermissionDenied(
                "Only a site administrator can hand a seat over at once: offer it (POST "
                f"/api/games/{game.pk}/seats/{position}/offer/); it changes hands when the "
                "player accepts."
            )
        data_in = h.ReplaceInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        seat = _seat_at(game, position)
        new_user = _player(data_in.validated_data["player"], staff=True)
        new = handover.seat_replace(seat=seat, new_user=new_user, by=request.user)
        return self.tools(request, game_id, o.HandedSerializer, seat=new)


class OfferWithdrawView(OrganizerBaseView):
    """Withdraw a seat offer still waiting for its answer; the player is told."""

    @extend_schema(
        request=EmptyInputSerializer,
        responses={
            200: OpenApiResponse(
                o.OrganizerToolsSerializer, description="Withdrawn: what the tools can still do now"
            ),
            **{k: ERRORS[k] for k in (400, 401, 403)},
            404: OpenApiResponse(
                s.ErrorSerializer, description="Unknown game, or no such offer in it"
            ),
            409: _conflict(
                "offer_closed (the offer was answered, withdrawn already or lapsed, or the "
                "game is over)."
            ),
            **BODY_ERRORS,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, game_id: int, offer_id: int) -> Response:
        game = self.organized_game(request, game_id)
        offer = (
            SeatOffer.objects.select_related("game", "seat", "to_user")
            .filter(pk=offer_id, game=game)
            .first()
        )
        if offer is None:
            raise NotFound("There is no such offer in this game.")
        self.no_input(request)
        handover.seat_offer_withdraw(offer=offer, by=request.user)
        return self.tools(request, game_id)


# --- the player offered a seat ------------------------------------------------------


def _my_offer(request: Request, offer_id: int) -> SeatOffer:
    """The offer of a seat made to the caller (anyone else's: no such offer, 404)."""
    offer = (
        SeatOffer.objects.select_related("game", "game__organizer", "seat", "by")
        .filter(pk=offer_id, to_user=request.user)
        .first()
    )
    if offer is None:
        raise NotFound("There is no such offer.")
    return offer


def _offer_data(offer: SeatOffer) -> dict[str, Any]:
    """``offer`` as its player sees it (``SeatOfferSerializer``): what the offer's page
    shows, nothing of the seat's hand."""
    game = offer.game
    standing = offer.status == SeatOffer.Status.PENDING and game.status in IN_PROGRESS
    prompt = selectors.current_prompt(game=game) if standing else None
    by_organizer = offer.by_organizer
    return {
        "id": offer.pk,
        "status": offer.status,
        "standing": standing,
        "game": game.pk,
        "game_name": game.name,
        "ruleset": game.ruleset,
        "organizer": game.organizer.username,
        "game_status": game.status,
        "seat": offer.seat.name,
        "position": offer.seat.position,
        "seat_resigned": offer.seat.status == Seat.Status.RESIGNED,
        "offered_as": "organizer" if by_organizer else "staff",
        "offered_by": offer.by.username if by_organizer else None,
        "prompt": prompt.number if prompt is not None else None,
        "deadline": (
            prompt.deadline if prompt is not None and game.status == Game.Status.ACTIVE else None
        ),
        "created": offer.created_at,
        "lapses_at": handover.offer_lapses_at(offer),
    }


class MyOffersView(BaseAPIView):
    """The seats offered to you still waiting for your answer, in games in progress,
    oldest first (what the games page lists as "Seats offered to you")."""

    @extend_schema(
        responses={200: h.SeatOfferSerializer(many=True), **{k: ERRORS[k] for k in (400, 401)}}
    )
    def get(self, request: Request) -> Response:
        offers = selectors.seat_offers_waiting(user=request.user)
        data = [_offer_data(offer) for offer in offers]
        return Response(h.SeatOfferSerializer(data, many=True).data)


class MyOfferView(BaseAPIView):
    """One seat offered to you, answered or not (its ``status`` says which); anyone
    else's offer is a 404."""

    @extend_schema(
        responses={
            200: h.SeatOfferSerializer,
            **{k: ERRORS[k] for k in (400, 401)},
            404: OpenApiResponse(s.ErrorSerializer, description="No such offer made to you"),
        }
    )
    def get(self, request: Request, offer_id: int) -> Response:
        return Response(h.SeatOfferSerializer(_offer_data(_my_offer(request, offer_id))).data)


def _answer_schema(done: str) -> Any:
    return extend_schema(
        request=EmptyInputSerializer,
        responses={
            200: OpenApiResponse(h.SeatOfferSerializer, description=done),
            400: ERRORS[400],
            401: ERRORS[401],
            404: OpenApiResponse(s.ErrorSerializer, description="No such offer made to you"),
            409: _conflict(
                "offer_closed (answered already - a second accept meets it -, withdrawn, "
                f"lapsed, or the game is over); on accepting, {SEAT_HELD}."
            ),
            **BODY_ERRORS,
        },
    )


class OfferAcceptView(BaseAPIView):
    """Accept a seat offered to you: you play it from now on (its hand, its orders, its
    deadlines: GET the game for your seat's view) and its player leaves the game; the
    seats are told. Accepting again is a 409 offer_closed ("accepted already")."""

    @_answer_schema("Accepted: the offer, now accepted; the seat is yours")
    def post(self, request: Request, offer_id: int) -> Response:
        offer = _my_offer(request, offer_id)
        self.no_input(request)
        handover.seat_offer_accept(offer=offer, by=request.user)
        return Response(h.SeatOfferSerializer(_offer_data(_my_offer(request, offer_id))).data)


class OfferDeclineView(BaseAPIView):
    """Decline a seat offered to you; the organizer is told. Nothing else changes."""

    @_answer_schema("Declined: the offer, now declined")
    def post(self, request: Request, offer_id: int) -> Response:
        offer = _my_offer(request, offer_id)
        self.no_input(request)
        handover.seat_offer_decline(offer=offer, by=request.user)
        return Response(h.SeatOfferSerializer(_offer_data(_my_offer(request, offer_id))).data)
