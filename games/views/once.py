"""A secret shown once, on the page a form's POST redirects to (POST, 303, GET).

A new API token or webhook secret used to be the POST's own answer, and reloading that
page sent the POST again: another token, stopping the one just shown. Redirecting means
the secret must wait somewhere for the GET, and it must not wait in clear in the session
table (a security audit removed exactly that). So it is split in two: the session holds
the secret XORed with a random pad, and the pad goes to the browser alone, in a cookie
for the page's path that lives five minutes (HttpOnly, SameSite=Strict, Secure where the
session's is). Neither half tells anything alone. The GET takes both and drops both, so
the secret is shown once; the page itself is never cached (``never_cache``).
"""

from __future__ import annotations

import base64
import binascii
import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

COOKIE_SECONDS = 300


def _cookie(name: str) -> str:
    return f"fivex_once_{name}"


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def stash(request: HttpRequest, response: HttpResponse, *, name: str, secret: str, path: str) -> None:
    """Keep ``secret`` for one display on the page at ``path`` (``response``: the
    redirect there)."""
    data = secret.encode()
    pad = secrets.token_bytes(len(data))
    request.session[f"once_{name}"] = base64.b64encode(_xor(data, pad)).decode()
    response.set_cookie(
        _cookie(name),
        base64.urlsafe_b64encode(pad).decode(),
        max_age=COOKIE_SECONDS,
        path=path,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Strict",
    )


def take(request: HttpRequest, *, name: str) -> str | None:
    """The secret kept by :func:`stash`, once (None when there is none, or only half);
    the session's half is dropped here, the cookie by :func:`forget`."""
    sealed = request.session.pop(f"once_{name}", None)
    pad = request.COOKIES.get(_cookie(name))
    if not isinstance(sealed, str) or not pad:
        return None
    try:
        data = _xor(base64.b64decode(sealed), base64.urlsafe_b64decode(pad))
        return data.decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None


def forget(request: HttpRequest, response: HttpResponse, *, name: str, path: str) -> None:
    """Drop the browser's half (when it sent one)."""
    if _cookie(name) in request.COOKIES:
        response.delete_cookie(_cookie(name), path=path, samesite="Strict")
