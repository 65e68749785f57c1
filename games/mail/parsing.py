"""Reading an inbound message: headers, the text body, quotes and signatures, commands.

Pure functions over bytes and ``email`` objects (no database): the stdlib ``email``
package with ``policy.default``, defensive everywhere because inbound mail is hostile or
broken more often than one would think (unknown charsets, bad base64, bytes that are no
email at all). Nothing here raises on bad input; the result says what was found.

:func:`parse_message` puts the pieces together into one :class:`ParsedMail`: the headers
(``games.mail.headers``), the body as text (``games.mail.body``), the reply without its
quotes and signature (``games.mail.quotes``), then the gateway's commands.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from email.message import Message

from games.mail.body import body_text, looks_garbled
from games.mail.headers import (
    all_header_texts,
    auto_reply_reason,
    dkim_result,
    header_section,
    header_text,
    parse_bytes,
    sender_address,
    thread_ids,
)
from games.mail.quotes import strip_pgp_clearsign, strip_reply
from games.mail.receipts import receipt_reason
from games.notes import INVISIBLE_RE
from games.notes import order_text as sealed_order_text

COMMANDS = ("HELP", "STATUS", "SHOW", "QUIET", "ALL", "BACK")
"""Single-word lines answered by the gateway itself (case-insensitive)."""

AWAY_RE = re.compile(r"AWAY:?(?: (?:UNTIL|TILL):?)? (\d{4}-\d{2}-\d{2})")
"""The one command with an argument: ``AWAY 2026-12-05``, the last day the player is away
(``games.services.away``); kept in the commands as ``AWAY <day>``. "AWAY: ..." and
"AWAY UNTIL ..." are the same command."""

_AWAY_ATTEMPT_RE = re.compile(r"AWAY:?(?: ((?:UNTIL|TILL)\b:?)?(.*))?")
"""A line that starts with AWAY and says no day as ``AWAY_RE`` reads it: "AWAY", "AWAY 5
DECEMBER", "AWAY UNTIL FRIDAY" (see :func:`_away_attempt`)."""

REPLY_MARKER = "#### Write your order above this line ####"
"""Put in outgoing game emails: everything from a line containing "above this line" on is
ignored, so a reply that quotes the game report without '>' still parses."""

_COMMAND_PUNCT_RE = re.compile(r"[ \t]*[.!?]+[ \t]*$")


@dataclass
class ParsedMail:
    """What the gateway needs from one message."""

    message_id: str = ""
    sender: str = ""
    subject: str = ""
    references: str = ""
    in_reply_to: str = ""
    """The message this one answers (its Message-ID), as the sender's program wrote it."""
    sender_ok: bool = False
    """Whether ``sender`` is the only mailbox of the only From: header, parsed without
    defects (else the sender check counts it as not matching, whatever it says)."""
    envelope_sender: str = ""
    """The envelope sender (SMTP ``MAIL FROM``) when the intake knows it, else "" (also
    for a null return path)."""
    auto_reason: str = ""
    receipt: bool = False
    """A receipt or recall sent as ordinary text (Outlook's "Read:", "Gelesen:", ...),
    known by its Subject and its whole text (``games.mail.receipts``): automatic too."""
    dkim: str = ""
    auth_results: list[str] = field(default_factory=list)
    """Every Authentication-Results header, topmost first (``games.mail.authresults``)."""
    text: str = ""
    """The cleaned body: quotes, attribution lines and signatures removed."""
    has_text: bool = False
    has_attachments: bool = False
    rich_text_only: bool = False
    """No text, and a ``winmail.dat`` (Outlook's rich text, TNEF) among the attachments:
    the player wrote a message, which their Outlook sent in a form only Outlook reads."""
    garbled: bool = False
    commands: list[str] = field(default_factory=list)
    order_text: str = ""
    talk_text: str | None = None
    """A message for the game's table talk (``TALK:`` first), or None: then nothing of
    the message is an order or a command."""
    talk_only_our_email: bool = False
    """``talk_text`` held nothing but an unquoted copy of one of our emails (cut off: the
    table never reads it), so nothing is left to post."""

    @property
    def is_auto(self) -> bool:
        """Whether the message is an auto-reply, bounce or list mail (never answered)."""
        return bool(self.auto_reason)


def _away_attempt(word: str) -> str | None:
    """``word`` (a line as ``split_commands`` reads it) as the AWAY command it tries to be,
    its day in another form or missing ("AWAY 5 DECEMBER", "AWAY"), or None: answered with
    the form the day takes (``command_texts.absence_text``) where "AWAY is not an order"
    was, and below an order the line was ignored as a sign-off. Only a line that can be
    nothing else: AWAY alone, or with UNTIL, or a few words holding a digit and not ending
    with a colon ("Away from home this week," and "Away soon" stay text)."""
    found = _AWAY_ATTEMPT_RE.fullmatch(word)
    if found is None:
        return None
    until, rest = found.group(1), (found.group(2) or "").strip(" :")
    if word.endswith((":", ",")) or len(rest.split()) > 4:
        return None
    if rest and not until and not re.search(r"\d", rest):
        return None
    return f"AWAY {rest}".strip()


TALK_RE = re.compile(r"(?:TALK[ \t]*:|(?i:talk)[ \t]*:|TALK(?=[ \t])|(?i:talk)[ \t]*(?=\n|$))[ \t]*")
"""A message for the table: its first line is ``TALK:`` (any case), ``TALK`` alone (the
message on the lines below) or ``TALK`` in capitals and the message ("TALK Hello all");
never "Talk soon" (a sign-off), nor "Talking ..."."""


def talk_message(text: str) -> str | None:
    """The table-talk message ``text`` holds (``TALK_RE`` first), or None."""
    found = TALK_RE.match(text.lstrip())
    return text.lstrip()[found.end() :].strip() if found else None


