"""A player's own settings (``PlayerSettings``): the time zone of its pages and emails,
and the secret address of its calendar of deadlines."""

from __future__ import annotations

import functools
import hashlib
import secrets
import zoneinfo
from importlib import resources
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.errors import ValidationError
from games.models import PlayerSettings

#: Files of the time zone database that are no zone of their own: ``localtime`` is the
#: machine's zone (two machines would read a game's quiet hours differently), the others
#: are placeholders.
NOT_ZONES = frozenset({"localtime", "Factory", "posixrules", "leapseconds", "leap-seconds"})


@functools.cache
def time_zone_names() -> tuple[str, ...]:
    """The time zones to choose from, sorted, ``UTC`` first: the zones of the time zone
    database's ``zone.tab`` (one or more for every country: "Europe/Oslo", "Asia/Kathmandu"),
    which this machine knows."""
    # Legacy and renamed aliases ("US/Eastern", "Etc/GMT+5", "Africa/Asmera",
    # "America/Buenos_Aires": about 600 names in all) only confuse a chooser; they are
    # still accepted when typed (``time_zone_valid``), and one chosen before stays shown.
    known = zoneinfo.available_timezones()
    try:
        table = (resources.files("tzdata.zoneinfo") / "zone.tab").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        table = ""
    names = {
        fields[2]
        for line in table.splitlines()
        if line and not line.startswith("#") and len(fields := line.split("\t")) >= 3
    } & known
    if not names:  # no zone.tab: the machine's names, without the obvious legacy ones
        names = {
            n
            for n in known
            if "/" in n and not n.startswith(("Etc/", "US/", "SystemV/")) and n not in NOT_ZONES
        }
    return ("UTC", *sorted(names))


@functools.cache
def time_zone_aliases() -> dict[str, str]:
    """The old names of the zones offered (``time_zone_names``), each to its zone's name
    now ("Asia/Calcutta" -> "Asia/Kolkata"), from the time zone database's links: a
    browser may report one (Chrome names some zones as ICU does)."""
    offered = set(time_zone_names())
    try:
        text = (resources.files("tzdata.zoneinfo") / "tzdata.zi").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return {}
    aliases = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "L" and parts[1] in offered and parts[2] not in offered:
            aliases[parts[2]] = parts[1]
    return aliases


