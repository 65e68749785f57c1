"""A secret shown once, on the page a form's POST redirects to (POST, 303, GET).

A new API token or webhook secret used to be the POST's own answer, and reloading that
page sent the POST again: another token, stopping the one just shown. Redirecting means
the secret must wait somewhere for the GET, and it must not wait in clear in the session
table (a security audit removed exactly that). So it is split in two: the session holds
the secret XORed with a random pad, and the pad goes to the browser alone, in a cookie
for the page's path that lives five minutes (HttpOnly, SameSite=Strict, Secure where the
session's is). Neither half tells anything alone. The GET takes both and drops both, so
the secret is shown once; the page itself is never cached (``never_cache``).

What the page says with it ("Copy it now") waits in the session too, and is said by the
GET that shows the secret: two POSTs of a double click say it once, not twice. When the
browser's half is gone (the five minutes are over, or the cookie was cleared) the secret
can never be shown: :func:`take` says so (``lost``), and the page says how to get another.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

COOKIE_SECONDS = 300


def _cookie(name: str) -> str:
    return f"fivex_once_{name}"


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def stash(request: HttpRequest, *, name: str, secret: str, path: str, said: str) -> HttpResponse:
    """The redirect (303) to the page at ``path``, keeping ``secret`` for one display
    there, and ``said``, what the page says when it shows it."""
    response = HttpResponseRedirect(path)
    response.status_code = 303
    data = secret.encode()
    pad = secrets.token_bytes(len(data))
    request.session[f"once_{name}"] = base64.b64encode(_xor(data, pad)).decode()
    request.session[f"once_{name}_said"] = said
    response.set_cookie(
        _cookie(name),
        base64.urlsafe_b64encode(pad).decode(),
        max_age=COOKIE_SECONDS,
        path=path,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Strict",
    )
    return response


@dataclass(frozen=True)
class Taken:
    """What :func:`take` found: the secret (None when there is none to show), what to say
    with it, and whether one was made but its browser half is gone (``lost``)."""

    secret: str | None = None
    said: str = ""
    lost: bool = False


def take(request: HttpRequest, *, name: str) -> Taken:
    """The secret kept by :func:`stash`, once; the session's half is dropped here, the
    cookie by :func:`forget`."""
    sealed = request.session.pop(f"once_{name}", None)
    said = request.session.pop(f"once_{name}_said", None) or ""
    pad = request.COOKIES.get(_cookie(name))
    if not isinstance(sealed, str):
        return Taken()
    if not pad:
        return Taken(lost=True)
    try:
        data = _xor(base64.b64decode(sealed), base64.urlsafe_b64decode(pad))
        return Taken(secret=data.decode(), said=said)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return Taken(lost=True)


def forget(request: HttpRequest, response: HttpResponse, *, name: str, path: str) -> None:
    """Drop the browser's half (when it sent one)."""
    if _cookie(name) in request.COOKIES:
        response.delete_cookie(_cookie(name), path=path, samesite="Strict")
