"""The pages of closing an account: the confirmation (what closing does, the password)
and the page that says the account is closed."""

from __future__ import annotations

from allauth.account.forms import ReauthenticateForm
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from fivex_site.account_close import (
    AccountClosed,
    LastSuperuser,
    account_close,
    account_close_summary,
)
from games.errors import GameBusy

#: The session key the closed page reads the closed account's name from (in the new,
#: anonymous session the closing logs into).
CLOSED_KEY = "account_closed"


def _closed(request: HttpRequest, name: str, done: dict | None = None) -> HttpResponse:
    """Log this browser out and show the closed page (POST-redirect-GET)."""
    logout(request)
    request.session[CLOSED_KEY] = {"name": name, **(done or {})}
    return redirect("account_closed")


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def account_close_page(request: HttpRequest) -> HttpResponse:
    """GET: what closing the account does (the games it resigns and leaves, the
    tournaments it withdraws from, what goes on) and a password field. POST with the
    right password: the account is closed and this browser logged out. A POST once it is
    closed (a double click, a second tab) changes nothing and lands on the closed page."""
    if not request.user.is_authenticated:
        if request.method == "POST":  # logged out by the closing a moment ago
            return redirect("account_closed")
        return redirect_to_login(request.get_full_path())
    user = request.user
    form = ReauthenticateForm(user=user, data=request.POST if request.method == "POST" else None)
    error, status = "", 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                done = account_close(user=user)
            except AccountClosed:
                return _closed(request, user.get_username())
            except (GameBusy, LastSuperuser) as exc:
                error, status = exc.message, 409
            else:
                return _closed(request, done.name, {
                    "resigned": done.resigned, "left": done.left, "declined": done.declined,
                    "withdrawn": done.withdrawn, "cancelled": done.cancelled,
                })  # fmt: skip
        elif not get_user_model().objects.filter(pk=user.pk, is_active=True).exists():
            # Closed by a request that ran meanwhile: its password no longer logs in.
            return _closed(request, user.get_username())
    summary = account_close_summary(user=user)
    return render(
        request,
        "account/close.html",
        {"form": form, "summary": summary, "error": error},
        status=status,
    )


@never_cache
@require_safe
def account_closed_page(request: HttpRequest) -> HttpResponse:
    """The account is closed: what was erased and what is kept. Names the account only in
    the browser that closed it."""
    if request.user.is_authenticated:  # an open account (a new one, logged in since)
        return redirect("home")
    # Read once: a later visitor of this browser (logged in and out since) is not told.
    return render(request, "account/closed.html", {"closed": request.session.pop(CLOSED_KEY, None)})
