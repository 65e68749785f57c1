"""Reading an inbound message: headers, the text body, quotes and signatures, commands.

Pure functions over bytes and ``email`` objects (no database): the stdlib ``email``
package with ``policy.default``, defensive everywhere because inbound mail is hostile or
broken more often than one would think (unknown charsets, bad base64, bytes that are no
email at all). Nothing here raises on bad input; the result says what was found.
"""

from __future__ import annotations

import bisect
import codecs
import re
import unicodedata
from dataclasses import dataclass, field
from email import errors as email_errors
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import getaddresses
from typing import Any

import html2text

from games.notes import INVISIBLE_RE
from games.notes import order_text as sealed_order_text
from games.presentation import one_line

COMMANDS = ("HELP", "STATUS", "SHOW", "QUIET", "ALL")
"""Single-word lines answered by the gateway itself (case-insensitive)."""

REPLY_MARKER = "#### Write your order above this line ####"
"""Put in outgoing game emails: everything from a line containing "above this line" on is
ignored, so a reply that quotes the game report without '>' still parses."""

HEADER_LIMIT = 64 * 1024
"""At most this many bytes are read as the header section of an oversize message."""

PARSED_HEADER_LIMIT = 2000
"""At most this many characters of a structured header (Content-Type, From, ...) are
parsed: the stdlib's parse of a header with thousands of parameters is quadratic."""

HEADER_TEXT_LIMIT = 16 * 1024
"""At most this many characters of a header are decoded (``header_text``)."""

HTML_LIMIT = 512 * 1024
"""At most this many characters of an HTML part are converted to text (the order is at
the top of a reply; what follows is quoted history)."""

HTML_NESTING_LIMIT = 8
"""Deeper nesting of quotes and lists is flattened before the HTML is converted:
html2text repeats the prefix of every level on every line (quadratic output)."""

