"""The game emails: every email to a seat is built from the engine's per-seat view and
the events that seat may see (``engine.events_for``), and carries the seat's reply address
as Reply-To; queued in the outbox (``games.services.outbox``), which sends them
(``games.services.outbox_sending``). How an email writes the view and the legal orders is games.email_text; the emails of a seat
changing hands are games.services.handover_notices.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from engine.base import events_for
from fivex_site.links import public_url
from games.email_text import email_legal_lines, record_lines, view_as_text
from games.models import Game, Prompt, Seat
from games.order_presentation import entered_order_text
from games.presentation import (
    and_list,
    draft_note,
    event_text,
    prompt_stage,
    waiting_note,
    winner_words,
)
from games.rules_text import FORCED_NOTES, PHASE_HINTS
from games.selectors import current_state, engine_view
from games.selectors_players import time_zone_of
from games.selectors_talk import talk_since
from games.services.audit import log_tail
from games.services.outbox import (
    game_thread_id,
    outbox_enqueue,
    outbox_enqueue_many,
    prompt_message_id,
)
from games.services.seats import seat_reply_address

logger = logging.getLogger(__name__)




def game_url(game: Game) -> str:
    """The game's page."""
    return public_url(f"/games/{game.pk}/")


def rules_url(ruleset: str) -> str:
    """The game's rules page (``games:rules``)."""
    return public_url(f"/games/rules/{ruleset}/")


def seats_for_mail(*, game: Game) -> list[Seat]:
    """The game's seats that are not replaced, with their users, in seating order (the
    recipients of the game's emails, before dropping users without an address)."""
    return list(
        Seat.objects.filter(game=game)
        .exclude(status=Seat.Status.REPLACED)
        .select_related("user", "user__player_settings")
        .order_by("position", "id")
    )


def mailable(user: Any) -> bool:
    """Whether ``user`` is sent game emails: an address, and an account not deactivated
    (a staff audit: a closed account was still sent every prompt, and answered them)."""
    return bool(user.email) and bool(user.is_active)


def _recipients(game: Game, seats: list[Seat] | None = None) -> list[Seat]:
    if seats is None:
        seats = seats_for_mail(game=game)
    return [s for s in seats if mailable(s.user)]


def wants_daily_summary(user: Any) -> bool:
    """Whether the player chose one summary a day (``games.services.summaries``) over
    the turn and result emails of every prompt. Reads ``user.player_settings`` (select it
    with the user to spare a query)."""
    from games.models import PlayerSettings

    try:
        return user.player_settings.turn_emails == PlayerSettings.TurnEmails.DAILY
    except (PlayerSettings.DoesNotExist, AttributeError):
        return False


def seat_event_lines(*, game: Game, events: list, seat_name: str, board: Any = None) -> list[str]:
    """The lines "What happened" lists in a seat's email: the events the seat may see
    (``engine.events_for``: never another seat's hand or sealed order), as pages write
    them (``event_text``; ``board``: the final board, for the game's end in 6x5)."""
    return [
        event_text(ruleset=game.ruleset, text=e.get("text", ""), board=board)
        for e in events_for(events, seat_name)
    ]


def started_words(game: Game, *, seating: list[str] | None = None) -> str:
    """How the emails say a game started, with its seating (the seats' names by position;
    read when not given)."""
    if seating is None:
        seating = list(Seat.objects.filter(game=game).order_by("position").values_list("name", flat=True))
    return "The game has started. Seating: " + ", ".join(seating)


