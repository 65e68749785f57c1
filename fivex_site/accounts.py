"""Accounts as staff edit them in the admin: the rules sign-up keeps (allauth's adapter
and ``fivex_site.validators``), and the account's allauth address kept in step with its
``User.email``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q


def player_name_check(*, name: str, user: Any = None) -> str:
    """``name`` as a player name for ``user`` (None: a new account), by sign-up's rules:
    the site's validators (no "@", one alphabet), allauth's minimum length and blocked
    names, and no other account's name but for case ("Bob" when "bob" exists). Raises
    ValidationError."""
    from allauth.account import app_settings
    from allauth.account.adapter import get_adapter

    adapter = get_adapter()
    minimum = app_settings.USERNAME_MIN_LENGTH
    if len(name) < minimum:
        raise ValidationError(f"A player name has at least {minimum} characters.", code="min_length")
    adapter.clean_username(name, shallow=True)
    others = get_user_model().objects.filter(username__iexact=name)
    if user is not None and user.pk is not None:
        others = others.exclude(pk=user.pk)
    if others.exists():
        raise adapter.validation_error("username_taken")
    return name


def account_email_check(*, email: str, user: Any = None) -> str:
    """``email`` as ``user``'s address: no other account's (its own address or any of its
    allauth addresses, whatever the case, confirmed or not: stricter than sign-up, which
    takes an address another account only holds unconfirmed; staff remove that one
    first). Raises ValidationError."""
    from allauth.account.models import EmailAddress

    if not email:
        return email
    users = get_user_model().objects.filter(email__iexact=email)
    addresses = EmailAddress.objects.filter(email__iexact=email)
    if user is not None and user.pk is not None:
        users, addresses = users.exclude(pk=user.pk), addresses.exclude(user_id=user.pk)
    if users.exists() or addresses.exists():
        raise ValidationError("Another account has this address already.", code="email_taken")
    return email


def address_verified_by_another(*, email: str, user: Any = None) -> bool:
    """Whether an account other than ``user`` (None: any account) has confirmed ``email``,
    whatever the case. Only a confirmed address is taken: anyone may add any address to
    their account unverified, and that gives them no claim on it (a security review)."""
    from allauth.account.models import EmailAddress

    rows = EmailAddress.objects.filter(email__iexact=email, verified=True)
    if user is not None and user.pk is not None:
        rows = rows.exclude(user_id=user.pk)
    return rows.exists()


def accounts_with_verified_address(email: str) -> list[Any]:
    """The active accounts that have confirmed ``email`` (at most one): the only ones a
    password reset for ``email`` may be mailed for. An account that holds it unverified
    (a typo, or somebody else's address added to their account) gets no reset link sent
    there: the address's owner would be mailed a key to that account."""
    from allauth.account.models import EmailAddress

    rows = EmailAddress.objects.filter(email__iexact=email, verified=True).select_related("user")
    return [row.user for row in rows if row.user.is_active]


def unverified_claims_release(*, email_address: Any) -> int:
    """After ``email_address`` was confirmed: no other account keeps the address
    unverified, as one of its addresses or as its account address (``User.email``), so its
    owner alone logs in, resets the password and is mailed with it. An account that loses
    its primary address this way gets its best remaining one (confirmed first), or none.
    Returns how many accounts lost it."""
    from allauth.account.models import EmailAddress

    email = email_address.email
    lost: set[int] = set()
    with transaction.atomic():
        others = (
            EmailAddress.objects.select_for_update()
            .filter(email__iexact=email, verified=False)
            .exclude(user_id=email_address.user_id)
        )
        for row in others:
            row.delete()  # its pending confirmations go with it
            lost.add(row.user_id)
        holders = get_user_model().objects.filter(email__iexact=email)
        lost.update(holders.exclude(pk=email_address.user_id).values_list("pk", flat=True))
        for other in get_user_model().objects.select_for_update().filter(pk__in=lost):
            _primary_address_repair(user=other, dropped=email)
    return len(lost)


def _primary_address_repair(*, user: Any, dropped: str) -> None:
    """``user``, who lost ``dropped``, has a primary address again if it has any, and
    ``User.email`` is no longer ``dropped``."""
    from allauth.account.models import EmailAddress

    rows = EmailAddress.objects.filter(user=user)
    primary = rows.filter(primary=True).first()
    if primary is None:
        primary = rows.order_by("-verified", "pk").first()
        if primary is not None:
            primary.primary = True
            primary.save(update_fields=["primary"])
    if (user.email or "").lower() == dropped.lower():
        user.email = primary.email if primary is not None else ""
        user.save(update_fields=["email"])


def account_email_changed(*, user: Any, old: str) -> None:
    """After ``user.email`` changed from ``old`` (by staff): it is the account's primary
    allauth address, and ``old`` is none of its addresses any more (the mail gateway's
    sender check, login by email and password resets all read them). The new address is
    verified only if the account had verified it already: staff typed it, the player
    confirms it."""
    from allauth.account.models import EmailAddress

    new = user.email or ""
    with transaction.atomic():
        rows = EmailAddress.objects.select_for_update().filter(user=user)
        if old and old.lower() != new.lower():
            rows.filter(email__iexact=old).delete()
        if not new:
            return
        rows.filter(primary=True).exclude(email__iexact=new).update(primary=False)
        current = rows.filter(email__iexact=new).first()
        if current is None:
            EmailAddress.objects.create(user=user, email=new, primary=True, verified=False)
        elif not current.primary or current.email != new:
            current.primary, current.email = True, new
            current.save(update_fields=["primary", "email"])


def account_deactivated(*, user: Any, old_email: str = "") -> int:
    """An account staff deactivated is sent nothing more: its emails still queued or
    waiting for a retry (turns, reminders, notices queued before) fail, "account
    deactivated" (a code review: they went out after the deactivation). Returns how many."""
    from games.models import OutboxMessage

    waiting = (OutboxMessage.Status.QUEUED, OutboxMessage.Status.RETRYING)
    addresses = [a for a in {user.email, old_email} if a]  # changed in the same save: both
    if not addresses:
        return 0
    to_them = Q()
    for address in addresses:
        to_them |= Q(to__iexact=address)
    return OutboxMessage.objects.filter(to_them, status__in=waiting).update(
        status=OutboxMessage.Status.FAILED, last_error="account deactivated", next_attempt_at=None
    )