_SIG_LINES = {"-- ", "--"}
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_COMMAND_PUNCT_RE = re.compile(r"[ \t]*[.!?]+[ \t]*$")
_COMMENT_RE = re.compile(r"\([^()]*\)")
# Out-of-office subjects, Exchange's and Outlook's translations too (a responder that
# sets no header of its own is known by its subject alone).
_AUTO_SUBJECT_RE = re.compile(
    r"^\s*(out of (the )?office|automatic reply|auto-?reply|auto[- ]?response|"
    r"abwesenheitsnotiz|automatische antwort|réponse automatique|respuesta automática|"
    r"risposta automatica|resposta automática|automatisch antwoord|autosvar|"
    r"automaattinen vastaus|odpowiedź automatyczna|automatická odpověď|automatikus válasz|"
    r"otomatik yanıt|автоматический ответ|автоматична відповідь|自動応答|自动回复|自動回覆|"
    r"자동 회신)(?!\w)",
    re.IGNORECASE,
)
_HTML_NEST_RE = re.compile(r"<(/?)(blockquote|ul|ol|dl|dd)\b[^>]*>", re.IGNORECASE)
_PLACEHOLDER_RE = re.compile(
    r"(html (format|version|only|e-?mail|message)|in html\b|requires? (an )?html|"
    r"supports? html|view (this|it) in (a |your )?(web )?browser|"
    r"does not (support|display) html)",
    re.IGNORECASE,
)
_ORIGINAL_RE = re.compile(
    r"^\s*-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|"
    r"message d'origine|mensaje original|messaggio originale|mensagem original|"
    r"oorspronkelijk bericht|originalmeddelande|original meddelelse|"
    r"alkuperäinen viesti|wiadomość oryginalna|исходное сообщение)\s*-{2,}\s*$",
    re.IGNORECASE,
)
# Apple Mail's forward line (and its translations): the forwarded message follows.
_FORWARDED_RE = re.compile(
    r"^\s*(begin forwarded message|anfang der weitergeleiteten nachricht|"
    r"début du message réexpédié|inicio del mensaje reenviado|inizio messaggio inoltrato|"
    r"begin doorgestuurd bericht|videresendt melding|videresendt besked|"
    r"vidarebefordrat mejl|начало переадресованного сообщения)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_END_RE = re.compile(
    r"(wrote|writes|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|"
    r"kirjoitti|napisał\(a\)|napisała|napisał|написал\(а\)|написала|написал|napsal|írta|"
    r"yazdı|έγραψε|пишет|пише|写道|寫道|が書きました)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_VERB_RE = re.compile(
    r"\b(wrote|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|kirjoitti|"
    r"napisał|написал|пишет|napsal|írta|yazdı)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START_RE = re.compile(
    r"^\s*((on|le|am|el|il|em|no dia|op|den|på|dne|w dniu|в|el día)\b|在|於|于)", re.IGNORECASE
)
# Gmail's attribution in languages without a "wrote" (Russian, Japanese, ...): a date,
# the name and "<address>:". Taken for one only with a '>' quote below it.
# Any line naming "<address>" and ending in ":" above a '>' quote: the attributions of
# Gmail for Android ("Name <address> schrieb am Fr., 27. Nov. 2026, 09:00:"), mutt's
# ("* Name <address> [2026-11-27 09:00]:") and others with words of their own.
_ADDRESS_IN_RE = re.compile(r"<[^<>\s@]+@[^<>\s]+>")
_OUTLOOK_FROM_RE = re.compile(
    r"^\s*\**(from|de|von|da|van|från|fra|od|от|lähettäjä|差出人|发件人|寄件者|보낸 사람)"
    r"\s*\**\s*[:：]",
    re.IGNORECASE,
)
_OUTLOOK_NEXT_RE = re.compile(
    r"^\s*\**(sent|date|envoyé|gesendet|datum|dato|enviado|inviato|verzonden|skickat|sendt|"
    r"wysłano|отправлено|lähetetty|to|à|an|para|a|aan|till|til|do|кому|vastaanottaja|"
    r"subject|objet|betreff|asunto|oggetto|assunto|onderwerp|ämne|emne|temat|тема|aihe|"
    r"送信日時|宛先|件名|发送时间|发送日期|收件人|主题|寄件日期|收件者|主旨|보낸 날짜|받는 사람|제목)"
    r"\s*\**\s*[:：]",
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
    sender_ok: bool = False
    """Whether ``sender`` is the only mailbox of the only From: header, parsed without
    defects (else the sender check counts it as not matching, whatever it says)."""
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


def fix_surrogates(text: str) -> str:
    """``text`` without surrogates: the parser keeps raw 8-bit header bytes (RFC 6532
    UTF-8, or a Latin-1 client's bytes) as surrogate escapes, which no database column and
    no outgoing header takes. They are read as UTF-8, else as cp1252, else as Latin-1
    (which cannot fail)."""
    if not _SURROGATE_RE.search(text):
        return text
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        return _SURROGATE_RE.sub("\ufffd", text)
    for charset in ("utf-8", "cp1252"):
        try:
            return data.decode(charset)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def clean_text(text: str) -> str:
    """Text safe for a database column: no surrogates, no NUL."""
    return fix_surrogates(str(text or "")).replace("\x00", "")


class _SafePolicy(EmailPolicy):
    """``policy.default`` whose structured headers can neither crash nor stall the
    parse: 8-bit bytes are decoded (``fix_surrogates``), a value is cut at
    ``PARSED_HEADER_LIMIT`` characters, and one the stdlib cannot parse (a
    RecursionError on 2,000 nested comments) is kept as unstructured text."""

    def header_fetch_parse(self, name, value):  # noqa: ANN001, ANN201 - stdlib signature
        if hasattr(value, "name"):
            return value
        text = fix_surrogates("".join(str(value).splitlines()))
        if len(text) > PARSED_HEADER_LIMIT:
            text = text[:PARSED_HEADER_LIMIT]
            text = text[: text.rfind(";")] if ";" in text else text
        try:
            return self.header_factory(name, text)
        except Exception:  # noqa: BLE001 - unparseable: the value as plain text
            return UnparsedHeader(text)


class UnparsedHeader(str):
    """A header value the stdlib could not parse, kept as text: a part whose
    Content-Type is one cannot be read (``body_text`` says so)."""


class UnreadableMessage(Exception):
    """The message's structure cannot be read (a Content-Type nothing can parse)."""


SAFE_POLICY = _SafePolicy()


def parse_bytes(raw: bytes, *, headers_only: bool = False) -> EmailMessage:
    """Parse raw bytes with ``policy.default`` (made safe, ``_SafePolicy``). Malformed
    headers never raise; a structure the parser cannot take (thousands of nested parts)
    may: callers catch it."""
    parser = BytesParser(_class=EmailMessage, policy=SAFE_POLICY)
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
        # Decoding encoded words is quadratic in their number: a bounded prefix only
        # (every caller keeps at most a few thousand characters anyway).
        value = fix_surrogates(str(value)[:HEADER_TEXT_LIMIT])
        try:
            value = fix_surrogates(str(make_header(decode_header(value))))
        except Exception:  # noqa: BLE001 - a broken encoded-word keeps its raw form
            pass
        return one_line(value)
    return ""


def all_header_texts(msg: Message, name: str) -> list[str]:
    """Every value of a repeated header, raw (not decoded; 8-bit bytes read as text)."""
    return [
        one_line(fix_surrogates(str(v))) for k, v in msg.raw_items() if k.lower() == name.lower()
    ]


def _harmless(defect: Exception) -> bool:
    """A defect that says nothing against the address: UTF-8 in a local part (RFC 6532),
    a full stop in a display name ("J. Smith <j@example.com>", common obsolete syntax)."""
    if isinstance(defect, email_errors.NonASCIILocalPartDefect):
        return True
    return isinstance(defect, email_errors.ObsoleteHeaderDefect) and "period in" in str(defect)


def sender_address(msg: Message) -> tuple[str, bool]:
    """``(address, ok)`` of the ``From:`` header: the addr-spec of its first mailbox,
    read from the structured header (an RFC 2047 encoded display name is a display name,
    never an address), and whether that is the only mailbox of the only ``From:``
    header, parsed without defects. ``("", False)`` when there is none."""
    values = [
        one_line(fix_surrogates(str(v))) for k, v in msg.raw_items() if k.lower() == "from"
    ]
    if not values:
        return "", False
    value = values[0]
    if len(value) > PARSED_HEADER_LIMIT:
        return first_address(value[:PARSED_HEADER_LIMIT]), False
    try:
        header = policy.default.header_factory("from", value)
        mailboxes = [a for group in header.groups for a in group.addresses]
        defects = [d for d in header.defects if not _harmless(d)]
    except Exception:  # noqa: BLE001 - unparseable: undecoded, and never trusted
        return first_address(value), False
    if not mailboxes:
        return first_address(value), False
    if _unquoted_comma_name(mailboxes, defects):
        # "Smith, Ann <ann@example.com>": a display name with a comma left unquoted (some
        # programs write it so) parses as a bare word and a mailbox: one sender.
        mailboxes, defects = mailboxes[-1:], []
    address = (mailboxes[0].addr_spec or "").strip()
    ok = len(values) == 1 and len(mailboxes) == 1 and not defects and "@" in address
    return address, ok


_NAME_WORDS_RE = re.compile(r"[^\W\d_][\w.' -]*")


def _unquoted_comma_name(mailboxes: list[Any], defects: list[Any]) -> bool:
    """Whether a From: that parsed as several mailboxes is one mailbox whose display name
    holds an unquoted comma: every mailbox but the last is a bare name (letters, no
    domain, no display name), the last a whole address, and the only defects are the
    bare names' missing domains."""
    if len(mailboxes) < 2 or not mailboxes[-1].domain or "@" not in mailboxes[-1].addr_spec:
        return False
    for box in mailboxes[:-1]:
        if box.domain or box.display_name or not _NAME_WORDS_RE.fullmatch(box.username or ""):
            return False
    return all("no domain" in str(d) for d in defects)


_DAEMON_NAME_RE = re.compile(r"(?<![a-z0-9])mail(er)?[-_ ]?daemon(?![a-z0-9])", re.IGNORECASE)


def sender_display_name(msg: Message) -> str:
    """The display name of the first mailbox of the ``From:`` header, decoded ("" when
    there is none or the header cannot be parsed)."""
    for key, value in msg.raw_items():
        if key.lower() != "from":
            continue
        try:
            header = policy.default.header_factory(
                "from", one_line(fix_surrogates(str(value)))[:PARSED_HEADER_LIMIT]
            )
            mailboxes = [a for group in header.groups for a in group.addresses]
        except Exception:  # noqa: BLE001 - unparseable: no name
            return ""
        return one_line(mailboxes[0].display_name or "") if mailboxes else ""
    return ""


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
    # RFC 3834 allows comments: "no (a human wrote this)" is still "no".
    bare = auto
    for _ in range(20):  # nested comments, innermost first; bounded
        bare, found = _COMMENT_RE.subn(" ", bare)
        if not found:
            break
    if auto and bare.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto}"
    precedence = header_text(msg, "Precedence").lower()
    if precedence in {"bulk", "junk", "list", "auto_reply"}:
        return f"Precedence: {precedence}"
    for name in (
        "X-Autoreply",
        "X-Autorespond",
        "X-Autoresponder",
        "X-Auto-Reply",
        "X-Loop",
        "X-MS-Exchange-Inbox-Rules-Loop",
        "X-MS-Exchange-Generated-Message-Source",
    ):
        if msg.get(name) is not None:
            return name
    # Not X-Auto-Response-Suppress: it asks the receiver not to answer automatically,
    # and Outlook puts it on mail people write too (such an order was dropped unanswered).
    if msg.get("List-Id") is not None or msg.get("List-Unsubscribe") is not None:
        return "mailing list"
    if msg.get_content_type() == "multipart/report":
        return "delivery report (multipart/report)"
    sender = (sender_address(msg)[0] or envelope_sender or "").lower()
    local = sender.rpartition("@")[0] if "@" in sender else sender
    if local.replace("_", "-") in {"mailer-daemon", "postmaster", "mail-daemon"}:
        return f"{local} sender"
    name = sender_display_name(msg)
    if _DAEMON_NAME_RE.search(name):
        return f"{name[:80]} sender"
    subject = header_text(msg, "Subject")
    if _AUTO_SUBJECT_RE.match(subject):
        return f"Subject: {subject[:80]}"
    return ""


