"""Handing a seat to another player: the organizer's offer (emailed; the seat changes
hands when the player accepts, declines or the offer is withdrawn or lapses) and a site
administrator's handover at once (``seat_replace``). Each step is checked, capped,
logged in the game's audit log and announced to the seats. The other organizer tools
are in ``games.services.organizer``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.errors import GameStateError, HandoverRefused, OffersCapped, PermissionDenied, SeatHeld
from games.models import Game, Prompt, SealedOrder, Seat, SeatOffer
from games.presentation import local_time
from games.services.audit import log_append
from games.services.locking import lock_game
from games.services.organizer_common import (
    _check_organizer,
    _day_cap_reached,
    acting,
    log_count,
    who_acted,
)

# Every offer emails players, with the game's name (text the organizer chose) in it:
# without a limit, offering a seat and withdrawing the offer in a loop mailed any player
# of the site as often as an organizer liked (a security audit: 20 emails to one player
# in a minute).
OFFERS_PER_GAME_PER_DAY = 10
OFFERS_PER_PLAYER_PER_DAY = 3
# ... and to one player from all games at once (games are easy to make).
OFFERS_TO_A_PLAYER_PER_DAY = 5

#: The code of an answer to an offer that no longer stands (answered, withdrawn, lapsed,
#: its game over): a retry of an acceptance that went through meets it (409 over the API).
OFFER_CLOSED = "offer_closed"
#: Why a seat of a game not in progress cannot be handed over (the API says it too).
NOT_IN_PROGRESS = "Players can only be replaced in a game in progress."
#: The codes of the handover's refusals by the game's seats (``HandoverRefused``, 409 over
#: the API; ``seat_held`` is ``SeatHeld``'s): the player offered was replaced in the game
#: before, is its organizer, or is offered another of its seats.
PLAYER_REPLACED = "player_replaced"
PLAYER_IS_ORGANIZER = "player_is_organizer"
OFFERED_ANOTHER_SEAT = "offered_another_seat"


def seat_replace(*, seat: Seat, new_user: Any, by: Any, offered: bool = False) -> Seat:
    """Hand a seat to another player: the old seat row becomes ``replaced`` (its mail
    address stops working), a new row with the same engine name and position takes
    over, active. The old player's sealed order for the open prompt, if it sent one (or
    the default order standing for a seat that resigned), is withdrawn unread: the new
    player orders for itself (the default order if it does not), and a sealed order is
    never shown to anyone else. A replaced player does not
    come back to the game (unless staff hands the seat): handing a seat to a friend to
    read its hand and then back would be a peek. Every other seat is told. Returns the
    new seat. An organizer's handover goes through an offer the new player accepts
    (``seat_offer``; ``offered``: this is that acceptance); staff may hand a seat at once."""
    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        _check_organizer(game, by)
        old = Seat.objects.select_related("user").get(pk=seat.pk)
        _check_handover(game=game, old=old, new_user=new_user, by=by)
        who = who_acted(game=game, by=by)
        # An offer of this seat still waiting is moot now, and so is another seat's offer
        # to the player who takes this one: they close, and their players are told.
        accepted: int | None = None
        for moot in SeatOffer.objects.filter(
            Q(seat=old) | Q(to_user=new_user), game=game, status=SeatOffer.Status.PENDING
        ).select_related("seat", "to_user", "game"):
            if moot.seat_id != old.pk:
                _offer_close(moot, why=f"you play the seat {old.name} now", logged="player_seated", by=by)
            elif offered and moot.to_user_id == getattr(new_user, "pk", None):
                accepted = moot.pk  # the offer being accepted: ``seat_offer_accept`` closes it
            else:
                _offer_close(moot, why="the seat was handed to another player", logged="seat_taken", by=by)
        was_resigned = old.status == Seat.Status.RESIGNED
        old.status = Seat.Status.REPLACED
        old.left_at = old.left_at or timezone.now()  # a resigned seat left when it resigned
        old.save(update_fields=["status", "left_at"])
        from games.services.players import email_every_prompt_default

        new = Seat.objects.create(
            game=game, user=new_user, name=old.name, position=old.position,
            email_every_prompt=email_every_prompt_default(user=new_user),
        )  # fmt: skip
        from games.services.handover_notices import notify_seat_handover, notify_seat_released
        from games.services.notifications import notify_game_notice
        from games.services.resolution import open_prompt_locked

        prompt = open_prompt_locked(game=game)
        withdrawn = False
        if prompt is not None:
            # The old player's own order, or the default order standing for a seat that
            # resigned: the new player chooses (a forced order stays: there is no choice).
            withdrawn = bool(
                SealedOrder.objects.filter(prompt=prompt, seat_name=old.name, is_current=True)
                .exclude(source=SealedOrder.Source.FORCED)
                .update(is_current=False)
            )
            if withdrawn and prompt.ready_at is not None:  # incomplete again
                Prompt.objects.filter(pk=prompt.pk).update(ready_at=None, resolve_after=None)
                prompt.ready_at = prompt.resolve_after = None
        # Both holders by name: the seats' players are public on the game's page.
        payload: dict[str, Any] = {
            "seat": old.name, "was_resigned": was_resigned, "order_withdrawn": withdrawn,
            "from": str(old.user), "to": str(new_user), **acting(game=game, by=by),
        }  # fmt: skip
        if accepted is not None:
            payload["offer"] = accepted
        log_append(game=game, kind="seat_replaced", payload=payload)
        notify_seat_released(game=game, seat=old, who=who)
        notify_game_notice(
            game=game,
            subject=f"Seat {old.name} has a new player",
            text=_handover_notice(old.name, prompt, was_resigned=was_resigned, withdrawn=withdrawn, who=who),
            key=f"replaced:{game.pk}:{log_count(game)}",
            exclude=[new.pk, old.pk],
            by=by,
        )
        if prompt is not None:
            from games.services.orders import prompt_state

            notify_seat_handover(
                game=game, seat=new, state=prompt_state(prompt=prompt), prompt=prompt, by=by,
                offered=offered,
            )
            # The prompt was open before the new player held the seat: their webhook
            # has not heard of it (nothing when the seat owes no order). Paused, no order
            # is taken: the resumption calls it (``organizer.game_resume``).
            if game.status != Game.Status.PAUSED:
                from games.services.webhooks import webhook_seat_handed_over

                webhook_seat_handed_over(game=game, prompt=prompt, seat=new)
    return new


def _check_handover(*, game: Game, old: Seat, new_user: Any, by: Any) -> None:
    """Whether seat ``old`` may go to ``new_user`` (handed by ``by``): raises
    GameStateError, SeatHeld (the player holds a seat in the game) or HandoverRefused
    (``PLAYER_IS_ORGANIZER``, ``PLAYER_REPLACED``) with the reason if not."""
    if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
        raise GameStateError(NOT_IN_PROGRESS)
    if old.status == Seat.Status.REPLACED:
        raise GameStateError("This seat has already been handed to another player.")
    if getattr(new_user, "pk", None) == game.organizer_id and not getattr(by, "is_staff", False):
        # The organizer would read the seat's hand (and could hand it on): a peek.
        raise HandoverRefused(
            "An organizer cannot take a seat of their own game's players: hand it to "
            "another player (a site administrator can do it if it must be you).",
            code=PLAYER_IS_ORGANIZER,
        )
    held = list(Seat.objects.filter(game=game, user=new_user).values_list("status", flat=True))
    if any(status != Seat.Status.REPLACED for status in held):
        raise SeatHeld(f"{new_user} already holds a seat in this game.")
    if held and not getattr(by, "is_staff", False):
        raise HandoverRefused(
            f"{new_user} was replaced in this game before, and a replaced player does not "
            "come back (a site administrator can do it if it was a mistake).",
            code=PLAYER_REPLACED,
        )


def seat_offer(*, seat: Seat, new_user: Any, by: Any) -> SeatOffer:
    """Offer seat ``seat`` to ``new_user``: nothing changes until they accept
    (``seat_offer_accept``), and they are emailed the offer (who makes it, the game,
    the seat; nothing of its hand). An offer of the same seat to another player still
    waiting is withdrawn (that player is told); the same offer twice (a double click)
    is one offer. Raises PermissionDenied, GameStateError, OffersCapped (the day's caps,
    or a player who declined here less than a day ago) or HandoverRefused (SeatHeld, or
    the handover's other checks: ``OFFERED_ANOTHER_SEAT`` and ``_check_handover``'s)."""
    from games.services.handover_notices import notify_seat_offer

    with transaction.atomic():
        game = lock_game(game_id=seat.game_id)
        _check_organizer(game, by)
        old = Seat.objects.get(pk=seat.pk)
        _check_handover(game=game, old=old, new_user=new_user, by=by)
        waiting = list(
            SeatOffer.objects.filter(game=game, status=SeatOffer.Status.PENDING)
            .filter(Q(seat=old) | Q(to_user=new_user))
            .select_related("seat", "to_user")
        )
        for offer in waiting:
            if offer.seat_id == old.pk and offer.to_user_id == new_user.pk:
                return offer  # the same offer again
            if offer.to_user_id == new_user.pk:
                raise HandoverRefused(
                    f"{new_user} is already offered the seat {offer.seat.name} in this game: "
                    "withdraw that offer first.",
                    code=OFFERED_ANOTHER_SEAT,
                )
        _check_offer_limits(game=game, new_user=new_user)
        who = who_acted(game=game, by=by)
        for offer in waiting:  # this seat, offered to someone else: superseded
            _offer_close(offer, why=f"{who} offered it to another player", logged="superseded", by=by)
        offer = SeatOffer.objects.create(game=game, seat=old, to_user=new_user, by=by)
        # Logged without the player offered: the log is public, and a player who declines
        # (or never answers) has no part in the game; the handover names them.
        log_append(
            game=game,
            kind="seat_offered",
            payload={"seat": old.name, "offer": offer.pk, **acting(game=game, by=by)},
        )
        notify_seat_offer(offer=offer)
    return offer


def _check_offer_limits(*, game: Game, new_user: Any) -> None:
    """Each offer emails its player (and its withdrawal once more): a player who declined
    a seat in this game is not asked again for a day, and offers are capped over a day -
    a game's in all and to one player, and to one player from any game. A refusal says
    when the next offer may be made (OffersCapped, with that moment as ``retry_at``)."""
    now = timezone.now()
    since = now - timedelta(days=1)
    declined = (
        SeatOffer.objects.filter(
            game=game, to_user=new_user, status=SeatOffer.Status.DECLINED, decided_at__gte=since
        )
        .order_by("-decided_at")
        .first()
    )
    if declined is not None:
        again = declined.decided_at + timedelta(days=1)
        raise OffersCapped(
            f"{new_user} declined a seat in this game less than a day ago: offer a seat to "
            f"another player, or to {new_user} again from {local_time(again)}.",
            retry_at=again,
        )
    caps = (
        (SeatOffer.objects.filter(game=game, to_user=new_user), OFFERS_PER_PLAYER_PER_DAY,
         f"{new_user} was offered a seat in this game {{n}} times in the last day, the limit "
         "(each offer emails them)"),
        (SeatOffer.objects.filter(to_user=new_user), OFFERS_TO_A_PLAYER_PER_DAY,
         f"{new_user} was offered seats {{n}} times in the last day, the limit (each offer "
         "emails them)"),
        (SeatOffer.objects.filter(game=game), OFFERS_PER_GAME_PER_DAY,
         "This game's seats were offered {n} times in the last day, the limit (each offer "
         "emails a player)"),
    )  # fmt: skip
    for offers, cap, said in caps:
        recent = list(
            offers.filter(created_at__gte=since).order_by("created_at").values_list("created_at", flat=True)
        )
        again = _day_cap_reached(recent, cap)
        if again is not None:
            raise OffersCapped(
                f"{said.format(n=len(recent))}: the next from {local_time(again)}.", retry_at=again
            )


def _offer_close(
    offer: SeatOffer,
    *,
    why: str | None,
    status: str = SeatOffer.Status.WITHDRAWN,
    logged: str | None = None,
    by: Any = None,
) -> None:
    """Close a waiting offer (withdrawn unless ``status`` says otherwise) and tell its
    player ``why`` (None: nobody is told). ``logged``: why it was withdrawn, for the log's
    ``seat_offer_withdrawn`` entry (``withdrawn``, ``superseded``, ``seat_taken``,
    ``player_seated``; ``by`` did it); None: not logged here (an acceptance is the
    handover's entry, a decline has its own, and the game's end closes the rest)."""
    from games.services.handover_notices import notify_seat_offer_closed

    offer.status, offer.decided_at = status, timezone.now()
    offer.save(update_fields=["status", "decided_at"])
    if logged is not None:
        log_append(
            game=offer.game,
            kind="seat_offer_withdrawn",
            payload={
                "seat": offer.seat.name, "offer": offer.pk, "why": logged,
                # nobody acted when the sweep closes an unanswered offer ("expired")
                **(acting(game=offer.game, by=by) if by is not None else {}),
            },
        )  # fmt: skip
    if why is not None:
        notify_seat_offer_closed(offer=offer, why=why)


def seat_offers_close(
    *, game: Game, why: str, by: Any = None, entries: list[tuple[str, dict[str, Any]]] | None = None
) -> list[SeatOffer]:
    """Close the game's offers still waiting (its end makes them moot) and tell each
    player offered a seat ``why``. Called under the game's lock, before the entry that
    ends the game (which must stay the log's last). Each offer is logged
    ``seat_offer_withdrawn``: why ``game_ended`` with ``by`` when the organizer or staff
    ended the game, ``game_over`` when its rules or a walkover did (``by`` None). With
    ``entries`` the log entries are appended to that list (the caller writes them in its
    own batch, before its ending entry) instead of being written here. Returns the offers
    closed."""
    closed = []
    for offer in SeatOffer.objects.filter(game=game, status=SeatOffer.Status.PENDING).select_related(
        "seat", "to_user"
    ):
        offer.game = game
        logged = "game_ended" if by is not None else "game_over"
        if entries is None:
            _offer_close(offer, why=why, logged=logged, by=by)
        else:
            _offer_close(offer, why=why)
            entries.append(("seat_offer_withdrawn", {"seat": offer.seat.name, "offer": offer.pk, "why": logged}))
        closed.append(offer)
    return closed


def offer_days() -> int:
    """How long a seat offer waits for its answer (setting ``GAMES_SEAT_OFFER_DAYS``, 7):
    then it lapses (``seat_offers_expire``), and the seat may be offered to another."""
    return int(getattr(settings, "GAMES_SEAT_OFFER_DAYS", 7))


def offer_lapses_at(offer: SeatOffer) -> Any:
    """When ``offer``, unanswered, lapses: ``offer_days`` after it was made."""
    return offer.created_at + timedelta(days=offer_days())


def seat_offers_expire(*, now: Any = None) -> int:
    """Close the offers left unanswered ``offer_days`` days (the beat, hourly): the player
    offered and the one who offered are told, and the log says so (an offer waited
    forever, holding its seat from another offer's player). Returns how many."""
    from games.services.handover_notices import notify_seat_offer_expired

    cutoff = (now or timezone.now()) - timedelta(days=offer_days())
    stale = SeatOffer.objects.filter(status=SeatOffer.Status.PENDING, created_at__lt=cutoff)
    closed = 0
    for game_id in sorted(set(stale.values_list("game_id", flat=True))):
        with transaction.atomic():
            game = lock_game(game_id=game_id)
            over = game.status in (Game.Status.FINISHED, Game.Status.ABANDONED)
            for offer in stale.filter(game_id=game_id).select_related("seat", "to_user", "by"):
                offer.game = game
                if over:
                    # Left waiting by an older end of the game (its end closes them now):
                    # closed, nobody told, nothing logged; no entry may follow the end.
                    _offer_close(offer, why=None)
                    continue
                _offer_close(offer, why=f"nobody answered it within {offer_days()} days", logged="expired")
                notify_seat_offer_expired(offer=offer, days=offer_days())
                closed += 1
    return closed


def _pending_offer(offer: SeatOffer) -> SeatOffer:
    """``offer`` read again under its game's lock; GameStateError unless it still waits
    for an answer in a game in progress whose seat nobody else took meanwhile, and has
    not outlived ``offer_days`` (the sweep closes it within the hour)."""
    game = lock_game(game_id=offer.game_id)
    offer = SeatOffer.objects.select_related("seat", "to_user", "by").get(pk=offer.pk)
    offer.game = game
    if offer.status != SeatOffer.Status.PENDING:
        raise GameStateError(
            f"This offer was {offer.status} already: nothing was changed.", code=OFFER_CLOSED
        )
    if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
        raise GameStateError("This game is over: the offer no longer stands.", code=OFFER_CLOSED)
    if offer.created_at < timezone.now() - timedelta(days=offer_days()):
        raise GameStateError(
            f"This offer lapsed: nobody answered it within {offer_days()} days. Nothing was changed.",
            code=OFFER_CLOSED,
        )
    return offer


def seat_offer_accept(*, offer: SeatOffer, by: Any) -> Seat:
    """The player offered a seat takes it: the seat is handed over (``seat_replace``,
    logged and announced as the organizer's handover). Returns the new seat. Raises
    PermissionDenied (not their offer, or one made by an organizer who plays in this
    tournament's game: ``selectors.may_change_game``), GameStateError (the offer no longer stands) or
    HandoverRefused (SeatHeld and the handover's other checks; the offer stays as it was)."""
    if getattr(by, "pk", None) != offer.to_user_id:
        raise PermissionDenied("This offer is for another player.")
    from games.selectors import may_change_game

    with transaction.atomic():
        offer = _pending_offer(offer)
        if not may_change_game(game=offer.game, user=offer.by):
            # Made by an organizer who plays in this tournament's game (before they lost
            # the tool): taking it would still hand them an opponent's seat.
            raise PermissionDenied(
                "This offer was made by the organizer, who plays in this game: a tournament's "
                "seats are handed over by its site administrators. Nothing was changed."
            )
        seat = seat_replace(seat=offer.seat, new_user=offer.to_user, by=offer.by, offered=True)
        _offer_close(offer, why=None, status=SeatOffer.Status.ACCEPTED)
    return seat


def seat_offer_decline(*, offer: SeatOffer, by: Any) -> SeatOffer:
    """The player offered a seat says no; the organizer is told. Raises
    PermissionDenied or GameStateError."""
    from games.services.handover_notices import notify_seat_offer_declined

    if getattr(by, "pk", None) != offer.to_user_id:
        raise PermissionDenied("This offer is for another player.")
    with transaction.atomic():
        offer = _pending_offer(offer)
        _offer_close(offer, why=None, status=SeatOffer.Status.DECLINED)
        # Not naming the player (see ``seat_offer``).
        log_append(
            game=offer.game, kind="seat_offer_declined", payload={"seat": offer.seat.name, "offer": offer.pk}
        )
        notify_seat_offer_declined(offer=offer)
    return offer


def seat_offer_withdraw(*, offer: SeatOffer, by: Any) -> SeatOffer:
    """The organizer takes an offer back before it is answered; the player is told.
    Raises PermissionDenied or GameStateError."""
    _check_organizer(offer.game, by)
    with transaction.atomic():
        offer = _pending_offer(offer)
        _offer_close(offer, why=f"{who_acted(game=offer.game, by=by)} withdrew it", logged="withdrawn", by=by)
    return offer


def _handover_notice(
    name: str, prompt: Prompt | None, *, was_resigned: bool, withdrawn: bool, who: str = "the organizer"
) -> str:
    """What the other seats are told when seat ``name`` gets a new player (``who``
    handed it: ``who_acted``)."""
    text = f"{who} handed the seat {name} to another player"
    if was_resigned:
        text += " (its player had resigned: the new player orders for it from now on)"
    if withdrawn and prompt is not None:
        whose = "entered for the seat" if was_resigned else "the previous player had sealed"
        text += (
            f". The order {whose} for decision {prompt.number} was withdrawn unread, so the"
            " decision waits for the new player's order (or the deadline)"
        )
    return text + "."
