"""The 6x5 order language (``shared/spec/6x5.md``): parsing, and the legality checks
of a parsed order against the table.

One action per order, optionally preceded by ``CHANGE <k>`` (on its own line, or on the
same line before the action)::

    PLACE <colour> <q>,<r>          colour: BLUE, RED, YELLOW or B, R, Y
    SWITCH <q>,<r> TO <colour>
    MOVE BLACK TO <q>,<r>
    SWAP <q1>,<r1> <q2>,<r2>

Words are case-insensitive, runs of spaces and spaces around the comma of a hex are
ignored (``1, 0`` is ``1,0``), blank lines and lines starting with ``#`` are dropped (a
``#`` later in a line starts a comment too), and ``;`` separates lines like a newline.
Optional filler words are accepted: ``AT``/``ON`` in PLACE, ``TO`` in SWITCH,
``BLACK``/``K`` and ``TO`` in MOVE, ``AND``/``WITH`` in SWAP.
"""

from __future__ import annotations

import re
from typing import Any

from engine.base import IllegalOrder, State, order_lines
from engine.sixbyfive_shapes import distance_from_origin, hex_key, key_cell, neighbours, parse_hex

COLOURS = ("BLUE", "RED", "YELLOW")
LETTER = {"BLUE": "B", "RED": "R", "YELLOW": "Y"}
COLOUR_OF = {"B": "BLUE", "R": "RED", "Y": "YELLOW"}
BLACK = "K"

COLOUR_WORDS = {
    "BLUE": "BLUE",
    "B": "BLUE",
    "RED": "RED",
    "R": "RED",
    "YELLOW": "YELLOW",
    "Y": "YELLOW",
}
FORMS = {
    "PLACE": "PLACE <colour> <q>,<r> (e.g. PLACE BLUE 1,0)",
    "SWITCH": "SWITCH <q>,<r> TO <colour> (e.g. SWITCH 1,0 TO RED)",
    "MOVE": "MOVE BLACK TO <q>,<r> (e.g. MOVE BLACK TO 1,1)",
    "SWAP": "SWAP <q1>,<r1> <q2>,<r2> (e.g. SWAP 1,0 2,0)",
    "CHANGE": "CHANGE <k> on one line, then the action on the next",
}
_COMMA = re.compile(r"\s*,\s*")
# Minus signs as word processors and phones write them ("2,\u22121"): read as "-".
_MINUS = str.maketrans(dict.fromkeys("\u2212\u2010\u2011\u2012\u2013\ufe63\uff0d", "-"))


def _tokens(line: str) -> list[str]:
    line = line.split("#", 1)[0].translate(_MINUS)  # a comment may also end a line
    line = _COMMA.sub(",", line.upper()).replace("(", " ").replace(")", " ")
    return line.split()


def _colour(token: str | None, verb: str) -> str:
    if token is None:
        raise IllegalOrder(f"{verb} needs a colour; write {FORMS[verb]}")
    colour = COLOUR_WORDS.get(token)
    if colour is None:
        raise IllegalOrder(f"{token!r} is not a colour; use BLUE, RED or YELLOW (or B, R, Y)")
    return colour


def _hex(token: str | None, verb: str) -> str:
    if token is None:
        raise IllegalOrder(f"{verb} needs a hex; write {FORMS[verb]}")
    cell = parse_hex(token)
    if cell is None:
        raise IllegalOrder(f"{token!r} is not a hex; write a hex as q,r (e.g. 1,0 or -1,2)")
    return hex_key(cell)


def _drop(tokens: list[str], words: tuple[str, ...]) -> list[str]:
    """Drop one optional filler word at the front."""
    return tokens[1:] if tokens and tokens[0] in words else tokens


def _no_more(tokens: list[str], verb: str) -> None:
    if tokens:
        raise IllegalOrder(
            f"unexpected {' '.join(tokens)!r} at the end of the order; write {FORMS[verb]}"
        )


