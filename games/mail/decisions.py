"""What a stored inbound message says for its seat, and the answer: the sender checks,
the message's problems (too large, garbled, attachments only, empty), the order
submitted through ``games.services.orders.order_submit``, the commands answered.

``games.mail.processing`` calls :func:`_decide_for_seat` inside the row's transaction and
records the :class:`Outcome`; how the text around an order is read (lead-ins, sign-offs,
corrections) is in ``games.mail.heuristics``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from games.mail import authresults, command_texts, replies, reply_texts
from games.mail.heuristics import (
    _before_our_email,
    _command_in_subject,
    _cut,
    _is_signoff,
    _order_below_a_line,
    _order_in_subject,
    _other_order_named,
    in_order_language,
    lead_in,
    one_word_per_line,
    signed_off_head,
    split_signoff,
    talk_before_our_email,
)
from games.mail.limits import max_bytes, max_parts
from games.mail.models import InboundMail
from games.mail.parsing import ParsedMail, is_absence_command

if TYPE_CHECKING:
    from games.models import Seat

Status = InboundMail.Status

SAME_REFUSAL_ANSWERS_PER_DAY = 3
"""How many times in 24 hours one seat is answered the same text refused for the same
reason: an automatic responder that marks its mail in no way answers every email of ours,
and each of its messages is refused alike; beyond this they are not answered."""


@dataclass
class Outcome:
    """How processing ended: the row's new status, a machine code and a note."""

    status: str
    code: str
    error: str = ""
    sections: list[str] = field(default_factory=list)


def authserv_ids() -> list[str]:
    """The authserv-ids of the site's own receiving mail servers (``MAIL_AUTHSERV_ID``,
    comma-separated): their Authentication-Results headers are trusted."""
    value = getattr(settings, "MAIL_AUTHSERV_ID", "") or ""
    return [part.strip() for part in value.split(",") if part.strip()]


def sender_matches(*, seat: Seat, sender: str) -> bool:
    """Whether ``sender`` is the seat holder's account address (or one of its verified
    allauth addresses), compared case-insensitively."""
    sender = (sender or "").strip().lower()
    user = getattr(seat, "user", None)
    if not sender or user is None:
        return False
    if (user.email or "").strip().lower() == sender:
        return True
    try:
        from allauth.account.models import EmailAddress
    except Exception:  # noqa: BLE001 - allauth not installed
        return False
    return EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()


def _decide_for_seat(row: InboundMail, parsed: ParsedMail, seat: Seat) -> Outcome:
    parsed.order_text = _before_our_email(parsed.order_text, seat.game, seat)
    if parsed.talk_text:  # the table reads it: never a pasted copy of the seat's email
        parsed.talk_text = talk_before_our_email(parsed.talk_text, seat.game)
        parsed.talk_only_our_email = not parsed.talk_text
    outcome = _answer(seat, row, parsed)
    if outcome.sections and outcome.status == Status.REJECTED:
        alike = _same_refusals_today(seat, row, outcome, parsed)
        if alike >= SAME_REFUSAL_ANSWERS_PER_DAY:
            note = f"not answered (the same refusal {alike + 1} times in 24 hours)"
            outcome.error = f"{outcome.error}; {note}" if outcome.error else note
            return outcome
        if alike == SAME_REFUSAL_ANSWERS_PER_DAY - 1:
            outcome.sections.append(reply_texts.same_refusal_notice(alike + 1))
    if outcome.sections:
        from games.selectors import current_prompt

        # An answer that asks again (a refusal, HELP) names the prompt open now, so an
        # order sent in reply to it answers that prompt; a confirmation names none (a
        # player often replies to the newest email, which may be the confirmation of the
        # order that closed the prompt, to order for the next one).
        number = None
        if outcome.code not in ("order_accepted", "deadline_passed"):
            prompt = current_prompt(game=seat.game)
            if prompt is not None and seat.name in (prompt.pending or []):
                number = prompt.number
        sent = replies.send_reply(
            seat=seat, inbound=row, parsed=parsed, sections=outcome.sections, prompt_number=number
        )
        if sent is None:  # recorded on the row: the player was not told
            note = "not answered (hourly answer limit)"
            outcome.error = f"{outcome.error}; {note}" if outcome.error else note
    return outcome


