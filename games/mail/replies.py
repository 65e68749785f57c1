"""Answers to inbound mail: plain text built from the seat's own view only, queued
through the outbox with Reply-To the seat's private address and threading headers.

Secrecy: every text here is built from what the seat may know (its legal orders, its own
order and receipt, ``games.selectors.seat_view``); a refusal carries the engine's reason,
which never names another seat's order.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.mail.addresses import redact_address, shown_address
from games.mail.headers import thread_ids
from games.mail.parsing import REPLY_MARKER, ParsedMail
from games.presentation import and_list, event_text, order_reading, prompt_stage
from games.rules_text import FORCED_NOTES

logger = logging.getLogger("games.mail")

REPLY_KIND = "mail_reply"
MAX_IGNORED_SHOWN = 10  # lines of an ignored sign-off quoted back
FOOTER = (
    "Reply to this message to send an order: one order in the body, nothing else needed.\n"
    "Commands, alone on a line: HELP (the legal orders now), STATUS (your view of the "
    "game), SHOW (your current order and its receipt), QUIET (only the emails that ask "
    "for your order), ALL (an email after every prompt)."
)


def replies_per_hour() -> int:
    """Answers one seat may receive per hour (``MAIL_REPLIES_PER_HOUR``): stops loops."""
    return int(getattr(settings, "MAIL_REPLIES_PER_HOUR", 20))


def _when(value: datetime | None) -> str:
    """A moment in the reader's time zone (the gateway answers in the seat player's)."""
    if value is None:
        return "none"
    from games.presentation import local_time

    return local_time(value)


def _game_line(seat: Any) -> str:
    game = seat.game
    return f"Game: {game.title} (#{game.pk}), your seat: {seat.name}"


def legal_orders_text(seat: Any, *, say_order: bool = True) -> str:
    """The legal orders of the seat now, or why there are none."""
    from games.email_text import email_legal_lines
    from games.selectors import current_order, current_prompt, legal_orders

    orders = legal_orders(seat=seat)
    if not orders:
        return "You are not asked for an order right now."
    # Which prompt, by when, and whether an order is already in: a reply needs no other mail.
    prompt = current_prompt(game=seat.game)
    context = []
    if prompt is not None:
        stage = prompt_stage(ruleset=seat.game.ruleset, round_number=prompt.round,
                             phase=prompt.phase)  # fmt: skip
        sealed = current_order(seat=seat)
        context.append(
            f"Prompt {prompt.number} ({stage})"
            + (f", deadline {_when(prompt.deadline)}" if prompt.deadline else "")
            + ((f"; your order so far: {_one_line(sealed.text)}." if sealed is not None
                else "; no order from you yet.") if say_order else ".")  # fmt: skip
        )
    listed = email_legal_lines(seat.game.ruleset, orders, None, seat.name)
    lines = [*context, "Legal orders now:", *(f"    {line}" for line in listed)]
    return "\n".join(lines)


def accepted_text(seat: Any, sealed: Any, *, fresh: bool = True) -> str:
    """Confirmation of an accepted order: as understood, its receipt and the deadline;
    with ``fresh`` (the message stored it, not a resend of the current order) the order
    it replaced, if any."""
    from games.selectors import current_prompt, legal_orders

    prompt = sealed.prompt
    game = seat.game
    stage = prompt_stage(ruleset=game.ruleset, round_number=prompt.round, phase=prompt.phase)
    lines = [
        f"Order received for prompt {prompt.number} ({stage}):",
        "",
        *[f"    {line}" for line in sealed.text.strip().splitlines()],
        "",
    ]
    # As the game page's receipt says it: the legal order the text is, when it was written
    # otherwise (lower case, "#" notes), else how the engine read it.
    now = current_prompt(game=game)
    legal = legal_orders(seat=seat) if now is not None and now.pk == prompt.pk else []
    reading = order_reading(text=sealed.text, legal_orders=legal, parsed=sealed.parsed,
                            ruleset=game.ruleset)  # fmt: skip
    if reading:
        # A reading of several lines (6x5's "CHANGE 2" then its action) stays one block.
        first, *rest = reading.splitlines() or [reading]
        lines += [f"Understood as: {first}", *(f"               {line}" for line in rest)]
    lines += [
        f"Receipt (SHA-256 commitment): {sealed.commitment}",
        f"Submitted: {_when(sealed.submitted_at)}",
        f"Deadline: {_when(prompt.deadline)}",
    ]
    from games.models import SealedOrder
    from games.services.deadlines import enforce_due_at

    closes = enforce_due_at(game=seat.game, prompt=prompt)
    if closes is not None and closes != prompt.deadline:
        lines.append(f"Orders are taken until {_when(closes)} (the grace period).")
    earlier = (
        SealedOrder.objects.filter(replaced_by=sealed).only("text").first() if fresh else None
    )
    if earlier is not None:
        lines.append(f"It replaces your earlier order: {_one_line(earlier.text)}")
    from games.models import Prompt

    now = Prompt.objects.filter(pk=prompt.pk).values("status", "ready_at", "resolve_after").first()
    if now and (now["status"] != Prompt.Status.OPEN or now["ready_at"] is not None):
        # Complete: no deadline to wait for (the promise of a replacement would be empty).
        delayed = seat.game.early_resolution_delay_seconds > 0
        if now["status"] != Prompt.Status.OPEN:
            last = "The prompt has resolved, with this order."
        elif delayed and now["resolve_after"] is not None:
            last = (f"Every order is in: the prompt resolves at {_when(now['resolve_after'])}; "
                    "until then you may still replace it.")  # fmt: skip
        else:
            last = "Every order is in: the prompt resolves now, with this order."
    else:
        last = "Until the deadline you may replace it by sending another order; the last one counts."
    lines += ["", last]
    return "\n".join(lines)


def standing_order_text(seat: Any) -> str:
    """What a refusal leaves in force: the seat's current order for the open prompt, or
    that it has none yet (empty when the seat is not asked now)."""
    from games.selectors import current_order, current_prompt

    prompt = current_prompt(game=seat.game)
    if prompt is None or seat.name not in (prompt.pending or []):
        return ""
    order = current_order(seat=seat)
    if order is None:
        return f"You have no order for prompt {prompt.number} yet."
    return (
        f"Your order for prompt {prompt.number} stays as it was: "
        f"{_one_line(order.text)} (receipt {order.commitment[:16]}...)."
    )


def _one_line(text: str) -> str:
    """An order (one or more lines) quoted on one line."""
    return " / ".join(text.strip().splitlines())


one_line_order = _one_line


def signoff_note(*, ignored: str, paragraph: bool = True, command: bool = False) -> str:
    """Said with an order read from a message's first paragraph (or, with ``paragraph``
    false, its first line) only; with ``command``, beside a command and no order."""
    shown = [f"    {line}" for line in ignored.splitlines()[:MAX_IGNORED_SHOWN] if line.strip()]
    if command:
        head = ["The rest of your message was taken for a sign-off, not an order, and ignored:"]
    elif paragraph:
        head = [
            "Only the first paragraph was read as your order; what followed the blank line",
            "was taken for a sign-off and ignored:",
        ]
    else:
        head = [
            "Only the first line was read as your order; the lines after it were taken for",
            "a sign-off and ignored:",
        ]
    return "\n".join([*head, "", *shown])


def lead_in_note(*, ignored: str) -> str:
    """Said with an order read below a greeting or a lead-in ("Changed my mind:")."""
    shown = [f"    {line}" for line in ignored.splitlines()[:MAX_IGNORED_SHOWN] if line.strip()]
    head = "The lines above your order were taken for a greeting, not an order, and ignored:"
    return "\n".join([head, "", *shown])


def refused_text(seat: Any, exc: Any) -> str:
    """A refused order: the exact reason, what still stands, and what is allowed now."""
    parts = [f"Your order was NOT accepted: {exc.message}"]
    standing = standing_order_text(seat)
    if standing:
        parts.append(standing)
    if getattr(exc, "code", "") == "deadline_passed":
        return "\n\n".join(parts)  # nothing to send any more for that prompt
    # The order in force was just said (standing): not twice ("You have no order for
    # prompt 1 yet." then "...; no order from you yet.").
    legal = legal_orders_text(seat, say_order=not standing)
    if not ("not asked for an order" in exc.message and legal.startswith("You are not asked")):
        parts.append(legal)
    return "\n\n".join(parts)


LINES_SHOWN = 8


def lines_read_text(text: str) -> str:
    """The lines of a refused message that were read as its order, when there are
    several ("" otherwise): what to remove (or mark as a note with "#") to send one."""
    from engine.base import order_lines

    lines = order_lines(text or "")  # as the engine counts them
    if len(lines) < 2:
        return ""
    shown = [f"  | {_one_line(ln)[:120]}" for ln in lines[:LINES_SHOWN]]
    if len(lines) > LINES_SHOWN:
        shown.append(f"  | ... ({len(lines) - LINES_SHOWN} more)")
    return (
        f"These {len(lines)} lines of your message were read as the order (quoted text and "
        "signatures are left out when they are recognised):\n" + "\n".join(shown) + "\n"
        "Send the order alone at the top of the message; start other lines with # to keep "
        "them as notes."
    )


def _sender_words(sender: str | None) -> str:
    """How an answer names the sender of a message: a plain address as written, others
    reduced (``shown_address``); None: a From: line with several addresses or not in the
    usual form, which is never taken for the player's own."""
    if sender is None:
        return "an unclear sender (its From: line names several addresses, or one not in the usual form)"
    return shown_address(sender) or "an unknown sender"


