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
    from django.db.models import Value
    from django.db.models.functions import Replace

    from games.models import Game, OutboxMessage

    going_on = 0
    with transaction.atomic():
        # No row locks: a FOR UPDATE joined to the games would take the game locks, in
        # another order than order submission takes them (a deadlock).
        seats = list(
            Seat.objects.filter(user=user).exclude(status=Seat.Status.REPLACED).select_related("game")
        )
        for seat in seats:
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
            if seat.game.status in (Game.Status.FORMING, Game.Status.ACTIVE, Game.Status.PAUSED):
                going_on += 1
    return going_on


def mail_token_rotate(*, seat: Seat) -> str:
    """Give the seat a new mail token (the old reply address stops working); return it."""
    with transaction.atomic():
        seat.mail_token = new_mail_token()
        seat.save(update_fields=["mail_token"])
    return seat.mail_token
