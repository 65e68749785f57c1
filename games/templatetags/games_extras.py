"""Template helpers for game pages: a generic renderer of engine views, labels and
small display filters. Everything is escaped; the data comes from per-seat views only."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django import template
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_MAX_DEPTH = 6

# A salt, commitment or hash: 32 or more lowercase hex digits (the log shows them shortened).
_HEX_DIGEST = re.compile(r"[0-9a-f]{32,}")
_SHORT_HEX = 10
# A moment as the log stores it (ISO 8601 with its offset: a deadline, a resume time).
_MOMENT_KEYS = frozenset({"deadline"})  # the log's payload keys that hold a moment
_ISO_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)")


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _scalar(value: Any, short_hex: bool = False) -> SafeString:
    if short_hex and isinstance(value, str) and _HEX_DIGEST.fullmatch(value):
        # The full value stays in the title (and in the JSON record), as the Hash column.
        return format_html(
            '<span class="mono digest" title="{}">{}</span>', value, short_hash(value, _SHORT_HEX)
        )
    if value is None:
        return mark_safe('<span class="muted">—</span>')
    if value is True:
        return mark_safe("yes")
    if value is False:
        return mark_safe("no")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return format_html("{}", value)


def _moment(value: Any) -> SafeString | None:
    """A log's moment (a deadline, stored as ISO 8601 text) in the reader's time zone, like
    the When column; None when it is no such moment (shown as the text it is)."""
    if not isinstance(value, str) or not _ISO_MOMENT.fullmatch(value):
        return None
    try:
        moment = parse_datetime(value)
    except (ValueError, OverflowError):  # shaped like one, no real date (30 February)
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return format_html('<time datetime="{}">{}</time>', iso_attr(moment), when(moment, "day"))


def _value(key: Any, value: Any, depth: int, short_hex: bool) -> SafeString:
    """A mapping's value; in the log (``short_hex``) the moments its known keys hold are
    dates (only those keys: a game's name or a reason that looks like a date stays text)."""
    if short_hex and key in _MOMENT_KEYS:
        moment = _moment(value)
        if moment is not None:
            return moment
    return _render(value, depth, short_hex)


def _rows_table(
    rows: Sequence[Mapping[str, Any]], depth: int, short_hex: bool = False
) -> SafeString:
    """A list of dicts with the same keys: one table, one row per item."""
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    head = format_html_join(
        "",
        "<th>{}</th>",
        # A column without a name still gets a header a screen reader can say.
        ((label(c) or format_html('<span class="visually-hidden">{}</span>', "value"),) for c in columns),
    )
    # Each cell names its column (``col-text``) so a page's CSS can size one column.
    classes = ["col-" + c if re.fullmatch(r"[a-z][a-z0-9_]*", str(c)) else "col" for c in columns]
    # In the log (``short_hex``) each cell also carries its column's name, and the table
    # stacks on a phone as the game page's players do (``table.stack``): a reveal's salt,
    # text, source and commitment (813 px) scrolled sideways in a 390 px cell (an audit).
    labels = [format_html(' data-label="{}"', label(c)) if short_hex and label(c) else "" for c in columns]
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        (
            (
                format_html_join(
                    "",
                    '<td class="{}"{}>{}</td>',
                    (
                        (cls, said, _value(c, r.get(c), depth + 1, short_hex))
                        for c, cls, said in zip(columns, classes, labels, strict=True)
                    ),
                ),
            )
            for r in rows
        ),
    )
    return format_html(
        '<table class="view-table{}"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        " stack" if short_hex else "", head, body,
    )


#: What a log entry's less obvious fields mean, said under their names on the log page
#: (a player's journey: "Seating rule 2", "Join order" were left to guess).
LOG_FIELD_NOTES = {
    "join_order": "the seats in the order their players joined, before the seating was drawn",
    "seating": "the seating drawn from the game's seed (or fixed by the organizer), clockwise",
    "seating_fixed": "whether the organizer fixed the seating instead of drawing it",
    "seating_rule": "how the seating is drawn from the seed (engine verify redraws it)",
    "seed_commitment": "SHA-256 of the seed (which deals the cards, goals or dice) with its "
    "salt; the seed is revealed when the game ends",
    "setup_commitment": "SHA-256 of the set-up fixed for this game instead of drawn from the "
    "seed (often none), with its salt; revealed when the game ends",
    "engine_version": "the version of the rules engine the game is played with",
}