def foreign_sender_text(*, sender: str | None) -> str:
    """To the seat holder: an accepted message came from another address than theirs."""
    return (
        f"Note: this message came from {_sender_words(sender)}, which is not your "
        "account address. If that was not you, someone has your seat's private address: "
        "use New private address on the game's page (the old one stops working at once)."
    )


def empty_text(seat: Any) -> str:
    """An answer to a message with no order and no command."""
    return (
        "Your message did not contain an order or a command (quoted text and signatures "
        f"are ignored).\n\n{legal_orders_text(seat)}"
    )


def order_in_subject_text(seat: Any, order: str) -> str:
    """An answer to a message with an empty body whose Subject reads as an order."""
    return (
        f"Your message had no order in its body, but its subject reads as one "
        f"({_one_line(order)[:120]}). Orders are read from the body only, so nothing was "
        "stored: write the order in the body, not the subject, and send it again.\n\n"
        f"{legal_orders_text(seat)}"
    )


def garbled_text(seat: Any) -> str:
    """An answer to a message whose body could not be read as text."""
    return (
        "Your message could not be read as text (unknown encoding or binary data). "
        "Please send the order as plain text in the body of the message.\n\n"
        f"{legal_orders_text(seat)}"
    )


def attachment_only_text(seat: Any) -> str:
    """An answer to a message that has attachments but no text."""
    return (
        "Your message had attachments but no text. Attachments are not read: write the "
        f"order in the body of the message.\n\n{legal_orders_text(seat)}"
    )