def _action(tokens: list[str], allowed: list[str]) -> dict[str, Any]:
    verb, rest = tokens[0], tokens[1:]
    if verb == "PLACE":
        # PLACE <colour> <hex>; the hex first is tolerated too.
        if rest and parse_hex(rest[0]) is not None and len(rest) >= 2 and rest[1] in COLOUR_WORDS:
            rest = [rest[1], rest[0], *rest[2:]]
        colour = _colour(rest[0] if rest else None, verb)
        rest = _drop(rest[1:], ("AT", "ON"))
        key = _hex(rest[0] if rest else None, verb)
        _no_more(rest[1:], verb)
        return {"kind": "place", "colour": colour, "hex": key}
    if verb == "SWITCH":
        key = _hex(rest[0] if rest else None, verb)
        rest = _drop(rest[1:], ("TO",))
        colour = _colour(rest[0] if rest else None, verb)
        _no_more(rest[1:], verb)
        return {"kind": "switch", "hex": key, "colour": colour}
    if verb == "MOVE":
        if rest and rest[0] not in ("BLACK", "K", "TO") and parse_hex(rest[0]) is None:
            raise IllegalOrder(f"only the black tile can be moved; write {FORMS['MOVE']}")
        rest = _drop(_drop(rest, ("BLACK", "K")), ("TO",))
        key = _hex(rest[0] if rest else None, verb)
        _no_more(rest[1:], verb)
        return {"kind": "move", "hex": key}
    if verb == "SWAP":
        first = _hex(rest[0] if rest else None, verb)
        rest = _drop(rest[1:], ("AND", "WITH"))
        second = _hex(rest[0] if rest else None, verb)
        _no_more(rest[1:], verb)
        return {"kind": "swap", "hex": first, "hex2": second}
    raise IllegalOrder(f"unknown order {verb!r}; allowed now: {'; '.join(allowed)}")


def parse_text(text: str, allowed: list[str]) -> dict[str, Any]:
    """Parse an order text into ``{"change": k or None, "kind": ..., ...}``.

    ``allowed`` lists the forms allowed now, for the error message of an unknown word.
    Raises IllegalOrder for anything that is not one well-formed order."""
    if not isinstance(text, str):
        raise IllegalOrder("an order must be text")
    lines = [_tokens(line) for line in order_lines(text.replace(";", "\n"))]
    lines = [t for t in lines if t]
    if not lines:
        raise IllegalOrder(f"the order is empty; allowed now: {'; '.join(allowed)}")
    change = None
    if lines[0][0] == "CHANGE":
        if not any(form.startswith("CHANGE") for form in allowed):
            raise IllegalOrder("CHANGE is only allowed with the change_goal option")
        first = lines[0]
        if len(first) < 2 or not re.fullmatch(r"[0-9]{1,3}", first[1]):
            raise IllegalOrder(f"CHANGE needs the number of a goal; write {FORMS['CHANGE']}")
        change = int(first[1])
        lines = ([first[2:]] if len(first) > 2 else []) + lines[1:]
        if not lines:
            raise IllegalOrder(
                "CHANGE must be followed by the turn's action, on the same line or the next "
                "(PLACE, SWITCH, MOVE BLACK or SWAP)"
            )
        if lines[0][0] == "CHANGE":
            raise IllegalOrder("only one goal may be changed per turn")
    if any(line[0] == "CHANGE" for line in lines[1:]):  # a CHANGE after the action
        if not any(form.startswith("CHANGE") for form in allowed):
            raise IllegalOrder("CHANGE is only allowed with the change_goal option")
        if change is not None:
            raise IllegalOrder("only one goal may be changed per turn")
        raise IllegalOrder(
            "CHANGE comes first: write CHANGE <k> on one line, then the action on the next"
        )
    if len(lines) > 1:
        raise IllegalOrder(
            f"one action per turn: the order has {len(lines)} action lines; send only one of them"
        )
    order = _action(lines[0], allowed)
    order["change"] = change
    return order


def in_language(text: str) -> bool:
    """Whether ``text`` is one 6x5 order, legal now or not: ``parse_text`` with every
    form allowed (``CHANGE <k>`` before the action or not, ``SWAP`` in any game), without
    looking at the table."""
    try:
        parse_text(text, list(FORMS.values()))
    except IllegalOrder:
        return False
    return True


