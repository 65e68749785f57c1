"""The account pages of the games room: personal API tokens, the time zone and the
calendar feed of the player's deadlines."""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games.models import ApiToken
from games.services.tokens import api_token_create, api_token_revoke
from games.webhooks_views import webhook_context

# A new secret whose browser half expired (five minutes) or was cleared: never shown.
LOST_TOKEN = (
    "The new API token can no longer be shown: a token is shown once, within five minutes "
    "of its making, and the one before it no longer works. To get one, create another."
)
LOST_SECRET = (
    "The new signing secret can no longer be shown: it is shown once, within five minutes "
    "of its making, and the one before it is no longer used. To get one, create another "
    "with New secret."
)
LOST_CALENDAR = (
    "The new calendar address can no longer be shown: it is shown once, within five "
    "minutes of its making, and the one before it no longer works. To get one, make "
    "another with New address."
)


@never_cache  # the new token is on the page once: no cache keeps it
@login_required
def api_tokens(request: HttpRequest) -> HttpResponse:
    """GET: show whether a token exists, and a token (or webhook secret) just made, once.
    POST action=create: a new token (the old one stops working), then a redirect (303) to
    the page, which shows it once (``games.views.once``): a reload shows the page without
    it and makes no other. POST action=revoke: delete it."""
    from games.selectors_webhooks import webhook_of
    from games.services.tokens import api_token_digest
    from games.views import once

    path = reverse("games:api_tokens")
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            key = api_token_create(user=request.user)
            return once.stash(
                request, name="api_token", secret=key, path=path,
                said="A new API token was created. Copy it now.",
            )  # fmt: skip
        elif action == "revoke":
            if api_token_revoke(user=request.user):
                messages.success(request, "Your API token was revoked.")
            else:
                messages.info(request, "You had no API token.")
        else:
            messages.error(request, "Unknown action.")
        return redirect("games:api_tokens")
    token = ApiToken.objects.filter(user=request.user).first()
    taken = once.take(request, name="api_token")
    new_key = taken.secret
    if token is None or new_key is None or api_token_digest(new_key) != token.digest:
        new_key = None  # made again, or revoked, since (on another tab, over the API)
    if new_key is not None:
        messages.success(request, taken.said)
    elif taken.lost and token is not None:
        messages.warning(request, LOST_TOKEN)
    context = {"token": token, "new_key": new_key, **webhook_context(user=request.user)}
    taken = once.take(request, name="webhook_secret")
    hook = webhook_of(user=request.user)
    if taken.secret is not None and hook is not None and taken.secret == hook.secret:
        context["new_secret"] = taken.secret
        messages.success(request, taken.said)
    elif taken.lost and hook is not None:
        messages.warning(request, LOST_SECRET)
    response = render(request, "games/api_tokens.html", context)
    once.forget(request, response, name="api_token", path=path)
    once.forget(request, response, name="webhook_secret", path=path)
    return response


