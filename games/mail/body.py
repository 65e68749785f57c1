"""Reading an inbound message's body as text: the MIME walk (the first text part,
attachments noticed), charsets, ``format=flowed``, HTML converted to the text a mail
program shows, garbled text recognised.

Pure functions (no database) with bounded work; a part nothing can decode reads as text
crudely or as absent (``UnreadableMessage`` only when no text could be found at all).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from email.message import EmailMessage, Message
from typing import Any

import html2text

from games.mail.headers import UnparsedHeader, fix_surrogates

HTML_LIMIT = 512 * 1024
"""At most this many characters of an HTML part are converted to text (the order is at
the top of a reply; what follows is quoted history)."""

HTML_NESTING_LIMIT = 8
"""Deeper nesting of quotes and lists is flattened before the HTML is converted:
html2text repeats the prefix of every level on every line (quadratic output)."""

_HTML_NEST_RE = re.compile(r"<(/?)(blockquote|ul|ol|dl|dd)\b[^>]*>", re.IGNORECASE)
_PLACEHOLDER_RE = re.compile(
    r"(html (format|version|only|e-?mail|message)|in html\b|requires? (an )?html|"
    r"supports? html|view (this|it) in (a |your )?(web )?browser|"
    r"does not (support|display) html)",
    re.IGNORECASE,
)


# Legacy labels whose text mail programs write in the Windows superset (as browsers read
# them, WHATWG Encoding): GB2312 with GBK's characters, Shift_JIS with cp932's, EUC-KR
# with cp949's, Big5 with HKSCS. Tried when the label's own codec fails. Keys: the
# names ``codecs.lookup`` gives.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}


class UnreadableMessage(Exception):
    """The message's structure cannot be read (a Content-Type nothing can parse)."""


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
    name = codecs.lookup(charset).name
    superset = _SUPERSETS.get(name)
    # ISO-8859-1 decodes any bytes, so its superset goes first: Windows' curly quotes
    # (0x93/0x94) came out as control characters, and "“PLAY EXPAND”" was refused.
    first = ("cp1252",) if name == "iso8859-1" else ()
    for candidate in (*first, charset, *([superset] if superset else []), "utf-8", "cp1252"):
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
# Headings read as paragraphs: as Markdown ("## PLAY EXPAND") an order in a heading read
# as a note, and taking the "#" away after took it from a note line ("# bluffing") too.
_RETAGGED = {f"h{n}": "p" for n in range(1, 7)}
# A list's items are lines, without the "* " or "1. " Markdown would put before them: an
# order typed as a bullet ("<ul><li>PLAY EXPAND") was read "* PLAY EXPAND" and refused.
_RETAGGED.update({"ul": "div", "ol": "div", "li": "div"})
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
        super().handle_starttag(_RETAGGED.get(tag, tag), attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._hidden_tag is not None:
            if tag == self._hidden_tag:
                self._hidden_depth -= 1
                if self._hidden_depth <= 0:
                    self._hidden_tag, self._hidden_depth = None, 0
            return
        super().handle_endtag(_RETAGGED.get(tag, tag))

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        # Never escaped as Markdown ("-- " came out "\\-- ", no signature separator any
        # more; "1." as "1\\."): the text is read as the player wrote it.
        if self._hidden_tag is None:
            super().handle_data(data, True)


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
    return text


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
    """Whether decoded text is mostly not text (random bytes, a wrong charset): replacement
    characters, control, private-use, surrogate and unassigned code points. Format
    characters (Cf: direction marks, a flag emoji's tags) are text."""
    sample = text[:20000]
    if not sample.strip():
        return False
    bad = sum(
        1
        for c in sample
        if c == "\ufffd"
        or (unicodedata.category(c) in ("Cc", "Co", "Cs", "Cn") and c not in "\r\n\t")
    )
    return bad / len(sample) > 0.1
