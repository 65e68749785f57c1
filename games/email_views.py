"""Each game's table as a turn email (and the STATUS answer) shows it, in words.

Plain Python rather than templates: a resolution renders one per seat inside the
worker's transaction, and a Django template cost ~1 ms each (~20 times this). A ruleset
without an entry here is shown by ``games.email_text.format_view`` (every key of its view).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.fivex import data as fivex_data
from games.presentation import fivex_tiebreak_note, sixbyfive_result


def _n(value: Any) -> Any:
    """2.0 -> 2, 2.5 stays."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _s(count: Any) -> str:
    return "" if count == 1 else "s"


def _you(name: str, seat: str | None) -> str:
    return f"{name} (you)" if name == seat else name


_FIVEX_CARDS = {card.id: card for card in fivex_data.CARDS}
_FIVEX_ACTIONS = {card.action: card.name for card in fivex_data.CARDS if not card.leader}


def _card(card_id: Any) -> str:
    """A 5X card as an order names it, with a leader's full name and the action it counts
    as, as the page shows them: ``QIN (Qin Shi Huang, an Exploit)``; an action card as
    its id."""
    card = _FIVEX_CARDS.get(str(card_id))
    if card is None or not card.leader:
        return str(card_id)
    return f"{card.id} ({card.name}, an {_FIVEX_ACTIONS.get(card.action, card.action)})"


def _cards(ids: Any) -> str:
    return ", ".join(_card(c) for c in ids or [])


def fivex(v: dict[str, Any], seat: str | None) -> str:
    if v.get("phase") == "over":
        head = f"Game over after round {v.get('round')}."
        if note := fivex_tiebreak_note(v):
            head += " " + note
    elif v.get("round") == 0:
        head = "Great Leader draft."
    else:
        head = f"Round {v.get('round')} of {v.get('rounds')}, phase {v.get('phase')}."
    lines = [head]
    if v.get("hand"):
        lines.append("Your hand: " + _cards(v["hand"]))
    if v.get("dealt"):
        text = "Leaders dealt to you: " + _cards(v["dealt"])
        if v.get("passed"):
            text += f"; you passed {_card(v['passed']['leader'])} to {v['passed']['to']}"
        if v.get("received"):
            text += f"; you received {_card(v['received']['leader'])} from {v['received']['from']}"
        lines.append(text)
    wonders = v.get("wonders") or {}
    built, removed = wonders.get("built") or {}, set(wonders.get("removed") or [])
    lines += ["", "Wonders:"]
    for w in fivex_data.WONDERS:
        bonus = f" (+{w.bonus} resource{_s(w.bonus)} when built)" if w.bonus else ""
        if w.letter in built:
            state = f"built by {built[w.letter]}"
        elif w.letter in removed:
            state = "removed"
        elif w.letter == wonders.get("current"):
            state = "up for bids now"
        else:
            state = "to come"
        lines.append(f"  {w.letter} {w.name}, {_n(w.vp_halves / 2)} VP{bonus}: {state}")
    lines += ["", "Players:"]
    for name, p in (v.get("players") or {}).items():
        held = p.get("wonders") or []
        text = (
            f"  {_you(name, seat)}: {_n(p.get('vp'))} VP, {p.get('resources')} "
            f"resource{_s(p.get('resources') or 0)}, "
            + (f"Wonder{_s(len(held))} {' '.join(held)}" if held else "no Wonder")
            + (
                # a game that is over: every hand face up
                f", hand: {_cards(p['hand']) or 'empty'}"
                + (f", leaders dealt: {_cards(p['dealt'])}" if p.get("dealt") else "")
                if p.get("hand") is not None
                else f", {p.get('hand_size') or 0} card{_s(p.get('hand_size') or 0)} in hand"
            )
        )
        if p.get("played"):
            text += f", played {_card(p['played'])}"
        if p.get("bid") is not None:
            text += f", bid {p['bid']}"
        lines.append(text + "; discard pile: " + (_cards(p.get("discard")) or "empty"))
    return "\n".join(lines)


def _dice(dice: Any) -> str:
    """Each die with the number HIT orders give it: ``die 1: 2/0 -> EXPLORE`` (an email
    player counted positions to know that ``HIT Cat 3`` meant the third)."""
    return ", ".join(
        f"die {i}: {d['face'][0]}/{d['face'][1]} -> {d.get('area') or '?'}"
        for i, d in enumerate(dice or [], start=1)
    )


def fourxdice(v: dict[str, Any], seat: str | None) -> str:
    phase, turn, first = v.get("phase"), v.get("turn"), v.get("first")
    if phase == "over":
        head = f"Game over after round {v.get('round')}."
    elif v.get("round") == 0:
        head = "Set-up: every seat allocates its first roll."
    else:
        # A game ended in mid-round asks nobody (its pending emptied): no one's turn.
        asked = v.get("pending")
        if not turn or (asked is not None and turn not in asked):
            whose = ""
        else:
            whose = ": your turn" if turn == seat else f": {turn}'s turn"
        head = f"Round {v.get('round')}, phase {phase}{whose}."
    players = v.get("players") or {}
    if first and phase != "over":
        head += " You move first each round." if first == seat else f" {first} moves first each round."
        names = list(players)
        if first in names and len(names) > 2:
            # The players below are in seating order; turns go round from the first.
            at = names.index(first)
            order = [_you(name, seat) for name in names[at:] + names[:at]]
            head += f" Turn order: {', '.join(order)}."
    lines = [head]
    mine = players.get(seat) or {}
    if mine.get("dice"):
        lines.append(f"Your dice (ships/asteroids -> area): {_dice(mine['dice'])}")
    lines += ["", "Players (tracks 0 to 19):"]
    for name, p in players.items():
        lines.append(
            f"  {_you(name, seat)}: eXplore {p.get('explore')}, eXpand {p.get('expand')}, "
            f"eXtract {p.get('extract')}, eXterminate {p.get('exterminate')}; {p.get('vp')} VP, "
            f"score {p.get('score')}; dice {_dice(p.get('dice')) or 'none'}"
        )
    return "\n".join(lines)


