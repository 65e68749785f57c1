"""Template helpers of the two-factor pages."""

from __future__ import annotations

from typing import Any

from django import template

from fivex_site.mfa_secrets import SecretUnreadable, data_encrypted, secret_decrypt

register = template.Library()


@register.filter
def key_readable(authenticator: Any) -> bool:
    """Whether the secrets stored for ``authenticator`` (allauth's wrapper or row) can be
    read with the site's keys: False after SECRET_KEY changed with the old key dropped."""
    row = getattr(authenticator, "instance", authenticator)
    try:
        data_encrypted(row.data, convert=secret_decrypt)
    except SecretUnreadable:
        return False
    return True


@register.filter
def authenticator_kinds(user: Any) -> set[str]:
    """The kinds of authenticator ``user`` has (``totp``, ``webauthn``,
    ``recovery_codes``): what the code pages offer and say."""
    from allauth.mfa.models import Authenticator

    if user is None or not getattr(user, "pk", None):
        return set()
    return set(Authenticator.objects.filter(user_id=user.pk).values_list("type", flat=True))