def _seat_context(*, game: Game, seat: Seat, state: dict, prompt: Prompt | None) -> dict[str, Any]:
    from games.services.game_options import ruleset_get

    rules = ruleset_get(game.ruleset)
    pending = prompt is not None and seat.name in prompt.pending
    forced = list(prompt.forced or []) if prompt is not None else []
    asked = pending and seat.name not in forced
    view = engine_view(game=game, state=state, seat_name=seat.name)  # face up once over
    return {
        "game": game,
        "seat": seat,
        "prompt": prompt,
        "view_text": view_as_text(ruleset=game.ruleset, view=view, seat_name=seat.name),
        # Why a seat that plays this round is not asked yet (5X's explorers, Erik).
        "waiting_note": (
            waiting_note(ruleset=game.ruleset, view=view, seat_name=seat.name)
            if prompt is not None and not pending and seat.status == Seat.Status.ACTIVE
            else ""
        ),
        "pending": asked and seat.status == Seat.Status.ACTIVE,
        # Its only legal order (or one no choice changes), entered for it when the prompt
        # opened, and why when it is not the only one.
        "forced_order": (
            rules.forced_order(state, seat.name) if pending and not asked else None
        ),
        "forced_note": FORCED_NOTES.get(game.ruleset, ""),
        "waiting_for": (
            [name for name in prompt.pending if name not in forced] if prompt else []
        ),
        "legal_orders": (
            email_legal_lines(game.ruleset, rules.legal_orders(state, seat.name), view, seat.name)
            if asked
            else []
        ),
        "reply_address": seat_reply_address(seat=seat),
        "url": game_url(game),
        # What the prompt asks, and where the rules are: an email player never sees the
        # game page's explanations.
        "stage": prompt_stage(ruleset=game.ruleset, round_number=prompt.round, phase=prompt.phase)
        if prompt is not None
        else "",
        # 5X's draft says it with the seat's neighbours, in place of the general hint, as
        # the game page does (both said the same thing twice).
        "phase_hint": (
            draft_note(ruleset=game.ruleset, view=view, seat_name=seat.name)
            or PHASE_HINTS.get((game.ruleset, prompt.phase), "")
        ) if asked else "",  # fmt: skip
        "rules_url": rules_url(game.ruleset),
    }


def _send_to_seat(
    *,
    game: Game,
    seat: Seat,
    template: str,
    subject: str,
    context: dict,
    kind: str,
    key: str,
    batch: list[dict[str, Any]] | None = None,
    prompt_number: int | None = None,
) -> None:
    """Queue one email to the seat now, or add it to ``batch`` (``outbox_enqueue_many``).
    ``prompt_number``: the prompt the email asks about (its Message-ID names it)."""
    headers = {"X-FiveX-Game": str(game.pk), "References": game_thread_id(game_id=game.pk)}
    if prompt_number is not None:
        headers["Message-ID"] = prompt_message_id(game_id=game.pk, prompt_number=prompt_number)
    with timezone.override(time_zone_of(user=seat.user)):
        body = render_to_string(template, context)
    message = {
        "to": seat.user.email,
        "subject": subject,
        "body": body,
        "seat": seat,
        "game": game,
        "kind": kind,
        "reply_to": seat_reply_address(seat=seat),
        "headers": headers,
        "key": key,
    }
    if batch is None:
        outbox_enqueue(**message)
    else:
        batch.append(message)


def _title(game: Game) -> str:
    return game.title


def _log_head(game: Game, head: tuple[int, str] | None) -> tuple[int, str] | None:
    """``head`` (the log's newest entry, as the caller wrote it in this transaction), or
    the log's tail read now."""
    return head if head is not None else log_tail(game=game)


def notify_game_started(
    *, game: Game, state: dict, prompt: Prompt, head: tuple[int, str] | None = None
) -> None:
    """Tell every seat the game started: its own view and what it must do now; the
    footer names the seed commitment (as the game page shows it) and the log's newest
    entry (``head``, if the caller knows it: ``(seq, hash)``)."""
    batch: list[dict[str, Any]] = []
    record = record_lines(head=_log_head(game, head), seed_commitment=game.seed_commitment)
    headline = started_words(game)
    for seat in _recipients(game):
        if wants_daily_summary(seat.user):
            continue  # the day's summary says so (and asks for the order)
        context = _seat_context(game=game, seat=seat, state=state, prompt=prompt)
        context["events"] = []
        context["headline"] = headline
        context["record"] = record
        _send_to_seat(
            game=game,
            seat=seat,
            template="games/email/turn.txt",
            subject=f"[{_title(game)}] The game has started"
            + (f"; your order: {context['stage']}" if context["pending"] else ""),
            context=context,
            kind="game_started",
            key=f"started:{game.pk}:{seat.pk}",
            batch=batch,
            prompt_number=prompt.number,
        )
    outbox_enqueue_many(messages=batch)