def _same_refusals_today(seat: Seat, row: InboundMail, outcome: Outcome, parsed: ParsedMail) -> int:
    """How many messages to the seat saying what ``parsed`` says (its text as read) were
    refused and answered alike (same code, same reason) in the last 24 hours, ``row``
    aside. A row left unanswered has its reason followed by "; not answered ..." and so
    is not counted. Only the few most recent rows refused alike are read again."""
    from datetime import timedelta

    from django.utils import timezone

    from games.mail.parsing import parse_message

    candidates = (
        InboundMail.objects.filter(
            seat_id=seat.pk,
            status=Status.REJECTED,
            outcome=outcome.code[:32],
            error=outcome.error[:4000],
            truncated=False,
            processed_at__gte=timezone.now() - timedelta(hours=24),
        )
        .exclude(pk=row.pk)
        .order_by("-pk")
        .values_list("raw", flat=True)[:SAME_REFUSAL_ANSWERS_PER_DAY]
    )
    return sum(1 for raw in candidates if parse_message(bytes(raw)).text == parsed.text)


def _answer(seat: Seat, row: InboundMail, parsed: ParsedMail) -> Outcome:
    game = seat.game
    rejected = Status.REJECTED
    # A From: with several mailboxes, or one parsed with defects, matches nobody.
    sender_ok = parsed.sender_ok and sender_matches(seat=seat, sender=parsed.sender)
    # The sender as the answers name it (None: no single address in the usual form; no
    # "@": From: names no address at all).
    named = parsed.sender if parsed.sender_ok or "@" not in parsed.sender else None
    if getattr(game, "require_sender_match", False) and not sender_ok:
        # The envelope sender never stands in for a missing From: here: From: is what
        # these games check (and what the receiving server's DMARC verdict is about).
        text = reply_texts.sender_mismatch_text(sender=named)
        return Outcome(rejected, "sender_mismatch", "sender is not the seat's address", [text])
    trusted = authserv_ids()
    if getattr(game, "require_sender_match", False) and trusted:
        verified, why = authresults.verdict(parsed.auth_results, parsed.sender, trusted)
        if not verified:
            text = reply_texts.sender_unverified_text(sender=parsed.sender, why=why)
            return Outcome(rejected, "sender_unverified", why[:200], [text])
    if str(getattr(seat, "status", "active")) != "active" and parsed.talk_text is None:
        # (A resigned player still writes at the table, as on its page.)
        return Outcome(
            rejected, "seat_inactive", "seat is not active", [reply_texts.inactive_text(seat)]
        )
    if row.truncated and row.size <= max_bytes():
        text = reply_texts.too_many_parts_text(limit=max_parts())
        return Outcome(rejected, "too_large", "too many MIME parts", [text])
    if row.truncated:
        text = reply_texts.too_large_text(size=row.size, limit=max_bytes())
        return Outcome(rejected, "too_large", f"{row.size} bytes", [text])
    # The note to the seat holder: without an address in From: (a script's message),
    # the envelope sender (MAIL FROM) is the sender the message names. It is no easier to
    # forge than From:, which decides the note whenever it names an address.
    envelope = parsed.envelope_sender if "@" not in parsed.sender else ""
    foreign = not (sender_ok or (envelope and sender_matches(seat=seat, sender=envelope)))
    # The player's own address in From:, which our receiving server found forged.
    forged = bool(trusted) and sender_ok and authresults.dmarc_failed(
        parsed.auth_results, parsed.sender, trusted
    )
    if parsed.talk_text is not None:  # before the end and after it ("good game")
        return _talk(seat, parsed, row, foreign=foreign, forged=forged, named=named, envelope=envelope)
    if str(game.status) in ("finished", "abandoned"):
        return _game_over(seat, parsed, foreign=foreign or forged)
    if parsed.garbled:
        return Outcome(rejected, "garbled", "unreadable body", [reply_texts.garbled_text(seat)])
    if not parsed.has_text and parsed.has_attachments:
        text = reply_texts.attachment_only_text(seat, rich_text=parsed.rich_text_only)
        return Outcome(rejected, "attachment_only", "no text part", [text])
    if not parsed.commands and not parsed.order_text:
        in_subject = _order_in_subject(seat, parsed.subject)
        if in_subject is not None:
            # Never taken as the order (nothing is guessed): the player is told where to
            # write it.
            text = reply_texts.order_in_subject_text(seat, in_subject)
            return Outcome(rejected, "order_in_subject", "order in the subject only", [text])
        command = _command_in_subject(seat, parsed.subject)
        if command is not None:
            text = reply_texts.command_in_subject_text(seat, command)
            return Outcome(rejected, "command_in_subject", "command in the subject only", [text])
        return Outcome(rejected, "empty", "no order or command", [reply_texts.empty_text(seat)])
    outcome = Outcome(Status.PROCESSED, "commands")
    signoff = ""
    if parsed.commands and parsed.order_text and _is_signoff(parsed.order_text, seat):
        # "STATUS\n\nThanks,\nBob": the command is the message, the rest a sign-off.
        signoff, parsed.order_text = parsed.order_text, ""
    if parsed.order_text:
        from games.services.outbox import prompt_answered

        # A reply to the email of one prompt answers that prompt: if it has closed since,
        # the order is refused rather than put on the next one. Any other message answers
        # the prompt that was open when it arrived (it may be read later: a worker down,
        # a retry), never one opened after it.
        # Without In-Reply-To the parent is the last id of References (RFC 5322 3.6.4;
        # some programs write only that).
        parent = parsed.in_reply_to.strip() or (parsed.references.split() or [""])[-1]
        answered = prompt_answered(in_reply_to=parent, game_id=game.pk)
        if answered is None:
            answered = _prompt_open_at(game_id=game.pk, moment=row.created_at)
        outcome = _submit(seat, parsed.order_text, answered, row.created_at)
        if outcome.code == "order_refused" and outcome.sections:
            # "Ann" or "Thanks," below an order typed in the Subject: the refusal of those
            # words alone did not say where the order was.
            in_subject = _order_in_subject(seat, parsed.subject)
            if in_subject is not None:
                outcome.sections.insert(0, reply_texts.order_in_subject_note(in_subject))
            elif parsed.has_attachments:  # "See the attached": the order may be in one
                outcome.sections.insert(0, reply_texts.attachments_note())
    for command in parsed.commands:
        if is_absence_command(command):  # the player's, not the seat's
            text = command_texts.absence_text(seat, command, foreign=foreign or forged)
            outcome.sections.append(text)
            continue
        if command in ("QUIET", "ALL"):  # as the game page's "Email me" choice
            from games.services.seats import seat_email_every_prompt_set

            seat_email_every_prompt_set(seat=seat, every=command == "ALL")
        outcome.sections.append(command_texts.command_text(seat, command))
    if signoff:
        outcome.sections.append(reply_texts.signoff_note(ignored=signoff.strip(), command=True))
    if foreign and outcome.sections:  # whatever it did, the seat holder learns of it
        outcome.sections.append(reply_texts.foreign_sender_text(sender=named, envelope=envelope))
    elif outcome.sections and forged:
        # The note above would have been given to an honest stranger, so to this one too.
        outcome.sections.append(reply_texts.forged_sender_text(sender=parsed.sender))
    return outcome