def _key_cell(key: Any, short_hex: bool) -> SafeString:
    """A mapping's key as its row's heading; in the log, with what it means when that is
    not plain from the name."""
    note = LOG_FIELD_NOTES.get(key) if short_hex and isinstance(key, str) else None
    if note:
        return format_html('{}<span class="small muted note">{}</span>', label(key), note)
    return format_html("{}", label(key))


def _render(value: Any, depth: int = 0, short_hex: bool = False) -> SafeString:
    if _is_scalar(value):
        return _scalar(value, short_hex)
    if depth >= _MAX_DEPTH:
        return format_html("<code>{}</code>", repr(value))
    if isinstance(value, Mapping):
        if not value:
            return mark_safe('<span class="muted">none</span>')
        inner = [v for v in value.values()]
        if all(isinstance(v, Mapping) for v in inner) and len(inner) > 1:
            # A dict of records (e.g. players -> {resources, vp...}): one row per key.
            rows = [{"": k, **dict(v)} for k, v in value.items()]
            return _rows_table(rows, depth, short_hex)
        body = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td></tr>",
            ((_key_cell(k, short_hex), _value(k, v, depth + 1, short_hex)) for k, v in value.items()),
        )
        return format_html('<table class="view-table kv">{}</table>', body)
    if isinstance(value, list | tuple):
        if not value:
            return mark_safe('<span class="muted">none</span>')
        if all(_is_scalar(v) for v in value):
            return format_html_join(
                "", '<span class="chip">{}</span>', ((_scalar(v, short_hex),) for v in value)
            )
        if all(isinstance(v, Mapping) for v in value):
            return _rows_table(value, depth, short_hex)
        items = format_html_join(
            "", "<li>{}</li>", ((_render(v, depth + 1, short_hex),) for v in value)
        )
        return format_html('<ul class="plain">{}</ul>', items)
    return format_html("{}", str(value))


@register.simple_tag
def render_view(value: Any, short_hex: bool = False) -> SafeString:
    """Render any JSON-like value (an engine view) as readable, escaped HTML tables; with
    ``short_hex`` salts, commitments and hashes show their first digits and an ellipsis,
    the full value in the title."""
    return _render(value, 0, short_hex)


@register.filter
def label(key: Any) -> str:
    """``"current_wonder"`` -> ``"Current wonder"``; other values unchanged as text."""
    text = str(key).replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:] if text else ""


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """``{{ players|get_item:name }}``: a dict lookup with a variable key."""
    if isinstance(mapping, Mapping):
        return mapping.get(key)
    return None


@register.filter
def number(value: Any) -> Any:
    """Show 2.0 as 2 and 2.5 as 2½-free plain ``2.5``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@register.filter(name="hours_length")
def hours_length_filter(value: Any) -> str:
    """A length given in hours in words: "7 days", "1 day and 12 hours", "12 hours"."""
    from games.presentation import hours_length

    return hours_length(value)


@register.filter
def points(value: Any) -> str:
    """A score or tie-break: ``1``, ``1.5``, ``2.33`` (as the emails write them)."""
    from games.presentation import short_number

    return short_number(value)


@register.filter
def quiet_hours_here(owner: Any) -> str:
    """``"; 13:00-23:00 in Europe/Paris"``: a game's or tournament's quiet hours on the
    reader's clock, when it reads otherwise ("" if not)."""
    from games.presentation import quiet_hours_here as here

    start, end = getattr(owner, "quiet_hours_start", None), getattr(owner, "quiet_hours_end", None)
    if start is None or end is None:
        return ""
    return here(getattr(owner, "quiet_hours_time_zone", "") or "UTC", start, end)


@register.filter(name="sixbyfive_result")
def sixbyfive_result_filter(text: Any, board: Any) -> str:
    """6x5's win with the hexes of the final board that make the goal."""
    from games.presentation import sixbyfive_result

    return sixbyfive_result(str(text or ""), board)


@register.filter
def options_words(owner: Any) -> str:
    """A game's or tournament's options in words (``games.presentation.options_text``)."""
    from games.presentation import options_text

    return options_text(ruleset=str(getattr(owner, "ruleset", "")), options=getattr(owner, "options", {}))


