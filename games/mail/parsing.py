"""Reading an inbound message: headers, the text body, quotes and signatures, commands.

Pure functions over bytes and ``email`` objects (no database): the stdlib ``email``
package with ``policy.default``, defensive everywhere because inbound mail is hostile or
broken more often than one would think (unknown charsets, bad base64, bytes that are no
email at all). Nothing here raises on bad input; the result says what was found.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, field
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses

import html2text

from games.notes import without_notes
from games.presentation import one_line

COMMANDS = ("HELP", "STATUS", "SHOW", "QUIET", "ALL")
"""Single-word lines answered by the gateway itself (case-insensitive)."""

REPLY_MARKER = "#### Write your order above this line ####"
"""Put in outgoing game emails: everything from a line containing "above this line" on is
ignored, so a reply that quotes the game report without '>' still parses."""

HEADER_LIMIT = 64 * 1024
"""At most this many bytes are read as the header section of an oversize message."""

_SIG_LINES = {"-- ", "--"}
# Invisible characters some mail programs and keyboards leave in text: zero-width
# spaces and joiners, word joiner, byte order mark, soft hyphen.
_END_PUNCT_RE = re.compile(r"[ \t]*[.!]+[ \t]*$")
_INVISIBLE_RE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_ORIGINAL_RE = re.compile(
    r"^\s*-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|"
    r"message d'origine|mensaje original|messaggio originale|mensagem original|"
    r"oorspronkelijk bericht|originalmeddelande|original meddelelse|"
    r"alkuperäinen viesti|wiadomość oryginalna|исходное сообщение)\s*-{2,}\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_END_RE = re.compile(
    r"(wrote|writes|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|"
    r"kirjoitti|napisał\(a\)|napisała|napisał|написал\(а\)|написала|написал|napsal|írta|"
    r"yazdı|έγραψε|写道|が書きました)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_VERB_RE = re.compile(
    r"\b(wrote|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|kirjoitti|"
    r"napisał|написал|napsal|írta|yazdı)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START_RE = re.compile(
    r"^\s*(on|le|am|el|il|em|no dia|op|den|på|dne|w dniu|в|el día)\b", re.IGNORECASE
)
_OUTLOOK_FROM_RE = re.compile(r"^\s*\**(from|de|von|da|van|från|od|от)\s*\**\s*:", re.IGNORECASE)
_OUTLOOK_NEXT_RE = re.compile(
    r"^\s*\**(sent|date|envoyé|gesendet|datum|enviado|inviato|verzonden|skickat|"
    r"wysłano|отправлено|to|à|an|para|a|aan|till|do|кому)\s*\**\s*:",
    re.IGNORECASE,
)
_MOBILE_RE = re.compile(
    r"^\s*(sent from my |sent from mail for |get outlook for |envoyé de mon |"
    r"von meinem .* gesendet|enviado desde mi |inviato da )",
    re.IGNORECASE,
)
_RULE_RE = re.compile(r"_{10,}|(\*\s*){3,}|-{3,}|={3,}")
_DKIM_RE = re.compile(r"\bdkim\s*=\s*([a-z]+)", re.IGNORECASE)


@dataclass
class ParsedMail:
    """What the gateway needs from one message."""

    message_id: str = ""
    sender: str = ""
    subject: str = ""
    references: str = ""
    in_reply_to: str = ""
    """The message this one answers (its Message-ID), as the sender's program wrote it."""
    auto_reason: str = ""
    dkim: str = ""
    auth_results: list[str] = field(default_factory=list)
    """Every Authentication-Results header, topmost first (``games.mail.authresults``)."""
    text: str = ""
    """The cleaned body: quotes, attribution lines and signatures removed."""
    has_text: bool = False
    has_attachments: bool = False
    garbled: bool = False
    commands: list[str] = field(default_factory=list)
    order_text: str = ""

    @property
    def is_auto(self) -> bool:
        """Whether the message is an auto-reply, bounce or list mail (never answered)."""
        return bool(self.auto_reason)


