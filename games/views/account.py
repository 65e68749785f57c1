"""The personal API token page: create (or regenerate) and revoke a DRF token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.authtoken.models import Token


@login_required
def api_tokens(request: HttpRequest) -> HttpResponse:
    """GET: show whether a token exists. POST action=create: a new token (the old one
    stops working) shown once; POST action=revoke: delete it."""
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            with transaction.atomic():
                Token.objects.filter(user=request.user).delete()
                token = Token.objects.create(user=request.user)
            # Shown once, on the next page only.
            request.session["new_api_token"] = token.key
            messages.success(request, "A new API token was created. Copy it now.")
        elif action == "revoke":
            deleted, _ = Token.objects.filter(user=request.user).delete()
            if deleted:
                messages.success(request, "Your API token was revoked.")
            else:
                messages.info(request, "You had no API token.")
        else:
            messages.error(request, "Unknown action.")
        return redirect("games:api_tokens")
    token = Token.objects.filter(user=request.user).first()
    new_key = request.session.pop("new_api_token", None)
    return render(
        request,
        "games/api_tokens.html",
        {
            "token": token,
            "new_key": new_key if token and new_key == token.key else None,
        },
    )


@login_required
def player_settings(request: HttpRequest) -> HttpResponse:
    """The player's time zone: every page and email writes dates in it."""
    from games.errors import ValidationError
    from games.forms import time_zone_choices
    from games.selectors import time_zone_of
    from games.services.players import player_time_zone_set

    error = ""
    stored = time_zone_of(user=request.user).key
    if request.method == "POST":
        wanted = str(request.POST.get("time_zone", ""))[:80]
        try:
            player_time_zone_set(user=request.user, time_zone=wanted)
        except ValidationError as exc:
            error = str(exc)  # the select keeps the zone still in force
        else:
            messages.success(request, f"Dates are now written in {wanted.strip()} time.")
            return redirect("games:player_settings")
    # Every zone, the stored one among them even if the list leaves it out (an alias
    # the browser gave at sign-up, such as Etc/GMT+12): saving must not change it.
    zones = [zone for zone, _label in time_zone_choices(stored)]
    return render(
        request,
        "games/player_settings.html",
        {"zones": zones, "chosen": stored, "error": error},
        status=400 if error else 200,
    )
