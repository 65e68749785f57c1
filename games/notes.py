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


# Quotes a player (or autocorrect: Word, Outlook and phones turn a typed '"' into "“")
# writes around an order: opening and closing mark. NFKC has made full-width ones plain.
_QUOTE_PAIRS = (
    ('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"),
    ("\u00bb", "\u00ab"), ("\u201e", "\u201c"), ("\u201e", "\u201d"), ("\u201a", "\u2018"),
    ("\u201d", "\u201d"), ("\u2039", "\u203a"), ("\u300c", "\u300d"),
)


def _unquoted(text: str) -> str | None:
    """``text`` without ONE pair of matching quotes around all of it ("“PLAY EXPAND”"),
    None when there is no such pair: a quote inside ('PLAY "EXPAND"', '"PLAY" "EXPAND"')
    is the player's text, left for the engine to refuse, and so is a pair around
    nothing."""
    text = text.strip()
    for opening, closing in _QUOTE_PAIRS:
        if len(text) > 2 and text[0] == opening and text[-1] == closing:
            inner = text[1:-1]
            if opening in inner or closing in inner or not inner.strip():
                return None
            return inner.strip()
    return None


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
    without its notes and without sentence punctuation at its lines' ends, and without one
    pair of quotes around the whole text or, failing that, around a whole line ("“PLAY
    EXPAND”"; 6x5's two-line order quoted as a whole or line by line): no order language
    has quotes, and the order is then sealed, published and compared with the sealed
    order (the same order again) as the engine reads it."""
    text = unicodedata.normalize("NFKC", INVISIBLE_RE.sub("", text)).translate(_WHITE_SPACE)
    text = "\n".join(
        _END_PUNCT_RE.sub("", line) for line in without_notes(text).split("\n")
    ).strip()
    whole = _unquoted(text)
    lines = whole.split("\n") if whole is not None else [
        line if (inner := _unquoted(line)) is None else inner for line in text.split("\n")
    ]
    # Punctuation inside the quotes ("“PLAY EXPAND.”") is at the line's end now.
    return "\n".join(_END_PUNCT_RE.sub("", line).rstrip() for line in lines).strip()
