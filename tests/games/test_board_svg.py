"""The 6x5 board's SVG (``hex_board_svg``) is the markup the game and review pages drew
with a template loop before it was built in Python (a speed-up: ~60 hexes, each with a
dozen lookups and ``floatformat`` filters), byte for byte: the template below is that
loop as it stood in templates/games/rulesets/6x5.html, rendered by Django beside the tag
for hand-made boards (long labels, pawns, names to escape) and random ones."""

from __future__ import annotations

import random

import pytest
from django.template import Context, Template
from django.template.defaultfilters import floatformat

from games.templatetags.board_extras import hex_board, hex_board_svg, one_decimal

# templates/games/rulesets/6x5.html's board loop before hex_board_svg (commit 41cee1a).
LOOP = """<svg class="hexmap" viewBox="{{ hb.viewbox }}" style="min-width:{{ hb.min_width }}px" role="group" aria-label="The board: each hex named by its coordinates and tile">
  {% for c in hb.cells %}
    <g class="hex{% if c.empty %} empty{% endif %}" data-hex="{{ c.label }}">
      <title>{{ c.label }} {{ c.tile }}</title>
      <polygon points="{{ c.points }}" fill="{{ c.fill }}" stroke="{% if c.empty %}#c9ced8{% else %}#ffffff{% endif %}" stroke-width="{% if c.empty %}1{% else %}2{% endif %}"{% if c.empty %} stroke-dasharray="3 3"{% endif %}/>
      <text class="hex-label" x="{{ c.x|floatformat:1 }}" y="{{ c.label_y|floatformat:1 }}" text-anchor="middle" dominant-baseline="middle" font-size="{{ c.font }}" font-weight="600" fill="{% if c.dark %}#ffffff{% else %}#4a5160{% endif %}">{{ c.label }}</text>
      {% if c.letter %}<text class="hex-letter" x="{{ c.x|floatformat:1 }}" y="{{ c.letter_y|floatformat:1 }}" text-anchor="middle" dominant-baseline="middle" font-size="8" font-weight="700" fill="{% if c.dark %}#ffffff{% else %}#1d2330{% endif %}" aria-hidden="true">{{ c.letter }}</text>{% endif %}
    </g>
  {% endfor %}
  {% for p in hb.pawns %}
    <g class="pawn" data-pawn="{{ p.seat }}" pointer-events="none"><title>pawn of {{ p.seat }}</title>
      <rect x="{{ p.left|floatformat:1 }}" y="{{ p.top|floatformat:1 }}" width="{{ p.w }}" height="18" rx="9" fill="{{ p.colour }}" stroke="#1d2330" stroke-width="1.5"/>
      <text x="{{ p.x|floatformat:1 }}" y="{{ p.y|floatformat:1 }}" text-anchor="middle" dominant-baseline="central" font-size="10" font-weight="700" fill="{{ p.ink }}">{{ p.label }}</text>
    </g>
  {% endfor %}
</svg>"""

TILES = "KBRY"


def old(view: dict) -> str:
    return Template(LOOP).render(Context({"hb": hex_board(view)}))


def random_view(rng: random.Random) -> dict:
    """A connected board grown from 0,0 (as play grows it) and pawns on some tiles."""
    cells = [(0, 0)]
    while len(cells) < rng.randint(1, 40):
        q, r = rng.choice(cells)
        dq, dr = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)))
        if (q + dq, r + dr) not in cells:
            cells.append((q + dq, r + dr))
    board = {f"{q},{r}": ("K" if (q, r) == (0, 0) else rng.choice(TILES[1:])) for q, r in cells}
    seats = rng.sample(["ann", "amy", "bob", "<b>&cat\"", "dora", "ed"], rng.randint(0, 5))
    pawns = {s: (rng.choice(list(board)) if rng.random() < 0.8 else None) for s in seats}
    return {"board": board, "pawns": pawns}


HAND_MADE = [
    {},
    {"board": {"0,0": "K"}, "pawns": {}},
    {"board": {"0,0": "K", "1,0": "B", "-1,0": "R", "0,1": "Y"},
     "pawns": {"ann": "1,0", "amy": "-1,0", "bob": "0,1"}},
    # labels longer than 5 characters, far from the black tile, odd names
    {"board": {"0,0": "K", "-10,-2": "B", "12,-11": "R", "-3,7": "Y", "junk": "B"},
     "pawns": {"<i>x</i>": "-10,-2", "o'neil": "12,-11", "amp&": None, "zed": "nowhere"}},
]  # fmt: skip


@pytest.mark.parametrize("view", HAND_MADE)
def test_hex_board_svg_is_the_template_loops_markup_for_hand_made_boards(view):
    assert str(hex_board_svg(hex_board(view))) == old(view)


def test_hex_board_svg_is_the_template_loops_markup_for_random_boards():
    rng = random.Random(2026)
    for _ in range(150):
        view = random_view(rng)
        assert str(hex_board_svg(hex_board(view))) == old(view), view


def test_hex_board_svg_escapes_seat_names():
    svg = str(hex_board_svg(hex_board({"board": {"0,0": "K"}, "pawns": {"<b>x": "0,0"}})))
    assert "<b>x" not in svg and "&lt;b&gt;x" in svg


@pytest.mark.parametrize(
    "value", [0.0, -0.0, -0.04, 0.05, 0.25, -0.25, 12.35, -12.35, 1.45, 2.675, 1e-7, -1e-7,
              12345.67, -998.95, 45.033, 7.800000000000001, 22.516660498395403],
)  # fmt: skip
def test_one_decimal_writes_what_floatformat_1_writes(value):
    assert one_decimal(value) == floatformat(value, 1)


def test_one_decimal_agrees_with_floatformat_on_random_values():
    rng = random.Random(5)
    for _ in range(5000):
        value = round(rng.uniform(-2000, 2000), rng.randint(0, 6))
        assert one_decimal(value) == floatformat(value, 1), value