def parse_bytes(raw: bytes, *, headers_only: bool = False) -> EmailMessage:
    """Parse raw bytes with ``policy.default``; never raises on malformed input."""
    parser = BytesParser(_class=EmailMessage, policy=policy.default)
    return parser.parsebytes(raw, headersonly=headers_only)  # type: ignore[return-value]


def header_section(raw: bytes, limit: int = HEADER_LIMIT) -> bytes:
    """The header section of a raw message (up to the first blank line, at most
    ``limit`` bytes) without reading the rest."""
    head = raw[:limit]
    ends = [i + len(sep) for sep in (b"\r\n\r\n", b"\n\n") if (i := head.find(sep)) >= 0]
    return head[: min(ends)] if ends else head


def header_text(msg: Message, name: str) -> str:
    """A header's value as text ("" when absent); RFC 2047 words decoded when possible,
    never raising on a malformed header; control characters (NUL included) dropped."""
    for key, value in msg.raw_items():
        if key.lower() != name.lower():
            continue
        value = str(value)
        try:
            value = str(make_header(decode_header(value)))
        except Exception:  # noqa: BLE001 - a broken encoded-word keeps its raw form
            pass
        return one_line(value)
    return ""


def all_header_texts(msg: Message, name: str) -> list[str]:
    """Every value of a repeated header, raw (not decoded)."""
    return [one_line(str(v)) for k, v in msg.raw_items() if k.lower() == name.lower()]


def first_address(value: str) -> str:
    """The first addr-spec in an address header value ("" when none)."""
    try:
        for _name, addr in getaddresses([value]):
            if "@" in addr or addr:
                return addr.strip()
    except Exception:  # noqa: BLE001
        return ""
    return ""


def auto_reply_reason(msg: Message, envelope_sender: str | None = None) -> str:
    """Why a message must never be answered (auto-reply, bounce, list mail), or ""."""
    if envelope_sender is not None and envelope_sender.strip("<> ") == "":
        return "null return path (bounce)"
    return_path = header_text(msg, "Return-Path")
    if msg.get("Return-Path") is not None and return_path.strip("<> ") == "":
        return "null return path (bounce)"
    auto = header_text(msg, "Auto-Submitted").lower()
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto}"
    precedence = header_text(msg, "Precedence").lower()
    if precedence in {"bulk", "junk", "list", "auto_reply"}:
        return f"Precedence: {precedence}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Auto-Reply"):
        if msg.get(name) is not None:
            return name
    suppress = header_text(msg, "X-Auto-Response-Suppress").lower()
    if suppress and any(w in suppress for w in ("all", "oof", "autoreply")):
        return "X-Auto-Response-Suppress"
    if msg.get("List-Id") is not None or msg.get("List-Unsubscribe") is not None:
        return "mailing list"
    if msg.get_content_type() == "multipart/report":
        return "delivery report (multipart/report)"
    sender = (first_address(header_text(msg, "From")) or envelope_sender or "").lower()
    local = sender.rpartition("@")[0] if "@" in sender else sender
    if local in {"mailer-daemon", "postmaster", "mail-daemon"}:
        return f"{local} sender"
    return ""


def dkim_result(msg: Message) -> str:
    """The DKIM result of the topmost Authentication-Results header ("" when absent)."""
    for value in all_header_texts(msg, "Authentication-Results"):
        found = _DKIM_RE.search(value)
        if found:
            return found.group(1).lower()[:32]
    return ""


def _decode_part(part: Message) -> str:
    """A text part's text; NUL characters dropped (no database text column takes them)."""
    return _decode_part_raw(part).replace("\x00", "")


