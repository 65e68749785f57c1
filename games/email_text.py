"""How an email writes a game in plain text: the engine's view (the ruleset's own words,
``games.email_views``, or every key of the view indented) and the legal orders (orders
that are every combination of a few words as one pattern, 4X Dice's hits one by one,
counted past a limit). Pure functions of the view and the orders."""

from __future__ import annotations

from typing import Any

from games.order_presentation import order_patterns

MAX_ORDERS_LISTED = 60  # an email lists at most this many legal orders


def legal_orders_lines(orders: list[str], limit: int = MAX_ORDERS_LISTED) -> list[str]:
    """The legal orders as an email shows them. Orders that are every combination of a
    few words (4X Dice's ``ALLOCATE`` of each die: 64 or 256 of them) are written as one
    pattern with an example; past ``limit`` lines the rest is counted, not listed."""
    lines: list[str] = []
    for item in order_patterns(orders):
        if isinstance(item, str):
            lines.append(item)
            continue
        verb, slots = item
        if all(slot == slots[0] for slot in slots):
            lines.append(f"{verb}, then {len(slots)} words, each one of: {', '.join(slots[0])}")
        else:
            # A word with one choice is written as it is ("MOVE BLACK TO <1,0|2,0|…>").
            lines.append(" ".join([
                verb, *(slot[0] if len(slot) == 1 else "<" + "|".join(slot) + ">" for slot in slots)
            ]))  # fmt: skip
        count = 1
        for slot in slots:
            count *= len(slot)
        example = " ".join([verb, *(slot[0] for slot in slots)])
        lines.append(f"  ({count} orders; e.g. {example})")
    if len(lines) > limit:
        more = len(lines) - limit
        lines = [*lines[:limit], f"... and {more} more (the game page offers them all; any legal order may be typed)"]
    return lines


VIEW_KEYS_SKIPPED = ("game", "seat", "orders")  # shown elsewhere in the email


def format_view(value: Any, indent: int = 0) -> str:
    """A plain-text rendering of an engine view (nested dicts and lists)."""
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if indent == 0 and key in VIEW_KEYS_SKIPPED:
                continue
            if isinstance(item, dict) and item:
                lines.append(f"{pad}{key}:")
                lines.append(format_view(item, indent + 1))
            elif isinstance(item, list | dict):
                shown = ", ".join(_inline(x) for x in item) if item else "-"
                lines.append(f"{pad}{key}: {shown}")
            else:
                lines.append(f"{pad}{key}: {'-' if item is None else item}")
        return "\n".join(lines)
    return f"{pad}{value}"


def view_as_text(*, ruleset: str, view: dict[str, Any], seat_name: str | None) -> str:
    """An engine view as an email shows it: the ruleset's own rendering in words
    (``games.email_views``) if it has one, else every key of the view (``format_view``)."""
    from games.email_views import RENDERERS

    render = RENDERERS.get(ruleset)
    return format_view(view) if render is None else render(view, seat_name)


def _inline(value: Any) -> str:
    """A value inside a one-line list of ``format_view`` (no Python reprs)."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return str(value)


def email_legal_lines(ruleset: str, orders: list[str], view: dict[str, Any] | None, seat_name: str) -> list[str]:
    """The legal orders as an email lists them. 4X Dice's eXterminate: each single hit and
    PASS, then how many may be joined (every combination of hits was listed: 80 lines and
    "... and 902 more" with 8 ships, an email-only player found). ``view``: the seat's
    (its dice tell the ships); None: counted from the orders."""
    if ruleset == "4x-dice" and any(";" in order for order in orders):
        if view is not None:
            dice = ((view.get("players") or {}).get(seat_name) or {}).get("dice") or []
            ships = sum(int(d["face"][0]) for d in dice if d.get("area") == "EXTERMINATE")
        else:
            ships = max(order.count(";") for order in orders) + 1
        singles = [order for order in orders if ";" not in order]
        example = "; ".join([order for order in singles if order.startswith("HIT")][:2])
        return [
            *legal_orders_lines(singles),
            f"or up to {ships} of these hits (one per ship) joined by ';', e.g. {example}",
        ]
    return legal_orders_lines(orders)


def record_lines(
    *,
    head: tuple[int, str] | None,
    receipts: list[tuple[int, str]] | None = None,
    seed_commitment: str = "",
) -> list[str]:
    """The footer lines that anchor a game's record in the player's mailbox, outside the
    server: the seed commitment (the start email), the seat's OWN receipts of the orders
    just revealed (``(prompt number, commitment)``), the log's newest entry when the email
    was written (``head``: ``(seq, hash)``, committed with the email), and how to check an
    export against them (``python -m engine verify``). Empty when there is nothing."""
    lines = []
    if seed_commitment:
        lines.append(f"Seed commitment (SHA-256): {seed_commitment}")
    for number, commitment in receipts or []:
        lines.append(f"Your order for decision {number} was sealed as {commitment}")
    if head is not None:
        lines.append(f"Game log: entry {head[0]}, hash {head[1]}")
    if not lines:
        return []
    if head is None and not receipts:
        lines.append(
            "Keep this email: once the game is over, python -m engine verify shows the seed "
            "commitment of the record you download from the game page, to compare with this one."
        )
        return lines
    # The very command, values in: copied as it stands, it checks the downloaded record
    # against this email.
    check = "python -m engine verify EXPORT.json"
    if head is not None:
        check += f" --expect {head[0]}:{head[1]}"
    for _number, commitment in receipts or []:
        check += f" --receipt {commitment}"
    lines.append(
        "Keep this email: once the game is over, download its record from the game page "
        "(EXPORT.json) and check that it holds what this email names:"
    )
    lines.append(check)
    return lines
