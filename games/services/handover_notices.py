"""The emails of a seat changing hands (games.services.handover): to the player whose seat
was handed to another, to the player who takes it over, and about an offer of a seat
(offered, withdrawn, lapsed, declined). Built like the other game emails
(games.services.notifications) and queued in the outbox."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from fivex_site.links import public_url
from games.email_text import record_lines
from games.models import Game, Prompt, Seat
from games.presentation import local_time, resumption_words, ruleset_name
from games.selectors_players import time_zone_of
from games.services.audit import log_tail
from games.services.notifications import (
    _notice,
    _seat_context,
    _send_to_seat,
    _title,
    game_url,
    mailable,
)
from games.services.outbox import outbox_enqueue


def notify_seat_released(*, game: Game, seat: Seat, who: str = "the organizer") -> None:
    """Tell a player whose seat the organizer (``who``, as ``organizer_common.who_acted`` says
    it) handed to someone else (no reply address: the seat's old one stops working)."""
    if not mailable(seat.user):
        return
    text = (
        f"{who} handed your seat {seat.name} to another player; you no longer "
        "play in this game and its orders by email no longer reach it. You may still follow "
        "it as a spectator on its page."
    )
    subject = "Your seat was handed to another player"
    key = f"released:{game.pk}:{seat.pk}"
    record = record_lines(head=log_tail(game=game))  # the log's newest entry: the handover
    _notice(game=game, seat=seat, subject=subject, text=text, key=key, reply=False, record=record)


def notify_seat_handover(
    *, game: Game, seat: Seat, state: dict, prompt: Prompt | None, by: Any = None,
    offered: bool = False,
) -> None:
    """Welcome a player who takes over a seat: who handed it (``by``: the organizer or a
    site administrator; ``offered``: the player accepted an offer), its view and what it
    must do now."""
    if not mailable(seat.user):
        return
    context = _seat_context(game=game, seat=seat, state=state, prompt=prompt)
    context["events"] = []
    # Paused, every order is refused: the email asks for none, and the resumption does
    # (``notify_seat_resumed``).
    context["paused"] = game.status == Game.Status.PAUSED
    if offered:
        context["headline"] = (
            f"You accepted the seat {seat.name}: you play it from now on. Changed your "
            "mind? Resign on the game's page (its default orders are played from then "
            "on) and tell the organizer."
        )
    else:
        context["headline"] = (
            f"{_who_hands(game, by)} handed you the seat {seat.name}: you play it from now "
            "on. Not what you want? Resign on the game's page (its default orders are played "
            "from then on) and tell the organizer."
        )
    if context["paused"]:
        context["headline"] += " The game is paused: its deadlines are stopped."
        if prompt is not None and prompt.paused_remaining_seconds is not None:
            context["headline"] += " " + resumption_words(
                number=prompt.number,
                remaining_seconds=prompt.paused_remaining_seconds,
                grace_minutes=game.grace_minutes,
                quiet_hours=game.quiet_hours_start is not None and game.quiet_hours_end is not None,
            )
    context["record"] = record_lines(head=log_tail(game=game))  # no receipts: none are its
    _send_to_seat(
        game=game,
        seat=seat,
        template="games/email/turn.txt",
        subject=f"[{_title(game)}] "
        + (f"You play the seat {seat.name}" if offered else f"You were handed the seat {seat.name}"),
        context=context,
        kind="seat_handover",
        key=f"handover:{game.pk}:{seat.pk}",
    )


def notify_seat_resumed(*, game: Game, seat: Seat, prompt: Prompt, text: Callable[[], str]) -> None:
    """On a game's resumption, ask the seat taken over while it was paused for its order:
    its welcome asked for none (``notify_seat_handover``), so the short notice the other
    seats get ("resumed", ``text``, called in the reader's time zone) comes with the
    seat's view and its legal orders, as a new prompt's email."""
    from games.services.orders import prompt_state

    if not mailable(seat.user):
        return
    context = _seat_context(game=game, seat=seat, state=prompt_state(prompt=prompt), prompt=prompt)
    context["events"] = []
    with timezone.override(time_zone_of(user=seat.user)):
        said = text()
    context["headline"] = said[:1].upper() + said[1:]
    context["record"] = record_lines(head=log_tail(game=game))
    subject = "Game resumed"
    if context["pending"]:
        subject += f"; your order: {context['stage']}"
    _send_to_seat(
        game=game,
        seat=seat,
        template="games/email/turn.txt",
        subject=f"[{_title(game)}] {subject}",
        context=context,
        kind="notice",
        key=f"resumed-seat:{game.pk}:{prompt.number}:{seat.pk}:{prompt.deadline:%Y%m%d%H%M%S}",
        prompt_number=prompt.number,
    )


def _who_hands(game: Game, by: Any) -> str:
    """Who hands or offers a seat, as the new player is told: the game's organizer, or
    a site administrator (``by`` someone else; None: the organizer)."""
    if by is not None and getattr(by, "pk", None) != game.organizer_id:
        return f"A site administrator ({by})"
    return f"{game.organizer}, who organizes it,"


def user_notice(
    *, user: Any, game: Game, subject: str, text: Callable[[], str], key: str, kind: str, url: str = ""
) -> None:
    """A short email (games/email/user_notice.txt) to a player about ``game`` who holds no
    seat it concerns (an offer of a seat; an answer to the organizer): no reply address.
    ``text`` is called in the reader's time zone."""
    if not mailable(user):
        return
    with timezone.override(time_zone_of(user=user)):
        body = render_to_string(
            "games/email/user_notice.txt", {"game": game, "text": text(), "url": url}
        )
    outbox_enqueue(
        to=user.email,
        subject=f"[{_title(game)}] {subject}",
        body=body,
        game=game,
        kind=kind,
        headers={"X-FiveX-Game": str(game.pk)},
        key=key,
    )


def notify_organizer(
    *, game: Game, subject: str, text: str | Callable[[], str], note: str, key: str
) -> None:
    """Tell the game's organizer what a site administrator did to their game (``text``,
    as the seats are told it, then ``note`` as it is), unless the organizer holds a seat in it (the
    seats' notice reaches them)."""
    if Seat.objects.filter(game=game, user_id=game.organizer_id).exclude(status=Seat.Status.REPLACED).exists():
        return

    def said() -> str:
        body = text() if callable(text) else text
        return body + note

    user_notice(
        user=game.organizer, game=game, subject=subject, text=said, key=f"organizer:{key}",
        kind="notice", url=game_url(game),
    )  # fmt: skip


def seat_offer_url(offer: Any) -> str:
    """The page where the player offered a seat accepts or declines it."""
    return public_url(f"/games/{offer.game_id}/offers/{offer.pk}/")


def notify_seat_offer(*, offer: Any) -> None:
    """Tell a player they are offered a seat: who offers it, the game, the seat, where
    the game stands, and where to accept or decline. Nothing of the seat's hand."""
    from games.services.resolution import open_prompt_locked

    game, seat = offer.game, offer.seat
    prompt = open_prompt_locked(game=game)
    who = _who_hands(game, offer.by)

    def text() -> str:
        said = (
            f"{who} offers you the seat {seat.name} in this game of "
            f"{ruleset_name(game.ruleset)}"
        )
        said += " (its player resigned)." if seat.status == Seat.Status.RESIGNED else "."
        if game.status == Game.Status.PAUSED:
            said += " The game is paused."
        elif prompt is not None:
            said += f" It is at decision {prompt.number}; the deadline is {local_time(prompt.deadline)}."
        return (
            f"{said}\n\nNothing changes until you answer. If you accept, you play the seat "
            "from then on (its hand, its orders, its deadlines) and its player leaves the "
            f"game. Accept or decline here:\n{seat_offer_url(offer)}"
        )

    user_notice(
        user=offer.to_user, game=game, subject=f"You are offered the seat {seat.name}",
        text=text, key=f"offer:{offer.pk}", kind="seat_offer",
    )  # fmt: skip


def notify_seat_offer_closed(*, offer: Any, why: str) -> None:
    """Tell a player that the seat offered to them no longer is (``why``: who closed it)."""
    user_notice(
        user=offer.to_user, game=offer.game,
        subject=f"The offer of the seat {offer.seat.name} was withdrawn",
        text=lambda: f"the seat {offer.seat.name} is no longer offered to you: {why}.",
        key=f"offer-closed:{offer.pk}", kind="seat_offer",
    )  # fmt: skip


def notify_seat_offer_expired(*, offer: Any, days: int) -> None:
    """Tell whoever offered a seat that nobody answered the offer in time."""
    user_notice(
        user=offer.by, game=offer.game,
        subject=f"Your offer of the seat {offer.seat.name} lapsed",
        text=lambda: (
            f"{offer.to_user} did not answer your offer of the seat {offer.seat.name} within "
            f"{days} days, so it lapsed; the seat stays as it was. You may offer it to another "
            "player from the organizer tools."
        ),
        key=f"offer-expired:{offer.pk}", kind="seat_offer", url=game_url(offer.game),
    )  # fmt: skip


def notify_seat_offer_declined(*, offer: Any) -> None:
    """Tell the organizer (or the administrator who made the offer) it was declined."""
    user_notice(
        user=offer.by, game=offer.game,
        subject=f"{offer.to_user} declined the seat {offer.seat.name}",
        text=lambda: (
            f"{offer.to_user} declined the seat {offer.seat.name}; it stays as it was. "
            "You may offer it to another player from the organizer tools."
        ),
        key=f"offer-declined:{offer.pk}", kind="seat_offer", url=game_url(offer.game),
    )  # fmt: skip