def too_large_text(*, size: int, limit: int) -> str:
    """An answer to an oversize message (it was not read)."""
    return (
        f"Your message was {size:,} bytes, more than the {limit:,} bytes this address "
        "accepts, so it was not read. Send the order as plain text, without attachments "
        "and without quoting long messages."
    )


def too_many_parts_text(*, limit: int) -> str:
    """An answer to a message of too many MIME parts (it was not read)."""
    return (
        f"Your message has more than {limit:,} parts (attachments, inline images, "
        "alternatives), more than this address reads, so it was not read. Send the order "
        "as plain text, without attachments."
    )


def finished_text(game: Any, *, details: bool = False) -> str:
    """An answer to a message for a game that is over; ``details`` (no command asked for
    more): its final ranking and where to read the rest (an order sent after the end got
    the one line)."""
    from games.services.notifications import game_url

    head = (
        "This game is over: orders are no longer accepted."
        if str(game.status) == "finished"
        else "This game was ended early: orders are no longer accepted."
    )
    if not details:
        return head
    ranking = final_ranking_lines(game) if str(game.status) == "finished" else []
    tail = f"The game's page: {game_url(game)} (or send STATUS)."
    return "\n\n".join([head, *(["\n".join(ranking)] if ranking else []), tail])


def final_ranking_lines(game: Any) -> list[str]:
    """A finished game's ranking as its last turn email gives it ("1. ann", "2. bob, cy":
    tied seats share a place); empty without one."""
    from games.templatetags.games_extras import placed

    lines = []
    for place, group in placed(game.ranking or []):
        names = group if isinstance(group, list | tuple) else [group]
        lines.append(f"{place}. {', '.join(str(n) for n in names)}")
    return ["Final ranking:", *lines] if lines else []