def notify_prompt_resolved(
    *,
    game: Game,
    prompt: Prompt,
    events: list,
    state: dict,
    next_prompt: Prompt | None,
    seats: list[Seat] | None = None,
    entered: dict[str, tuple[str, str, str]] | None = None,
    head: tuple[int, str] | None = None,
    receipts: dict[str, str] | None = None,
) -> None:
    """Tell every seat what it may see of the resolution and what it must do next
    (queued in one batch and one sending task). ``seats``: ``seats_for_mail`` if the
    caller already read it in this transaction (spares a query). ``entered``: seat name
    -> (source, reason, text) of the orders of ``prompt`` the seats did not send
    themselves (default or forced); each seat is told about its own. ``head``: the log's
    newest entry ``(seq, hash)`` after the resolution's entries, written in this
    transaction (read here if not given); ``receipts``: seat name -> the commitment of
    its order of ``prompt``, just revealed. Each email's footer names the head and the
    seat's OWN receipts, never another seat's."""
    entered = entered or {}
    receipts = receipts or {}
    head = _log_head(game, head)
    # Who wrote at the table while the prompt was open; the resolution's read says
    # whether anyone did (``talked``), so a prompt nobody talked during costs no query.
    talk = talk_since(game=game, since=prompt.opened_at) if getattr(prompt, "talked", True) else []
    batch: list[dict[str, Any]] = []
    for seat in _recipients(game, seats):
        asked = (
            next_prompt is not None
            and seat.name in next_prompt.pending
            and seat.name not in next_prompt.forced
            and seat.status == Seat.Status.ACTIVE
        )
        if next_prompt is not None and not asked and not seat.email_every_prompt:
            continue  # this player only wants the emails that ask for an order
        if next_prompt is not None and seat.status == Seat.Status.RESIGNED:
            continue  # resigned: told when the game ends, not of every move after
        if next_prompt is not None and wants_daily_summary(seat.user):
            continue  # the day's summary tells it (the game's end is still emailed at once)
        context = _seat_context(game=game, seat=seat, state=state, prompt=next_prompt)
        seen = events
        own = [(prompt.number, receipts[seat.name])] if seat.name in receipts else []
        if not seat.email_every_prompt:  # what happened since this seat's last email
            earlier, asked_in = _events_since_last_email(game=game, seat=seat, prompt=prompt)
            seen = [*earlier, *events]
            own = [*_receipts_of(seat=seat, game=game, numbers=asked_in), *own]
            context["events_heading"] = "What happened since your last email"
        context["record"] = record_lines(head=head, receipts=own)
        # the game's end names the final board's hexes (6x5): this state is that board
        context["events"] = seat_event_lines(
            game=game, events=seen, seat_name=seat.name,
            board=state.get("board") if next_prompt is None else None,
        )  # fmt: skip
        context["entered"] = _entered_line(seat, entered.get(seat.name), game.ruleset)
        context["talk_line"] = _talk_line(game, talk, seat, prompt.number)
        context["ranking"] = game.ranking if next_prompt is None else None
        if next_prompt is None:
            # who won, in the subject, as a walkover's email says it (an inbox of many
            # games read "The game is over" and had to be opened)
            subject = f"[{_title(game)}] Game over: {winner_words(game.ranking)}"
            context["headline"] = "The game is over."
            # every hand and order of every prompt, now face up (games.views.review)
            context["review_url"] = public_url(f"/games/{game.pk}/review/")
        else:
            # The subject says whether to act, for an inbox of many games.
            if asked:
                subject = f"[{_title(game)}] Your order: {context['stage']}"
            else:
                # Where the game stands, in the words of "Your order: round 5, play" (it
                # said "Prompt 14 resolved": a second numbering, no round).
                stage = context["stage"]
                subject = f"[{_title(game)}] {stage[:1].upper()}{stage[1:]}: " + _waiting_words(
                    context["waiting_for"]
                )
            context["headline"] = f"Decision {prompt.number} ({prompt.phase}) is resolved."
        missed = entered.get(seat.name)
        if missed is not None and missed[1] == "deadline":
            subject += " (default order played for you)"
        _send_to_seat(
            game=game,
            seat=seat,
            template="games/email/turn.txt",
            subject=subject,
            context=context,
            kind="prompt_resolved",
            key=f"resolved:{game.pk}:{prompt.number}:{seat.pk}",
            batch=batch,
            prompt_number=None if next_prompt is None else next_prompt.number,
        )
    outbox_enqueue_many(messages=batch)


# The turn email quotes at most so many of the messages written at the table, each cut at
# so many characters (the rest is on the talk page).
TALK_IN_EMAIL = 5
TALK_EMAIL_CHARS = 300


