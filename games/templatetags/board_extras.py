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
PAWN_COLOURS = ("#ffffff", "#1f8a4c", "#8a5a2b", "#7b3fb5", "#e07b00")
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


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


def _layout(cells: list[dict[str, Any]], size: float, pad: float) -> str:
    if not cells:
        return f"{-size - pad} {-size - pad} {2 * (size + pad)} {2 * (size + pad)}"
    xs = [c["x"] for c in cells]
    ys = [c["y"] for c in cells]
    x0, y0 = min(xs) - size - pad, min(ys) - size - pad
    return f"{x0:.1f} {y0:.1f} {max(xs) - min(xs) + 2 * (size + pad):.1f} {max(ys) - min(ys) + 2 * (size + pad):.1f}"


@register.simple_tag
def hex_board(view: Any) -> dict[str, Any]:
    """Tiles, empty playable hexes around them and pawns, as SVG geometry."""
    view = view if isinstance(view, dict) else {}
    board = view.get("board") or {}
    pawns = view.get("pawns") or {}
    seats = list(pawns)
    tiles = {}
    for key, tile in board.items():
        cell = _cell(key)
        if cell is not None:
            tiles[cell] = str(tile)
    cells: list[dict[str, Any]] = []
    for (q, r), tile in sorted(tiles.items()):
        x, y = _centre(q, r, HEX_SIZE)
        cells.append(
            {"x": x, "y": y, "points": _corners(x, y, HEX_SIZE - 1), "fill": TILE_FILL.get(tile, "#999"),
             "label": f"{q},{r}", "tile": TILE_NAME.get(tile, tile), "dark": tile in ("K", "B", "R"),
             "empty": False}
        )  # fmt: skip
    empty = set()
    for q, r in tiles:
        for dq, dr in NEIGHBOURS:
            if (q + dq, r + dr) not in tiles:
                empty.add((q + dq, r + dr))
    for q, r in sorted(empty):
        x, y = _centre(q, r, HEX_SIZE)
        cells.append(
            {"x": x, "y": y, "points": _corners(x, y, HEX_SIZE - 1), "fill": "none",
             "label": f"{q},{r}", "tile": "empty", "dark": False, "empty": True}
        )  # fmt: skip
    pawn_marks = []
    for i, (seat, where) in enumerate(pawns.items()):
        cell = _cell(where) if where else None
        if cell is None:
            continue
        x, y = _centre(cell[0], cell[1], HEX_SIZE)
        pawn_marks.append(
            {"x": x + HEX_SIZE * 0.35, "y": y - HEX_SIZE * 0.35, "seat": seat,
             "initial": seat[:1].upper(), "colour": PAWN_COLOURS[i % len(PAWN_COLOURS)]}
        )  # fmt: skip
    return {
        "viewbox": _layout(cells, HEX_SIZE, 6),
        "cells": cells,
        "pawns": pawn_marks,
        "legend": [
            {"seat": s, "colour": PAWN_COLOURS[i % len(PAWN_COLOURS)]} for i, s in enumerate(seats)
        ],
    }


@register.simple_tag
def goal_shape(cells: Any) -> dict[str, Any]:
    """A small drawing of one goal shape (a list of [q, r] cells)."""
    size = 9.0
    out = []
    for cell in cells if isinstance(cells, list) else []:
        try:
            q, r = int(cell[0]), int(cell[1])
        except (TypeError, ValueError, IndexError):
            continue
        x, y = _centre(q, r, size)
        out.append({"x": x, "y": y, "points": _corners(x, y, size - 0.5)})
    return {"viewbox": _layout(out, size, 2), "cells": out}


@register.filter
def track(value: Any, maximum: int = 19) -> list[bool]:
    """A 0..maximum counter as a list of lit/unlit steps (1..maximum)."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    return [i < n for i in range(maximum)]