def game_over_text(seat: Any, command: str) -> str:
    """A command's answer once the game is over. Finished: every order has been revealed
    by the rules, so STATUS gives the final ranking, the seat's last view and the log.
    Abandoned, or won by walkover: the last prompt's sealed orders were never revealed and
    stay sealed, so no command shows a view or an order, only the game's page."""
    from games.services.notifications import game_url

    game = seat.game
    url = game_url(game)
    if str(game.status) != "finished":
        return (
            f"{command}: the game was ended early, without a ranking; orders sealed and not "
            f"revealed stay sealed. The game's page: {url}"
        )
    if game.end_reason:  # a walkover: over before its rules ended it
        return (
            f"{command}: the game is over ({game.end_reason}); orders sealed for the prompt "
            f"that was open stay sealed. The game's page: {url}"
        )
    log = f"{url}log/"
    if command == "STATUS":
        ranking = final_ranking_lines(game)
        parts = [status_text(seat), "\n".join(ranking)] if ranking else [status_text(seat)]
        return "\n\n".join([*parts, f"The game's page: {url}\nIts log, every order revealed: {log}"])
    if command == "HELP":
        return (
            "HELP: no orders are asked any more. STATUS gives the final ranking; every "
            f"order of the game is in its log: {log}"
        )
    if command == "SHOW":
        return f"SHOW: no order is open any more. Every order of the game, yours too, is in its log: {log}"
    return f"{command}: the game is over; it sends no more emails."


def inactive_text(seat: Any) -> str:
    """An answer to a message for a seat that resigned or was handed over."""
    return f"Your seat is {seat.status}: orders from this address are no longer accepted."


def sender_mismatch_text(*, sender: str | None) -> str:
    """To the seat holder: a message for the seat came from another address."""
    return (
        f"A message for your seat came from {_sender_words(sender)}, which is not "
        "your account address, and this game only accepts orders sent from your account "
        "address. It was ignored. If it was you, send it again from your account address."
    )


def sender_unverified_text(*, sender: str, why: str) -> str:
    """To the seat holder: a message for the seat said it came from their address, but
    the receiving mail server could not confirm it."""
    return (
        f"A message for your seat said it came from {shown_address(sender)}, your account "
        "address, but "
        f"our mail server could not confirm that ({why}). This game only accepts orders "
        "that provably come from your account address, so it was ignored. If it was you, "
        "your email provider may not sign its mail: send your order on the game's page "
        "instead, or ask the organizer about it."
    )


def system_failure_text() -> str:
    """After the last retry: the message is kept, nothing was lost on the player's side."""
    return (
        "Your message could not be processed because of an internal error. It has been "
        "kept and an administrator can look at it. Please check your order with SHOW "
        "(or on the web page) and send it again if needed."
    )


def show_text(seat: Any) -> str:
    """SHOW: the seat's current order and its receipt."""
    from games.selectors import current_order

    order = current_order(seat=seat)
    if order is None:
        return "SHOW: you have no order for the current prompt."
    lines = ["SHOW: your current order:", ""]
    lines += [f"    {line}" for line in order.text.strip().splitlines()]
    lines += [
        "",
        f"Receipt (SHA-256 commitment): {order.commitment}",
        f"Submitted: {_when(order.submitted_at)} "
        f"({_source_words(order.source, seat.game.ruleset)})",
    ]
    return "\n".join(lines)