@login_required
def player_settings(request: HttpRequest) -> HttpResponse:
    """The player's settings: the time zone every page and email writes dates in, what
    new seats email, who may invite the player by name, and until when the player is away
    (``games.services.away``)."""
    from games.errors import ValidationError
    from games.forms import time_zone_choices
    from games.models import PlayerSettings
    from games.presentation import away_end_words, decision_words
    from games.selectors_players import time_zone_of
    from games.services.away import AWAY_AHEAD_DAYS, away_until, player_away_set
    from games.services.players import (
        email_every_prompt_default,
        invitations_setting,
        player_email_default_set,
        player_invitations_set,
        player_time_zone_set,
        time_zone_aliases,
    )
    from games.services.summaries import summary_warning

    error = ""
    stored = time_zone_of(user=request.user).key
    if request.method == "POST" and request.POST.get("form") == "emails":
        every = request.POST.get("email_every_prompt") != "0"
        changed = player_email_default_set(
            user=request.user, every=every, apply_now=request.POST.get("apply_now") == "1"
        )
        what = "after every decision" if every else "only when your order is wanted"
        messages.success(
            request,
            f"New seats email you {what}"
            + (
                f"; {changed} seat{'s' if changed != 1 else ''} of your games changed too."
                if changed
                else "."
            ),
        )
        return redirect("games:player_settings")
    summary_error = ""
    if request.method == "POST" and request.POST.get("form") == "turn_emails":
        from games.services.players import player_turn_emails_set

        raw_hour = str(request.POST.get("summary_hour", ""))[:4].strip()
        try:
            row = player_turn_emails_set(
                user=request.user,
                turn_emails=str(request.POST.get("turn_emails", ""))[:10],
                hour=int(raw_hour) if raw_hour.isascii() and raw_hour.isdigit() else (raw_hour or None),
            )
        except ValidationError as exc:
            summary_error = exc.message
        else:
            messages.success(
                request,
                f"Turn emails: a daily summary at {row.summary_hour:02d}:00 in your time zone "
                "(deadline reminders still come one by one)."
                if row.turn_emails == PlayerSettings.TurnEmails.DAILY
                else "Turn emails: one per decision.",
            )
            return redirect(f"{reverse('games:player_settings')}#turn-emails")
    invitations_error = ""
    if request.method == "POST" and request.POST.get("form") == "invitations":
        try:
            who = player_invitations_set(
                user=request.user, who=str(request.POST.get("invitations", ""))[:20]
            )
        except ValidationError as exc:
            invitations_error = exc.message
        else:
            messages.success(
                request,
                f"Who may invite you to a game by name: {PlayerSettings.Invitations(who).label}.",
            )
            return redirect(f"{reverse('games:player_settings')}#invitations")
    away_error = ""
    if request.method == "POST" and request.POST.get("form") == "away":
        back = request.POST.get("action") == "back"
        raw = "" if back else str(request.POST.get("until", ""))[:20]
        try:
            day = None if back else _day(raw)
            until = player_away_set(user=request.user, until=day)
        except ValidationError as exc:
            away_error = exc.message
        else:
            messages.success(
                request,
                f"You are away until {away_end_words(until, time_zone_of(user=request.user))}: "
                "the games that wait for players who "
                "are away wait for you (each as long as it allows)."
                if until
                else "You are not away: deadlines are as their games set them.",
            )
            return redirect(f"{reverse('games:player_settings')}#away")
    if request.method == "POST" and request.POST.get("form") not in ("away", "invitations", "turn_emails"):
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
    away = away_until(user=request.user)
    return render(
        request,
        "games/player_settings.html",
        {
            "zones": zones,
            "chosen": stored,
            "error": error,
            "zone_aliases": time_zone_aliases(),
            "email_every_prompt": email_every_prompt_default(user=request.user),
            "away_words": away_end_words(away, time_zone_of(user=request.user)) if away else "",
            "away_error": away_error,
            "away_typed": request.POST.get("until", "") if away_error else "",
            "away_ahead": AWAY_AHEAD_DAYS,
            "invitations": invitations_setting(user=request.user),
            "invitation_choices": PlayerSettings.Invitations.choices,
            "invitations_error": invitations_error,
            "summary": PlayerSettings.objects.filter(user=request.user).first()
            or PlayerSettings(user=request.user),
            "summary_hours": range(24),
            "summary_error": summary_error,
            # the API's word is "prompt"
            "summary_warning": decision_words(summary_warning(user=request.user)),
        },  # fmt: skip
        status=400 if error or away_error or invitations_error or summary_error else 200,
    )


def _day(raw: str) -> date:
    """A day as a date field sends it (YYYY-MM-DD). Raises ValidationError."""
    from games.errors import ValidationError

    try:
        return date.fromisoformat(raw.strip())
    except ValueError:
        raise ValidationError(
            "Give the last day you are away as a date (YYYY-MM-DD).", field="until"
        ) from None


