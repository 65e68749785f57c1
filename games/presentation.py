"""How games and their orders are offered to a person: rulesets' names, legal orders as
email lines and as web form fields."""

from __future__ import annotations

from typing import Any

import engine


def ruleset_name(ruleset_id: str) -> str:
    """The ruleset's own name ("5X", "4X Dice"), or its id if no engine has it."""
    try:
        return engine.get(ruleset_id).name
    except engine.ScriptError:
        return ruleset_id


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


def entered_order_text(*, source: str, reason: str, text: str) -> str:
    """What a seat is told about its own order that it did not send itself (``source``
    default or forced; ``reason`` of a default order: deadline, resigned, refused). The
    order is the seat's own: show it to that seat only."""
    if source == "forced":
        return f"{text} was your only legal order: it was entered for you."
    if reason == "deadline":
        return (
            f"You sent no order before the deadline: the default order {text} was played"
            " for you."
        )
    if reason == "resigned":
        return f"You have resigned: the default order {text} was played for you."
    return f"The default order {text} was played for you."


def waiting_note(*, ruleset: str, view: dict[str, Any], seat_name: str) -> str:
    """Why a seat that plays this round is not asked yet, when the rules make it wait
    (5X: a seat that explored last round chooses after seeing the others' cards, ERIK's
    player last of all). From the seat's own view; empty when there is nothing to say."""
    if ruleset != "5x" or seat_name in (view.get("pending") or []):
        return ""
    me = (view.get("players") or {}).get(seat_name) or {}
    erik = (me.get("discard") or [None])[-1] == "ERIK"
    phase = view.get("phase")
    if phase == "play" and me.get("hand_size"):
        if erik:
            return (
                "You played Erik the Red last round: you choose your card last, after"
                " seeing every card played this round."
            )
        return (
            "You explored last round: you choose your card after seeing the cards the"
            " others play now."
        )
    if phase == "explore-play" and erik and me.get("played") is None and me.get("hand_size"):
        return (
            "You played Erik the Red last round: you choose your card last, after seeing"
            " every card played this round."
        )
    return ""


# The eXterminate picker offers at most this many hit rows; longer lists are typed.
HIT_ROWS_MAX = 12
HIT_KINDS = ("SHIP", "ASTEROID")  # 4X Dice: what a hit lowers, index 0 or 1 of a face


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
    rows = []
    for number in range(1, count + 1):
        seat, die, kind = chosen[number - 1] if number <= len(chosen) else ("", 0, "")
        dice = next((t["dice"] for t in targets if t["seat"] == seat), [])
        face = next((d for d in dice if d["n"] == die), None)
        kinds = [k for k, key in zip(HIT_KINDS, ("ships", "asteroids"), strict=True)
                 if face and face[key]]  # fmt: skip
        rows.append(
            {"number": number, "seat": seat, "die": die, "kind": kind, "dice": dice, "kinds": kinds}
        )
    return {
        "ships": ships,
        "rows": rows,
        "cut": count < min(ships, units),
        "targets": targets,
        "text": "; ".join(f"HIT {s} {d} {k}" for s, d, k in chosen) or "PASS",
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
        if len(words) != 3 or not words[1].isdigit():
            return []
        seat = words[0] if words[0] in seats.values() else seats.get(words[0].lower(), "")
        hit = (seat, int(words[1]), words[2].upper())
        if hit not in offered:
            return []
        hits.append(hit)
    return hits
