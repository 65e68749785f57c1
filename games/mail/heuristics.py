"""How the gateway reads the text around a message's order, against the seat's legal
orders: a greeting or lead-in above it, a sign-off below it, a correction naming another
order, an order written in the Subject only, a copy of one of our own emails pasted
below it.

Reads only (selectors and the rules' parser; nothing is stored), and guesses nothing: a
message these cannot read unambiguously stays refused (``games.mail.decisions``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from games.mail.headers import REPLY_PREFIX_RE
from games.notes import order_text

if TYPE_CHECKING:
    from games.models import Seat


def _subject_words(seat: Seat, subject: str) -> str:
    """A Subject without its reply and forward prefixes ("Re:", "Fwd:") and the game's
    bracketed title ("[League 7]")."""
    text = unicodedata.normalize("NFKC", subject or "")[:300].strip()
    title = re.compile(r"\s*\[\s*" + re.escape(read_title(seat.game)) + r"\s*\]\s*", re.IGNORECASE)
    for _ in range(20):  # "Re: [League 7] Fwd: ..." (bounded)
        before = text
        text = REPLY_PREFIX_RE.sub("", text, count=1)
        found = title.match(text)
        if found:
            text = text[found.end() :]
        if text == before:
            break
    return text


def _command_in_subject(seat: Seat, subject: str) -> str | None:
    """The command ("STATUS", "Help?") a Subject holds alone, or None. Only said back to
    the player, never answered as the command (as an order there is never taken)."""
    from games.mail.parsing import split_commands

    commands, rest = split_commands(_subject_words(seat, subject))
    return commands[0] if len(commands) == 1 and not rest else None


def _order_in_subject(seat: Seat, subject: str) -> str | None:
    """The order a message's Subject holds, once the reply and forward prefixes ("Re:",
    "Fwd:") and the game's bracketed title ("[League 7]") are taken away and the rest is
    read as the body's order is (``games.notes.order_text``: quotes, end punctuation): a
    legal order of the seat (as the game writes it), or text the rules parse as an order.
    None otherwise. Only said back to the player, never taken as the order."""
    from games.selectors import current_state, legal_orders
    from games.services.game_options import ruleset_get

    # Read as the body's order is ("“PLAY EXPLORE”", "Play Explore."): one reading.
    text = " ".join(order_text(_subject_words(seat, subject)).split())
    if not text:
        return None
    for order in legal_orders(seat=seat):
        if " ".join(order.split()).upper() == text.upper():
            return order
    state = current_state(game=seat.game)
    if not state:
        return None
    try:
        ruleset_get(seat.game.ruleset).parse_order(state, seat.name, text)
    except Exception:  # noqa: BLE001 - IllegalOrder or worse: not an order
        return None
    return text


def read_title(game: Any) -> str:
    """The game's title as a message's text reads it (``parsing`` normalizes the text to
    NFKC: "Friday… League" reads "Friday... League", "Ｌｅａｇｕｅ 7" "League 7"): a copy of
    our email pasted in the message names it so."""
    return unicodedata.normalize("NFKC", game.title)


def _before_our_email(text: str, game: Any, seat: Seat | None = None) -> str:
    """The text above a copy of one of our own emails pasted or quoted without ``>``
    (some clients reply that way): our game emails start with "<game title> — ...", a
    reminder with "Reminder: <game title> ...", a notice with "<game title>: ..." (answers
    start with the "above this line" marker, which ``strip_reply`` cuts at). A line whose
    rest after the title reads as an order of ``seat`` is the player's ("League 7: PLAY
    EXPAND", the game named before the order), not a copy."""
    if not text:
        return text
    title = read_title(game)
    heads = (f"{title} — ", f"{title}: ", f"Reminder: {title} ")
    lines = text.split("\n")
    asked = seat is None  # one line is read as an order at most (each reading queries)
    for i, line in enumerate(lines):
        stripped = line.strip()
        head = next((h for h in heads if stripped.startswith(h)), None)
        if head is None:
            continue
        if not asked:
            asked = True
            if _order_in_subject(seat, stripped[len(head) :]) is not None:
                continue
        return "\n".join(lines[:i]).strip()
    return text


