"""Answers to inbound mail: queued through the outbox with Reply-To the seat's private
address and threading headers, at most ``MAIL_REPLIES_PER_HOUR`` an hour per seat.

The texts are built from the seat's own view only, in ``games.mail.reply_texts`` (an
order taken or refused, a message that cannot be read) and ``games.mail.command_texts``
(the commands, a game that is over).
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.mail.addresses import redact_address
from games.mail.headers import REPLY_PREFIX_RE, thread_ids
from games.mail.parsing import REPLY_MARKER, ParsedMail

logger = logging.getLogger("games.mail")


REPLY_KIND = "mail_reply"

FOOTER = (
    "Reply to this message to send an order: one order in the body, nothing else needed.\n"
    "Commands, alone on a line: HELP (the legal orders now), STATUS (your view of the "
    "game), SHOW (your current order and its receipt), QUIET (only the emails that ask "
    "for your order), ALL (an email after every prompt), AWAY YYYY-MM-DD (away until that "
    "day), BACK. A message starting TALK: is written at the game's table talk instead."
)


def replies_per_hour() -> int:
    """Answers one seat may receive per hour (``MAIL_REPLIES_PER_HOUR``): stops loops."""
    return int(getattr(settings, "MAIL_REPLIES_PER_HOUR", 20))


def _game_line(seat: Any) -> str:
    game = seat.game
    return f"Game: {game.title} (#{game.pk}), your seat: {seat.name}"


def _subject(parsed: ParsedMail, seat: Any) -> str:
    subject = (parsed.subject or "").strip()
    if not subject:
        return f"Re: {seat.game.title}"[:200]
    # Every reply or forward prefix goes ("Re: Re[2]: AW: Fwd: ..."), then one "Re:".
    while REPLY_PREFIX_RE.match(subject):
        subject = REPLY_PREFIX_RE.sub("", subject, count=1)
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
