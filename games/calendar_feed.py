"""The calendar feed of a player's deadlines (RFC 5545), read and written: which prompts
wait for the player's order (``due_events``, a fixed number of queries whatever the number
of games) and the iCalendar text of them (``feed_ical``), with the feed's addresses.

What a feed holds, and why:

- one event per game whose open prompt waits for the player's own order: once the order
  is in (web, email or API) the event goes at the next refresh (an order may still be
  changed until the deadline, but the calendar is a list of things to do);
- nothing of a paused game (its deadline is not known until it resumes), a game still
  forming or one that is over;
- the game's name (a private game's too: it is the player's own feed), the prompt's
  number, the deadline, the game page's address and the page it belongs to (a
  tournament's round): never a hand, an order or anyone's seat but the player's;
- a tournament's round has no deadline of its own: its tables are games, each listed as
  any game is, with its round named in the description.

Each event is 30 minutes long, ending at the deadline (a zero-length event is hidden by
some calendar apps), with a reminder an hour before it. Its UID is the prompt's (a
feed is one player's, who holds one seat at a table): a moved deadline revises the event
(SEQUENCE up) rather than adding another."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from fivex_site.links import public_reverse

EVENT_LENGTH = timedelta(minutes=30)
ALARM_BEFORE = timedelta(hours=1)


@dataclass(frozen=True)
class DueEvent:
    """One prompt waiting for the player's order, as its event shows it."""

    prompt_id: int
    game_id: int
    prompt_number: int
    title: str
    part_of: str
    deadline: datetime
    sequence: int


def due_events(*, user: Any) -> list[DueEvent]:
    """The prompts waiting for ``user``'s order that have a deadline, nearest first; a
    fixed number of queries (the games' and the deadline moves' in one each)."""
    from games import selectors_lists
    from games.models import Game

    needed = {g: p for g, p in selectors_lists.orders_needed(user=user).items() if p.deadline}
    if not needed:
        return []
    games = {
        g.pk: g for g in Game.objects.filter(pk__in=list(needed)).only("pk", "name", "ruleset", "part_of_label")
    }
    # A resumed game's deadline moved too (a time audit), and one held for a player away:
    # counted from the log, per prompt.
    moved = selectors_lists.deadline_moves(game_ids=list(needed))
    events = [
        DueEvent(
            prompt_id=prompt.pk,
            game_id=game_id,
            prompt_number=prompt.number,
            title=games[game_id].title,
            part_of=games[game_id].part_of_label,
            deadline=prompt.deadline,
            # Each move of the deadline (an extension, a pause and its resumption, a hold
            # for a player away) is a revision: calendars that keep an event by its UID
            # take the moved one.
            sequence=prompt.extensions + moved.get((game_id, prompt.number), 0),
        )
        for game_id, prompt in needed.items()
    ]
    return sorted(events, key=lambda e: (e.deadline, e.game_id))


def feed_etag(events: list[DueEvent], *, zone: Any = None) -> str:
    """The feed's entity tag: a digest of what its events say (not of the text, whose
    DTSTAMP is the time of the request), and of the player's time zone (the descriptions
    write the deadlines in it), so an unchanged feed is a 304."""
    facts = repr(
        [getattr(zone, "key", "UTC")]
        + [(e.prompt_id, e.title, e.part_of, e.deadline.isoformat(), e.sequence) for e in events]
    )
    return f'"{hashlib.sha256(facts.encode()).hexdigest()[:24]}"'


def feed_ical(events: list[DueEvent], *, now: datetime, zone: Any = None) -> bytes:
    """The iCalendar text of ``events`` (times in UTC). Each description writes the
    deadline on the player's clock (``zone``, its time zone) as the site's pages do, then
    in UTC: read as text, the UTC moment alone named another date than the player's own
    in UTC+13/+14 or UTC-11/-12."""
    from django.utils import timezone
    from icalendar import Alarm, Calendar, Event, Timezone, TimezoneStandard

    from games.presentation import local_time

    host = urlsplit(settings.FIVEX_BASE_URL).hostname or "fivex"
    cal = Calendar()
    cal.add("prodid", "-//FiveX//Deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "FiveX deadlines")
    cal.add("refresh-interval", timedelta(hours=1), parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", "PT1H")  # the same, as Outlook and older apps read it
    # Times are in UTC; the zone is also the calendar's one component when nothing is
    # due (RFC 5545 wants at least one, and strict importers refuse an empty calendar).
    utc, standard = Timezone(), TimezoneStandard()
    utc.add("tzid", "UTC")
    standard.add("dtstart", datetime(1970, 1, 1))
    standard.add("tzoffsetfrom", timedelta(0))
    standard.add("tzoffsetto", timedelta(0))
    standard.add("tzname", "UTC")
    utc.add_component(standard)
    cal.add_component(utc)
    for due in events:
        url = public_reverse("games:detail", due.game_id)
        event = Event()
        event.add("uid", f"fivex-prompt-{due.prompt_id}@{host}")
        event.add("dtstamp", now)
        event.add("sequence", due.sequence)
        event.add("dtstart", due.deadline - EVENT_LENGTH)
        event.add("dtend", due.deadline)
        event.add("summary", f"FiveX: order due — {due.title}, decision {due.prompt_number}")
        where = f" ({due.part_of})" if due.part_of else ""
        by = f"{due.deadline.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        if zone is not None and getattr(zone, "key", "UTC") != "UTC":
            with timezone.override(zone):
                by = f"{local_time(due.deadline)} ({by})"
        event.add(
            "description",
            f"Your order for decision {due.prompt_number} of {due.title}{where} is due by "
            f"{by}. Order on the game's page: {url}",
        )
        event.add("url", url)
        event.add("transp", "TRANSPARENT")  # a deadline, not a meeting: the player is free
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", f"FiveX: order due in an hour — {due.title}")
        alarm.add("trigger", -ALARM_BEFORE, parameters={"RELATED": "END"})
        event.add_component(alarm)
        cal.add_component(event)
    return cal.to_ical()


def feed_addresses(token: str) -> dict[str, str]:
    """The feed's address (``url``, to paste into a calendar app) and the same as a
    ``webcal://`` link (``webcal_url``: a click opens the calendar app's subscription)."""
    url = public_reverse("games:calendar_feed", token)
    return {"url": url, "webcal_url": "webcal://" + url.split("://", 1)[1]}
