"""Reading an inbound message's headers: the safe parse, header values decoded, the
sender, auto-replies and bounces, DKIM, the ids a reply threads by.

Pure functions over bytes and ``email`` objects (no database), defensive everywhere: a
malformed header never raises, it reads as absent or as plain text. ``games.mail.parsing``
puts these together into one ``ParsedMail``.
"""

from __future__ import annotations

import re
from email import errors as email_errors
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import getaddresses
from typing import Any

from games.presentation import one_line

HEADER_LIMIT = 64 * 1024
"""At most this many bytes are read as the header section of an oversize message."""

PARSED_HEADER_LIMIT = 2000
"""At most this many characters of a structured header (Content-Type, From, ...) are
parsed: the stdlib's parse of a header with thousands of parameters is quadratic."""

HEADER_TEXT_LIMIT = 16 * 1024
"""At most this many characters of a header are decoded (``header_text``)."""

_SURROGATE_RE = re.compile("[\ud800-\udfff]")

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

#: One reply or forward prefix at the start of a Subject, in the languages mail programs
#: write them ("Re:", "Re[2]:", "AW:", "SV:", "VS:", "Antw:", "Réf:", "Ref:", "Fwd:",
#: "Fw:", "WG:", "TR:", "RV:", "Enc:", "Odp:", "Přep:"): the answers' subjects and the
#: order-in-the-subject hint both take them away with this one pattern.
REPLY_PREFIX_RE = re.compile(
    r"^\s*(re|aw|sv|vs|antw|réf|ref|fwd?|wg|tr|rv|enc|odp|přep)\s*(\[\d+\])?\s*:\s*", re.IGNORECASE
)
_DKIM_RE = re.compile(r"\bdkim\s*=\s*([a-z]+)", re.IGNORECASE)


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


def _c1_as_cp1252() -> dict[int, str]:
    table = {}
    for byte in range(0x80, 0xA0):
        try:
            table[byte] = bytes([byte]).decode("cp1252")
        except UnicodeDecodeError:
            continue
    return table


# C1 control characters in a decoded header are a Windows client's cp1252 bytes labelled
# ISO-8859-1 (its curly quotes, dashes): no header text holds a C1 control.
_C1_AS_CP1252 = _c1_as_cp1252()


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
        return one_line(value.translate(_C1_AS_CP1252))
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


_MESSAGE_ID_RE = re.compile(r"<[^<>\s]{1,990}>|[^<>\s]{1,990}@[^<>\s]{1,990}")
THREAD_IDS_KEPT = 20


def thread_ids(references: str, keep: int = THREAD_IDS_KEPT) -> str:
    """A References header cut to at most ``keep`` whole message ids: the first (the
    thread's root) and the newest (RFC 5322 3.6.4: a client threads by both ends)."""
    ids = [i if i.startswith("<") else f"<{i}>" for i in _MESSAGE_ID_RE.findall(references or "")]
    if len(ids) > keep:
        ids = ids[:1] + ids[len(ids) - keep + 1 :]
    return " ".join(ids)