@never_cache  # the new address is on the page once: no cache keeps it
@login_required
def calendar(request: HttpRequest) -> HttpResponse:
    """The calendar of the player's deadlines: POST action=create makes a new secret
    address (the old one stops working) and redirects (303) to the page, which shows it
    once (``games.views.once``: a reload makes no other); action=revoke turns it off."""
    from games.api.calendar_views import over_calendar_rate
    from games.calendar_feed import feed_addresses
    from games.services.players import calendar_digest, calendar_feed_create, calendar_feed_revoke
    from games.views import once

    path = reverse("games:calendar")
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            refused = over_calendar_rate(request)
            if refused:
                messages.error(request, refused)
                return redirect("games:calendar")
            feed = calendar_feed_create(user=request.user)
            return once.stash(
                request, name="calendar", secret=feed, path=path,
                said="Your calendar address is ready. Copy it now.",
            )  # fmt: skip
        elif action == "revoke":
            if calendar_feed_revoke(user=request.user):
                messages.success(request, "Your calendar address no longer works.")
            else:
                messages.info(request, "You had no calendar address.")
        else:
            messages.error(request, "Unknown action.")
        return redirect("games:calendar")
    from games.models import PlayerSettings

    stored = (
        PlayerSettings.objects.filter(user=request.user)
        .values_list("calendar_digest", flat=True)
        .first()
        or ""
    )
    taken = once.take(request, name="calendar")
    new = None
    if taken.secret is not None and stored and calendar_digest(taken.secret) == stored:
        new = feed_addresses(taken.secret)  # still in force
        messages.success(request, taken.said)
    elif taken.lost and stored:
        messages.warning(request, LOST_CALENDAR)
    response = render(request, "games/calendar.html", {"active": bool(stored), "new": new})
    once.forget(request, response, name="calendar", path=path)
    return response


@require_safe
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The player's deadlines as an iCalendar feed (RFC 5545), by its secret address (no
    login: calendar apps have none): ``games.calendar_feed`` says what it holds. An ETag
    of what the events say: a calendar app polling an unchanged feed gets a 304. At most
    ``API_CALENDAR_FEED_RATE`` requests an address, and a client that asked for
    ``API_CALENDAR_FEED_MISS_RATE`` unknown addresses gets no answer for an unknown one
    until its count falls under it (a 429 with ``Retry-After`` beyond either). A right
    address is still served to that client: a calendar service fetching many players'
    feeds from few addresses, some of them renewed or turned off since, keeps serving the
    rest (an address is 192 random bits: counting guesses only bounds the lookups)."""
    from django.utils.cache import get_conditional_response

    from games import calendar_feed as feed
    from games import selectors_players
    from games.rate_limits import client_address, count, over_count, over_rate, secret_ident

    refused = over_rate(request, scope="calendar_feed", ident=secret_ident(token),
                        what="this calendar")  # fmt: skip
    if refused is not None:
        return refused
    user = selectors_players.calendar_owner(token=token)
    if user is None:
        client = client_address(request)
        refused = over_count(request, scope="calendar_feed_miss", ident=client,
                             what="unknown calendar addresses from your address")  # fmt: skip
        if refused is not None:
            return refused
        count(request, scope="calendar_feed_miss", ident=client)
        raise Http404("No such calendar.")
    events = feed.due_events(user=user)
    zone = selectors_players.time_zone_of(user=user)
    etag = feed.feed_etag(events, zone=zone)
    unchanged = get_conditional_response(request, etag=etag)
    if unchanged is None:
        body = feed.feed_ical(events, now=timezone.now(), zone=zone)
        response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="fivex-deadlines.ics"'
    else:
        response = unchanged
    response["ETag"] = etag
    # Five minutes: an app refreshing more often (or many at once) is answered from its
    # own copy, or by a 304; "private": a shared cache keeps no player's feed.
    response["Cache-Control"] = "private, max-age=300"
    return response
