"""Players' notes in an order's text: a line starting with "#", or "#" and what follows it
after a space at a line's end. The engines ignore them; the site drops them before an
order is sealed, so a note is never stored, revealed or published with the order."""

from __future__ import annotations

import re

_TRAILING_NOTE_RE = re.compile(r"\s+#.*$")
# Sentence punctuation at a line's end ("Play Exploit." from a phone keyboard's full stop
# after two spaces) is no part of any order language.
_END_PUNCT_RE = re.compile(r"[ \t]*[.!]+[ \t]*$")


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
    ``text`` without its notes and without sentence punctuation at its lines' ends."""
    return "\n".join(
        _END_PUNCT_RE.sub("", line) for line in without_notes(text).split("\n")
    ).strip()