def _talk(
    seat: Seat, parsed: ParsedMail, row: InboundMail, *, foreign: bool, forged: bool,
    named: str, envelope: str,
) -> Outcome:
    """``TALK: ...``: the message is written at the game's table as the seat's player,
    as on the talk page (its rules: who may write, the table open, length, caps); the
    answer says where, or why not. Delivered twice (the same Message-ID), written once."""
    from fivex_site.links import public_url
    from games.errors import ApplicationError
    from games.services.talk import message_post

    game = seat.game
    import hashlib

    # The id the message is stored under: another message reusing an earlier one's
    # Message-ID (a script's fixed id) has its own (``processing._reused_message_id``).
    mid = row.message_id or parsed.message_id or f"row-{row.pk}"
    key = f"email:{hashlib.sha256(mid.encode('utf-8', 'replace')).hexdigest()[:40]}"
    if parsed.talk_only_our_email:
        text = (
            "TALK: your message held only a copy of one of our emails (it starts with its "
            "first line), which shows what your seat alone may see: nothing was written at "
            "the table. Write your own words right after TALK:, above any copy."
        )
        return Outcome(Status.REJECTED, "talk_refused", "only a copy of our email", [text])
    try:
        message_post(game=game, user=seat.user, text=parsed.talk_text or "", client_key=key)
    except ApplicationError as exc:
        text = f"TALK: {exc.message} Nothing was written at the table."
        return Outcome(Status.REJECTED, "talk_refused", exc.message[:200], [text])
    sections = [
        "TALK: your message is at the table, where everyone who may watch the game reads it: "
        f"{public_url(f'/games/{game.pk}/talk/')}. The others' next turn email quotes it."
    ]
    if foreign:  # the seat holder learns that another address wrote in their name
        sections.append(reply_texts.foreign_sender_text(sender=named, envelope=envelope))
    elif forged:
        sections.append(reply_texts.forged_sender_text(sender=parsed.sender))
    return Outcome(Status.PROCESSED, "talk_posted", "", sections)  # fmt: skip