def dkim_result(msg: Message) -> str:
    """The DKIM result of the topmost Authentication-Results header ("" when absent)."""
    for value in all_header_texts(msg, "Authentication-Results"):
        found = _DKIM_RE.search(value)
        if found:
            return found.group(1).lower()[:32]
    return ""


def _decode_part(part: Message) -> str:
    """A text part's text; NUL characters dropped (no database text column takes them);
    ``format=flowed`` lines joined back (``unflow``)."""
    text = _decode_part_raw(part).replace("\x00", "")
    if part.get_content_type() == "text/plain":
        try:
            flowed = str(part.get_param("format", "")).lower() == "flowed"
            delsp = str(part.get_param("delsp", "")).lower() == "yes"
        except Exception:  # noqa: BLE001 - an odd Content-Type: the text as it is
            flowed = delsp = False
        if flowed:
            text = unflow(text, delsp=delsp)
    return text


def unflow(text: str, *, delsp: bool = False) -> str:
    """Plain text sent as ``format=flowed`` (RFC 3676; Thunderbird, Apple Mail) as the
    writer typed it: a line ending in a space goes on in the next line of the same
    quote depth (with ``delsp=yes`` that space was added by the wrapping and is
    dropped); a space after the quote marks is stuffing. A signature separator
    ("-- ") is never joined to the next line."""
    out: list[str] = []
    held: list[str] | None = None  # [quote marks, text so far] of an unfinished line
    for line in text.replace("\r\n", "\n").split("\n"):
        content = line.lstrip(">")
        quote = line[: len(line) - len(content)]
        if content.startswith(" "):
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            content = content[:-1]
        if content == "-- " and held is not None:
            out.append(_quoted_line(*held))  # a signature separator stands alone (3.4)
            held = None
        if held is not None and held[0] == quote:
            held[1] += content
        else:
            if held is not None:
                out.append(_quoted_line(*held))
            held = [quote, content]
        if not soft:
            out.append(_quoted_line(*held))
            held = None
    if held is not None:
        out.append(_quoted_line(*held))
    return "\n".join(out)