def order_text(order: dict[str, Any]) -> str:
    """The canonical text of a parsed order (the form ``legal_orders`` lists)."""
    kind = order["kind"]
    if kind == "place":
        text = f"PLACE {order['colour']} {order['hex']}"
    elif kind == "switch":
        text = f"SWITCH {order['hex']} TO {order['colour']}"
    elif kind == "move":
        text = f"MOVE BLACK TO {order['hex']}"
    else:
        text = f"SWAP {order['hex']} {order['hex2']}"
    if order.get("change") is not None:
        text = f"CHANGE {order['change']}\n{text}"
    return text


# --- legality against the table ------------------------------------------------


def verbs_now(state: State) -> list[str]:
    """The order forms allowed now, for error messages: only those with a legal order
    (no SWITCH while every tile but the black one is under a pawn, no MOVE BLACK while a
    pawn stands on it)."""
    verbs = []
    empty = reserve_empty(state)
    board, reserve = state["board"], state["reserve"]
    pawned = {v for v in state["pawns"].values() if v is not None}
    if not empty:
        verbs.append("PLACE <colour> <q>,<r>")
        if any(
            tile != BLACK and key not in pawned
            and any(reserve[c] and LETTER[c] != tile for c in COLOURS)
            for key, tile in board.items()
        ):  # fmt: skip
            verbs.append("SWITCH <q>,<r> TO <colour>")
    if black_hex(state) not in pawned and frontier(board, exclude_black=True):
        verbs.append("MOVE BLACK TO <q>,<r>")
    if state["options"]["open_game"] and empty:
        verbs.append("SWAP <q1>,<r1> <q2>,<r2>")
    if state["options"]["change_goal"]:
        verbs.append("CHANGE <k> (then the action on the next line)")
    return verbs


def reserve_empty(state: State) -> bool:
    """Whether every colour of the reserve is used up."""
    return sum(state["reserve"].values()) == 0


def pawn_on(state: State, key: str) -> str | None:
    """The seat whose pawn stands on hex ``key`` (first in seating order), or ``None``."""
    for seat in state["players"]:
        if state["pawns"][seat] == key:
            return seat
    return None


def _describe_hex(board: dict[str, str], key: str) -> str:
    tile = board[key]
    return "the black tile" if tile == BLACK else f"a {COLOUR_OF[tile]} tile"


def check_order(state: State, seat: str, order: dict[str, Any]) -> None:
    """Raise IllegalOrder unless ``order`` (parsed) is legal for ``seat`` now."""
    opts = state["options"]
    board = state["board"]
    change = order.get("change")
    if change is not None:
        if not opts["change_goal"]:
            raise IllegalOrder("CHANGE is only allowed with the change_goal option")
        count = len(state["goals"][seat])
        if not 1 <= change <= count:
            raise IllegalOrder(
                f"you have {count} goal{'s' if count != 1 else ''}; "
                f"CHANGE takes a number from 1 to {count}"
            )
        if not state["deck"]:
            raise IllegalOrder("the goal deck is empty; no goal can be changed")
    kind = order["kind"]
    key = order["hex"]
    if kind == "place":
        colour = order["colour"]
        if state["reserve"][colour] == 0:
            if reserve_empty(state):
                raise IllegalOrder("the reserve is empty; no tile can be placed")
            raise IllegalOrder(f"there is no {colour} tile left in the reserve")
        if key in board:
            raise IllegalOrder(f"{key} already holds {_describe_hex(board, key)}")
        if not any(hex_key(n) in board for n in neighbours(key_cell(key))):
            raise IllegalOrder(f"{key} does not touch any tile")
    elif kind == "switch":
        colour = order["colour"]
        if key not in board:
            raise IllegalOrder(f"there is no tile at {key}")
        if board[key] == BLACK:
            raise IllegalOrder("the black tile cannot be switched")
        _check_pawn(state, key)
        old = COLOUR_OF[board[key]]
        if old == colour:
            others = " or ".join(c for c in COLOURS if c != old)
            raise IllegalOrder(f"the tile at {key} is already {old}; switch it to {others}")
        if state["reserve"][colour] == 0:
            raise IllegalOrder(f"there is no {colour} tile left in the reserve")
    elif kind == "move":
        black = black_hex(state)
        owner = pawn_on(state, black)
        if owner is not None:
            raise IllegalOrder(f"the black tile (at {black}) is under {owner}'s pawn")
        if key in board:
            raise IllegalOrder(f"{key} already holds {_describe_hex(board, key)}")
        if not any(
            hex_key(n) in board and board[hex_key(n)] != BLACK for n in neighbours(key_cell(key))
        ):
            raise IllegalOrder(f"{key} does not touch any tile other than the black tile")
    elif kind == "swap":
        if not (opts["open_game"] and reserve_empty(state)):
            left = sum(state["reserve"].values())
            extra = "" if not opts["open_game"] else f" (the reserve still holds {left} tiles)"
            raise IllegalOrder(
                "SWAP is only allowed in the open game once the reserve is empty" + extra
            )
        other = order["hex2"]
        if key == other:
            raise IllegalOrder("SWAP needs two different hexes")
        for k in (key, other):
            if k not in board:
                raise IllegalOrder(f"there is no tile at {k}")
        for k in (key, other):
            _check_pawn(state, k)
    else:  # pragma: no cover - parse_text only builds the kinds above
        raise IllegalOrder(f"unknown action {kind!r}")