def time_zone_valid(name: Any) -> str:
    """``name`` if it names a known time zone (any IANA name, aliases included), else a
    ValidationError that says so."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("Choose a time zone.")
    name = name.strip()
    if name in NOT_ZONES or (name not in zoneinfo.available_timezones() and name != "UTC"):
        raise ValidationError(
            f"Unknown time zone {name[:64]!r}: use a name such as Europe/Paris or America/New_York."
        )
    return name


def player_time_zone_set(*, user: Any, time_zone: Any) -> PlayerSettings:
    """Set the time zone the player's pages and emails write dates in. A player away
    stays away until the end of the same last day, in the new zone (the day ends at
    midnight in the player's time zone: ``away.away_end_in_zone``)."""
    from games.services.away import away_end_in_zone

    name = time_zone_valid(time_zone)
    with transaction.atomic():
        settings_row, _ = PlayerSettings.objects.select_for_update().get_or_create(user=user)
        if settings_row.time_zone != name:
            fields = ["time_zone"]
            # An away still running (one that has ended stays ended: moved west, its last
            # day may not be over there yet, and the player, back, would be away again).
            if settings_row.away_until is not None and settings_row.away_until > timezone.now():
                settings_row.away_until = away_end_in_zone(
                    settings_row.away_until, before=settings_row.time_zone, after=name
                )
                fields.append("away_until")
            settings_row.time_zone = name
            settings_row.save(update_fields=fields)
    return settings_row


def player_email_default_set(*, user: Any, every: bool, apply_now: bool = False) -> int:
    """Whether the seats the player takes from now on email after every prompt or only
    when an order is wanted; with ``apply_now`` the seats of its games still going change
    too. Returns how many seats changed."""
    from games.models import Game, Seat

    with transaction.atomic():
        row, _ = PlayerSettings.objects.select_for_update().get_or_create(user=user)
        if row.email_every_prompt != bool(every):
            row.email_every_prompt = bool(every)
            row.save(update_fields=["email_every_prompt"])
        if not apply_now:
            return 0
        return (
            Seat.objects.filter(
                user=user,
                status=Seat.Status.ACTIVE,
                game__status__in=[Game.Status.FORMING, Game.Status.ACTIVE, Game.Status.PAUSED],
            )
            .exclude(email_every_prompt=bool(every))
            .update(email_every_prompt=bool(every))
        )


def player_invitations_set(*, user: Any, who: Any) -> str:
    """Who may invite the player to a game by name (``PlayerSettings.Invitations``:
    anyone, players they have played a game with, nobody). Raises ValidationError."""
    choices = PlayerSettings.Invitations
    if who not in choices.values:
        raise ValidationError(
            f"Who may invite you: one of {', '.join(choices.values)}.", field="invitations"
        )
    with transaction.atomic():
        row, _ = PlayerSettings.objects.select_for_update().get_or_create(user=user)
        if row.invitations != who:
            row.invitations = who
            row.save(update_fields=["invitations"])
    return str(who)


def invitations_setting(*, user: Any) -> str:
    """Who may invite the player by name (anyone unless they said otherwise)."""
    value = PlayerSettings.objects.filter(user=user).values_list("invitations", flat=True).first()
    return value or PlayerSettings.Invitations.ANYONE


def email_every_prompt_default(*, user: Any) -> bool:
    """The player's choice for new seats (after every prompt unless it chose otherwise)."""
    value = (
        PlayerSettings.objects.filter(user=user).values_list("email_every_prompt", flat=True).first()
    )
    return True if value is None else bool(value)


def calendar_digest(token: str) -> str:
    """What is stored of a calendar feed's secret."""
    return hashlib.sha256(token.encode()).hexdigest()


def calendar_feed_create(*, user: Any) -> str:
    """A new secret for the player's calendar feed address (the previous address stops
    working). Returns the secret, which is not stored: only its digest is."""
    token = secrets.token_urlsafe(24)
    with transaction.atomic():
        settings_row, _ = PlayerSettings.objects.select_for_update().get_or_create(user=user)
        settings_row.calendar_digest = calendar_digest(token)
        settings_row.save(update_fields=["calendar_digest"])
    return token


def calendar_feed_revoke(*, user: Any) -> bool:
    """Turn the player's calendar feed off; whether there was one."""
    return bool(
        PlayerSettings.objects.filter(user=user).exclude(calendar_digest="").update(calendar_digest="")
    )


def player_turn_emails_set(*, user: Any, turn_emails: Any = None, hour: Any = None) -> PlayerSettings:
    """How the player gets its turn and result emails: ``each`` (one per prompt) or
    ``daily`` (one summary a day at ``hour``, 0-23 in its time zone:
    ``games.services.summaries``); either may be left out (unchanged). Turning the summary
    on starts it: the first one tells what happened from then on, and comes at the hour
    the next time it comes. Raises ValidationError (nothing changed)."""
    choices = PlayerSettings.TurnEmails
    if turn_emails is not None and turn_emails not in choices.values:
        raise ValidationError(
            f"Turn emails: one of {', '.join(choices.values)}.", field="turn_emails"
        )
    if hour is not None and (isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23):
        raise ValidationError(
            "The summary's hour: a whole hour from 0 to 23 (in your time zone).", field="summary_hour"
        )
    from django.utils import timezone

    with transaction.atomic():
        row, _ = PlayerSettings.objects.select_for_update().get_or_create(user=user)
        changed = []
        if turn_emails is not None and row.turn_emails != turn_emails:
            row.turn_emails = turn_emails
            changed.append("turn_emails")
            if turn_emails == choices.DAILY:
                row.summary_since = timezone.now()
                changed.append("summary_since")
        if hour is not None and row.summary_hour != hour:
            row.summary_hour = hour
            changed.append("summary_hour")
        if changed:
            row.save(update_fields=changed)
    return row