#: How the daily summary starts (``templates/games/email/summary.txt``): it names no one
#: game first, but lists the seat's reply addresses and what the seat alone was told.
_SUMMARY_HEAD = "Your daily summary of "


def _starts_a_copy(first: str, rest: str, game: Any) -> bool:
    """Whether the line ``first`` (stripped), ``rest`` below it, is the head of a copy of
    one of our emails rather than the player's words."""
    title = read_title(game)
    if first.startswith((f"{title} — ", f"Reminder: {title} ", _SUMMARY_HEAD)):
        return True
    return first.startswith(f"{title}: ") and any(
        line.strip().startswith("Your seat: ") for line in rest.split("\n")
    )


def talk_before_our_email(text: str, game: Any) -> str:
    """A TALK message's own words: the text above a copy of one of our emails pasted
    without ``>`` (as ``_before_our_email`` finds it, or the daily summary's first line).
    The copy holds the seat's hand, what it alone was told and its reply address, and
    the table is read by everyone who may watch the game (a secrecy audit: the copy was
    written there whole). Its first line is the player's ("League 7: well played"), unless
    it starts a copy: a turn email's or a reminder's head, the daily summary's, or a
    notice's head ("<title>: ") with the copy's "Your seat:" line below it ("TALK:" alone
    on its line, the copy under it: the whole copy was posted)."""
    first, newline, rest = text.partition("\n")
    if _starts_a_copy(first.strip(), rest, game):
        return ""
    if not rest:
        return text
    kept = _before_our_email(rest, game)
    lines = kept.split("\n")
    at = next((i for i, line in enumerate(lines) if line.strip().startswith(_SUMMARY_HEAD)), None)
    if at is not None:
        kept = "\n".join(lines[:at])
    return (first + newline + kept).strip()


_SIGNOFF_RE = re.compile(
    r"(thanks?|thank you|thx|cheers|regards|best|br|kind regards|greetings|grü(ß|ss)e|gruss|"
    r"saludos|merci|cordialement|ciao|bye|sent (from|via|with))\b"
    # "-- Ann", "— Ann": a name signed after a dash on its own line (not "-1,0", a 6x5
    # coordinate: two hyphens or a dash, then a letter).
    r"|(--|\u2014|\u2013)\s*[^\W\d_]",
    re.IGNORECASE,
)


def _is_signoff(text: str, seat: Any) -> bool:
    """Whether the text beside a command reads as a sign-off ("Thanks,\nBob"): a few
    lines whose first starts with a parting word, or ends with a comma without starting
    with one of the seat's order words ("PLAY EXPLORE," is an order)."""
    from games.selectors import legal_orders

    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > 8:
        return False
    if _SIGNOFF_RE.match(lines[0]):
        return True
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    first = lines[0].split()[0].upper().strip(",.;:")
    return lines[0].endswith(",") and first not in verbs


def one_word_per_line(seat: Seat, text: str) -> tuple[str, str] | None:
    """``(the words on one line, the rules' refusal of that line or "")`` when ``text`` is
    an order written one word per line ("ALLOCATE" / "EXPLORE" / "EXPAND" on lines of
    their own, no blank line; 6x5's "CHANGE 1" may stand on a line of its own above the
    action's words, "CHANGE 1" / "PLACE" / "BLUE" / "1,0"): its first word starts one of
    the seat's legal orders, or the words on one line make an order of the game's
    language that is not legal now ("PLAY" / "EXPAND" during 5X's leader draft: the
    refusal then says why, ``in_order_language``); no later line is a parting word. None
    otherwise. Reads only: an order's words are on one line in every order language, so
    this is never taken as the order."""
    from engine.base import IllegalOrder
    from games.selectors import current_state, legal_orders
    from games.services.game_options import ruleset_get

    lines = text.strip().split("\n")
    if len(lines) < 2 or any(len(line.split()) != 1 for line in lines[1:]):
        return None
    if any(_SIGNOFF_RE.match(line.strip()) for line in lines[1:]):
        return None  # "PLAY" / "Thanks": a sign-off, not the order's words
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    first = lines[0].split()
    joined = " ".join(" ".join(line.split()) for line in lines)
    if len(first) > 1 and (
        len(lines) < 3 or in_order_language(seat, lines[0]) or not in_order_language(seat, joined)
    ):
        # A line of several words above the words a line only when it is no order alone
        # and the whole makes one ("CHANGE 1", then "PLACE" / "BLUE" / "1,0"); not
        # "PLAY NAPOLEON" / "Ann".
        return None
    if first[0].upper() not in verbs and not in_order_language(seat, joined):
        return None
    state = current_state(game=seat.game)
    if not state:
        return None
    try:
        ruleset_get(seat.game.ruleset).parse_order(state, seat.name, joined)
    except IllegalOrder as exc:
        return joined, exc.reason
    except Exception:  # noqa: BLE001 - an engine refusing oddly: no reading to offer
        return None
    return joined, ""


