"""Whose an email address is now: the account the site's mail to (or from) an address is
recorded against when it is queued (or stored). An address changes hands (a player gives
it up, another verifies it later): what the site sent to it before is the old owner's,
and the data download (``fivex_site.account_export``) reads the account recorded on the
row, never the address's owner at download time."""

from __future__ import annotations

from django.contrib.auth import get_user_model


def account_of_address(address: str) -> int | None:
    """The id of the one account that holds ``address`` verified (allauth's addresses),
    else of the one account whose own address it is; None when none, or more than one,
    does (an address two accounts claim is neither's)."""
    address = (address or "").strip()
    if not address:
        return None
    from allauth.account.models import EmailAddress

    verified = set(
        EmailAddress.objects.filter(email__iexact=address, verified=True).values_list("user_id", flat=True)[:2]
    )
    if verified:
        return verified.pop() if len(verified) == 1 else None
    owners = list(get_user_model().objects.filter(email__iexact=address).values_list("pk", flat=True)[:2])
    return owners[0] if len(owners) == 1 else None
