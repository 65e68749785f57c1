"""Display helpers for the 6x5 hex map and the 4X Dice tracks: geometry only, from the
per-seat view the template receives."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

HEX_SIZE = 26.0
TILE_FILL = {"K": "#1d2330", "B": "#2f5bd3", "R": "#c0392b", "Y": "#e0b000"}
TILE_NAME = {"K": "black", "B": "blue", "R": "red", "Y": "yellow"}
PAWN_COLOURS = ("#ffffff", "#17703d", "#8a5a2b", "#7b3fb5", "#e07b00")
PAWN_INK = {"#17703d": "#ffffff", "#8a5a2b": "#ffffff", "#7b3fb5": "#ffffff"}  # else dark
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
# The map never shrinks below this many CSS px per viewBox unit (its box scrolls
# instead): a hex stays about 45 px wide and a 13-unit label 13 px high on a phone.
MIN_SCALE = 1.0
LABEL_FONT = 13  # viewBox units; longer labels ("-10,-2") get LABEL_FONT_LONG
LABEL_FONT_LONG = 11
PAWN_LABEL_MAX = 3  # letters; longer prefixes fall back to seat numbers


def _cell(key: Any) -> tuple[int, int] | None:
    try:
        q, r = (int(x) for x in str(key).split(","))
    except ValueError:
        return None
    return q, r


def _centre(q: int, r: int, size: float) -> tuple[float, float]:
    return size * math.sqrt(3) * (q + r / 2), size * 1.5 * r


@lru_cache(maxsize=8)
def _offsets(size: float) -> tuple[tuple[float, float], ...]:
    """A hex's six corners relative to its centre (the same floats as computing them
    each time: ``size * cos(angle)``)."""
    return tuple(
        (size * math.cos(math.radians(60 * i - 30)), size * math.sin(math.radians(60 * i - 30)))
        for i in range(6)
    )


def _corners(x: float, y: float, size: float) -> str:
    return " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in _offsets(size))


_TENTH = Decimal("0.1")


def one_decimal(value: float) -> str:
    """``value`` as the template filter ``floatformat:1`` writes it on this site (English,
    no grouping): rounded half up from its shortest repr, "-0.0" written "0.0"."""
    rounded = Decimal(repr(float(value))).quantize(_TENTH, ROUND_HALF_UP)
    return f"{rounded if rounded else abs(rounded):f}"


def pawn_labels(seats: list[str]) -> dict[str, str]:
    """A short label per seat, distinct from every other seat's: the fewest first
    letters of its name that no other seat's name starts with ("ann", "amy", "bob" ->
    "An", "Am", "B"); when that fails for any seat (a name that begins another, or
    more than ``PAWN_LABEL_MAX`` letters needed), every seat gets its position number."""
    names = [s.lower() for s in seats]
    labels: dict[str, str] = {}
    for i, (seat, name) in enumerate(zip(seats, names, strict=True)):
        others = names[:i] + names[i + 1 :]
        for length in range(1, min(len(name), PAWN_LABEL_MAX) + 1):
            prefix = name[:length]
            if not any(o.startswith(prefix) for o in others):
                labels[seat] = seat[:length].capitalize()
                break
        else:
            return {s: str(i) for i, s in enumerate(seats, start=1)}
    return labels


def _layout(cells: list[dict[str, Any]], size: float, pad: float) -> str:
    if not cells:
        return f"{-size - pad} {-size - pad} {2 * (size + pad)} {2 * (size + pad)}"
    xs = [c["x"] for c in cells]
    ys = [c["y"] for c in cells]
    x0, y0 = min(xs) - size - pad, min(ys) - size - pad
    return f"{x0:.1f} {y0:.1f} {max(xs) - min(xs) + 2 * (size + pad):.1f} {max(ys) - min(ys) + 2 * (size + pad):.1f}"


@register.simple_tag
def hex_board(view: Any) -> dict[str, Any]:
    """Tiles, empty playable hexes around them and pawns, as SVG geometry; each pawn
    and the legend (the pawns on the board; ``unplaced``: the seats with none yet) carry
    the seat's short label (``pawn_labels``). ``min_width``: the
    map's width in CSS px at ``MIN_SCALE``, below which it scrolls instead of shrinking."""
    view = view if isinstance(view, dict) else {}
    board = view.get("board") or {}
    pawns = view.get("pawns") or {}
    seats = list(pawns)
    labels = pawn_labels(seats)
    colours = {s: PAWN_COLOURS[i % len(PAWN_COLOURS)] for i, s in enumerate(seats)}
    stands = {
        cell: seat for seat, where in pawns.items() if (cell := _cell(where or "")) is not None
    }
    tiles = {}
    for key, tile in board.items():
        cell = _cell(key)
        if cell is not None:
            tiles[cell] = str(tile)
    empty = set()
    for q, r in tiles:
        for dq, dr in NEIGHBOURS:
            if (q + dq, r + dr) not in tiles:
                empty.add((q + dq, r + dr))
    cells: list[dict[str, Any]] = []
    pawn_marks: list[dict[str, Any]] = []
    for (q, r), tile in [*sorted(tiles.items()), *((c, "") for c in sorted(empty))]:
        x, y = _centre(q, r, HEX_SIZE)
        label = f"{q},{r}"
        seat = stands.get((q, r))
        cells.append(
            {"x": x, "y": y, "points": _corners(x, y, HEX_SIZE - 1), "label": label,
             "fill": TILE_FILL.get(tile, "#999") if tile else "none",
             "tile": TILE_NAME.get(tile, tile) if tile else "empty",
             "dark": tile in ("K", "B", "R"), "empty": not tile,
             "font": LABEL_FONT if len(label) <= 5 else LABEL_FONT_LONG,
             # A pawn stands in the upper half: the label moves down to stay readable.
             "label_y": y + HEX_SIZE * 0.3 if seat else y,
             # The colour in a letter too (R, B, Y), low in the hex: not by colour alone.
             "letter": tile if tile in ("R", "B", "Y") else "",
             "letter_y": y + HEX_SIZE * 0.68}
        )  # fmt: skip
        if seat is not None:
            width, top = max(18, 7 * len(labels[seat]) + 8), y - HEX_SIZE * 0.42
            pawn_marks.append(
                {"x": x, "y": top, "left": x - width / 2, "top": top - 9, "w": width,
                 "seat": seat, "label": labels[seat], "colour": colours[seat],
                 "ink": PAWN_INK.get(colours[seat], "#1d2330")}
            )  # fmt: skip
    viewbox = _layout(cells, HEX_SIZE, 6)
    return {
        "viewbox": viewbox,
        "min_width": round(float(viewbox.split()[2]) * MIN_SCALE),
        "cells": cells,
        "pawns": pawn_marks,
        # The pawns on the board only; a seat that has not played yet has none.
        "legend": [
            {"seat": s, "label": labels[s], "colour": colours[s],
             "ink": PAWN_INK.get(colours[s], "#1d2330")}
            for s in seats
            if s in stands.values()
        ],  # fmt: skip
        "unplaced": [s for s in seats if s not in stands.values()],
    }


