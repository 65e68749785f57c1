"""The game page's order pickers: 4X Dice's eXterminate (one row of choices per hit) and
6x5's turn (action, colour, then a hex tapped on the board), as the view offers them to
the acting seat; game.js drives them. Pure functions of the engine's view."""

from __future__ import annotations

import re
from typing import Any

from engine.base import IllegalOrder
from engine.sixbyfive_orders import order_text, parse_text

# The eXterminate picker offers at most this many hit rows; longer lists are typed.
HIT_ROWS_MAX = 12
HIT_KINDS = ("SHIP", "ASTEROID")  # 4X Dice: what a hit lowers, index 0 or 1 of a face


def die_showing(n: int, ships: int, asteroids: int) -> str:
    """A die in the hit picker, in words: "1: 2 ships, 1 asteroid" (what shows nothing is
    left out). game.js's dieShowing says the same."""
    shown = [f"{count} {word}{'' if count == 1 else 's'}"
             for count, word in ((ships, "ship"), (asteroids, "asteroid")) if count]  # fmt: skip
    return f"{n}: {', '.join(shown) or 'nothing'}"


def hit_picker(
    *, ruleset: str, view: dict[str, Any], seat_name: str, current_order: str = ""
) -> dict[str, Any] | None:
    """The 4X Dice eXterminate prompt as one row of choices per hit (seat, die, SHIP or
    ASTEROID), built from the seat's own view: as many rows as the ships on its
    eXterminate dice (no more than the other dice can take, at most ``HIT_ROWS_MAX``),
    and only the other seats' dice that show something. ``current_order`` (the seat's
    sealed order, if any) preselects its hits. None for any other prompt or seat."""
    if ruleset != "4x-dice" or view.get("phase") != "exterminate":
        return None
    if seat_name not in (view.get("pending") or []):
        return None
    players = view.get("players") or {}
    ships = sum(
        _face(d)[0]
        for d in (players.get(seat_name) or {}).get("dice") or []
        if isinstance(d, dict) and d.get("area") == "EXTERMINATE"
    )
    targets = []
    for name, player in players.items():
        if name == seat_name:
            continue
        dice = [
            {"n": n, "ships": ships_shown, "asteroids": asteroids_shown}
            for n, (ships_shown, asteroids_shown) in enumerate(
                (_face(d) for d in player.get("dice") or []), start=1
            )
            if ships_shown > 0 or asteroids_shown > 0
        ]
        if dice:
            targets.append({"seat": name, "dice": dice})
    units = sum(d["ships"] + d["asteroids"] for t in targets for d in t["dice"])
    count = min(ships, units, HIT_ROWS_MAX)
    if count <= 0:
        return None
    chosen = _offered_hits(current_order, targets)[:count]
    # What each row may still hit: the dice as they are after the rows above it.
    left = {t["seat"]: {d["n"]: [d["ships"], d["asteroids"]] for d in t["dice"]} for t in targets}
    rows = []
    for number in range(1, count + 1):
        seat, die, kind = chosen[number - 1] if number <= len(chosen) else ("", 0, "")
        offered = {
            name: [
                {"n": n, "ships": f[0], "asteroids": f[1], "label": die_showing(n, f[0], f[1])}
                for n, f in faces.items()
                if f[0] or f[1]
            ]
            for name, faces in left.items()
        }
        dice = offered.get(seat, [])
        face = next((d for d in dice if d["n"] == die), None)
        kinds = [k for k, key in zip(HIT_KINDS, ("ships", "asteroids"), strict=True)
                 if face and face[key]]  # fmt: skip
        if kind not in kinds:  # an earlier row took it: this row offers no such hit
            seat, die, kind = "", 0, ""
            dice, kinds = [], []
        else:
            left[seat][die][HIT_KINDS.index(kind)] -= 1
        rows.append(
            {"number": number, "seat": seat, "die": die, "kind": kind, "dice": dice, "kinds": kinds,
             "seats": [name for name, faces in offered.items() if faces]}
        )  # fmt: skip
    return {
        "ships": ships,
        "rows": rows,
        "cut": count < min(ships, units),
        "targets": targets,
        # The rows as kept: a sealed hit a row could not keep is not sent again.
        "text": "; ".join(f"HIT {r['seat']} {r['die']} {r['kind']}" for r in rows if r["seat"])
        or "PASS",
    }


def _face(die: Any) -> tuple[int, int]:
    """A die's ``[ships, asteroids]`` from a view, (0, 0) when it is not one."""
    face = die.get("face") if isinstance(die, dict) else None
    if isinstance(face, list | tuple) and len(face) == 2 and all(isinstance(x, int) for x in face):
        return face[0], face[1]
    return 0, 0


def _offered_hits(text: str, targets: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """The hits of a sealed ``HIT ...; ...`` order that the picker offers, to preselect
    them; empty when the order is PASS or has a hit the picker cannot show."""
    offered = {
        (t["seat"], d["n"], kind)
        for t in targets
        for d in t["dice"]
        for kind, key in zip(HIT_KINDS, ("ships", "asteroids"), strict=True)
        if d[key]
    }
    seats = {t["seat"].lower(): t["seat"] for t in targets}
    hits = []
    for segment in (s for line in text.splitlines() for s in line.split(";")):
        words = segment.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0].upper() == "HIT":
            words = words[1:]
        if len(words) != 3 or not (words[1].isascii() and words[1].isdigit()):
            return []
        seat = words[0] if words[0] in seats.values() else seats.get(words[0].lower(), "")
        hit = (seat, int(words[1]), words[2].upper())
        if hit not in offered:
            return []
        hits.append(hit)
    return hits


