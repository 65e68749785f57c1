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
    allauth addresses, whatever the case), as sign-up keeps it (``ACCOUNT_UNIQUE_EMAIL``).
    Raises ValidationError."""
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

    waiting = OutboxMessage.UNSENT
    addresses = [a for a in {user.email, old_email} if a]  # changed in the same save: both
    if not addresses:
        return 0
    to_them = Q()
    for address in addresses:
        to_them |= Q(to__iexact=address)
    return OutboxMessage.objects.filter(to_them, status__in=waiting).update(
        status=OutboxMessage.Status.FAILED, last_error="account deactivated", next_attempt_at=None
    )