def _quoted_line(quote: str, content: str) -> str:
    return f"{quote} {content}" if quote else content


def _decode_part_raw(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if payload is None:
        raw = part.get_payload()
        return fix_surrogates(raw) if isinstance(raw, str) else ""
    if not isinstance(payload, bytes):
        return fix_surrogates(str(payload))
    charset = part.get_content_charset() or "utf-8"
    try:
        codecs.lookup(charset)
    except (LookupError, ValueError):
        charset = "utf-8"
    # A body labelled UTF-8 with a few Latin-1 bytes (old clients) is read as cp1252
    # rather than with replacement characters; random bytes still come out as control
    # characters (Latin-1), which ``looks_garbled`` recognises.
    for candidate in (charset, "utf-8", "cp1252"):
        try:
            return payload.decode(candidate)
        except (UnicodeDecodeError, LookupError):
            continue
    return payload.decode("latin-1")


def _is_attachment(part: Message) -> bool:
    disposition = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
    return disposition == "attachment" or (disposition != "inline" and bool(part.get_filename()))


def _walk(
    part: Message, found: dict[str, Any], flags: dict[str, bool], parent: Message | None = None
) -> None:
    if isinstance(part.get("Content-Type"), UnparsedHeader):
        flags["unreadable"] = True
        return
    ctype = part.get_content_type()
    if part.is_multipart():
        if ctype.startswith("message/"):
            flags["attachments"] = True
            return
        for sub in part.iter_parts() if isinstance(part, EmailMessage) else part.get_payload():
            _walk(sub, found, flags, part)
        return
    if _is_attachment(part) or ctype.startswith("message/"):
        flags["attachments"] = True
        return
    if ctype.startswith("multipart/"):
        # A multipart whose boundary is missing or not in the body: the parser leaves the
        # body as one piece of text. Read as the text it most likely is ("Your message
        # had attachments but no text" was false).
        if found["plain"] is None or not found["plain"].strip():
            found["plain"], found["plain_in"] = _decode_part(part), parent
        return
    if ctype == "text/plain":
        text = _decode_part(part)
        if found["plain"] is None or not found["plain"].strip():
            found["plain"], found["plain_in"] = text, parent
        elif (
            parent is not None
            and parent is found.get("plain_in")
            and parent.get_content_type() == "multipart/mixed"
            and text.strip()
        ):
            # Inline text parts of one mixed message follow each other (Apple Mail writes
            # the text after a pasted picture as a part of its own): one body. Never
            # across the branches of an alternative (the same text twice).
            found["plain"] += "\n" + text
    elif ctype == "text/html" and found["html"] is None:
        found["html"] = _decode_part(part)
    elif not ctype.startswith("text/"):
        flags["attachments"] = True


def _flatten_nesting(html: str, limit: int = HTML_NESTING_LIMIT) -> str:
    """``html`` with quotes and lists nested deeper than ``limit`` flattened (their tags
    dropped): one linear pass, so that the conversion stays linear too."""
    depth = 0
    excess = 0
    out: list[str] = []
    last = 0
    for match in _HTML_NEST_RE.finditer(html):
        closing = bool(match.group(1))
        drop = False
        if closing:
            if excess:
                excess -= 1
                drop = True
            elif depth:
                depth -= 1
        elif depth >= limit:
            excess += 1
            drop = True
        else:
            depth += 1
        if drop:
            out.append(html[last : match.start()])
            last = match.end()
    out.append(html[last:])
    return "".join(out)


_HIDDEN_STYLE_RE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|mso-hide\s*:\s*all)\b",
    re.IGNORECASE,
)
_VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
_ALWAYS_HIDDEN_TAGS = frozenset({"head", "template"})
# Tags that end an open <p> (HTML's implied end tag): a hidden paragraph ends there.
_ENDS_P = frozenset(
    "address article aside blockquote details div dl fieldset figure footer form h1 h2 h3 "
    "h4 h5 h6 header hr main nav ol p pre section table ul".split()
)


