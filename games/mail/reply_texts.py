"""The texts of answers to inbound mail about an order or a message: the legal orders
now, an order taken or refused, the sign-off and lead-in notes, a message that cannot be
read, is too large, or did not come from the seat holder's address, an internal error.

Secrecy: every text here is built from what the seat may know (its legal orders, its own
order and receipt, ``games.selectors.seat_view``); a refusal carries the engine's reason,
which never names another seat's order.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.mail.addresses import shown_address
from games.order_presentation import order_reading
from games.presentation import prompt_stage

MAX_IGNORED_SHOWN = 10  # lines of an ignored sign-off quoted back


def _when(value: datetime | None) -> str:
    """A moment in the reader's time zone (the gateway answers in the seat player's)."""
    if value is None:
        return "none"
    from games.presentation import local_time

    return local_time(value)


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
            f"Decision {prompt.number} ({stage})"
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
        f"Order received for decision {prompt.number} ({stage}):",
        "",
        *[f"    {line}" for line in sealed.text.strip().splitlines()],
        "",
    ]
    if getattr(sealed, "already_stored", False):  # as the web form and the API say it
        lines += [
            f"This order was sealed already for decision {prompt.number}; nothing new was stored.",
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
            last = "The decision has been resolved, with this order."
        elif delayed and now["resolve_after"] is not None:
            last = (f"Every order is in: the decision is resolved at {_when(now['resolve_after'])}; "
                    "until then you may still replace it.")  # fmt: skip
        else:
            last = "Every order is in: the decision is resolved now, with this order."
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
        return f"You have no order for decision {prompt.number} yet."
    return (
        f"Your order for decision {prompt.number} stays as it was: "
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


def command_like_note(seat: Any, text: str) -> str:
    """Said below a refused order whose one line reads as a command tried, not an order:
    "AWAY next week" or "Back on Monday" (AWAY and BACK with words the commands do not
    take: "AWAY is not an order" alone left the player away, as they thought), or one word
    a letter off a command ("SATUS"). "" otherwise."""
    import difflib

    from games.mail.parsing import COMMANDS
    from games.selectors import legal_orders

    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) != 1:
        return ""
    words = [w.strip(".,;:!?\"'") for w in lines[0].split()]
    first = words[0].upper() if words else ""
    if not first or first in {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}:
        return ""
    if first == "AWAY" and len(words) > 1:
        return (
            "AWAY is a command, not an order: write the last day you are away as "
            "year-month-day, AWAY 2026-12-05 (or AWAY UNTIL 2026-12-05), alone on a line. "
            "Nothing was changed."
        )
    if first == "BACK" and len(words) > 1:
        return "BACK is a command, not an order: send BACK alone on a line. Nothing was changed."
    close = difflib.get_close_matches(first, [*COMMANDS, "AWAY"], n=1, cutoff=0.75)
    if len(words) == 1 and close and first not in COMMANDS:
        return (
            f"Did you mean the command {close[0]}? Commands are words alone on a line: "
            "HELP, STATUS, SHOW, QUIET, ALL, AWAY 2026-12-05, BACK."
        )
    return ""


def lead_in_note(*, ignored: str) -> str:
    """Said with an order read below a greeting or a lead-in ("Changed my mind:")."""
    shown = [f"    {line}" for line in ignored.splitlines()[:MAX_IGNORED_SHOWN] if line.strip()]
    head = "The lines above your order were taken for a greeting, not an order, and ignored:"
    return "\n".join([head, "", *shown])


def refused_text(seat: Any, exc: Any, *, note: str = "") -> str:
    """A refused order: the exact reason (and ``note``, read with it), what still stands,
    and what is allowed now."""
    from games.presentation import decision_words, refusal_sentence

    # the services' reason in the players' word ("Decision 1 is not open any more"; the
    # API's is "prompt")
    reason = decision_words(exc.message)
    if getattr(exc, "code", "") == "order_refused":  # the engine's reason, as a sentence
        reason = refusal_sentence(exc.message, names=seat.game.seats.values_list("name", flat=True))
    parts = [f"Your order was NOT accepted: {reason}"]
    if note:
        parts.append(note)
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


def foreign_sender_text(*, sender: str | None, envelope: str = "") -> str:
    """To the seat holder: an accepted message came from another address than theirs
    (``envelope``: the envelope sender, named when the From: header has no address)."""
    if sender is not None and "@" not in sender:  # no address in From:
        if envelope:
            source = (
                f"came from {shown_address(envelope) or 'an unknown sender'} (the envelope "
                "sender: it had no From: address), which is not your account address"
            )
        else:
            source = (
                "named no sender (it had no From: address), so nothing says it came from "
                "your account address"
            )
    else:
        source = f"came from {_sender_words(sender)}, which is not your account address"
    return (
        f"Note: this message {source}. If that was not you, someone has your seat's "
        "private address: use New private address on the game's page (the old one stops "
        "working at once)."
    )


def same_refusal_notice(times: int) -> str:
    """The last answer of the day to the same refused message (an automatic responder
    that says so nowhere would otherwise be answered all day)."""
    return (
        f"This message was refused {times} times in 24 hours for the same reason: the same "
        "message again is not answered again until then (an automatic reply, say from an "
        "out-of-office responder, would otherwise be answered for as long as it runs). "
        "Orders and commands are still read and answered as usual."
    )


def forged_sender_text(*, sender: str) -> str:
    """To the seat holder: an accepted message named their own address in From:, but the
    site's receiving mail server found that address forged (a DMARC fail)."""
    return (
        f"Note: this message says it came from {_sender_words(sender)}, your address, but "
        "the mail server that received it found that forged (dmarc=fail: that domain's "
        "owner says it did not send it). If that was not you, someone has your seat's "
        "private address: use New private address on the game's page (the old one stops "
        "working at once)."
    )