def _talk_line(game: Game, talk: list[tuple[int, str, str]], seat: Seat, number: int) -> str:
    """What was written at the table while the prompt was open, by others than the
    seat's player: "Table talk while prompt 4 was open: 2 messages, from bob and cat:
    <url>", then the messages themselves, indented ("  bob: Hello"), the first
    ``TALK_IN_EMAIL`` of them, each cut at ``TALK_EMAIL_CHARS`` ("" when nothing). An
    email player reads the table without the page."""
    others = [(name, text) for author, name, text in talk if author != seat.user_id]
    if not others:
        return ""
    names = and_list(list(dict.fromkeys(name for name, _text in others)))
    count = f"{len(others)} message{'s' if len(others) != 1 else ''}"
    lines = [
        f"Table talk while decision {number} was open: {count}, from {names}: "
        f"{public_url(f'/games/{game.pk}/talk/')}"
    ]
    for name, text in others[:TALK_IN_EMAIL]:
        words = " ".join(text.split())  # one line each: its own line breaks as spaces
        if len(words) > TALK_EMAIL_CHARS:
            words = words[: TALK_EMAIL_CHARS - 1].rstrip() + "…"
        lines.append(f"  {name}: {words}")
    if len(others) > TALK_IN_EMAIL:
        lines.append(f"  … and {len(others) - TALK_IN_EMAIL} more on the talk page.")
    lines.append("To answer at the table, reply with TALK: and your words (not an order).")
    return "\n".join(lines)


def _waiting_words(names: list[str]) -> str:
    """Who the open prompt waits for, for a subject: "waiting for cat", "waiting for ann,
    bob and 3 others"."""
    if not names:
        return "nothing to order"
    shown = names[:2] if len(names) > 3 else names
    text = and_list(shown)
    if len(names) > len(shown):
        text = ", ".join(shown) + f" and {len(names) - len(shown)} others"
    return f"waiting for {text}"


def _entered_line(seat: Seat, order: tuple[str, str, str] | None, ruleset: str) -> str:
    """What a seat is told about its own order that it did not send (its text is its
    own: this goes in its email only)."""
    if order is None:
        return ""
    source, reason, text = order
    if not reason and seat.status == Seat.Status.RESIGNED:
        reason = "resigned"
    return entered_order_text(source=source, reason=reason, text=text, ruleset=ruleset)


def _events_since_last_email(*, game: Game, seat: Seat, prompt: Prompt) -> tuple[list, list[int]]:
    """For a seat emailed only when asked: the events of the prompts resolved before
    ``prompt`` since the seat's last email, i.e. since the latest earlier prompt that asked
    it (that prompt included: its own move; a prompt whose only legal order was entered
    for it did not ask it), and the numbers of those prompts the seat had an order in
    (its receipts not emailed yet). Empty when the seat was asked at ``prompt`` itself.
    At most the last 100 prompts are looked at."""
    if seat.name in (prompt.pending or []) and seat.name not in (prompt.forced or []):
        return [], []
    earlier = list(
        Prompt.objects.filter(game=game, number__lt=prompt.number, status=Prompt.Status.RESOLVED)
        .order_by("-number")
        .values_list("number", "pending", "forced", "events")[:100]
    )
    out: list = []
    numbers: list[int] = []
    for number, pending, forced, events in earlier:  # newest first
        out[:0] = list(events or [])
        if seat.name in (pending or []):
            numbers.insert(0, number)
        if seat.name in (pending or []) and seat.name not in (forced or []):
            break
    return out, numbers


def _receipts_of(*, seat: Seat, game: Game, numbers: list[int]) -> list[tuple[int, str]]:
    """The seat's own receipts (commitments of its current orders) of the resolved
    prompts ``numbers``, by prompt number: revealed already, never another seat's."""
    if not numbers:
        return []
    from games.models import SealedOrder

    return list(
        SealedOrder.objects.filter(
            prompt__game=game,
            prompt__number__in=numbers,
            prompt__status=Prompt.Status.RESOLVED,
            seat_name=seat.name,
            is_current=True,
        )
        .order_by("prompt__number")
        .values_list("prompt__number", "commitment")
    )