@register.filter
def short_hash(value: Any, length: int = 12) -> str:
    """The first characters of a hex digest, for compact display."""
    text = str(value or "")
    return text[:length] + ("…" if len(text) > length else "")


@register.filter
def split_words(value: str) -> list[str]:
    """``"a b c"|split_words`` -> ``["a", "b", "c"]`` (for loops over fixed keys)."""
    return str(value).split()


@register.filter
def when(value: Any, style: str = "") -> str:
    """A moment in the active time zone as every page and email writes it, ``Sun 1 Nov
    2026, 01:30 EST`` (``short``: no year; ``seconds``: with seconds; ``day``: no weekday,
    ``1 Nov 2026 01:30 EST``). The zone's name comes from the zone itself: Django's ``T``
    wrote none in the hour a clock goes back (``01:30 .``: two deadlines an hour apart
    read alike)."""
    from games.presentation import local_time

    value = iso_time(value)
    if not hasattr(value, "tzinfo") or value.tzinfo is None:
        return "" if value in (None, "") else str(value)
    return local_time(value, style)


@register.simple_tag(takes_context=True)
def moment(context: Any, value: Any, style: str = "") -> SafeString:
    """``value`` as ``when`` writes it, in a ``<time>`` element; for a reader who chose no
    time zone of their own, marked ``data-local`` so that site.js writes it in the
    browser's zone, as the game page did alone (a participant's journey: one deadline in
    UTC on the home and tournament pages, in CET on the game page)."""
    text = when(value, style)
    moment_value = iso_time(value)
    if not text or not hasattr(moment_value, "tzinfo") or moment_value.tzinfo is None:
        return format_html("{}", text)
    request = context.get("request")
    local = request is not None and not getattr(request, "player_time_zone", "")
    return format_html(
        '<time datetime="{}"{}>{}</time>',
        iso_attr(moment_value),
        format_html(' data-local data-style="{}"', style) if local else "",
        text,
    )


@register.filter
def stage_of(prompt: Any, ruleset: str) -> str:
    """Where a prompt stands in words ("round 2, play", "turn 6"), as emails say it:
    organizers do not know prompt numbers (an organizer's journey)."""
    from games.presentation import prompt_stage

    return prompt_stage(ruleset=ruleset, round_number=prompt.round, phase=prompt.phase)


@register.filter
def iso_attr(value: Any) -> str:
    """A moment for a ``<time datetime>`` attribute: ISO 8601 to the second (HTML allows
    at most three digits of a second's fraction; the views carry six)."""
    value = iso_time(value)
    if not hasattr(value, "isoformat") or getattr(value, "tzinfo", None) is None:
        return "" if value is None else str(value)
    return value.replace(microsecond=0).isoformat()


@register.filter
def iso_ms_attr(value: Any) -> str:
    """A moment a script counts down to (``data-countdown``): ISO 8601 to the millisecond,
    rounded up, so that the page never says a deadline passed before the server's does
    (to the second, rounded down, it said so up to a second early)."""
    from datetime import timedelta

    value = iso_time(value)
    if not hasattr(value, "isoformat") or getattr(value, "tzinfo", None) is None:
        return "" if value is None else str(value)
    up = -value.microsecond % 1000
    return (value + timedelta(microseconds=up)).isoformat(timespec="milliseconds")


@register.filter
def iso_time(value: Any) -> Any:
    """An ISO 8601 timestamp (as the views carry them) as a datetime in UTC, for Django's
    ``date`` filter; anything else unchanged."""
    from datetime import UTC, datetime

    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).astimezone(UTC)
        except ValueError:
            return value
    return value


@register.filter
def log_time(value: Any) -> str:
    """A moment in the active time zone as the log's "When (zone)" column writes it,
    ``1 Nov 2026 01:30:10``; in the hour a clock goes back, which comes twice, with the
    zone's name (``01:30:10 EDT``, then ``01:30:10 EST``): without it two entries an hour
    apart read alike, the later one seemingly first."""
    value = iso_time(value)
    if not hasattr(value, "tzinfo") or value.tzinfo is None:
        return "" if value in (None, "") else str(value)
    local = timezone.localtime(value)
    text = f"{local.day} {local:%b %Y %H:%M:%S}"
    if local.replace(fold=1 - local.fold).utcoffset() != local.utcoffset():
        text += f" {local.tzname() or local.strftime('%z')}"
    return text