def _forced_words(ruleset: str) -> str:
    """STATUS: why the seat's order was entered for it."""
    note = FORCED_NOTES.get(ruleset)
    return f" (entered for you: {note})" if note else " (your only legal order, entered for you)"


def _source_words(source: str, ruleset: str) -> str:
    """How an order came in, for SHOW."""
    if source == "forced":
        return f"entered for you: {FORCED_NOTES.get(ruleset) or 'your only legal order'}"
    if source == "default":
        return "the default order"
    return f"by {source}"


def status_text(seat: Any) -> str:
    """STATUS: the seat's own view of the game (``seat_view``) as the turn emails show
    it, then the seats, the open prompt, the seat's order and the latest events."""
    from games.email_text import email_legal_lines, view_as_text
    from games.selectors import seat_view

    view = dict(seat_view(seat=seat))
    wrapper = {k: view.pop(k, None) for k in ("game", "seat", "prompt", "my_order", "legal_orders", "events")}
    view.pop("view", None)
    lines = ["STATUS: your view of the game", ""]
    if view:
        lines += [view_as_text(ruleset=seat.game.ruleset, view=view, seat_name=seat.name), ""]
    seats = (wrapper["game"] or {}).get("seats") or []
    names = [s["name"] + ("" if s["status"] == "active" else f" ({s['status']})") for s in seats]
    lines.append("Seats: " + (", ".join(names) or "none yet"))
    prompt = wrapper["prompt"]
    if prompt:
        deadline = prompt.get("deadline")
        when = _when(datetime.fromisoformat(deadline)) if deadline else "none"
        waiting = [p for p in prompt.get("pending") or [] if p not in (prompt.get("ready") or [])]
        # As the turn emails say it ("prompt 4 (turn 4)"), and "you" to the seat itself.
        stage = prompt_stage(ruleset=seat.game.ruleset, round_number=prompt["round"],
                             phase=prompt["phase"])
        waiting = ["you" if name == seat.name else name for name in waiting]
        lines.append(
            f"Prompt {prompt['number']} ({stage}), deadline {when}: "
            + (f"waiting for {and_list(waiting)}." if waiting else "every order is in.")
        )
        order = wrapper["my_order"]
        lines.append(
            f"Your order: {order['text']}"
            + (_forced_words(seat.game.ruleset) if order["source"] == "forced" else "")
            if order
            else "You have no order for it."
        )
    if wrapper["legal_orders"]:
        listed = email_legal_lines(seat.game.ruleset, wrapper["legal_orders"], view or None, seat.name)
        lines += ["Legal orders now:", *(f"    {line}" for line in listed)]
    # as the turn emails write them (4X Dice's dice "0/1", not the log's "[0, 1]")
    over = str(seat.game.status) == "finished"
    events = [event_text(ruleset=seat.game.ruleset, text=e["text"],
                         board=view.get("board") if over else None)
              for e in wrapper["events"] or [] if e.get("text")]
    if events:
        lines += ["Last prompt:", *(f"- {text}" for text in events)]
    return "\n".join(lines)


def command_text(seat: Any, command: str) -> str:
    """The answer to one command line."""
    if command == "HELP":
        return "HELP: " + legal_orders_text(seat)
    if command == "STATUS":
        return status_text(seat)
    if command == "QUIET":
        return (
            "QUIET: from now on you get only the emails that ask for your order in this game "
            "(and its start, its end, reminders and notices). Send ALL for an email after "
            "every prompt again."
        )
    if command == "ALL":
        return "ALL: from now on you get an email after every prompt of this game."
    return show_text(seat)