# 6x5's actions as the picker offers them: the order language's words, what the
# action does, the order it composes, and what the first choice after the action is
# ("colour": a reserve colour, then one hex; "hex": a first hex, then a second one;
# "": one hex).
HEX_ACTIONS = (
    ("PLACE", "a tile from the reserve on an empty hex", "PLACE {colour} {hex}", "colour"),
    ("SWITCH", "a tile for one of another colour", "SWITCH {hex} TO {colour}", "colour"),
    ("MOVE BLACK", "the black tile to an empty hex", "MOVE BLACK TO {hex}", ""),
    ("SWAP", "two tiles with each other", "SWAP {hex} {hex2}", "hex"),
)
HEX_COLOURS = ("BLUE", "RED", "YELLOW")


def hex_picker(
    *,
    ruleset: str,
    view: dict[str, Any],
    seat_name: str,
    legal_orders: list[str],
    current_order: str = "",
) -> dict[str, Any] | None:
    """6x5's turn as choices: the action (the order language's words), the colour (only
    colours with tiles left in the seat's view of the reserve) and the hex(es), tapped
    on the board. Which hexes each choice may target comes from the seat's legal orders
    (``targets``: colour, first hex or "" -> hexes); ``changes`` are the goal numbers
    ``CHANGE`` may name (change_goal). ``chosen`` and ``text``: the sealed order's
    choices, when it is one the picker can show; otherwise the action alone when there
    is only one. For the acting seat only: None for any other ruleset, phase or seat."""
    if ruleset != "6x5" or view.get("phase") != "turn":
        return None
    if seat_name not in (view.get("pending") or []):
        return None
    reserve = view.get("reserve") or {}
    left = {c: n for c in HEX_COLOURS if isinstance(n := reserve.get(c), int) and n > 0}
    targets: dict[str, dict[str, list[str]]] = {}
    changes: list[int] = []
    for order in legal_orders:
        lines = order.split("\n")
        if len(lines) == 2 and re.fullmatch(r"CHANGE [0-9]+", lines[0]):
            # The same actions are listed on their own too: only the number is new.
            if int(lines[0].split()[1]) not in changes:
                changes.append(int(lines[0].split()[1]))
            continue
        found = _hex_action(order.split(), left)
        if found is not None:
            verb, key, target = found
            targets.setdefault(verb, {}).setdefault(key, []).append(target)
    actions = [
        {"verb": verb, "hint": hint, "template": template, "by": by, "targets": targets[verb]}
        for verb, hint, template, by in HEX_ACTIONS
        if verb in targets
    ]
    if not actions:
        return None
    chosen = _hex_chosen(current_order, actions, changes)
    if not chosen and len(actions) == 1:
        chosen = {"verb": actions[0]["verb"]}
    black = next((k for k, tile in (view.get("board") or {}).items() if tile == "K"), "")
    return {
        "actions": actions,
        "colours": [{"name": c, "left": n} for c, n in left.items()],
        "changes": sorted(changes),
        "chosen": chosen,
        "text": chosen.get("text", ""),
        "data": {"actions": actions, "black": black},
    }


def _hex_action(words: list[str], left: dict[str, int]) -> tuple[str, str, str] | None:
    """``(action, colour or first hex or "", target hex)`` of one legal 6x5 action in
    its canonical form (``engine.sixbyfive_orders.order_text``); None otherwise, or
    when it needs a colour with no tile left."""
    if len(words) == 3 and words[0] == "PLACE" and words[1] in left:
        return "PLACE", words[1], words[2]
    if len(words) == 4 and words[0] == "SWITCH" and words[2] == "TO" and words[3] in left:
        return "SWITCH", words[3], words[1]
    if len(words) == 4 and words[:3] == ["MOVE", "BLACK", "TO"]:
        return "MOVE BLACK", "", words[3]
    if len(words) == 3 and words[0] == "SWAP":
        return "SWAP", words[1], words[2]
    return None


def _hex_chosen(
    text: str, actions: list[dict[str, Any]], changes: list[int]
) -> dict[str, Any]:
    """The picker's choices for a sealed 6x5 order (any spelling the order language
    accepts), with its canonical ``text``; empty when the picker cannot show it."""
    if not text.strip():
        return {}
    try:
        parsed = parse_text(text, ["CHANGE"] if changes else [])
    except IllegalOrder:
        return {}
    verb = {"place": "PLACE", "switch": "SWITCH", "move": "MOVE BLACK", "swap": "SWAP"}.get(
        str(parsed.get("kind"))
    )
    action = next((a for a in actions if a["verb"] == verb), None)
    if action is None or (parsed["change"] is not None and parsed["change"] not in changes):
        return {}
    key = {"colour": parsed.get("colour", ""), "hex": parsed["hex"], "": ""}[action["by"]]
    target = parsed.get("hex2", "") if action["by"] == "hex" else parsed["hex"]
    if target not in action["targets"].get(key, []):
        return {}
    return {
        "verb": verb,
        "colour": parsed.get("colour", ""),
        "hex": parsed["hex"],
        "hex2": parsed.get("hex2", ""),
        "change": parsed["change"],
        "text": order_text(parsed),
    }