def in_order_language(seat: Seat, text: str) -> bool:
    """Whether ``text`` is written as an order of the seat's game's order language, legal
    now or not: the ruleset says (``Ruleset.in_order_language``; False for a ruleset
    that knows no such reading). Reads only."""
    from games.services.game_options import ruleset_get

    return ruleset_get(seat.game.ruleset).in_order_language(text)


def split_signoff(text: str) -> tuple[str, str]:
    """``(the lines above a sign-off, the sign-off)``: the sign-off starts at the first line
    after the first that starts with a parting word ("Thanks, Ann", "Cheers") and is a
    few lines at most; ``(text, "")`` when there is none. Reads only."""
    lines = text.strip().split("\n")
    for i, line in enumerate(lines[1:], 1):
        if _SIGNOFF_RE.match(line.strip()):
            rest = [ln for ln in lines[i:] if ln.strip()]
            if len(rest) <= 8:
                return "\n".join(lines[:i]).strip(), "\n".join(lines[i:]).strip()
            break
    return text, ""


def _typed_words(text: str) -> list[str]:
    """The words of ``text`` as typed, without the punctuation around them."""
    return [w for w in (w.strip(",.;:!?\"'()") for w in text.split()) if w]


def _order_words(text: str) -> list[str]:
    return [w.upper() for w in _typed_words(text)]


def _other_order_named(seat: Seat, head: str, rest: str) -> tuple[str, str] | None:
    """``(order, line)``: the first legal order of the seat, other than ``head``, that a
    line of ``rest`` names as a phrase ("Sorry, I meant PLAY EXPLORE"); None when there
    is none. Linear in the text: only words that start a legal order are looked at."""
    from games.selectors import legal_orders

    head_words = tuple(_order_words(head))
    by_verb: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for order in legal_orders(seat=seat):
        words = tuple(_order_words(order))
        if words and words != head_words:
            by_verb.setdefault(words[0], []).append((words, order))
    if not by_verb:
        return None
    for line in rest.splitlines():
        typed = _typed_words(line)
        words = [w.upper() for w in typed]
        for i, word in enumerate(words):
            for candidate, order in by_verb.get(word, ()):
                if len(candidate) == 1 and typed[i] != word:
                    continue  # a one-word order in lower case is prose: "pass the beer"
                if tuple(words[i : i + len(candidate)]) == candidate:
                    return order, " ".join(line.split())
    return None


