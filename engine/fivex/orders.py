"""The 5X order language: parsing, the legal orders of a prompt, and default orders.

One order per message; case and extra spaces do not matter; blank lines and lines
starting with ``#`` are ignored. Orders by phase:

=========================== ====================================================
``draft``                   ``PASS <leader>``
``play``/``explore-play``/  ``PLAY <card>``
``erik-play``
``bid``                     ``BID <n>``
``dido``                    ``BUILD`` or ``DECLINE``
``excavate``                ``TAKE <card>``, ``TAKE <leader> FROM <seat>``,
                            ``BUILD <letter>``
=========================== ====================================================

A card is its id or full name (``qin``, ``Qin Shi Huang``); a Wonder is its letter or
its name (``B``, ``the Great Wall``). Parsed orders are small JSON dicts:
``{"pass": id}``, ``{"play": id}``, ``{"bid": n}``, ``{"dido": "BUILD"|"DECLINE"}``,
``{"take": id}``, ``{"take": id, "from": seat}``, ``{"build": letter}``.

Refusals say what was wrong and what is allowed now, and only mention what the
ordering seat may know (its own hand, its own resources, public discard piles).

Default orders (a seat that missed its deadline): the draft passes the first of its two
leaders alphabetically; a play is the lowest-numbered action card in hand (a leader only
when no action card is left, the first alphabetically); a bid is the minimum; Dido
declines; Excavate takes the lowest-numbered action card, else the first legal option.
"""

from __future__ import annotations

from typing import Any

from engine.base import IllegalOrder, order_lines
from engine.fivex import data as D
from engine.fivex import rules as R

State = dict[str, Any]
IDS = D.CARD_IDS

# Card and Wonder names, normalised (upper case, single spaces) -> code.
CARD_LOOKUP: dict[str, int] = {}
for _code, _card in enumerate(D.CARDS):
    CARD_LOOKUP[_card.id] = _code
    CARD_LOOKUP[" ".join(_card.name.upper().split())] = _code
WONDER_LOOKUP: dict[str, int] = {}
for _code, _w in enumerate(D.WONDERS):
    WONDER_LOOKUP[_w.letter] = _code
    _name = _w.name.upper()
    WONDER_LOOKUP[_name] = _code
    WONDER_LOOKUP[_name.removeprefix("THE ")] = _code

# Canonical texts (as legal_orders writes them): the fast paths of game.FiveX.
BID_TEXTS: list[str] = [f"BID {_n}" for _n in range(200)]
PASS_TEXT: tuple[str, ...] = tuple("PASS " + _id for _id in IDS)
TAKE_TEXT: tuple[str, ...] = tuple("TAKE " + _id for _id in IDS)
BUILD_TEXT: tuple[str, ...] = tuple("BUILD " + _l for _l in D.WONDER_LETTERS)
PLAY_TEXTS: dict[int, list[str]] = {}
"""Hand mask -> its ``PLAY <card>`` texts (filled as hands are met; at most 2**20)."""

# Prompt kinds: each phase -> the kind of order it takes.
K_PLAY, K_BID, K_PASS, K_DIDO, K_TAKE = range(5)
PHASE_KIND: dict[str, int] = {
    R.PLAY: K_PLAY, R.EXPLORE_PLAY: K_PLAY, R.ERIK_PLAY: K_PLAY, R.BID: K_BID,
    R.DRAFT: K_PASS, R.DIDO_PHASE: K_DIDO, R.EXCAVATE_PHASE: K_TAKE,
}
# Canonical text -> (kind, argument): ``PLAY <id>``, ``BID <n>`` (n < 200), ``PASS <id>``,
# ``BUILD``/``DECLINE`` (Dido) and ``TAKE <action card>``. A hit still has to be checked
# against the state; anything else goes through the full parser.
FAST: dict[str, tuple[int, Any]] = {}
for _code, _id in enumerate(IDS):
    FAST["PLAY " + _id] = (K_PLAY, _code)
    FAST[PASS_TEXT[_code]] = (K_PASS, _code)
    if not D.IS_LEADER[_code]:
        FAST[TAKE_TEXT[_code]] = (K_TAKE, _code)
for _n, _t in enumerate(BID_TEXTS):
    FAST[_t] = (K_BID, _n)
FAST["BUILD"] = (K_DIDO, "BUILD")
FAST["DECLINE"] = (K_DIDO, "DECLINE")