def _game_over(seat: Seat, parsed: ParsedMail, *, foreign: bool = False) -> Outcome:
    """A message for a finished or abandoned game: an order is refused; commands are
    answered from what may be known once the game is over (``command_texts.game_over_text``:
    a finished game's ranking and log, an abandoned game's page only)."""
    sections = [command_texts.finished_text(seat.game, details=not parsed.commands)]
    sections += [
        command_texts.absence_text(seat, command, foreign=foreign)
        if is_absence_command(command)
        else command_texts.game_over_text(seat, command)
        for command in parsed.commands
    ]
    order_text = parsed.order_text
    if parsed.commands and order_text and _is_signoff(order_text, seat):
        order_text = ""  # "STATUS\n\nThanks,\nAnn"
    if order_text or not parsed.commands:
        return Outcome(Status.REJECTED, "game_finished", "game is over", sections)
    return Outcome(Status.PROCESSED, "commands", "game is over", sections)


def _prompt_open_at(*, game_id: int, moment: datetime | None) -> int | None:
    """The number of the game's prompt that was open at ``moment`` (None before the
    first one, or without a moment)."""
    from games.models import Prompt

    if moment is None:
        return None
    prompt = (
        Prompt.objects.filter(game_id=game_id, opened_at__lte=moment)
        .order_by("-number")
        .only("number")
        .first()
    )
    return None if prompt is None else prompt.number


