"""How orders are offered to a person and read back: legal orders grouped into patterns
(one choice per word on the web form, one line per pattern in an email), what each word
of such an order stands for, how the server understood a typed order ("Understood as"),
and what a seat is told of an order entered for it. The rest of how games are put in
words is ``games.presentation``."""

from __future__ import annotations

from typing import Any

from engine.sixbyfive_orders import order_text
from games.rules_text import FORCED_NOTES


def order_patterns(orders: list[str], minimum: int = 9) -> list[tuple[str, list[list[str]]] | str]:
    """The orders in their first-seen order, where every group of at least ``minimum``
    orders that share a first word and a length and are *every* combination of their
    other words (4X Dice's ``ALLOCATE`` of each die; 6x5's ``PLACE`` colour and hex) is
    one ``(verb, [choices of word 2, choices of word 3, ...])``; other orders stay texts.
    A pattern always stands for exactly the orders it replaces."""
    groups: dict[tuple[str, int], list[list[str]]] = {}
    for order in orders:
        words = order.split()
        groups.setdefault((words[0] if words else "", len(words)), []).append(words)
    out: list[tuple[str, list[list[str]]] | str] = []
    for (verb, size), members in groups.items():
        slots = [list(dict.fromkeys(m[i] for m in members)) for i in range(1, size)]
        combinations = 1
        for slot in slots:
            combinations *= len(slot)
        if len(members) >= minimum and len(slots) >= 2 and combinations == len(members):
            out.append((verb, slots))
        else:
            out.extend(" ".join(m) for m in members)
    return out


def order_pattern(orders: list[str]) -> tuple[str, list[list[str]]] | None:
    """``(verb, choices per word)`` when the legal orders are one such pattern and
    nothing else (the web form then offers one choice per word)."""
    patterns = order_patterns(orders)
    if len(patterns) == 1 and isinstance(patterns[0], tuple):
        return patterns[0]
    return None


def order_word_labels(
    ruleset: str, engine_view: dict[str, Any], seat_name: str | None, verb: str, count: int
) -> list[str]:
    """What each word of a word-by-word order stands for, where the ruleset says so
    (4X Dice's ``ALLOCATE``: an area for each of the seat's dice, in the order its view
    lists them; 6x5's ``PLACE``: a colour and a hex); generic "Word N" otherwise."""
    if ruleset == "4x-dice" and verb.upper() == "ALLOCATE" and seat_name:
        mine = (engine_view.get("players") or {}).get(seat_name) or {}
        dice = mine.get("dice") or []
        faces = [d.get("face") for d in dice if isinstance(d, dict)]
        if len(faces) == count and all(isinstance(f, list) and len(f) == 2 for f in faces):
            return [
                f"Die {i}: {ships}/{asteroids} (ships/asteroids)"
                for i, (ships, asteroids) in enumerate(faces, start=1)
            ]
    if ruleset == "6x5" and verb.upper() == "PLACE" and count == 2:
        return ["Colour", "Hex (q,r)"]
    return [f"Word {i}" for i in range(1, count + 1)]


def entered_order_text(*, source: str, reason: str, text: str, ruleset: str = "") -> str:
    """What a seat is told about its own order that it did not send itself (``source``
    default or forced; ``reason`` of a default order: deadline, resigned, refused). The
    order is the seat's own: show it to that seat only."""
    if source == "forced":
        note = FORCED_NOTES.get(ruleset)
        if note:
            return f"{text} was entered for you: {note}."
        return f"{text} was your only legal order: it was entered for you."
    if reason == "deadline":
        return (
            f"You sent no order before the deadline: the default order {text} was played"
            " for you."
        )
    if reason == "resigned":
        return f"You have resigned: the default order {text} was played for you."
    return f"The default order {text} was played for you."