def _is_hidden(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    if tag in _ALWAYS_HIDDEN_TAGS:
        return True
    for name, value in attrs:
        if name == "hidden":
            return True
        if name == "style" and value and _HIDDEN_STYLE_RE.search(value):
            return True
    return False


class _VisibleText(html2text.HTML2Text):
    """html2text that leaves out what a mail program does not show: ``<head>`` and
    ``<template>``, elements with the ``hidden`` attribute or a style of
    ``display:none`` / ``visibility:hidden`` / ``mso-hide:all``, with everything in them.
    Constant work per tag: only the open tags of the hidden element's name are counted."""

    def __init__(self) -> None:
        super().__init__()
        self._hidden_tag: str | None = None
        self._hidden_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        hidden = self._hidden_tag
        if hidden is not None and (
            (hidden == "p" and tag in _ENDS_P) or (hidden == "head" and tag == "body")
        ):
            self._hidden_tag, self._hidden_depth = None, 0  # implied end of the element
            hidden = None
        if hidden is not None:
            if tag == hidden:
                self._hidden_depth += 1
            return
        if _is_hidden(tag, attrs):
            if tag not in _VOID_TAGS:
                self._hidden_tag, self._hidden_depth = tag, 1
            return
        if tag in ("td", "th"):  # a table's cells are words of one line, not Markdown
            super().handle_data(" ")  # columns ("PASS| BOUDICCA"): see html_to_text
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._hidden_tag is not None:
            if tag == self._hidden_tag:
                self._hidden_depth -= 1
                if self._hidden_depth <= 0:
                    self._hidden_tag, self._hidden_depth = None, 0
            return
        super().handle_endtag(tag)

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        if self._hidden_tag is None:
            super().handle_data(data, entity_char)


def html_to_text(html: str) -> str:
    """HTML mail as plain text (blockquotes become '>' lines, dropped later as quotes),
    without the text a mail program hides (``_VisibleText``). The work is bounded: at most ``HTML_LIMIT`` characters, nesting flattened below
    ``HTML_NESTING_LIMIT`` levels."""
    html = _flatten_nesting(html[:HTML_LIMIT])
    converter = _VisibleText()
    converter.body_width = 0
    converter.ignore_links = True
    converter.ignore_images = True
    converter.ignore_emphasis = True
    # A mail program lays out with tables (signatures, a phone's "table" of two words):
    # their rows are lines, their cells words; as Markdown, "PASS| BOUDICCA" was refused.
    converter.ignore_tables = True
    try:
        text = converter.handle(html)
    except Exception:  # noqa: BLE001 - broken HTML: keep its text crudely
        return re.sub(r"<[^>]*>", " ", html)
    # Headings come out as "## text": an order typed in a heading is still an order, not
    # a "#" note line.
    return re.sub(r"(?m)^#{1,6} +", "", text)


def body_text(msg: Message) -> tuple[str | None, bool]:
    """The first text/plain part that is not blank, with the inline text/plain parts
    that follow it in a multipart/mixed message (else the first text/html part as
    text), and whether the message carries attachments. ``None`` when there is no text
    part at all. Raises
    ``UnreadableMessage`` when no text was found and a part's Content-Type could not be
    parsed (the text may be in it)."""
    found: dict[str, Any] = {"plain": None, "html": None, "plain_in": None}
    flags = {"attachments": False, "unreadable": False}
    try:
        _walk(msg, found, flags)
    except Exception:  # noqa: BLE001 - a structure the email package chokes on
        found["plain"] = _decode_part(msg) if not msg.is_multipart() else None
    if flags["unreadable"] and not (found["plain"] or "").strip() and found["html"] is None:
        raise UnreadableMessage("a Content-Type header could not be parsed")
    plain = found["plain"]
    if plain is not None and plain.strip():
        # "This message is in HTML format" and nothing else: the HTML part is the message.
        if found["html"] is not None and len(plain) < 500 and _PLACEHOLDER_RE.search(plain):
            return html_to_text(found["html"]), flags["attachments"]
        return plain, flags["attachments"]
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
    # "сб, 21 нояб. 2026 г. в 10:00, Name <address>:" above a '>' quote (Gmail), or any
    # line naming an address and ending in ":" there.
    if (
        len(line) < 300
        and line.endswith(":")
        and _ADDRESS_IN_RE.search(line)
        and _next_nonblank(lines, i + 1).lstrip().startswith(">")
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


def _next_nonblank(lines: list[str], start: int) -> str:
    for j in range(start, len(lines)):
        if lines[j].strip():
            return lines[j]
    return ""


_PGP_BEGIN = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIG_BEGIN = "-----BEGIN PGP SIGNATURE-----"
_PGP_SIG_END = "-----END PGP SIGNATURE-----"
_PGP_ARMOR_HEADER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: ?.*$")


def _first_at_or_after(positions: list[int], start: int) -> int | None:
    found = bisect.bisect_left(positions, start)
    return positions[found] if found < len(positions) else None


def strip_pgp_clearsign(text: str) -> str:
    """``text`` with each PGP clear-signed block (RFC 4880 section 7) reduced to the text
    that was signed: the ``BEGIN PGP SIGNED MESSAGE`` line and its armour headers
    ("Hash: SHA256") up to the blank line go, dash-escaped lines ("- -- ") lose their
    "- ", and the signature block goes. The signature is not checked (it proves nothing
    the gateway uses). A block without its signature is left as it is. Linear."""
    if _PGP_BEGIN not in text:
        return text
    lines = text.split("\n")
    sigs = [k for k, line in enumerate(lines) if line.strip() == _PGP_SIG_BEGIN]
    ends = [k for k, line in enumerate(lines) if line.strip() == _PGP_SIG_END]
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != _PGP_BEGIN:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and _PGP_ARMOR_HEADER_RE.match(lines[j].strip()):
            j += 1
        if j >= len(lines) or lines[j].strip():
            out.append(lines[i])  # no blank line after the armour headers: not PGP
            i += 1
            continue
        start = j + 1
        sig = _first_at_or_after(sigs, start)
        end = _first_at_or_after(ends, sig) if sig is not None else None
        if sig is None or end is None:
            out.append(lines[i])  # unfinished: read as it is
            i += 1
            continue
        for line in lines[start:sig]:
            out.append(line[2:] if line.startswith("- ") else line)
        i = end + 1
    return "\n".join(out)


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
        if (
            _ORIGINAL_RE.match(stripped)
            or _FORWARDED_RE.match(stripped)
            # Unquoted only: a bottom-poster's client quotes the marker ("> ####
            # Write your order above this line ####") above the order it then writes.
            or ("above this line" in stripped.lower() and not stripped.startswith(">"))
        ):
            break
        # A rule (Outlook's "____", html2text's "* * *") right above a "From:" header block.
        if _RULE_RE.fullmatch(stripped) and any(
            _OUTLOOK_FROM_RE.match(n) for n in lines[i + 1 : i + 4]
        ):
            break
        span = _attribution_span(lines, i)
        if span:
            # The next non-blank line only (linear: no copy of all the lines after it).
            following = _next_nonblank(lines, i + span)
            if following.lstrip().startswith(">"):
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
        # "HELP." and "Help?" are commands: ending punctuation is no part of any.
        word = " ".join(_COMMAND_PUNCT_RE.sub("", line).split()).upper()
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


_MESSAGE_ID_RE = re.compile(r"<[^<>\s]{1,990}>|[^<>\s]{1,990}@[^<>\s]{1,990}")
THREAD_IDS_KEPT = 20


def thread_ids(references: str, keep: int = THREAD_IDS_KEPT) -> str:
    """A References header cut to at most ``keep`` whole message ids: the first (the
    thread's root) and the newest (RFC 5322 3.6.4: a client threads by both ends)."""
    ids = [i if i.startswith("<") else f"<{i}>" for i in _MESSAGE_ID_RE.findall(references or "")]
    if len(ids) > keep:
        ids = ids[:1] + ids[len(ids) - keep + 1 :]
    return " ".join(ids)


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
    text = INVISIBLE_RE.sub("", text or "")
    out.garbled = looks_garbled(text)
    if out.garbled:
        return
    # Compatibility forms read as what they look like: full-width "ＰＬＡＹ" (some phone
    # keyboards), no-break spaces, ligatures.
    # Normalized before the reply is cut: a full-width "：" (Chinese and Japanese mail
    # programs) ends an attribution line as ":" does. A clear-signed message is read as
    # the text it signs.
    out.text = strip_reply(strip_pgp_clearsign(unicodedata.normalize("NFKC", text)))
    out.commands, order_text = split_commands(out.text)
    # "#" starts the player's note, at a line's start or after a space at its end: never
    # part of the sealed order (the turn emails say so), so never published with it; nor
    # is sentence punctuation at a line's end ("Play Exploit." from a phone keyboard).
    out.order_text = sealed_order_text(order_text)
