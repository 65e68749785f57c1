"""How games are put in words for a person: one-line texts, rulesets' names and options,
engine events, prompts' headings and stages, results and places, deadlines and times.
How orders are offered and read back is ``games.order_presentation``."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

import engine
from games.notes import NAME_INVISIBLE_RE

# Control characters have no place in a one-line text (a name, a subject, a header; NUL
# cannot even be stored in a PostgreSQL text column): each becomes a space.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(value: Any) -> str:
    """``value`` on one line: control characters and runs of white space become one space,
    bidirectional overrides and invisible spaces go (a game or tournament name, an email
    subject, a header's text)."""
    # A name could show reversed and turn the text after it round; two names could look
    # alike (games.notes: the same definition as for orders).
    text = NAME_INVISIBLE_RE.sub("", str(value or ""))
    return " ".join(_CONTROL_RE.sub(" ", text).split())


def ruleset_name(ruleset_id: str) -> str:
    """The ruleset's own name ("5X", "4X Dice"), or its id if no engine has it."""
    try:
        return engine.get(ruleset_id).name
    except engine.ScriptError:
        return ruleset_id


def waiting_note(*, ruleset: str, view: dict[str, Any], seat_name: str) -> str:
    """Why a seat that plays this round is not asked yet, when the rules make it wait
    (5X: a seat that explored last round chooses after seeing the others' cards, ERIK's
    player last of all). From the seat's own view; empty when there is nothing to say."""
    if ruleset != "5x" or seat_name in (view.get("pending") or []):
        return ""
    me = (view.get("players") or {}).get(seat_name) or {}
    erik = (me.get("discard") or [None])[-1] == "ERIK"
    phase = view.get("phase")
    if phase == "play" and me.get("hand_size"):
        if erik:
            return (
                "You played Erik the Red last round: you choose your card last, after"
                " seeing every card played this round."
            )
        return (
            "You explored last round: you choose your card after seeing the cards the"
            " others play now."
        )
    if phase == "explore-play" and erik and me.get("played") is None and me.get("hand_size"):
        return (
            "You played Erik the Red last round: you choose your card last, after seeing"
            " every card played this round."
        )
    return ""


# 4X Dice's event texts write a die's face as the engine's list, "[1, 2]".
_FACE_LIST = re.compile(r"\[(\d+), (\d+)\]")
_CAPPED_NOW = re.compile(r"\((\d+ ships?, track capped at \d+)\) \(now (\d+)\)")
_FINAL_SCORES = re.compile(r"Final scores: ((?:\S+ -?\d+, )*\S+ -?\d+)\.$")


def _best_first(match: re.Match) -> str:
    """4X Dice's "Final scores: bob 15, ann 19, cat 22." (seating order) best first, as
    the banner ranks them: "Final scores: cat 22, ann 19, bob 15."."""
    pairs = [item.rsplit(" ", 1) for item in match[1].split(", ")]
    ranked = sorted(pairs, key=lambda pair: -int(pair[1]))  # stable: ties keep seating order
    return "Final scores: " + ", ".join(f"{name} {score}" for name, score in ranked) + "."


_SIXBYFIVE_WIN = re.compile(r"^(?P<seat>.+) wins: (?P=seat)'s goal (?P<cells>-?\d+,-?\d+(?: -?\d+,-?\d+)*) is complete$")
_COLOUR_WORDS = {"B": "blue", "R": "red", "Y": "yellow"}


def sixbyfive_result(text: str, board: Any) -> str:
    """6x5's "ann wins: ann's goal 0,0 0,1 1,-2 1,-1 1,1 is complete" names the goal
    card's own cells, which are not the board's (a player's journey: 1,-1 was a red tile
    there): with the final ``board``, the hexes that make the goal instead, "ann wins: the
    black tile at 0,0 and the blue tiles at 0,1 -1,2 -1,3 0,3 make ann's goal". Any
    other text, or a board that does not show the goal, is returned as it is."""
    from engine.sixbyfive_shapes import canonical, colour_group, hex_key, key_cell

    match = _SIXBYFIVE_WIN.match(str(text or ""))
    if not match or not isinstance(board, dict):
        return text
    goal = canonical(key_cell(cell) for cell in match["cells"].split())
    black = next((key_cell(k) for k, v in board.items() if v == "K"), None)
    if black is None:
        return text
    for letter, colour in _COLOUR_WORDS.items():
        group = colour_group(board, black, letter)
        if len(group) == len(goal) and canonical(group) == goal:
            tiles = " ".join(hex_key(cell) for cell in group if cell != black)
            seat = match["seat"]
            return (f"{seat} wins: the black tile at {hex_key(black)} and the {colour} tiles at "
                    f"{tiles} make {seat}'s goal")
    return text


def event_text(*, ruleset: str, text: str, board: Any = None) -> str:
    """An engine event's text as pages and emails show it. 4X Dice writes a die's face
    as the dice on the page do, ships/asteroids ("Bob allocated 1/1 to EXTRACT", "now
    0/2"), not as the list "[1, 1]" of the engine's text (which stays as it is in the
    log and the API: the log's hash chain and ``engine verify`` compare that text). 6x5's
    win names the hexes that make the goal when the final ``board`` is given
    (``sixbyfive_result``)."""
    if ruleset == "4x-dice":
        text = _FACE_LIST.sub(r"\1/\2", text)
        # "explored 3 (5 ships, track capped at 19) (now 19)": one bracket
        text = _CAPPED_NOW.sub(r"(\1; now \2)", text)
        return _FINAL_SCORES.sub(_best_first, text)
    if ruleset == "6x5" and board is not None:
        return sixbyfive_result(text, board)
    return text


def draft_note(*, ruleset: str, view: dict[str, Any], seat_name: str) -> str:
    """5X's draft, for a seat asked to pass a leader now: what passing means. The rules
    (shared/spec/5x.md, phase 1): the leader passed goes to the seat on the left; the
    seat keeps the other and receives one from the seat on its right. The neighbours come
    from the seating order, which is the order of the view's ``players``."""
    if ruleset != "5x" or view.get("phase") != "draft":
        return ""
    if seat_name not in (view.get("pending") or []):
        return ""
    names = list(view.get("players") or {})
    if seat_name not in names or len(names) < 2:
        return ""
    i = names.index(seat_name)
    left, right = names[(i + 1) % len(names)], names[(i - 1) % len(names)]
    if left == right:
        return (
            f"Pass one of your two leaders to {left}; you keep the other, and receive one"
            f" of {left}'s two."
        )
    return (
        f"Pass one of your two leaders to the seat on your left ({left}); you keep the"
        f" other, and receive one from the seat on your right ({right})."
    )


def history_heading(
    *, ruleset: str, round_number: Any, phase: str, number: Any, pending: Any = None
) -> str:
    """The heading of one resolved prompt in "What happened". 6x5 counts turns, and its
    prompt's round number is the turn played (``Ruleset.progress``), as the board's
    "Turn N" is the turn being played: "Turn 7 (prompt 7)". 4X Dice names the one seat
    that was asked, prompt first: its events run on into the next seat's turn, often
    the next round ("Prompt 4 · bob's allocate, round 1", then "Round 2 begins…"). The
    others: "Round 2 · play (prompt 5)", and while the round is 0 (5X's draft, 4X Dice's
    set-up) the phase alone, capitalized as every other heading: "Draft (prompt 1)"."""
    if ruleset == "6x5":
        return f"Turn {round_number} (decision {number})"
    if ruleset == "4x-dice" and round_number and isinstance(pending, list | tuple) and len(pending) == 1:
        return f"Decision {number} · {pending[0]}'s {phase}, round {round_number}"
    if round_number:
        return f"Round {round_number} · {phase} (decision {number})"
    return f"{str(phase)[:1].upper()}{str(phase)[1:]} (decision {number})"


def prompt_heading(*, ruleset: str, prompt: Any) -> str:
    """``history_heading`` of a resolved ``Prompt`` row."""
    return history_heading(
        ruleset=ruleset, round_number=prompt.round, phase=prompt.phase, number=prompt.number,
        pending=prompt.pending,
    )  # fmt: skip


def prompt_stage(*, ruleset: str, round_number: Any, phase: str) -> str:
    """Where a prompt stands, in words: "turn 6" (6x5 counts turns), "round 2, play", or
    the phase alone while the round is 0 (5X's draft, 4X Dice's set-up)."""
    if ruleset == "6x5":
        return f"turn {round_number}"
    return f"round {round_number}, {phase}" if round_number else str(phase)


def short_number(value: Any, places: int = 2) -> str:
    """A score as people write it: rounded to ``places`` decimals, without trailing
    zeros (``1``, ``1.5``, ``2.33``; Django's floatformat wrote ``1`` beside ``1.50``)."""
    try:
        number = round(float(value), places)
    except (TypeError, ValueError):
        return str(value)
    text = f"{number:.{places}f}".rstrip("0").rstrip(".") if places else f"{number:.0f}"
    return "0" if text in ("-0", "") else text


def options_text(*, ruleset: str, options: Any) -> str:
    """A game's options in words, every one the ruleset has (its default where none was
    chosen): "goals 1, visible goals off, ..., max turns 6"; "" for a ruleset without any
    (a participant's journey: a tournament of draws after 6 turns never said so)."""
    try:
        known = engine.get(ruleset).options
    except Exception:  # noqa: BLE001 - an unknown ruleset: nothing to say
        return ""
    chosen = options if isinstance(options, dict) else {}
    parts = []
    for option in known:
        value = chosen.get(option.name, option.default)
        if isinstance(value, bool):
            shown = "on" if value else "off"
        elif value == 0 and option.default == 0:  # 6x5's target 0: the option is off
            shown = "off"
        else:
            shown = str(value)
        parts.append(f"{option.name.replace('_', ' ')} {shown}")
    return ", ".join(parts)


def replace_note(*, ready_at: datetime | None, resolve_after: datetime | None) -> str:
    """Whether a sealed order may still be replaced, from its open prompt's ``ready_at``
    (every order in) and ``resolve_after`` (the early-resolution delay's end): the order
    panel and the message after an order say the same (the panel said "You may replace
    it until the decision is resolved." while the prompt was being resolved, an audit)."""
    if ready_at is None:
        return "You may replace it until the decision is resolved."
    if resolve_after is not None and resolve_after > timezone.now():
        return (
            "Every order is in: the decision is resolved in a moment, and until then you may "
            "still replace yours."
        )
    return "Every order is in: the decision is being resolved now."


def refusal_sentence(reason: str, *, names: Any = ()) -> str:
    """An engine's refusal as a player reads it, a sentence: a capital letter and a full
    stop ("you cannot hit your own dice" -> "You cannot hit your own dice."), but none
    after an order or a code the player may copy. A reason
    opening with a seat's name (``names``: "bob's die 2 ...") or with anything but a
    lower-case letter keeps its first word as written. The API says the reason as the
    engine does."""
    text = str(reason).strip()
    if not text:
        return text
    first = re.match(r"[^\s':;,.]+", text)
    if text[0].islower() and not (first and first.group() in {str(n) for n in names}):
        text = text[0].upper() + text[1:]
    # No full stop glued to an order to copy ("... write it on one line: PLACE BLUE 1,0"):
    # a stop only after a word or a closing bracket or quote.
    return text + "." if text[-1].islower() or text[-1] in ")'\"”" else text


def and_list(names: list[str]) -> str:
    """Names as a sentence says them: "ann", "ann and bob", "ann, bob and cat"."""
    names = [str(n) for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def fivex_tiebreak_note(view: dict[str, Any]) -> str:
    """Why 5X seats of equal VP are ranked apart (the rules: the earliest Wonder letter
    held first, no Wonder last; a game-end audit: "1. ann (4 VP) 2. bob (4 VP)" said
    nothing of why): "On equal VP the earliest Wonder held ranks first: ann (Wonder A)
    before bob (Wonder C) before cat (no Wonder)." "" when no equal VP are ranked apart."""
    players = view.get("players") or {}
    ranking = [list(g) for g in view.get("ranking") or [] if g]
    runs: list[list[list[str]]] = []
    for group in ranking:
        vp = (players.get(group[0]) or {}).get("vp")
        if runs and (players.get(runs[-1][0][0]) or {}).get("vp") == vp:
            runs[-1].append(group)
        else:
            runs.append([group])

    def held(name: str) -> str:
        letters = sorted((players.get(name) or {}).get("wonders") or [])
        return f"Wonder {letters[0]}" if letters else "no Wonder"

    parts = [
        " before ".join(" = ".join(f"{n} ({held(n)})" for n in group) for group in run)
        for run in runs
        if len(run) > 1
    ]
    if not parts:
        return ""
    return "On equal VP the earliest Wonder held ranks first: " + "; ".join(parts) + "."


def winner_words(ranking: Any) -> str:
    """Who won, for a subject line: "ann wins", "ann and bob share first place", "a draw"
    (every seat level), "no winner" (no ranking)."""
    groups = [list(g) if isinstance(g, list | tuple) else [g] for g in ranking or [] if g]
    if not groups:
        return "no winner"
    first = [str(n) for n in groups[0]]
    if len(first) == 1:
        return f"{first[0]} wins"
    if len(groups) == 1:
        return "a draw"
    return f"{and_list(first)} share first place"


def hours_length(value: Any) -> str:
    """A length given in hours (a deadline, a reminder's lead, an extension), in words:
    whole days as days ("7 days", "1 day"), days and hours when mixed ("1 day and 12
    hours"), hours under a day ("12 hours", "1 hour and 30 minutes"): ``duration_words``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return duration_words(number * 3600)


def time_left_words(seconds: float) -> str:
    """A time left, to the minute (rounded down): "1 day 2 h 30 min", "45 min", "less than
    a minute"."""
    minutes = max(0, int(seconds // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days} day{'' if days == 1 else 's'}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes else []
    return " ".join(parts) or "less than a minute"


def paused_time_left(*, remaining_seconds: float, grace_minutes: int) -> str:
    """What a paused game's open prompt has when it resumes (``remaining_seconds``, the
    organizer tools' figure: negative, paused in the grace after the deadline)."""
    if remaining_seconds > 0:
        return f"{time_left_words(remaining_seconds)} left when it resumes"
    grace = grace_minutes * 60 + remaining_seconds
    if grace > 0:
        return f"deadline passed; orders taken {time_left_words(grace)} more when it resumes (grace)"
    return "deadline and grace passed: the missing orders get default orders when it resumes"


def duration_words(seconds: float) -> str:
    """A length of time in words, to the nearest minute: "1 day and 3 hours", "5 hours
    and 30 minutes", "2 days, 1 hour and 5 minutes", "less than a minute"."""
    minutes = max(0, round(float(seconds) / 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"))
        if n
    ]
    if not parts:
        return "less than a minute"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def resumption_words(*, number: int, remaining_seconds: float, grace_minutes: int, quiet_hours: bool) -> str:
    """What a paused game's open prompt (``number``) gets when the game resumes, as the
    pause notices say it: ``game_resume`` sets its deadline to the resumption plus the
    ``remaining_seconds`` kept at the pause (moved out of the quiet hours); negative (paused
    in the grace after the deadline), what was left of the grace comes back."""
    if remaining_seconds > 0:
        return (
            f"When the game resumes, decision {number}'s deadline will be "
            f"{duration_words(remaining_seconds)} after the resumption (the time it had left "
            "when paused)"
            + (", moved to the end of the game's quiet hours if it falls in them" if quiet_hours else "")
            + "."
        )
    grace = grace_minutes * 60 + remaining_seconds
    if grace > 0:
        return (
            f"Decision {number}'s deadline had passed when the game was paused: when it resumes, "
            f"orders are taken for {duration_words(grace)} more (the grace that was left), then "
            "the missing ones get default orders."
        )
    return (
        f"Decision {number}'s deadline and grace had passed when the game was paused: when it "
        "resumes, the orders still missing get default orders."
    )


#: How far ahead a clock change that moves the quiet hours on the reader's clock is said.
QUIET_HOURS_CHANGES_AHEAD_DAYS = 35


def _quiet_period(zone: Any, start: int, end: int, now: datetime) -> tuple[datetime, datetime]:
    """The quiet hours going on at ``now`` or next after it, begin and end (on ``zone``'s
    clock, daylight saving time included)."""
    from datetime import time as clock
    from datetime import timedelta

    today = now.astimezone(zone).date()
    for day in (today - timedelta(days=1), today, today + timedelta(days=1)):
        begins = datetime.combine(day, clock(start), tzinfo=zone)
        ends = datetime.combine(day + timedelta(days=end <= start), clock(end), tzinfo=zone)
        if ends > now:
            return begins, ends
    return begins, ends  # not reached: tomorrow's ends after now


def _clock_changes(zone: Any, here: Any, now: datetime, days: int) -> list[datetime]:
    """The moments (UTC) in the next ``days`` days at which the two zones' clocks move
    apart or together (one changes, the other not, or not by as much)."""
    from datetime import UTC, timedelta

    def apart(moment: datetime) -> Any:
        return moment.astimezone(zone).utcoffset() - moment.astimezone(here).utcoffset()

    found = []
    hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    gap = apart(hour)
    for _ in range(24 * days):
        following = hour + timedelta(hours=1)
        if apart(following) != gap:
            # Every clock change falls on a quarter hour (UTC): the first one of that hour.
            moment = next(
                q for q in (hour + timedelta(minutes=15 * i) for i in range(1, 5)) if apart(q) != gap
            )
            found.append(moment)
            gap = apart(following)
        hour = following
    return found


def _quiet_hours_local(
    zone_name: str, start: int, end: int, now: datetime | None = None
) -> tuple[datetime, datetime, str, list[tuple[datetime, datetime, datetime]]] | None:
    """The quiet hours of ``zone_name`` going on or next (``now`` by default the present),
    begin and end, in the zone the page is written in (the reader's), that zone's name,
    and each clock change of the next ``QUIET_HOURS_CHANGES_AHEAD_DAYS`` days that moves
    them on the reader's clock: (when, on the reader's clock, and the quiet hours after
    it, begin and end). None when the reader's clock reads them the same throughout."""
    import zoneinfo

    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    here = timezone.get_current_timezone()
    if getattr(here, "key", None) == zone_name:
        return None
    now = now or timezone.now()
    begins, ends = (m.astimezone(here) for m in _quiet_period(zone, start, end, now))
    changes = []
    for moment in _clock_changes(zone, here, now, QUIET_HOURS_CHANGES_AHEAD_DAYS):
        after = _quiet_period(zone, start, end, moment)
        # The quiet hours that begin after the change (those it falls in end on the new clock).
        if after[0] < moment:
            after = _quiet_period(zone, start, end, after[1])
        changes.append((moment.astimezone(here), after[0].astimezone(here), after[1].astimezone(here)))
    if not changes and (begins.hour, begins.minute) == (start, 0) and (ends.hour, ends.minute) == (end, 0):
        return None
    return begins, ends, getattr(here, "key", None) or str(here), changes


def _same_clock(begins: datetime, ends: datetime, start: int, end: int) -> bool:
    return (begins.hour, begins.minute, ends.hour, ends.minute) == (start, 0, end, 0)


def quiet_hours_here(zone_name: str, start: int, end: int, now: datetime | None = None) -> str:
    """``"; 13:00-23:00 in Europe/Paris"``: the quiet hours of ``zone_name`` going on or
    next, in the zone the page is written in (the reader's), when its clock reads
    otherwise; with the hours after each clock change of the coming weeks that moves them
    on the reader's clock (``"; 04:00-14:00 in Europe/Berlin, 03:00-13:00 from Sun 14 Mar
    08:00 as the clocks change"``)."""
    local = _quiet_hours_local(zone_name, start, end, now)
    if local is None:
        return ""
    begins, ends, name, changes = local
    if _same_clock(begins, ends, start, end):
        text = f"; the same hours in {name}"
    else:
        text = f"; {begins:%H:%M}-{ends:%H:%M} in {name}"
    if changes:
        text += "".join(f", {b:%H:%M}-{e:%H:%M} from {m:%a} {m.day} {m:%b %H:%M}" for m, b, e in changes)
        text += " as the clocks change"
    return text


def deadline_policy_text(*, game: Any) -> str:
    """A game's deadline rules in a line, for its players (the organizer set them at
    creation; only the log said them): "Each decision: 36 hours, 15 minutes' grace;
    deadlines falling 22:00-08:00 (Australia/Sydney) move to 08:00; reminder 12 hours
    before." "" for a game without deadlines."""
    hours = getattr(game, "deadline_hours", None)
    if not hours:
        return ""
    parts = [f"Each decision: {hours_length(hours)}"]
    grace = getattr(game, "grace_minutes", 0) or 0
    if grace:
        parts[0] += f", {grace} minute{'s' if grace != 1 else ''}' grace"
    start, end = getattr(game, "quiet_hours_start", None), getattr(game, "quiet_hours_end", None)
    if start is not None and end is not None:
        zone = getattr(game, "quiet_hours_time_zone", "") or "UTC"
        local = _quiet_hours_local(zone, start, end)
        # "move to 08:00" beside the reader's own range read as the reader's 08:00 (a
        # time audit): the reader's clock is said too (until a clock change moves it)
        there = ""
        if local:
            there = f" ({local[1]:%H:%M} in {local[2]}{' until the clocks change' if local[3] else ''})"
        parts.append(
            f"deadlines falling {start:02d}:00-{end:02d}:00 ({zone}{quiet_hours_here(zone, start, end)})"
            f" move to {end:02d}:00{there}"
        )
    reminder = getattr(game, "reminder_hours", 0) or 0
    parts.append(f"reminder {hours_length(reminder)} before" if reminder else "no reminder")
    away = getattr(game, "away_days", 0) or 0
    if away:  # games.services.away
        parts.append(
            f"a deadline waits for a player who is away, up to {away} day{'s' if away != 1 else ''}"
            " a player in all"
        )
    return "; ".join(parts) + "."


def decision_words(message: str) -> str:
    """A service's message as the web pages say it: "Prompt 1 is not open any more",
    "already reminded for prompt 1" -> "Decision 1 ...", "... for decision 1". The
    services' messages are the API's too, where "prompt" is the contract's word."""
    return _PROMPT_WORD.sub(lambda m: ("D" if m.group(1) == "P" else "d") + "ecision" + m.group(2), message)


_PROMPT_WORD = re.compile(r"\b([Pp])rompt(s?)\b")


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_PLACE_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                "ninth", "tenth")


def ranking_words(ranking: Any) -> str:
    """A final ranking (groups, best first) as a sentence says it: "bob wins; ann and cat
    tie for second", "ann, bob and cat tie for first; dan is fourth" (a tied group shares
    its place, the next one skips as many)."""
    parts, place = [], 1
    for group in ranking or []:
        names = [str(n) for n in group] if isinstance(group, list | tuple) else [str(group)]
        if not names:
            continue
        where = _PLACE_WORDS[place - 1] if place <= len(_PLACE_WORDS) else ordinal(place)
        if len(names) > 1:
            parts.append(f"{and_list(names)} tie for {where}")
        elif place == 1:
            parts.append(f"{names[0]} wins")
        else:
            parts.append(f"{names[0]} is {where}")
        place += len(names)
    return "; ".join(parts)


def place_of(ranking: Any, name: Any) -> str:
    """Where seat ``name`` finished in ``ranking`` (groups, best first): ``2nd of 5``,
    ``tied 2nd of 5``; "" when it is not ranked."""
    place, size = 1, sum(len(group) for group in ranking or [])
    for group in ranking or []:
        if name in group:
            return f"{'tied ' if len(group) > 1 else ''}{ordinal(place)} of {size}"
        place += len(group)
    return ""


def away_end_words(until: datetime, zone: Any) -> str:
    """The moment a player's absence ends (the start of the day after their last day away,
    in their time zone ``zone``) as the day they typed, written as the site writes a day:
    "the end of Sat 5 Dec 2026 (Europe/Paris time)" ("until Sun 6 Dec 2026, 00:00 UTC"
    named the day after, in UTC, to a newcomer in Paris)."""
    # The moment before, then on the clock (not the clock's minus a moment: where the
    # clocks jump from 00:00 to 01:00 the day's end reads 01:00, the next day).
    last = (until - timedelta(microseconds=1)).astimezone(zone).date()
    name = getattr(zone, "key", None) or str(zone)
    return f"the end of {last:%a} {last.day} {last:%b %Y} ({name} time)"


def local_time(value: datetime, style: str = "") -> str:
    """A moment as pages, emails and messages write it, in the active time zone (set for
    the reader by ``_send_to_seat``, ``_notice``, the email gateway and the player's
    pages): ``Wed 25 Nov 2026, 18:00 CET`` (``short``: no year; ``seconds``: with seconds;
    ``day``: no weekday, ``25 Nov 2026 18:00 CET``; ``date``: the date alone, ``25 Nov
    2026``). The zone's name comes from the zone itself, right in the hour a clock goes
    back (Django's ``T`` writes none there)."""
    local = timezone.localtime(value)
    if style == "date":
        return f"{local.day} {local:%b %Y}"
    zone = local.tzname() or local.strftime("%z")
    clock = f"{local:%H:%M:%S}" if style == "seconds" else f"{local:%H:%M}"
    if style == "day":
        return f"{local.day} {local:%b %Y} {clock} {zone}"
    year = "" if style == "short" else f" {local.year}"
    return f"{local:%a} {local.day} {local:%b}{year}, {clock} {zone}"