def _subject(parsed: ParsedMail, seat: Any) -> str:
    subject = (parsed.subject or "").strip()
    if not subject:
        return f"Re: {seat.game.title}"[:200]
    # Every reply or forward prefix goes ("Re: Re[2]: AW: Fwd: ..."), then one "Re:".
    prefix = re.compile(r"(re|aw|sv|antw|réf|fwd?|wg|tr)\s*(\[\d+\])?\s*:\s*", re.IGNORECASE)
    while prefix.match(subject):
        subject = prefix.sub("", subject, count=1)
    title = seat.game.title
    if subject and title.lower() not in subject.lower() and not re.search(r"\[[^\]]+\]", subject):
        # A message written from scratch ("PASS"): the answer names its game, as every
        # email of the game does (with two games going, "Re: PASS" said which?).
        subject = f"[{title}] {subject}"
    return f"Re: {subject or title}"[:200]


def _threading_headers(parsed: ParsedMail) -> dict[str, str]:
    headers = {"Auto-Submitted": "auto-replied", "X-Auto-Response-Suppress": "All"}
    if parsed.message_id:
        headers["In-Reply-To"] = parsed.message_id
        parent = parsed.message_id.strip()
        if not parent.startswith("<"):
            parent = f"<{parent}>"  # a bare id (some programs omit the brackets)
        headers["References"] = thread_ids(f"{parsed.references} {parent}")
    return headers


def answers_last_hour(seat: Any) -> int:
    """How many answers the seat got in the last hour."""
    from games.models import OutboxMessage

    since = timezone.now() - timedelta(hours=1)
    return OutboxMessage.objects.filter(seat=seat, kind=REPLY_KIND, created_at__gte=since).count()


def limit_notice() -> str:
    return (
        f"This is the last answer you get for an hour: FiveX answers at most "
        f"{replies_per_hour()} messages an hour per seat (so that two machines cannot "
        "answer each other forever). Orders you send meanwhile are still taken, but not "
        "confirmed by email: the game's page shows your order and its receipt."
    )


def reply_recipient(seat: Any, parsed: ParsedMail) -> str:
    """Answers go to the seat holder's account address (so a leaked token cannot act
    unseen); to the sender only when the account has no address."""
    user = getattr(seat, "user", None)
    return (getattr(user, "email", "") or "").strip() or parsed.sender


def send_reply(
    *,
    seat: Any,
    inbound: Any,
    parsed: ParsedMail,
    sections: list[str],
    key: str = "answer",
    prompt_number: int | None = None,
) -> Any:
    """Queue one answer (sections joined) unless the seat is over its hourly quota.
    Returns the OutboxMessage, or None when nothing was queued. Keyed by the inbound row,
    so a retried processing never answers twice. ``prompt_number``: the prompt the
    answer is about (its Message-ID names it, so a reply to it answers that prompt)."""
    from games.services.outbox import outbox_enqueue, prompt_message_id
    from games.services.seats import seat_reply_address

    if not seat.user.is_active:  # a deactivated account is sent nothing (give_up too)
        return None
    to = reply_recipient(seat, parsed)
    if not to:
        logger.warning("inbound #%s: no address to answer", inbound.pk)
        return None
    sent = answers_last_hour(seat)
    if sent >= replies_per_hour():
        logger.warning(
            "inbound #%s: answer to %s suppressed (over %s answers an hour for this seat)",
            inbound.pk,
            redact_address(to),
            replies_per_hour(),
        )
        return None
    game_over = str(seat.game.status) in ("finished", "abandoned")
    if sent == replies_per_hour() - 1 and not game_over:
        sections = [*sections, limit_notice()]  # the last one this hour says so
    # Nothing to reply with any more: neither the marker nor the footer.
    if game_over or str(seat.status) != "active":
        parts = [_game_line(seat), *sections]
    else:
        parts = [REPLY_MARKER, _game_line(seat), *sections, "-- ", FOOTER]
    body = "\n\n".join(parts) + "\n"
    headers = _threading_headers(parsed)
    if prompt_number is not None:
        headers["Message-ID"] = prompt_message_id(game_id=seat.game_id, prompt_number=prompt_number)
    return outbox_enqueue(
        to=to,
        subject=_subject(parsed, seat),
        body=body,
        seat=seat,
        kind=REPLY_KIND,
        reply_to=seat_reply_address(seat=seat),
        headers=headers,
        key=f"mail:{key}:{inbound.pk}",
    )