_CELL = (
    '\n    <g class="hex{empty}" data-hex="{label}">\n      <title>{label} {tile}</title>\n'
    '      <polygon points="{points}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>\n'
    '      <text class="hex-label" x="{x}" y="{label_y}" text-anchor="middle" dominant-baseline="middle"'
    ' font-size="{font}" font-weight="600" fill="{label_ink}">{label}</text>\n      {letter}\n    </g>\n  '
)
_LETTER = (
    '<text class="hex-letter" x="{x}" y="{y}" text-anchor="middle" dominant-baseline="middle"'
    ' font-size="8" font-weight="700" fill="{ink}" aria-hidden="true">{letter}</text>'
)
_PAWN = (
    '\n    <g class="pawn" data-pawn="{seat}" pointer-events="none"><title>pawn of {seat}</title>\n'
    '      <rect x="{left}" y="{top}" width="{w}" height="18" rx="9" fill="{colour}" stroke="#1d2330"'
    ' stroke-width="1.5"/>\n      <text x="{x}" y="{y}" text-anchor="middle" dominant-baseline="central"'
    ' font-size="10" font-weight="700" fill="{ink}">{label}</text>\n    </g>\n  '
)


@register.simple_tag
def hex_board_svg(hb: dict[str, Any]) -> SafeString:
    """The board's ``<svg>`` drawing of ``hex_board``'s cells and pawns, built here rather
    than in a template loop (the game and review pages draw ~60 hexes; this is the same
    markup, byte for byte, at a fraction of the cost: tests/games/test_board_svg.py).
    Every text from the view is escaped."""
    parts = [
        f'<svg class="hexmap" viewBox="{escape(hb["viewbox"])}" style="min-width:{hb["min_width"]}px"'
        ' role="group" aria-label="The board: each hex named by its coordinates and tile">\n  '
    ]
    for c in hb["cells"]:
        x = one_decimal(c["x"])
        dark, empty = c["dark"], c["empty"]
        letter = c["letter"]
        parts.append(_CELL.format(
            empty=" empty" if empty else "", label=escape(c["label"]), tile=escape(c["tile"]),
            points=escape(c["points"]), fill=escape(c["fill"]),
            stroke="#c9ced8" if empty else "#ffffff", width="1" if empty else "2",
            dash=' stroke-dasharray="3 3"' if empty else "", x=x, label_y=one_decimal(c["label_y"]),
            font=escape(c["font"]), label_ink="#ffffff" if dark else "#4a5160",
            letter=_LETTER.format(
                x=x, y=one_decimal(c["letter_y"]), ink="#ffffff" if dark else "#1d2330",
                letter=escape(letter),
            ) if letter else "",
        ))  # fmt: skip
    parts.append("\n  ")
    for p in hb["pawns"]:
        parts.append(_PAWN.format(
            seat=escape(p["seat"]), left=one_decimal(p["left"]), top=one_decimal(p["top"]),
            w=escape(p["w"]), colour=escape(p["colour"]), x=one_decimal(p["x"]),
            y=one_decimal(p["y"]), ink=escape(p["ink"]), label=escape(p["label"]),
        ))  # fmt: skip
    parts.append("\n</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every value above is escaped or ours)


@register.simple_tag
def goal_shape(cells: Any) -> dict[str, Any]:
    """A small drawing of one goal shape (a list of [q, r] cells)."""
    size = 9.0
    out, named = [], []
    for cell in cells if isinstance(cells, list) else []:
        try:
            q, r = int(cell[0]), int(cell[1])
        except (TypeError, ValueError, IndexError):
            continue
        x, y = _centre(q, r, size)
        out.append({"x": x, "y": y, "points": _corners(x, y, size - 0.5)})
        named.append(f"{q},{r}")
    # For screen readers: the shape as its cells (the drawing alone says nothing).
    label = "goal: " + " ".join(named)
    return {"viewbox": _layout(out, size, 2), "cells": out, "label": label, "named": " ".join(named)}


@register.filter
def track(value: Any, maximum: int = 19) -> list[bool]:
    """A 0..maximum counter as a list of lit/unlit steps (1..maximum)."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    return [i < n for i in range(maximum)]