def _submit(
    seat: Seat, text: str, expected_prompt: int | None = None, arrived_at: Any = None
) -> Outcome:
    from games.errors import ApplicationError, OrderRefused

    try:
        sealed = _submit_text(seat, text, expected_prompt, arrived_at)
    except OrderRefused as exc:
        lead, rest = lead_in(seat, text)
        if lead:  # "Hi all,\nMy order:\nPLAY EXPAND": the order is what follows
            outcome = _submit(seat, rest, expected_prompt, arrived_at)
            if outcome.status == Status.PROCESSED:
                outcome.sections.insert(1, reply_texts.lead_in_note(ignored=lead))
            return outcome
        head = signed_off_head(seat, text)
        if head is None:
            below = _order_below_a_line(seat, text)
            if below is None:
                # "CHANGE" / "1" / "PLACE" / "BLUE" / "1,0" (6x5 with change_goal): no first
                # paragraph is read alone when a later line starts an order, so the words
                # a line are said here, where the rules' reason for the whole ("CHANGE
                # needs the number of a goal") named only its first line.
                # A sign-off on the lines below ("Thanks, Ann") is not among the words.
                words, signoff = split_signoff(text)
                return _spread_refused(seat, words, signoff) or _refused(seat, exc, text)
            # "ok then" above an order: still refused (a line above an order is read past
            # only as a lead-in: ending with ':' or ','), but saying why, where "not 2
            # orders" puzzled a player who wrote one.
            first, order = below
            shown = _cut(first)
            lead = first.rstrip(".!?;,: ") + ":"
            colon = f' "{lead}"' if len(lead) <= 40 else ""
            if "\n" in order:  # a 6x5 CHANGE, 4X Dice hits a line each: as they are
                again = "your order again without that line:\n\n" + "\n".join(
                    f"    {line.strip()}" for line in order.splitlines() if line.strip()
                ) + "\n\n"
            else:
                again = f"{_cut(order)} again without that line "
            return _refused(
                seat,
                OrderRefused(
                    f'the line above your order, "{shown}", is not part of it, so nothing '
                    f"was stored. Send {again}(or end that line with a colon,{colon} and it "
                    "is read past as a lead-in).",
                    code="order_refused",
                ),
                text,
            )
        ignored = text.strip()[len(head) :]
        named = _other_order_named(seat, head, ignored)
        if named is not None:
            # "PLAY EXPAND / (blank) / Sorry, I meant PLAY EXPLORE": no sign-off, a
            # correction. Nothing is guessed: refused, nothing changes.
            order, line = named
            part = "paragraph" if re.match(r"[ \t]*\n[ \t]*\n", ignored) else "line"
            return _refused(
                seat,
                OrderRefused(
                    f"your message is ambiguous: its first {part} is the order "
                    f"{reply_texts.one_line_order(head)}, but the text after it names the order "
                    f'{order} ("{line[:120]}"). Nothing was stored for this message; send '
                    "again with only the order you mean.",
                    code="order_ambiguous",
                ),
            )
        try:
            sealed = _submit_text(seat, head, expected_prompt, arrived_at)
        except ApplicationError as head_exc:
            # "ALLOCATE" / "EXPLORE" / "EXPAND": the lines after the head are its
            # words, not a sign-off; the head's own reason ("name 3 areas")
            # contradicted what the player wrote. So is a head of a word a line above a
            # sign-off ("PLACE" / "BLUE" / "1,0", a blank line, "Thanks,"): "the order
            # has 3 action lines". Never read as one line: the web and the API refuse
            # the same text (nothing is guessed).
            if "\n" not in head:
                spread = _spread_refused(seat, *split_signoff(text))
            else:
                spread = _spread_refused(seat, head, ignored)
            if spread is not None:
                return spread
            # The rest is a sign-off: the reason about the order itself says more
            # ("NAPOLEON is not in your hand") than about the line count. The lines read
            # are the head's; what was taken for the sign-off is said apart (it was not
            # read as the order).
            return _refused(seat, head_exc, head, signoff=ignored)
        paragraph = bool(re.match(r"[ \t]*\n[ \t]*\n", ignored))
        note = reply_texts.signoff_note(ignored=ignored.strip(), paragraph=paragraph)
        fresh = _fresh(sealed, arrived_at)
        sections = [reply_texts.accepted_text(seat, sealed, fresh=fresh), note]
        return Outcome(Status.PROCESSED, "order_accepted", "sign-off ignored", sections)
    except ApplicationError as exc:
        return _refused(seat, exc)
    text = reply_texts.accepted_text(seat, sealed, fresh=_fresh(sealed, arrived_at))
    return Outcome(Status.PROCESSED, "order_accepted", "", [text])


def _spread_refused(seat: Seat, words: str, signoff: str = "") -> Outcome | None:
    """The refusal of an order written one word per line (``words``: "ALLOCATE" /
    "EXPLORE" / "EXPAND", or 6x5's "PLACE" / "BLUE" / "1,0"), with ``words`` as the lines
    read and ``signoff`` (what followed them) said to be ignored: the order as one line to
    send, or why that line would be refused too. None
    when ``words`` is not that (``heuristics.one_word_per_line``). Never taken as the
    order: the web and the API refuse the same text (nothing is guessed)."""
    from games.errors import OrderRefused

    if not signoff:
        # "PLACE" / "BLUE" / "1,0" / "Ann" (or "Ann Smith"): the player's name below, no
        # parting word, no blank line. When the lines above it alone make a legal order,
        # the name is the sign-off ("write PLACE BLUE 1,0 HEXA" was the advice, and with a
        # full name "PLACE needs a colour"); a player called "Blue" keeps the whole reading.
        # So is a name of a few words that is not the account's ("Big Al"), when it is no
        # order of the game and makes none with the lines above.
        above, _, last = words.strip().rpartition("\n")
        if above and (_own_name(seat, last) or _names_someone(seat, words, last)):
            without = one_word_per_line(seat, above)
            if without is not None and not without[1]:
                return _spread_refused(seat, above, last.strip())
    spread = one_word_per_line(seat, words)
    if spread is None:
        return None
    joined, reason = spread
    lines = len(words.strip().split("\n"))
    after = f": {_cut(joined, 200)}" if not reason else (
        f" (as one line, {_cut(joined, 200)} would be refused too: {reason})"
    )
    return _refused(
        seat,
        OrderRefused(
            f"the words of your order are on {lines} lines, so nothing was stored; write "
            f"the order on one line{after}",
            code="order_refused",
        ),
        words,
        signoff=signoff,
    )


