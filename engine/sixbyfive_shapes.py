"""Hex geometry and pentahex shapes for the 6x5 ruleset (``shared/spec/6x5.md``).

Hexes use axial coordinates ``(q, r)``. A shape is a list of cells; its canonical form
(the spec's "printed" form) is, of its six rotations, each translated so its smallest
cell (by ``q`` then ``r``) sits at ``0,0`` and sorted by ``q`` then ``r``, the smallest
list. A 60° rotation maps ``(q, r)`` to ``(-r, q + r)``. Mirror images are never used,
so a shape and its mirror image are different shapes (one-sided polyhexes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Cell = tuple[int, int]
Shape = list[list[int]]
"""A shape as JSON: a list of ``[q, r]`` pairs."""

# The six neighbours, in the spec's order.
DIRECTIONS: tuple[Cell, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

_HEX_RE = re.compile(r"^\(?([+-]?[0-9]{1,6}),([+-]?[0-9]{1,6})\)?$")


def neighbours(cell: Cell) -> list[Cell]:
    """The six neighbours of ``cell``: ``q+1,r``, ``q-1,r``, ``q,r+1``, ``q,r-1``,
    ``q+1,r-1``, ``q-1,r+1``."""
    q, r = cell
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def hex_key(cell: Cell) -> str:
    """The board key of a cell: ``"q,r"``."""
    return f"{cell[0]},{cell[1]}"


def key_cell(key: str) -> Cell:
    """The cell of a board key ``"q,r"``."""
    q, r = key.split(",")
    return int(q), int(r)


def parse_hex(token: str) -> Cell | None:
    """Parse ``"q,r"`` (optionally in parentheses) into a cell, or ``None``."""
    match = _HEX_RE.match(token)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def distance_from_origin(cell: Cell) -> int:
    """Hex distance from ``0,0``."""
    q, r = cell
    return (abs(q) + abs(r) + abs(q + r)) // 2


def cell_order(cell: Cell) -> tuple[int, int]:
    """Sort key of cells and board keys: by ``q``, then ``r``, numerically."""
    return cell


def rotate(cells: Iterable[Cell]) -> list[Cell]:
    """Rotate cells by 60°: ``(q, r)`` becomes ``(-r, q + r)``."""
    return [(-r, q + r) for q, r in cells]


def normalize(cells: Iterable[Cell]) -> list[Cell]:
    """Translate cells so the smallest (by ``q`` then ``r``) is at ``0,0``; sorted."""
    ordered = sorted(cells)
    q0, r0 = ordered[0]
    return [(q - q0, r - r0) for q, r in ordered]


def canonical(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """The canonical form of a shape (as a tuple of cells)."""
    current = list(cells)
    best: list[Cell] | None = None
    for _ in range(6):
        candidate = normalize(current)
        if best is None or candidate < best:
            best = candidate
        current = rotate(current)
    assert best is not None
    return tuple(best)


def to_json(shape: Iterable[Cell]) -> Shape:
    """A shape as JSON lists: ``[[q, r], ...]``."""
    return [[q, r] for q, r in shape]


def from_json(shape: Iterable[Iterable[int]]) -> list[Cell]:
    """A JSON shape as a list of cells."""
    return [(int(c[0]), int(c[1])) for c in shape]


def is_connected(cells: Iterable[Cell]) -> bool:
    """Whether the cells form one edge-connected group."""
    todo = set(cells)
    if not todo:
        return False
    stack = [todo.pop()]
    while stack:
        for n in neighbours(stack.pop()):
            if n in todo:
                todo.remove(n)
                stack.append(n)
    return not todo


def polyhexes(size: int) -> list[tuple[Cell, ...]]:
    """Every one-sided polyhex of ``size`` cells, canonical, sorted (1, 1, 3, 10, 33 for
    sizes 1 to 5)."""
    shapes: set[tuple[Cell, ...]] = {((0, 0),)}
    for _ in range(size - 1):
        grown: set[tuple[Cell, ...]] = set()
        for shape in shapes:
            cells = set(shape)
            for cell in shape:
                for n in neighbours(cell):
                    if n not in cells:
                        grown.add(canonical(cells | {n}))
        shapes = grown
    return sorted(shapes)


def pentahex_deck() -> list[Shape]:
    """The goal deck before shuffling: the 33 one-sided pentahexes, canonical, sorted."""
    return [to_json(shape) for shape in polyhexes(5)]


def colour_group(board: dict[str, str], black: Cell, letter: str) -> list[Cell]:
    """The black tile plus every tile of colour ``letter`` connected to it through
    tiles of that colour."""
    group = {black}
    stack = [black]
    while stack:
        for n in neighbours(stack.pop()):
            if n not in group and board.get(hex_key(n)) == letter:
                group.add(n)
                stack.append(n)
    return sorted(group)


def realized_shapes(board: dict[str, str], letters: Iterable[str]) -> set[tuple[Cell, ...]]:
    """The canonical shapes the board realizes now: for each colour, the black tile's
    group in that colour when it has exactly five tiles."""
    black = next((key_cell(k) for k, v in board.items() if v == "K"), None)
    if black is None:
        return set()
    out = set()
    for letter in letters:
        group = colour_group(board, black, letter)
        if len(group) == 5:
            out.add(canonical(group))
    return out
