"""Display helpers for the 6x5 hex map and the 4X Dice tracks: geometry only, from the
per-seat view the template receives."""

from __future__ import annotations

import math
from typing import Any

from django import template

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


def _corners(x: float, y: float, size: float) -> str:
    points = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        points.append(f"{x + size * math.cos(angle):.1f},{y + size * math.sin(angle):.1f}")
    return " ".join(points)


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