def _order_lines(text: str) -> list[str]:
    """An order's lines as the order language reads them: ``#`` lines and blank lines
    dropped, runs of spaces one space."""
    return [
        " ".join(line.split())
        for line in str(text or "").splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def order_reading(
    *, text: str, legal_orders: list[str], parsed: Any = None, ruleset: str = ""
) -> str:
    """How the server read a seat's own order, when that is not the order exactly as
    sealed (typed in lower case, with extra spaces or ``#`` lines): the legal order it is
    (in the form ``legal_orders`` lists it), else the engine's parse ``parsed``: for 6x5
    its canonical text, otherwise as the email confirmation's "Understood as" line gives
    it. Empty when the text is already a legal order as listed, or when there is nothing
    to tell. The order is the seat's own: show it to that seat only."""
    lines = _order_lines(text)
    if not lines:
        return ""
    typed = "\n".join(lines)
    for legal in legal_orders:
        canonical = "\n".join(_order_lines(legal))
        if typed.upper() == canonical.upper():
            return "" if text.strip() == legal.strip() else legal
    if not parsed:
        return ""
    if ruleset == "6x5" and isinstance(parsed, dict):
        try:
            canonical = order_text(parsed)
        except (KeyError, TypeError):
            canonical = ""
        if canonical:
            return "" if canonical == typed else canonical
    if ruleset in _ORDER_TEXTS and isinstance(parsed, dict):
        canonical = _ORDER_TEXTS[ruleset](parsed)
        if canonical:
            return "" if canonical == typed else canonical
    summary = parsed_summary(parsed)
    return summary if summary and summary != typed else ""


def _fivex_order_text(parsed: dict[str, Any]) -> str:
    """A parsed 5X order in the order language (5x.md's table), as the legal orders are
    written: ``{"pass": "ELIZABETH"}`` -> ``PASS ELIZABETH``. "" for another shape."""
    if set(parsed) == {"take", "from"}:
        return f"TAKE {parsed['take']} FROM {parsed['from']}"
    if len(parsed) != 1:
        return ""
    [(key, value)] = parsed.items()
    if key == "dido" and value in ("BUILD", "DECLINE"):
        return str(value)
    if key in ("play", "pass", "bid", "take", "build"):
        return f"{key.upper()} {value}"
    return ""


def _fourx_order_text(parsed: dict[str, Any]) -> str:
    """A parsed 4X Dice order in the order language, as the legal orders are written:
    ``ALLOCATE EXPAND EXPLORE``, ``PASS``, ``HIT bob 2 SHIP; HIT cat 1 ASTEROID``. "" for
    another shape."""
    try:
        if parsed.get("kind") == "allocate":
            return "ALLOCATE " + " ".join(str(area) for area in parsed["areas"])
        if parsed.get("kind") == "exterminate":
            hits = parsed["hits"]
            if not hits:
                return "PASS"
            return "; ".join(f"HIT {h['seat']} {h['die']} {h['lower']}" for h in hits)
    except (KeyError, TypeError):
        return ""
    return ""


_ORDER_TEXTS = {"5x": _fivex_order_text, "4x-dice": _fourx_order_text}


def _plain(value: Any) -> str:
    """A parsed order's value in words: lists spaced (or comma-separated when they hold
    lists or mappings), mappings as "key value" pairs; no Python brackets or quotes."""
    if isinstance(value, dict):
        return " ".join(f"{k} {_plain(v)}" for k, v in value.items() if v is not None)
    if isinstance(value, list | tuple):
        nested = any(isinstance(v, dict | list | tuple) for v in value)
        return (", " if nested else " ").join(_plain(v) for v in value)
    return str(value)


def parsed_summary(parsed: Any) -> str:
    """How the engine read an order (``kind: allocate; areas: EXPLORE EXPAND EXPAND``):
    the "Understood as" of the email confirmation and of the game page's receipt."""
    if isinstance(parsed, dict) and parsed:
        return "; ".join(f"{k}: {_plain(v)}" for k, v in parsed.items() if v is not None)
    return _plain(parsed) if parsed else ""