def _own_name(seat: Seat, line: str) -> bool:
    """Whether ``line`` is the seat's player signing: their user name, first or full name,
    or the seat's name, in any case, with a dash, a comma or a full stop around it ("Ann.")."""
    typed = " ".join(line.strip(" \t-\u2013\u2014,.!~").split()).casefold()
    user = seat.user
    names = {seat.name, user.get_username(), user.first_name, user.get_full_name()}
    return bool(typed) and typed in {" ".join(n.split()).casefold() for n in names if n}


#: A word of a name: letters, with an apostrophe, a hyphen or a full stop inside or after
#: them ("O'Neil", "Jean-Luc", "J.").
_NAME_WORD_RE = re.compile(r"[^\W\d_]+(?:['\u2019.-][^\W\d_]*)*")
#: The most words of a name signed on the last line below an order written a word a line.
NAME_WORDS = 3


def _names_someone(seat: Seat, words: str, last: str) -> bool:
    """Whether ``last``, the last line of ``words`` (an order written a word a line), is a
    name signed below it: two to ``NAME_WORDS`` words of letters ("Big Al", "J. R.
    Ewing"; one word alone may be a word of the order, "zork"), that the rules read
    neither as an order of the game nor, joined to the lines above, as part of one
    (``Ruleset.in_order_language``: 5X's TAKE / NAPOLEON / FROM bob keeps its last
    line). Whether the lines above make a legal order is the caller's to check."""
    typed = last.split()
    if not 2 <= len(typed) <= NAME_WORDS or not all(_NAME_WORD_RE.fullmatch(w) for w in typed):
        return False
    joined = " ".join(" ".join(line.split()) for line in words.strip().split("\n"))
    return not in_order_language(seat, last) and not in_order_language(seat, joined)


def _fresh(sealed: Any, arrived_at: Any) -> bool:
    """Whether this message stored the order (not a resend of the current one)."""
    if getattr(sealed, "already_stored", False):  # the same order again: nothing stored
        return False
    return arrived_at is None or sealed.submitted_at is None or sealed.submitted_at >= arrived_at


def _submit_text(
    seat: Seat, text: str, expected_prompt: int | None = None, arrived_at: Any = None
):
    from games.errors import DeadlinePassed
    from games.services.orders import order_submit, sweep_soon

    try:
        with transaction.atomic():
            return order_submit(
                seat=seat,
                text=text,
                source="email",
                expected_prompt=expected_prompt,
                arrived_at=arrived_at,
            )
    except DeadlinePassed:
        sweep_soon()  # this savepoint's rollback dropped the one order_submit asked for
        raise


def _refused(seat: Seat, exc, text: str = "", signoff: str = "") -> Outcome:
    """A refusal; with ``text`` (what was read as the order) the lines read are shown when
    there are several: a quote or signature the gateway did not recognise is then plain
    to see, where "not 3 orders" alone puzzles a player who wrote one. ``signoff``: what
    was taken for a sign-off below the order, said apart (it was not read as the order)."""
    # "AWAY next week": how the command is written, read right after the reason.
    note = reply_texts.command_like_note(seat, text) if text else ""
    sections = [reply_texts.refused_text(seat, exc, note=note)]
    read = reply_texts.lines_read_text(text)
    if read:
        sections.append(read)
    if signoff.strip():
        sections.append(reply_texts.signoff_note(ignored=signoff.strip(), command=True))
    return Outcome(Status.REJECTED, exc.code[:32], exc.message, sections)