_PHASE_VERBS = {
    R.DRAFT: "PASS <leader>",
    R.PLAY: "PLAY <card>",
    R.EXPLORE_PLAY: "PLAY <card>",
    R.ERIK_PLAY: "PLAY <card>",
    R.BID: "BID <n>",
    R.DIDO_PHASE: "BUILD or DECLINE",
    R.EXCAVATE_PHASE: "TAKE <card>, TAKE <leader> FROM <seat> or BUILD <letter>",
}


def seat_index(s: State, seat: str) -> int:
    """The index of ``seat`` in the seating order; IllegalOrder if it is not a seat."""
    try:
        return s["players"].index(seat)
    except ValueError:
        raise IllegalOrder(f"{seat!r} is not a seat in this game") from None


def _list(items: list[str]) -> str:
    return ", ".join(items)


# --- legal orders -----------------------------------------------------------------------


def bid_range(s: State, i: int) -> tuple[int, int]:
    """The lowest and highest bid seat ``i`` may make now."""
    return D.MIN_BID[s["played"][i]], s["res"][i]


def option_text(s: State, opt: tuple[int, int]) -> str:
    """The order text of one Excavate option."""
    kind, x = opt
    if kind == 0:
        return TAKE_TEXT[x]
    if kind == 1:
        return f"{TAKE_TEXT[x]} FROM {s['players'][R.leader_owner(s, x)]}"
    return BUILD_TEXT[x]


def legal(s: State, i: int) -> list[str]:
    """Every legal order text for pending seat ``i``, in a stable order."""
    phase = s["phase"]
    if i not in s["pending"]:
        return []
    if phase in R.PLAY_PHASES:
        mask = s["hand"][i]
        texts = PLAY_TEXTS.get(mask)
        if texts is None:
            texts = PLAY_TEXTS[mask] = ["PLAY " + IDS[c] for c in R.cards_of(mask)]
        return texts[:]
    if phase == R.BID:
        lo, hi = bid_range(s, i)
        if hi < len(BID_TEXTS):
            return BID_TEXTS[lo : hi + 1]
        return [f"BID {n}" for n in range(lo, hi + 1)]
    if phase == R.DRAFT:
        return [PASS_TEXT[c] for c in s["dealt"][i]]
    if phase == R.DIDO_PHASE:
        return ["BUILD", "DECLINE"]
    if phase == R.EXCAVATE_PHASE:
        return [TAKE_TEXT[x] if k == 0 else option_text(s, (k, x))
                for k, x in R.excavate_options(s, i)]
    return []


def default(s: State, i: int) -> str:
    """The default (no-show) order text for pending seat ``i``."""
    phase = s["phase"]
    if phase in R.PLAY_PHASES:
        return "PLAY " + IDS[R.lowest_card(s["hand"][i])]
    if phase == R.BID:
        return f"BID {bid_range(s, i)[0]}"
    if phase == R.DRAFT:
        return "PASS " + IDS[s["dealt"][i][0]]
    if phase == R.DIDO_PHASE:
        return "DECLINE"
    if phase == R.EXCAVATE_PHASE:
        return option_text(s, R.excavate_options(s, i)[0])
    raise IllegalOrder("you are not asked to order now")


# --- parsing ----------------------------------------------------------------------------


def _refuse(s: State, i: int, what: str) -> IllegalOrder:
    """An IllegalOrder: ``what`` was wrong, then what seat ``i`` may order now."""
    phase = s["phase"]
    if phase in R.PLAY_PHASES:
        allowed = "you can play: " + _list([IDS[c] for c in R.cards_of(s["hand"][i])])
    elif phase == R.BID:
        allowed = _bid_rule(s, i)
    elif phase == R.DRAFT:
        allowed = "you can pass: " + " or ".join(IDS[c] for c in s["dealt"][i])
    elif phase == R.DIDO_PHASE:
        allowed = "you can order: BUILD (pay 3 for the current Wonder) or DECLINE"
    else:
        allowed = "you can order: " + _list(legal(s, i))
    return IllegalOrder(f"{what}; {allowed}")


def _bid_rule(s: State, i: int) -> str:
    lo, hi = bid_range(s, i)
    c = s["played"][i]
    who = "a bid" if c == D.EXPAND else D.CARDS[c].name
    verb = "must be" if c == D.EXPAND else "must bid"
    return f"you have {hi} resources; {who} {verb} between {lo} and {hi}"


def _card(s: State, i: int, arg: str, verb: str) -> int:
    code = CARD_LOOKUP.get(arg)
    if code is None:
        if not arg:
            raise _refuse(s, i, f"{verb} needs a card")
        raise _refuse(s, i, f"{arg!r} is not a 5X card")
    return code


