"""What people see of a 5X game: the umpire's report, per-seat views, and the secrets a
seat holds (for the secrecy property tests)."""

from __future__ import annotations

from typing import Any

from engine.base import dumps
from engine.fivex import data as D
from engine.fivex import orders as O
from engine.fivex import rules as R

State = dict[str, Any]
IDS = D.CARD_IDS
LETTERS = D.WONDER_LETTERS


def wonders_table(s: State) -> dict[str, Any]:
    """``{"current": letter|None, "built": {letter: seat}, "removed": [letters]}``."""
    players = s["players"]
    built = {}
    removed = []
    for w, owner in enumerate(s["wonders"]):
        if owner >= 0:
            built[LETTERS[w]] = players[owner]
        elif owner == R.REMOVED:
            removed.append(LETTERS[w])
    cur = s["cur"]
    return {
        "current": LETTERS[cur] if cur >= 0 and s["phase"] != R.OVER else None,
        "built": built,
        "removed": removed,
    }


def _public_player(s: State, i: int) -> dict[str, Any]:
    played = s["played"][i]
    bid = s["bids"][i]
    out: dict[str, Any] = {
        "resources": s["res"][i],
        "vp": R.fmt_vp(R.vp_halves(s, i)),
        "wonders": [LETTERS[w] for w, o in enumerate(s["wonders"]) if o == i],
    }
    out["played"] = IDS[played] if played >= 0 else None
    if bid >= 0:
        out["bid"] = bid
    return out


def report(s: State) -> dict[str, Any]:
    """The umpire's complete table, as ``python -m engine run`` prints it."""
    players = s["players"]
    over = s["phase"] == R.OVER
    out: dict[str, Any] = {
        "round": s["round"],
        "phase": s["phase"],
        "pending": [players[i] for i in s["pending"]],
        "wonders": wonders_table(s),
    }
    table = {}
    for i, name in enumerate(players):
        p = _public_player(s, i)
        p["hand"] = [IDS[c] for c in R.cards_of(s["hand"][i])]
        p["discard"] = [IDS[c] for c in s["disc"][i]]
        if s["phase"] == R.DRAFT:
            p["dealt"] = [IDS[c] for c in s["dealt"][i]]
        table[name] = p
    out["players"] = table
    if over:
        out["ranking"] = [[players[i] for i in g] for g in R.rank(s)]
    return out


def view(s: State, seat: str | None) -> dict[str, Any]:
    """What ``seat`` may know now (``None``: a spectator): public information (resources,
    VP, Wonders, discard piles, hand sizes, the cards and bids revealed this round, who
    is pending) plus, for a seat, its own hand, its own dealt and passed leaders and the
    orders it may give now. Cards played this round are in the state only once revealed
    (each play step reveals its cards before the next step is asked)."""
    players = s["players"]
    me = -1 if seat is None else O.seat_index(s, seat)
    n = len(players)
    out: dict[str, Any] = {
        "game": "5x",
        "seat": seat,
        "round": s["round"],
        "rounds": s["rounds"],
        "phase": s["phase"],
        "pending": [players[i] for i in s["pending"]],
        "wonders": wonders_table(s),
    }
    table = {}
    for i, name in enumerate(players):
        p = _public_player(s, i)
        p["hand_size"] = len(R.cards_of(s["hand"][i]))
        p["discard"] = [IDS[c] for c in s["disc"][i]]
        table[name] = p
    out["players"] = table
    if me >= 0:
        out["hand"] = [IDS[c] for c in R.cards_of(s["hand"][me])]
        if s["leaders"]:
            out["dealt"] = [IDS[c] for c in s["dealt"][me]]
            if s["passed"][me] >= 0:
                out["passed"] = {"leader": IDS[s["passed"][me]], "to": players[(me + 1) % n]}
                right = (me - 1) % n
                out["received"] = {"leader": IDS[s["passed"][right]], "from": players[right]}
        if me in s["pending"]:
            out["orders"] = O.legal(s, me)
    if s["phase"] == R.OVER:
        out["ranking"] = [[players[i] for i in g] for g in R.rank(s)]
    return out


def secrets(s: State, seat: str) -> list[str]:
    """JSON fragments (as ``engine.base.dumps`` writes them) that only ``seat`` may
    know now: its hand and the two leaders it was dealt."""
    i = O.seat_index(s, seat)
    out = []
    if s["phase"] != R.DRAFT:
        out.append('"hand":' + dumps([IDS[c] for c in R.cards_of(s["hand"][i])]))
    if s["leaders"]:
        out.append('"dealt":' + dumps([IDS[c] for c in s["dealt"][i]]))
    return out


def revealed(s: State, seat: str) -> dict[str, Any]:
    """``seat``'s hidden cards as fields of its ``players`` entry: its hand, and in the
    draft the leaders it was dealt (the hand holds them only after the draft)."""
    i = O.seat_index(s, seat)
    out: dict[str, Any] = {"hand": [IDS[c] for c in R.cards_of(s["hand"][i])]}
    if s["phase"] == R.DRAFT and s["leaders"]:
        out["dealt"] = [IDS[c] for c in s["dealt"][i]]
    return out