def _decode_part_raw(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if payload is None:
        raw = part.get_payload()
        return raw if isinstance(raw, str) else ""
    if not isinstance(payload, bytes):
        return str(payload)
    charset = part.get_content_charset() or "utf-8"
    try:
        codecs.lookup(charset)
    except (LookupError, ValueError):
        charset = "utf-8"
    for candidate in (charset, "utf-8"):
        try:
            return payload.decode(candidate)
        except (UnicodeDecodeError, LookupError):
            continue
    return payload.decode(charset, errors="replace")


def _is_attachment(part: Message) -> bool:
    disposition = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
    return disposition == "attachment" or (disposition != "inline" and bool(part.get_filename()))


def _walk(part: Message, found: dict[str, str | None], flags: dict[str, bool]) -> None:
    ctype = part.get_content_type()
    if part.is_multipart():
        if ctype.startswith("message/"):
            flags["attachments"] = True
            return
        for sub in part.iter_parts() if isinstance(part, EmailMessage) else part.get_payload():
            _walk(sub, found, flags)
        return
    if _is_attachment(part) or ctype.startswith("message/"):
        flags["attachments"] = True
        return
    if ctype == "text/plain" and found["plain"] is None:
        found["plain"] = _decode_part(part)
    elif ctype == "text/html" and found["html"] is None:
        found["html"] = _decode_part(part)
    elif not ctype.startswith("text/"):
        flags["attachments"] = True


def html_to_text(html: str) -> str:
    """HTML mail as plain text (blockquotes become '>' lines, dropped later as quotes)."""
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_links = True
    converter.ignore_images = True
    converter.ignore_emphasis = True
    try:
        text = converter.handle(html)
    except Exception:  # noqa: BLE001 - broken HTML: keep its text crudely
        return re.sub(r"<[^>]*>", " ", html)
    # Headings come out as "## text": an order typed in a heading is still an order, not
    # a "#" note line.
    return re.sub(r"(?m)^#{1,6} +", "", text)


def body_text(msg: Message) -> tuple[str | None, bool]:
    """The first text/plain part (else the first text/html part as text) and whether the
    message carries attachments. ``None`` when there is no text part at all."""
    found: dict[str, str | None] = {"plain": None, "html": None}
    flags = {"attachments": False}
    try:
        _walk(msg, found, flags)
    except Exception:  # noqa: BLE001 - a structure the email package chokes on
        found["plain"] = _decode_part(msg) if not msg.is_multipart() else None
    if found["plain"] is not None and found["plain"].strip():
        return found["plain"], flags["attachments"]
    if found["html"] is not None:
        return html_to_text(found["html"]), flags["attachments"]
    return found["plain"], flags["attachments"]


def looks_garbled(text: str) -> bool:
    """Whether decoded text is mostly not text (random bytes, a wrong charset)."""
    sample = text[:20000]
    if not sample.strip():
        return False
    bad = sum(
        1
        for c in sample
        if c == "\ufffd" or (unicodedata.category(c).startswith("C") and c not in "\r\n\t")
    )
    return bad / len(sample) > 0.1


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines the attribution starting at line ``i`` takes (0: none)."""
    line = lines[i].strip()
    if (
        len(line) < 300
        and _ATTRIBUTION_END_RE.search(line)
        and (_ATTRIBUTION_START_RE.match(line) or "@" in line or "<" in line)
    ):
        return 1
    # "Am <date> schrieb <name> <address>:" (German, Dutch, Scandinavian word order).
    if (
        len(line) < 300
        and line.endswith(":")
        and _ATTRIBUTION_START_RE.match(line)
        and _ATTRIBUTION_VERB_RE.search(line)
    ):
        return 1
    # Mail clients wrap a long "On <date>, <name> <address> wrote:" over two or three lines.
    if _ATTRIBUTION_START_RE.match(line):
        joined = line
        for extra, nxt in enumerate(lines[i + 1 : i + 3], start=2):
            joined += " " + nxt.strip()
            if _ATTRIBUTION_END_RE.search(joined):
                return extra
    return 0


def _is_outlook_header(lines: list[str], i: int) -> bool:
    if not _OUTLOOK_FROM_RE.match(lines[i]):
        return False
    return any(_OUTLOOK_NEXT_RE.match(nxt) for nxt in lines[i + 1 : i + 4])


def strip_reply(text: str) -> str:
    """The new part of a reply: stops at a signature ("-- "), an "Original Message"
    separator, an Outlook header block, the "above this line" marker, or an attribution
    line ("On … wrote:" and its translations) followed by unquoted text; drops '>' lines
    (with their attribution: the answer may be below them) and mobile signatures."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    skip_to = 0
    for i, line in enumerate(lines):
        if i < skip_to:
            continue
        stripped = line.strip()
        if line.rstrip("\n") in _SIG_LINES or stripped == "--":
            break
        if _ORIGINAL_RE.match(stripped) or "above this line" in stripped.lower():
            break
        # A rule (Outlook's "____", html2text's "* * *") right above a "From:" header block.
        if _RULE_RE.fullmatch(stripped) and any(
            _OUTLOOK_FROM_RE.match(n) for n in lines[i + 1 : i + 4]
        ):
            break
        span = _attribution_span(lines, i)
        if span:
            following = [n for n in lines[i + span :] if n.strip()]
            if following and following[0].lstrip().startswith(">"):
                # A '>' quote follows: drop the attribution and the quote, keep reading
                # (the answer may be below the quote: bottom posting, inline replies).
                skip_to = i + span
                continue
            break
        if _is_outlook_header(lines, i):
            break
        if stripped.startswith(">") or _MOBILE_RE.match(stripped):
            continue
        out.append(line.rstrip())
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def split_commands(text: str) -> tuple[list[str], str]:
    """Separate the gateway commands (``COMMANDS``, each alone on a line) from the
    order text. Returns (commands in order, without repeats; the remaining text)."""
    commands: list[str] = []
    rest: list[str] = []
    for line in text.split("\n"):
        word = " ".join(line.split()).upper()
        if word in COMMANDS:
            if word not in commands:
                commands.append(word)
        else:
            rest.append(line)
    return commands, "\n".join(rest).strip()


def parse_message(
    raw: bytes, *, envelope_sender: str | None = None, headers_only: bool = False
) -> ParsedMail:
    """Read everything the gateway needs from raw bytes; never raises on bad input.

    With ``headers_only`` (an oversize message) only the header section is read."""
    msg = parse_bytes(header_section(raw) if headers_only else raw, headers_only=headers_only)
    out = ParsedMail()
    out.message_id = header_text(msg, "Message-ID")[:998]
    out.sender = first_address(header_text(msg, "From"))[:320]
    out.subject = header_text(msg, "Subject")[:500]
    refs = header_text(msg, "References") or header_text(msg, "In-Reply-To")
    out.references = refs[:4000]
    out.in_reply_to = header_text(msg, "In-Reply-To")[:998]
    out.auto_reason = auto_reply_reason(msg, envelope_sender)
    out.dkim = dkim_result(msg)
    out.auth_results = all_header_texts(msg, "Authentication-Results")[:50]
    if headers_only:
        return out
    text, out.has_attachments = body_text(msg)
    out.has_text = text is not None and bool(text.strip())
    text = _INVISIBLE_RE.sub("", text or "")
    out.garbled = looks_garbled(text)
    if out.garbled:
        return out
    # Compatibility forms read as what they look like: full-width "ＰＬＡＹ" (some phone
    # keyboards), no-break spaces, ligatures.
    out.text = unicodedata.normalize("NFKC", strip_reply(text))
    out.commands, order_text = split_commands(out.text)
    # Sentence punctuation at a line's end ("Play Exploit." from a phone keyboard) is no
    # part of any order language.
    # "#" starts the player's note, at a line's start or after a space at its end: never
    # part of the sealed order (the turn emails say so), so never published with it.
    out.order_text = "\n".join(
        _END_PUNCT_RE.sub("", line) for line in without_notes(order_text).split("\n")
    ).strip()
    return out