def _check_pawn(state: State, key: str) -> None:
    owner = pawn_on(state, key)
    if owner is not None:
        raise IllegalOrder(f"the tile at {key} is under {owner}'s pawn")


def black_hex(state: State) -> str:
    """The board key of the black tile."""
    return next(k for k, v in state["board"].items() if v == BLACK)


# --- legal and default orders ------------------------------------------------------


def frontier(board: dict[str, str], exclude_black: bool = False) -> list[str]:
    """The empty hexes touching a tile (not counting the black tile when
    ``exclude_black``), sorted by q then r."""
    cells = [key_cell(k) for k, v in board.items() if not (exclude_black and v == BLACK)]
    free = {n for c in cells for n in neighbours(c) if hex_key(n) not in board}
    return [hex_key(c) for c in sorted(free)]


def legal_texts(state: State, seat: str) -> list[str]:
    """Every legal order text for ``seat`` (who must be pending): PLACE (colours in
    BLUE, RED, YELLOW order, hexes by q then r), SWITCH (tiles by q then r, colours in
    that order), MOVE BLACK (hexes by q then r), SWAP (ordered pairs of hexes by q then
    r); then, with change_goal and a non-empty deck, each ``CHANGE k`` (k ascending)
    followed by each of those actions."""
    board = state["board"]
    reserve = state["reserve"]
    out = []
    spots = frontier(board)
    for colour in COLOURS:
        if reserve[colour]:
            out += [f"PLACE {colour} {k}" for k in spots]
    pawned = {v for v in state["pawns"].values() if v is not None}
    tiles = sorted(board, key=key_cell)
    for k in tiles:
        if board[k] == BLACK or k in pawned:
            continue
        for colour in COLOURS:
            if LETTER[colour] != board[k] and reserve[colour]:
                out.append(f"SWITCH {k} TO {colour}")
    if black_hex(state) not in pawned:
        out += [f"MOVE BLACK TO {k}" for k in frontier(board, exclude_black=True)]
    if state["options"]["open_game"] and reserve_empty(state):
        free = [k for k in tiles if k not in pawned]
        out += [f"SWAP {a} {b}" for a in free for b in free if a != b]
    if state["options"]["change_goal"] and state["deck"]:
        actions = list(out)
        for k in range(1, len(state["goals"][seat]) + 1):
            out += [f"CHANGE {k}\n{a}" for a in actions]
    return out


def default_text(state: State, seat: str) -> str:
    """The order for a seat that missed its deadline: PLACE a tile of the colour with
    the most tiles left (ties: BLUE, RED, YELLOW) on the free hex touching a tile that
    is nearest to 0,0 (hex distance; ties: smaller q, then smaller r). With an empty
    reserve (open game): the first legal order."""
    reserve = state["reserve"]
    if not reserve_empty(state):
        colour = max(COLOURS, key=lambda c: (reserve[c], -COLOURS.index(c)))
        spots = frontier(state["board"])
        best = min(spots, key=lambda k: (distance_from_origin(key_cell(k)), key_cell(k)))
        return f"PLACE {colour} {best}"
    legal = legal_texts(state, seat)
    return legal[0] if legal else ""