def _cut(text: str, limit: int = 120) -> str:
    """A line of the player's quoted in an answer, at most ``limit`` characters."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _order_below_a_line(seat: Seat, text: str) -> tuple[str, str] | None:
    """``(first line, the rest)`` when ``text`` is one line that is no order (no order
    word, no legal order named, no address) above text that is a legal order of the
    seat now, as the engine reads it (nothing stored); None otherwise."""
    from engine.base import EngineError
    from games.models import StateSnapshot
    from games.selectors import current_prompt, legal_orders
    from games.services.game_options import ruleset_get

    lines = text.strip().split("\n")
    first, rest = " ".join(lines[0].split()), "\n".join(lines[1:]).strip()
    if not first or not rest or "@" in first:
        return None
    words = _order_words(first)
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    if not words or words[0] in verbs or _other_order_named(seat, "", first) is not None:
        return None
    prompt = current_prompt(game=seat.game)
    if prompt is None or seat.name not in (prompt.pending or []):
        return None
    state = StateSnapshot.objects.filter(game=seat.game, prompt_number=prompt.number).first()
    if state is None:
        return None
    try:
        ruleset_get(seat.game.ruleset).parse_order(state.state, seat.name, rest)
    except EngineError:
        return None
    return first, rest


LEAD_IN_LINES = 3
#: The most words a lead-in before a colon on the order's own line may have.
INLINE_LEAD_IN_WORDS = 6


def lead_in(seat: Seat, text: str) -> tuple[str, str]:
    """``(lead-in, the rest)``: the greeting or lead-in above the order of a message whose
    whole text was refused ("Hi all," "Changed my mind:"): up to ``LEAD_IN_LINES``
    leading lines that end with a colon or a comma (or, on the order's own line, up to
    ``INLINE_LEAD_IN_WORDS`` words before a colon: "My order: PLAY EXPAND"), none starting with one of the seat's
    order words or naming one of its legal orders (then it is an order, and the message
    stays ambiguous), nor holding an address (an attribution: what follows may be quoted). ``("", text)`` when there is none, or nothing follows it."""
    from games.selectors import legal_orders

    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    lines = text.strip().split("\n")
    taken: list[str] = []
    i = 0
    while i < len(lines) and len(taken) < LEAD_IN_LINES:
        line = " ".join(lines[i].split())
        if not line:
            i += 1
            continue
        words = _order_words(line)
        if not line.endswith((":", ",")) and ":" in line and words and words[0] not in verbs:
            # "My order: PLAY EXPAND": a short lead-in before a colon on the order's own
            # line (left open by earlier sessions: refused), read past as one on a line of
            # its own is
            head, after = line.split(":", 1)
            if (
                len(_order_words(head)) <= INLINE_LEAD_IN_WORDS and after.strip()
                and "@" not in head and _other_order_named(seat, "", head) is None
            ):
                taken.append(head.strip() + ":")
                lines[i] = after.strip()
            break
        if not line.endswith((":", ",")) or not words or words[0] in verbs:
            break
        if "@" in line:  # "… <fivex@localhost>:" may attribute what follows to someone
            break
        if _other_order_named(seat, "", line) is not None:
            break
        taken.append(line)
        i += 1
    rest = "\n".join(lines[i:]).strip()
    if not taken or not rest:
        return "", text
    return "\n".join(taken), rest


def signed_off_head(seat: Seat, text: str) -> str | None:
    """The order part of a message whose whole text was refused, when the rest is a
    sign-off ("Thanks,\nAnn" with no "-- " marker): the first paragraph (the first line
    when there is no blank line), if no later line is an order on its own or starts with
    an order's verb (a second, perhaps illegal, order: the message is ambiguous and stays
    refused). None when that does not apply; whether that head is a legal order is left
    to ``order_submit``."""
    from engine.base import IllegalOrder
    from games.selectors import current_state, legal_orders
    from games.services.game_options import ruleset_get

    paragraphs = re.split(r"\n[ \t]*\n", text.strip(), maxsplit=1)
    if len(paragraphs) < 2:
        paragraphs = text.strip().split("\n", 1)  # no blank line: the first line
    if len(paragraphs) < 2:
        return None
    head, tail = paragraphs[0].strip(), paragraphs[1]
    game = seat.game
    rules = ruleset_get(game.ruleset)
    state = current_state(game=game)
    if not state:  # not started: nothing to read orders against
        return None
    verbs = {o.split()[0].upper() for o in legal_orders(seat=seat) if o.split()}
    if head.split():
        verbs.add(head.split()[0].upper())
    for line in tail.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.split()[0].upper().strip(",.;:") in verbs:
            return None  # looks like another order (a legal one or not): ambiguous
        try:
            rules.parse_order(state, seat.name, line)
        except IllegalOrder:
            continue
        except Exception:  # an engine refusing oddly: treat as ambiguous
            return None
        return None  # a second order after the blank line: ambiguous
    return head or None