@register.filter
def site_href(path: Any) -> str:
    """A path from the site's root (``Game.part_of_path``) as a link of the page, under
    the prefix the site is served at (``/fivex/`` behind a proxy's path)."""
    from django.urls import get_script_prefix

    path = str(path or "")
    return get_script_prefix().rstrip("/") + path if path.startswith("/") else path


@register.filter(name="ruleset_name")
def ruleset_name_filter(ruleset_id: Any) -> str:
    """``"4x-dice"`` -> ``"4X Dice"`` (the engine's own name for its ruleset)."""
    from games.presentation import ruleset_name

    return ruleset_name(str(ruleset_id))


# Log entry kinds whose plain label would be jargon.
_LOG_KINDS = {
    "nmr_applied": "Default order",
    "order_received": "Order sealed",
    "order_forced": "Only legal order entered",
}


@register.filter
def log_kind(kind: Any) -> str:
    """A log entry's kind as the log page names it (``nmr_applied`` -> "Default order")."""
    return _LOG_KINDS.get(str(kind)) or label(kind)


@register.filter
def same_order(typed: Any, legal: Any) -> bool:
    """Whether an order as typed is the legal order ``legal`` written another way (case
    and spaces do not matter in the order language; ``#`` lines are ignored)."""
    lines = [
        " ".join(line.split()).upper()
        for line in str(typed or "").splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    return lines == [" ".join(str(legal).split()).upper()]


@register.filter
def or_list(values: Any) -> str:
    """Choices as a sentence says them: "3", "3 or 4", "3, 4 or 5" (``join:" or "`` wrote
    "3 or 4 or 5")."""
    items = [str(v) for v in values or []]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1] if items else ""


@register.filter
def placed(ranking: Any) -> list[tuple[int, Any]]:
    """A ranking (groups, best first) with each group's place, tied groups sharing it and
    the next place skipping as many ("1. ann  2. bob = cat  4. dan")."""
    out: list[tuple[int, Any]] = []
    place = 1
    for group in ranking or []:
        out.append((place, group))
        place += len(group) if isinstance(group, list | tuple) else 1
    return out


@register.filter
def result_words(game: Any) -> str:
    """A game that is over in a few words for a list: "ann wins", "a draw", "ended early"
    (abandoned: no ranking)."""
    from games.presentation import winner_words

    if getattr(game, "status", "") == "abandoned" or not getattr(game, "ranking", None):
        return "ended early"
    return winner_words(game.ranking)


@register.simple_tag
def placed_scores(ranking: Any, players: Any, key: str) -> list[tuple[int, list[tuple[Any, Any]]]]:
    """A ranking as ``placed`` gives it, each seat paired with its ``players[seat][key]``
    (score, VP, points) for the game-over banner: ``[(1, [("ann", 40)]), ...]``."""
    out = []
    for place, group in placed(ranking):
        names = list(group) if isinstance(group, list | tuple) else [group]
        out.append(
            (place, [(n, number((get_item(players, n) or {}).get(key))) for n in names])
        )
    return out


@register.filter
def replace_confirm(seat: Any, at_once: bool = False) -> str:
    """The organizer's tick box for offering ``seat`` to a new player (``at_once``: a
    site administrator's, for handing it over)."""
    from games.forms import replace_confirm_label

    return replace_confirm_label(seat, bool(at_once))


@register.filter
def game_summary(ruleset_id: Any) -> str:
    """One sentence on what the game is (``games.rules_text.GAME_SUMMARIES``)."""
    from games.rules_text import GAME_SUMMARIES

    return GAME_SUMMARIES.get(str(ruleset_id), "")


@register.simple_tag
def organizer_reminders(game: Any, prompt: Any, user: Any) -> dict[str, Any] | None:
    """The organizer panel's line on the open prompt's reminders
    (``games.services.organizer_panel.reminders_shown``)."""
    from games.services.organizer_panel import reminders_shown

    return reminders_shown(game=game, prompt=prompt, by=user)
