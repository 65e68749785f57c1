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
# The one definition of what the site drops from a player's text as showing nothing.
# Bidirectional marks, embeddings, overrides and isolates (LRM, RLM, ALM; LRE to RLO;
# LRI to PDI): phones and mail programs in Hebrew and Arabic locales add them around what
# is typed, and echoed raw an override turns the rest of a line round.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Invisible spaces (zero-width space, word joiner, byte order mark): two names that look
# alike, or "ALLO\u200bCATE" pasted from a chat that looks like ALLOCATE.
_INVISIBLE_SPACES = "\u200b\u2060\ufeff"
# Names (games.presentation.one_line) lose those; a name keeps its joiners (an emoji
# sequence, a Persian word's non-joiner).
NAME_INVISIBLE_RE = re.compile(f"[{BIDI_CONTROLS}{_INVISIBLE_SPACES}]")
# An order (by email, on the web, by API) loses the joiners and soft hyphens too: the
# order language is A to Z.
INVISIBLE_RE = re.compile(f"[{BIDI_CONTROLS}{_INVISIBLE_SPACES}\u200c\u200d\u00ad]")

# White space NFKC leaves as it is: a tab (or the ogham space, a unit separator) between
# words reads as a space, as a no-break space does; the other line breaks of
# str.splitlines (the engines' reading of an order's lines: 6x5's two-line change_goal
# order) as a line break. Otherwise "PASS\tQIN" was sealed as an order other than
# "PASS QIN", and a separator made a line the notes and end punctuation missed.
_WHITE_SPACE = str.maketrans(
    {"\t": " ", "\x1f": " ", "\u1680": " "}
    | dict.fromkeys("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", "\n")
)


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
    like (a phone keyboard's full-width "ＰＬＡＹ", no-break spaces, ligatures: NFKC), a
    tab as a space and a line or paragraph separator as a line break,
    without its notes and without sentence punctuation at its lines' ends."""
    text = unicodedata.normalize("NFKC", INVISIBLE_RE.sub("", text)).translate(_WHITE_SPACE)
    return "\n".join(
        _END_PUNCT_RE.sub("", line) for line in without_notes(text).split("\n")
    ).strip()