def is_absence_command(command: str) -> bool:
    """Whether ``command`` (one of ``ParsedMail.commands``) is AWAY or BACK: the player's
    own absence (every game of theirs), not the seat's."""
    return command in ("BACK", "AWAY") or command.startswith("AWAY ")


def split_commands(text: str) -> tuple[list[str], str]:
    """Separate the gateway commands (``COMMANDS``, each alone on a line) from the
    order text. Returns (commands in order, without repeats; the remaining text)."""
    commands: list[str] = []
    rest: list[str] = []
    for line in text.split("\n"):
        # "HELP." and "Help?" are commands: ending punctuation is no part of any.
        word = " ".join(_COMMAND_PUNCT_RE.sub("", line).split()).upper()
        upper = line.upper()
        if word not in COMMANDS and any(command in upper for command in (*COMMANDS, "AWAY")):
            # Else the line is read as an order's text is (``games.notes.order_text``):
            # "“STATUS”" and "„Help?“" are commands as "“PLAY EXPAND”" is an order. Only
            # a line holding a command's letters can read as one (``parse_message`` gives
            # NFKC text): that reading, some 10 µs a line, made a 1 MB message of short lines
            # take twice as long to read.
            word = _COMMAND_PUNCT_RE.sub("", sealed_order_text(_COMMAND_PUNCT_RE.sub("", line)))
            word = " ".join(word.split()).upper()
        away = AWAY_RE.fullmatch(word)
        if away:
            word = f"AWAY {away.group(1)}"
        else:
            attempt = _away_attempt(word)
            if attempt is not None:
                word, away = attempt, True
        if word in COMMANDS or away:
            if word not in commands:
                commands.append(word)
        else:
            rest.append(line)
    return commands, "\n".join(rest).strip()


def parse_message(
    raw: bytes, *, envelope_sender: str | None = None, headers_only: bool = False
) -> ParsedMail:
    """Read everything the gateway needs from raw bytes; never raises on bad input.

    With ``headers_only`` (an oversize message) only the header section is read. A
    message the parser cannot take apart (thousands of nested parts) has its headers
    read and its body counted as unreadable (``garbled``): a permanent problem, answered,
    never retried."""
    out = ParsedMail()
    try:
        msg = parse_bytes(header_section(raw) if headers_only else raw, headers_only=headers_only)
    except Exception:  # noqa: BLE001 - RecursionError and the like: the headers alone
        try:
            msg = parse_bytes(header_section(raw), headers_only=True)
        except Exception:  # noqa: BLE001
            msg = None
        if msg is not None:
            _read_headers(out, msg, envelope_sender)
        out.garbled = not headers_only
        return out
    _read_headers(out, msg, envelope_sender)
    if headers_only:
        return out
    try:
        _read_body(out, msg)
    except Exception:  # noqa: BLE001 - a body nothing can read is unreadable, not an error
        out.text, out.commands, out.order_text = "", [], ""
        out.garbled = True
    return out


def _read_headers(out: ParsedMail, msg: Message, envelope_sender: str | None) -> None:
    readers = {
        "message_id": lambda: header_text(msg, "Message-ID")[:998],
        "subject": lambda: header_text(msg, "Subject")[:500],
        "references": lambda: thread_ids(
            header_text(msg, "References") or header_text(msg, "In-Reply-To")
        ),
        "in_reply_to": lambda: header_text(msg, "In-Reply-To")[:998],
        "auto_reason": lambda: auto_reply_reason(msg, envelope_sender),
        "dkim": lambda: dkim_result(msg),
        "auth_results": lambda: all_header_texts(msg, "Authentication-Results")[:50],
    }
    out.envelope_sender = (envelope_sender or "").strip().strip("<>").strip()[:320]
    try:
        sender, out.sender_ok = sender_address(msg)
        out.sender = sender[:320]
    except Exception:  # noqa: BLE001 - no sender: never trusted
        out.sender, out.sender_ok = "", False
    for name, read in readers.items():
        try:
            setattr(out, name, read())
        except Exception:  # noqa: BLE001 - an unreadable header reads as absent
            continue


def _read_body(out: ParsedMail, msg: Message) -> None:
    text, out.has_attachments = body_text(msg)
    out.has_text = text is not None and bool(text.strip())
    if out.has_attachments and not out.has_text:
        out.rich_text_only = any(
            part.get_content_type() == "application/ms-tnef"
            or str(part.get_filename() or "").strip().lower() == "winmail.dat"
            for part in msg.walk()
        )
    text = INVISIBLE_RE.sub("", text or "")
    out.garbled = looks_garbled(text)
    if out.garbled:
        return
    # Compatibility forms read as what they look like: full-width "ＰＬＡＹ" (some phone
    # keyboards), no-break spaces, ligatures.
    # Normalized before the reply is cut: a full-width "：" (Chinese and Japanese mail
    # programs) ends an attribution line as ":" does. A clear-signed message is read as
    # the text it signs.
    text = unicodedata.normalize("NFKC", text)
    if not out.auto_reason:
        # Read on the whole text: its quoted "To:"/"Subject:" lines look like a quote.
        out.auto_reason = receipt_reason(out.subject, text)
        if out.auto_reason:
            out.receipt = True
            return
    out.text = strip_reply(strip_pgp_clearsign(text))
    out.talk_text = talk_message(out.text)
    if out.talk_text is not None:  # the whole message is for the table
        return
    out.commands, order_text = split_commands(out.text)
    # "#" starts the player's note, at a line's start or after a space at its end: never
    # part of the sealed order (the turn emails say so), so never published with it; nor
    # is sentence punctuation at a line's end ("Play Exploit." from a phone keyboard).
    out.order_text = sealed_order_text(order_text)
