"""Players' notes in an order's text: a line starting with "#", or "#" and what follows it
after a space at a line's end. The engines ignore them; the site drops them before an
order is sealed, so a note is never stored, revealed or published with the order."""

from __future__ import annotations

import re
import unicodedata

_TRAILING_NOTE_RE = re.compile(r"\s+#.*$")
# Sentence punctuation at a line's end ("Play Exploit." from a phone keyboard's full stop
# after two spaces) is no part of any order language.
_END_PUNCT_RE = re.compile(r"[ \t]*[.!]+[ \t]*$")
# Characters that show nothing (zero-width spaces and joiners, a byte order mark, a soft
# hyphen): pasted from a chat or a document, "ALLO\u200bCATE" looks like ALLOCATE.
INVISIBLE_RE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")


def without_notes(text: str) -> str:
    """``text`` without its note lines and end-of-line notes, its lines ended by ``\n``
    (a browser sends ``\r\n``)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(
        _TRAILING_NOTE_RE.sub("", line).rstrip()
        for line in text.split("\n")
        if not line.lstrip().startswith("#")
    ).strip()


def order_text(text: str) -> str:
    """What is sealed of what a player typed, the same on the web, by API and by email:
    ``text`` without invisible characters, in compatibility forms read as what they look
    like (a phone keyboard's full-width "ＰＬＡＹ", no-break spaces, ligatures: NFKC),
    without its notes and without sentence punctuation at its lines' ends."""
    text = unicodedata.normalize("NFKC", INVISIBLE_RE.sub("", text))
    return "\n".join(
        _END_PUNCT_RE.sub("", line) for line in without_notes(text).split("\n")
    ).strip()