def parse(s: State, seat: str, text: str) -> dict[str, Any]:
    """Parse and validate ``seat``'s order text for the current prompt (the full
    parser; ``FiveX.parse_order`` tries the canonical texts first)."""
    i = seat_index(s, seat)
    if i not in s["pending"]:
        if s["phase"] == R.OVER:
            raise IllegalOrder("you are not asked to order now: the game is over")
        raise IllegalOrder("you are not asked to order now")
    if not isinstance(text, str):
        raise IllegalOrder("an order must be text")
    phase = s["phase"]
    lines = order_lines(text)
    if not lines:
        raise _refuse(s, i, "the order is empty")
    if len(lines) > 1:
        raise _refuse(s, i, f"send exactly one order per message, not {len(lines)}")
    line = lines[0].upper()
    verb, _, arg = line.partition(" ")
    if phase in R.PLAY_PHASES:
        return _parse_play(s, i, verb, arg)
    if phase == R.BID:
        return _parse_bid(s, i, verb, arg)
    if phase == R.DRAFT:
        return _parse_pass(s, i, verb, arg)
    if phase == R.DIDO_PHASE:
        return _parse_dido(s, i, verb, arg)
    return _parse_excavate(s, i, verb, arg)


def in_language(text: str) -> bool:
    """Whether ``text`` is one order of the 5X language, legal now or not (the module
    docstring's table, in any phase): ``PASS <leader>``, ``PLAY <card>``, ``BID <n>``,
    ``BUILD`` and ``DECLINE``, ``TAKE <card>``, ``TAKE <leader> FROM <seat>``,
    ``BUILD <Wonder>``; a card by its id or full name, a Wonder by its letter or name, in
    any case, on one line (blank and ``#`` lines aside)."""
    if not isinstance(text, str):
        return False
    lines = order_lines(text)
    if len(lines) != 1:
        return False
    verb, _, arg = lines[0].upper().partition(" ")
    if verb == "PLAY":
        return arg in CARD_LOOKUP
    if verb == "PASS":
        return arg in CARD_LOOKUP and D.IS_LEADER[CARD_LOOKUP[arg]]
    if verb == "BID":
        return arg.isascii() and arg.isdigit()
    if verb == "BUILD":
        return not arg or arg in WONDER_LOOKUP
    if verb == "DECLINE":
        return not arg
    if verb == "TAKE":
        card, sep, owner = arg.partition(" FROM ")
        if card not in CARD_LOOKUP:
            return False
        return not sep or (D.IS_LEADER[CARD_LOOKUP[card]] and bool(owner.strip()))
    return False


def _wrong_verb(s: State, i: int, verb: str) -> IllegalOrder:
    phase = s["phase"]
    return _refuse(s, i, f"{verb} is not an order of the {phase} phase "
                         f"(order {_PHASE_VERBS[phase]})")


def _parse_play(s: State, i: int, verb: str, arg: str) -> dict[str, Any]:
    if verb != "PLAY":
        raise _wrong_verb(s, i, verb)
    code = _card(s, i, arg, "PLAY")
    if not s["hand"][i] >> code & 1:
        raise _refuse(s, i, f"{IDS[code]} is not in your hand")
    return {"play": IDS[code]}


def _parse_bid(s: State, i: int, verb: str, arg: str) -> dict[str, Any]:
    if verb != "BID":
        raise _wrong_verb(s, i, verb)
    if not arg:
        raise _refuse(s, i, "BID needs a number")
    if arg[:1] == "-" and arg[1:].isdigit() and arg[1:].isascii():
        raise IllegalOrder(_bid_rule(s, i))  # a negative number: say what the bid may be
    if not (arg.isdigit() and arg.isascii()):
        raise _refuse(s, i, f"{arg!r} is not a whole number")
    lo, hi = bid_range(s, i)
    # More digits than any bid has are out of range without reading them (Python refuses
    # to read a number of over 4,300 digits: the runner crashed on such a bid).
    if len(arg.lstrip("0")) > 9 or not lo <= int(arg) <= hi:
        raise IllegalOrder(_bid_rule(s, i))
    return {"bid": int(arg)}


def _parse_pass(s: State, i: int, verb: str, arg: str) -> dict[str, Any]:
    if verb != "PASS":
        raise _wrong_verb(s, i, verb)
    code = _card(s, i, arg, "PASS")
    if code not in s["dealt"][i]:
        if not D.IS_LEADER[code]:
            raise _refuse(s, i, f"{IDS[code]} is not a Great Leader")
        raise _refuse(s, i, f"you were not dealt {IDS[code]}")
    return {"pass": IDS[code]}