def notify_reminder(
    *,
    game: Game,
    prompt: Prompt,
    seat: Seat,
    by_organizer: bool = False,
    orders_in: tuple[int, int] | None = None,
    by: str = "the organizer",
) -> None:
    """Remind one seat that its order is still missing (``by_organizer``: the organizer
    asked for it now, or ``by`` as ``organizer_common.who_acted`` says who did; once per prompt
    and seat, apart from the automatic one).
    ``orders_in``: how many of the orders the prompt wants are in, said to the player
    (public: the game page shows who has ordered)."""
    from games.services.game_options import ruleset_get
    from games.services.orders import prompt_state

    if not mailable(seat.user):
        return
    state = prompt_state(prompt=prompt)
    context = _seat_context(game=game, seat=seat, state=state, prompt=prompt)
    context["by_organizer"] = by_organizer
    context["asked_by"] = by[:1].upper() + by[1:]
    # Which order the deadline would play (an email player learnt it afterwards: in 6x5 a
    # real tile placed, which could complete another seat's goal). The seat's own.
    try:
        context["default_order"] = ruleset_get(game.ruleset).default_order(state, seat.name)
    except Exception:  # noqa: BLE001 - the reminder goes out without it
        context["default_order"] = ""
    context["orders_in"] = orders_in
    # The log's newest entry, as the other emails name it (no receipts: none revealed).
    context["record"] = record_lines(head=log_tail(game=game))
    # The subject names no administrator (the body does): a subject stays short.
    asker = "the organizer" if by == "the organizer" else "a site administrator"
    who = f"Reminder from {asker}" if by_organizer else "Reminder"
    # The automatic one once per deadline: an extended or resumed deadline gets its own.
    deadline = "" if by_organizer or prompt.deadline is None else f":{prompt.deadline:%Y%m%d%H%M%S}"
    _send_to_seat(
        game=game,
        seat=seat,
        template="games/email/reminder.txt",
        subject=f"[{_title(game)}] {who}: your order for {context['stage']} (decision {prompt.number})",
        context=context,
        kind="reminder",
        key=f"{'nudge' if by_organizer else 'reminder'}:{game.pk}:{prompt.number}:{seat.pk}{deadline}",
        prompt_number=prompt.number,
    )


def _notice(
    *, game: Game, seat: Seat, subject: str, text: str | Callable[[], str], key: str, reply: bool,
    state: dict | None = None, record: list[str] | None = None,
) -> None:
    """One short notice (games/email/notice.txt) to a seat's player; ``reply``: with the
    seat's reply address. ``text`` may be a function, called in the reader's time zone
    (for a text that names a moment: ``local_time``). ``state``: the game's last state,
    shown as the seat sees it (a game that is over: every hand face up). ``record``: the
    footer lines (``record_lines``)."""
    view_text = ""
    if state:
        view = engine_view(game=game, state=state, seat_name=seat.name)
        view_text = view_as_text(ruleset=game.ruleset, view=view, seat_name=seat.name)
    with timezone.override(time_zone_of(user=seat.user)):
        if callable(text):
            text = text()
        body = render_to_string(
            "games/email/notice.txt",
            {"game": game, "seat": seat, "text": text, "url": game_url(game), "view_text": view_text,
             "record": record or []},
        )
    outbox_enqueue(
        to=seat.user.email,
        subject=f"[{_title(game)}] {subject}",
        body=body,
        seat=seat,
        game=game,
        kind="notice",
        reply_to=seat_reply_address(seat=seat) if reply else None,
        headers={"X-FiveX-Game": str(game.pk)},
        key=key,
    )


def notify_game_notice(
    *,
    game: Game,
    subject: str,
    text: str | Callable[[], str],
    key: str,
    exclude: list[int] | None = None,
    final_table: bool = False,
    head: tuple[int, str] | None = None,
    by: Any = None,
    organizer_note: str = "",
) -> None:
    """A short notice to every seat (paused, resumed, deadline moved, game ended, a seat
    handed over), but the seats whose ids are in ``exclude``. ``final_table``: with the
    table as the game ended (a walkover, the organizer's end), every hand face up, as the
    end of a game played out shows it. ``head``: the log entry that ended the game
    ``(seq, hash)``, named in the footer (the final head of the log; without it the
    log's newest entry is). ``by``: who did it;
    a site administrator's action is emailed to the game's organizer too when they hold
    no seat (a seated one has the seat's notice), with ``organizer_note`` after the text."""
    if by is not None and getattr(by, "pk", None) != game.organizer_id:
        from games.services.handover_notices import notify_organizer

        notify_organizer(game=game, subject=subject, text=text, note=organizer_note, key=key)
    state = current_state(game=game) if final_table else None
    # The entry that ended the game, else the log's newest (a pause, a resumption, a seat
    # handed over: the caller logged it in this transaction). No receipts: none revealed.
    record = record_lines(head=_log_head(game, head))
    for seat in _recipients(game):
        if exclude and seat.pk in exclude:
            continue
        _notice(game=game, seat=seat, subject=subject, text=text, key=f"{key}:{seat.pk}",
                reply=True, state=state, record=record)  # fmt: skip
