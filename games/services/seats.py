"""Seat addresses for the email gateway: the address is the credential."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from games.models import Seat, new_mail_token


def seat_reply_address(*, seat: Seat) -> str:
    """The Reply-To address of every email to ``seat``: orders sent there are the seat's."""
    prefix = getattr(settings, "ORDERS_ADDRESS_PREFIX", "orders")
    domain = getattr(settings, "ORDERS_DOMAIN", "orders.localhost")
    return f"{prefix}+{seat.mail_token}@{domain}"


def seat_for_token(*, token: str) -> Seat | None:
    """The seat whose mail token is ``token`` (case-insensitive), or None. Replaced seats
    are never returned: their token died with the replacement; nor the seat of a
    deactivated account (a staff audit: it still played by email), whose address is as
    unknown as a made-up one (no order, and no answer that tells anyone why)."""
    if not token or not isinstance(token, str):
        return None
    return (
        Seat.objects.select_related("game", "user")
        .filter(mail_token=token.strip().lower(), user__is_active=True)
        .exclude(status=Seat.Status.REPLACED)
        .first()
    )


def seat_email_every_prompt_set(*, seat: Seat, every: bool) -> None:
    """Whether the seat's player is emailed after every resolution (True) or only when
    the seat must order next (False)."""
    with transaction.atomic():
        Seat.objects.filter(pk=seat.pk).update(email_every_prompt=bool(every))
    seat.email_every_prompt = bool(every)


def mail_tokens_rotate_for_user(*, user: object) -> int:
    """New reply addresses for every seat ``user`` holds (the old ones stop working), as
    after a password change: whoever read the player's mail or pages before it must not
    keep ordering for them by email. Emails still waiting in the outbox are given the new
    address. Returns how many of the seats are in games not over (forming or going on)."""
    from games.models import Game

    going_on = 0
    with transaction.atomic():
        # No row locks here: a FOR UPDATE joined to the games would take the seats' locks
        # before the games', in another order than order submission takes them (a
        # deadlock). Each seat is rotated under its game's lock, taken first (as every
        # writer of a game does), the games in the order of their ids.
        seats = list(
            Seat.objects.filter(user=user)
            .exclude(status=Seat.Status.REPLACED)
            .select_related("game")
            .order_by("game_id", "pk")
        )
        for seat in seats:
            _rotate_locked(seat)
            if seat.game.status in (Game.Status.FORMING, Game.Status.ACTIVE, Game.Status.PAUSED):
                going_on += 1
    return going_on


def _rotate_locked(seat: Seat) -> None:
    """Give ``seat`` a new mail token under its game's lock, and the emails to it still
    waiting in the outbox the new address. Under the lock: an email being written for the
    seat (a resolution, a reminder, a notice: each reads the seat after taking the lock)
    was written with the old address and is rewritten here, or is written after this
    with the new one (a race audit: one went out with the dead address)."""
    from django.db.models import Value
    from django.db.models.functions import Replace

    from games.models import OutboxMessage
    from games.services.locking import lock_game

    lock_game(game_id=seat.game_id)
    old = seat_reply_address(seat=seat)
    seat.mail_token = new_mail_token()
    seat.save(update_fields=["mail_token"])
    new = seat_reply_address(seat=seat)
    OutboxMessage.objects.filter(
        seat=seat,
        status__in=OutboxMessage.UNSENT,
    ).update(
        reply_to=Replace("reply_to", Value(old), Value(new)),
        body=Replace("body", Value(old), Value(new)),
        html=Replace("html", Value(old), Value(new)),
    )


def mail_token_rotate(*, seat: Seat) -> str:
    """Give the seat a new mail token (the old reply address stops working); return it.
    The emails to the seat still waiting in the outbox get the new address."""
    with transaction.atomic():
        _rotate_locked(seat)
    return seat.mail_token