def empty_text(seat: Any) -> str:
    """An answer to a message with no order and no command."""
    return (
        "Your message did not contain an order or a command (quoted text, forwarded "
        "messages and signatures are ignored: write the order at the top, above "
        f"them).\n\n{legal_orders_text(seat)}"
    )


def order_in_subject_text(seat: Any, order: str) -> str:
    """An answer to a message with an empty body whose Subject reads as an order."""
    return (
        f"Your message had no order in its body, but its subject reads as one "
        f"({_one_line(order)[:120]}). Orders are read from the body only, so nothing was "
        "stored: write the order in the body, not the subject, and send it again.\n\n"
        f"{legal_orders_text(seat)}"
    )


def command_in_subject_text(seat: Any, command: str) -> str:
    """An answer to a message with an empty body whose Subject is a command."""
    return (
        f"Your message had nothing in its body, but its subject reads as the command "
        f"{command}. Commands are read from the body only: write it in the body, alone on "
        f"a line, and send it again.\n\n{legal_orders_text(seat)}"
    )


def order_in_subject_note(order: str) -> str:
    """Said under the refusal of a body when the message's Subject reads as an order."""
    return (
        f"Your message's subject reads as an order ({_one_line(order)[:120]}), but orders "
        "are read from the body only, never from the subject: write the order in the body, "
        "at the top, and send it again. The body itself was refused:"
    )


def garbled_text(seat: Any) -> str:
    """An answer to a message whose body could not be read as text."""
    return (
        "Your message could not be read as text (unknown encoding or binary data). "
        "Please send the order as plain text in the body of the message.\n\n"
        f"{legal_orders_text(seat)}"
    )


def attachments_note() -> str:
    """Said above a refusal when the message had attachments (an order may be in one)."""
    return (
        "Your message has attachments. Attachments are not read, a forwarded message "
        "attached to yours neither: write the order in the message itself."
    )


def attachment_only_text(seat: Any, *, rich_text: bool = False) -> str:
    """An answer to a message that has attachments but no text; ``rich_text``: its only
    content is Outlook's rich text (``winmail.dat``), which the player never attached."""
    if rich_text:
        return (
            "Your message arrived without text: your mail program (Outlook) sent it in its "
            "own rich text format, as an attachment named winmail.dat, which only Outlook "
            "reads. Send it again as HTML or plain text (in Outlook: Format Text, then HTML "
            f"or Plain Text), with the order in the body.\n\n{legal_orders_text(seat)}"
        )
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


def inactive_text(seat: Any) -> str:
    """An answer to a message for a seat that resigned or was handed over."""
    return f"Your seat is {seat.status}: orders from this address are no longer accepted."


def sender_mismatch_text(*, sender: str | None) -> str:
    """To the seat holder: a message for the seat came from another address."""
    if sender is not None and "@" not in sender:
        return (
            "A message for your seat had no From: address, and this game only accepts "
            "orders whose From: line is your account address. It was ignored. If it was "
            "you, send it again with your account address in From: (a mail program writes "
            "it; a script must set it)."
        )
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


def repeat_text(*, arrived: datetime | None) -> str:
    """To the seat holder: a message without a Message-ID arrived again, byte for byte,
    and was not read again (``games.mail.repeats.answer_repeat``)."""
    return (
        f"This exact message arrived before, at {_when(arrived)}, and was handled then; "
        "it is never read twice, so this copy changed nothing. It has no Message-ID "
        "header, so it is known by its bytes alone: to send the same order or command "
        "again, change something (a word of the subject will do), or give every message "
        "a Message-ID, as mail programs do."
    )


def system_failure_text() -> str:
    """After the last retry: the message is kept, nothing was lost on the player's side."""
    return (
        "Your message could not be processed because of an internal error. It has been "
        "kept and an administrator can look at it. Please check your order with SHOW "
        "(or on the web page) and send it again if needed."
    )