def _parse_dido(s: State, i: int, verb: str, arg: str) -> dict[str, Any]:
    if verb == "DECLINE" and not arg:
        return {"dido": "DECLINE"}
    if verb == "BUILD":
        if not arg or WONDER_LOOKUP.get(arg) == s["cur"]:
            return {"dido": "BUILD"}
        raise _refuse(s, i, f"Dido can only build the current Wonder, "
                            f"{D.WONDER_LETTERS[s['cur']]}, not {arg!r}")
    if verb == "DECLINE":
        raise _refuse(s, i, "DECLINE takes nothing after it")
    raise _wrong_verb(s, i, verb)


def _parse_excavate(s: State, i: int, verb: str, arg: str) -> dict[str, Any]:
    opts = R.excavate_options(s, i)
    played = s["played"][i]
    if verb == "BUILD":
        w = WONDER_LOOKUP.get(arg)
        if w is None:
            raise _refuse(s, i, f"{arg!r} is not a Wonder" if arg else "BUILD needs a Wonder")
        if (2, w) not in opts:
            if played != D.SULEIMAN:
                why = "only Suleiman can build a Wonder when excavating"
            elif s["res"][i] < D.BUILD_COST:
                why = f"Suleiman needs 3 resources to build and you have {s['res'][i]}"
            else:
                why = f"{D.WONDER_LETTERS[w]} is not a removed Wonder"
            raise _refuse(s, i, why)
        return {"build": D.WONDER_LETTERS[w]}
    if verb != "TAKE":
        raise _wrong_verb(s, i, verb)
    card, sep, source = arg.partition(" FROM ")
    if not sep and arg.endswith(" FROM"):
        raise _refuse(s, i, "FROM needs a seat")
    code = _card(s, i, card, "TAKE")
    if not D.IS_LEADER[code]:
        if sep:
            raise _refuse(s, i, f"{IDS[code]} can only come from your own discard pile")
        if (0, code) not in opts:
            raise _refuse(s, i, f"{IDS[code]} is not in your discard pile")
        return {"take": IDS[code]}
    if played != D.CAESAR:
        raise _refuse(s, i, "only Caesar can take back a Great Leader")
    owner = R.leader_owner(s, code)
    if owner < 0:
        raise _refuse(s, i, f"{IDS[code]} is not in any discard pile")
    players = s["players"]
    if sep:
        want = " ".join(source.split()).casefold()
        named = [j for j, p in enumerate(players) if " ".join(p.split()).casefold() == want]
        if not named:
            raise _refuse(s, i, f"{source.lower()!r} is not a seat in this game")
        # Names that differ only in case are all this text: the one holding it is meant.
        if owner not in named:
            raise _refuse(
                s, i, f"{IDS[code]} is in {players[owner]}'s discard pile, "
                      f"not {players[named[0]]}'s"
            )
    return {"take": IDS[code], "from": players[owner]}


def decode(s: State, i: int, order: Any) -> Any:
    """Turn a parsed order of seat ``i`` into the internal value the step functions
    take; IllegalOrder if it does not fit the current prompt."""
    try:
        phase = s["phase"]
        if phase in R.PLAY_PHASES:
            c = D.CARD_CODE[order["play"]]
            if not s["hand"][i] >> c & 1:
                raise KeyError(c)
            return c
        if phase == R.BID:
            n = order["bid"]
            lo, hi = bid_range(s, i)
            if not (isinstance(n, int) and lo <= n <= hi):
                raise KeyError(n)
            return n
        if phase == R.DRAFT:
            c = D.CARD_CODE[order["pass"]]
            if c not in s["dealt"][i]:
                raise KeyError(c)
            return c
        if phase == R.DIDO_PHASE:
            return {"BUILD": True, "DECLINE": False}[order["dido"]]
        if phase == R.EXCAVATE_PHASE:
            if "build" in order:
                opt = (2, WONDER_LOOKUP[order["build"]])
            else:
                c = D.CARD_CODE[order["take"]]
                opt = (1 if D.IS_LEADER[c] else 0, c)
            if opt not in R.excavate_options(s, i):
                raise KeyError(opt)
            return opt
    except (KeyError, TypeError, ValueError):
        pass
    raise IllegalOrder(f"order {order!r} does not fit the {s['phase']} prompt")
