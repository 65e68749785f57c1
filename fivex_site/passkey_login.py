"""The log-in with a passkey (allauth.mfa's ``login_webauthn``), its start limited per
address.

Its GET (the log-in page's script asking for a challenge, no account needed) stores the
challenge in a new session, a database row; allauth limits the POST (the answer) only, so
anyone could write rows without end. The start is limited per address here, as allauth
limits the answer."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

#: Starts of a passkey log-in from one address (a player's log-in takes one; the answer,
#: allauth's ``webauthn_login``, is 10 a minute).
BEGIN_RATE = "20/m/ip"


def login_webauthn(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """allauth's view, after the limit on its start (a 429 past it, no session written)."""
    from allauth.core import ratelimit
    from allauth.mfa.webauthn.views import login_webauthn as allauths

    if request.method == "GET":
        refused = ratelimit.consume_or_429(
            request, action="webauthn_login_begin", config={"webauthn_login_begin": BEGIN_RATE},
            limit_get=True,
        )
        if refused is not None:
            return refused
    return allauths(request, *args, **kwargs)
