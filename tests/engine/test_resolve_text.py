"""engine.md: ``resolve(state, {seat: order, ...})`` with orders as text in the game's
order language, parsed by the ruleset. A text order resolves exactly as its parsed form
does; a text that does not parse is an IllegalOrder naming what is wrong, and the state
is untouched."""

from __future__ import annotations

import copy

import pytest

import engine
from engine.base import IllegalOrder, dumps

CASES = [
    # (game, players, setup, orders of the first prompt, a bad order for the first seat)
    ("5x", ["ann", "bob", "cat"],
     {"deal": {"ann": ["CLEOPATRA", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "ERIK"]}},
     {"ann": "PASS CAESAR", "bob": "pass dido", "cat": "PASS ERIK"}, "PLAY EXPLOIT"),
    ("4x-dice", ["ann", "bob"], {},
     {"ann": "ALLOCATE EXPLORE EXPLORE EXPLORE", "bob": "ALLOCATE EXPAND EXTRACT EXTERMINATE"},
     "ALLOCATE EXPLORE"),
    ("6x5", ["ann", "bob"], {"first": "ann"}, {"ann": "PLACE BLUE 1,0"}, "PLACE PURPLE 1,0"),
]  # fmt: skip


@pytest.mark.parametrize(("game", "players", "setup", "orders", "bad"), CASES, ids=[c[0] for c in CASES])
def test_resolve_takes_order_text(game, players, setup, orders, bad) -> None:
    rules = engine.get(game)
    state = rules.new_game(players=players, seed=7, setup=setup)
    assert sorted(rules.pending(state)) == sorted(orders)
    before = dumps(state)
    parsed = {seat: rules.parse_order(state, seat, text) for seat, text in orders.items()}
    by_text = rules.resolve(state, orders)
    assert dumps(by_text[0]) == dumps(rules.resolve(state, parsed)[0])
    assert by_text[1] == rules.resolve(state, parsed)[1]
    assert dumps(by_text[0]) == dumps(rules.submit_step(state, orders)[0])
    # Mixed: one seat's parsed order, the others' text.
    first = next(iter(orders))
    mixed = {**orders, first: copy.deepcopy(parsed[first])}
    assert dumps(rules.resolve(state, mixed)[0]) == dumps(by_text[0])

    with pytest.raises(IllegalOrder) as refused:
        rules.resolve(state, {**orders, first: bad})
    assert refused.value.reason  # a sentence naming what is wrong
    assert dumps(state) == before