_COLOURS = (("K", "black"), ("B", "blue"), ("R", "red"), ("Y", "yellow"))


def _cells(cells: Any) -> str:
    return " ".join(f"{int(c[0])},{int(c[1])}" for c in cells or [])


def hex_sketch(letters: dict[tuple[int, int], str], indent: str = "  ") -> list[str]:
    """Hexes drawn in text (an email-only 6x5 player had coordinates only): one line a row
    ``r`` (top to bottom), each hex two characters right of its neighbour ``q+1`` and a
    row half a hex right of the one above, so that ``q,r``'s six neighbours sit around it.
    Each line starts with its ``r``."""
    if not letters:
        return []
    column = {cell: 2 * cell[0] + cell[1] for cell in letters}
    left, right = min(column.values()), max(column.values())
    rows = sorted({r for _q, r in letters})
    width = max(len(str(r)) for r in rows)
    lines = []
    for r in rows:
        line = [" "] * (right - left + 1)
        for cell, letter in letters.items():
            if cell[1] == r:
                line[column[cell] - left] = letter
        lines.append(f"{indent}r={r:>{width}}  {''.join(line).rstrip()}")
    return lines


def _board_cells(board: dict[str, Any]) -> dict[tuple[int, int], str]:
    out = {}
    for key, tile in board.items():
        q, _sep, r = str(key).partition(",")
        try:
            out[(int(q), int(r))] = str(tile)
        except ValueError:
            continue
    return out


def sixbyfive(v: dict[str, Any], seat: str | None) -> str:
    if v.get("phase") == "over":
        head = f"Game over after turn {v.get('turn')}."
        if v.get("result"):
            result = sixbyfive_result(str(v["result"]), v.get("board"))
            # A seat name keeps its case ("bob wins", not "Bob wins": names are
            # case-significant in orders); other texts start a sentence.
            seats = v.get("players") or {}
            named = any(result == s or result.startswith(f"{s} ") for s in seats)
            head += f" {result if named else result[:1].upper() + result[1:]}."
    else:
        movers = ["your move" if s == seat else f"{s} to move" for s in v.get("pending") or []]
        # Nobody moves in a game ended early (its pending emptied): "Turn 4.", not "Turn 4: ."
        head = f"Turn {v.get('turn')}: {''.join(movers)}." if movers else f"Turn {v.get('turn')}."
    board = v.get("board") or {}
    lines = [head, "", "Board (hexes q,r):"]
    for letter, colour in _COLOURS:
        hexes = [key for key, tile in board.items() if tile == letter]
        lines.append(f"  {colour}: {' '.join(hexes) or 'none'}")
    if len(board) > 1:  # the black tile alone needs no drawing
        lines += ["Sketch (K black, B blue, R red, Y yellow):", *hex_sketch(_board_cells(board))]
    pawns = v.get("pawns") or {}
    lines.append(
        "Pawns: " + "; ".join(f"{_you(s, seat)} on {h or 'no hex yet'}" for s, h in pawns.items())
    )
    reserve = v.get("reserve") or {}
    lines.append(
        f"Reserve: {reserve.get('BLUE')} blue, {reserve.get('RED')} red, "
        f"{reserve.get('YELLOW')} yellow. Goal cards left: {v.get('deck')}."
    )
    players = v.get("players") or {}
    goals = (players.get(seat) or {}).get("goals") or []
    if goals:
        lines += ["", f"Your goal{_s(len(goals))} (any rotation, never mirrored):"]
        for i, goal in enumerate(goals, start=1):
            lines.append(f"  {i}. {_cells(goal)}")
            shape = {(int(c[0]), int(c[1])): "o" for c in goal}
            lines += hex_sketch(shape, indent="       ")
    lines += ["", "Players:"]
    for name, p in players.items():
        # points only when the game scores them (Scoring Points: the ``target`` option)
        scored = (
            f"{p.get('points')} point{_s(p.get('points'))}, "
            if (v.get("options") or {}).get("target") else ""
        )
        text = f"  {_you(name, seat)}: {scored}{p.get('goal_count')} goal{_s(p.get('goal_count'))}"
        if p.get("goals") and name != seat:
            text += " (" + "; ".join(_cells(g) for g in p["goals"]) + ")"
        if p.get("discarded"):
            text += "; shown and discarded: " + "; ".join(_cells(g) for g in p["discarded"])
        lines.append(text)
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[dict[str, Any], str | None], str]] = {
    "5x": fivex,
    "4x-dice": fourxdice,
    "6x5": sixbyfive,
}
