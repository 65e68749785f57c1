"""The 5X speed-ups must not change behaviour: each fast path is checked against the
slow path it short-cuts (``engine.rng.shuffled``, the full order parser, the full
order decoder)."""

from __future__ import annotations

import random

from engine import rng
from engine.base import dumps
from engine.fivex import orders as O
from engine.fivex import rules as R
from tests.engine.fivex_support import FIVEX


def test_inlined_shuffle_is_engine_rng_shuffle() -> None:
    rnd = random.Random(7)
    seeds = list(range(500)) + [rnd.getrandbits(64) for _ in range(500)] + [-1, 2**70]
    for seed in seeds:
        for items in [tuple(range(5, 20)), tuple(range(5, 18)), (5, 6), (9,), ()]:
            r = rng.seed_state(seed)
            assert R.shuffled(r, items) == rng.shuffled(r, items)


def test_fast_paths_agree_with_the_full_parser_and_decoder() -> None:
    rnd = random.Random(3)
    for game in range(40):
        players = ["ann", "bob", "cat", "dan", "eve", "fay"][: 3 + game % 4]
        options = {"leaders": False} if game % 5 == 4 else {}
        state = FIVEX.new_game(players=players, options=options, seed=game)
        while not FIVEX.is_over(state):
            before = dumps(state)
            step = {}
            for seat in FIVEX.pending(state):
                legal = FIVEX.legal_orders(state, seat)
                assert legal == O.legal(state, players.index(seat))
                for text in legal:
                    assert FIVEX.parse_order(state, seat, text) == O.parse(state, seat, text)
                step[seat] = rnd.choice(legal)
            parsed = {seat: FIVEX.parse_order(state, seat, t) for seat, t in step.items()}
            # The decoder (the slow path of resolve) accepts what the fast path accepts.
            for seat, order in parsed.items():
                O.decode(state, players.index(seat), order)
            state, _ = FIVEX.resolve(state, parsed)
            assert dumps(state) != before


def _slow_resolve(state: dict, parsed: dict) -> tuple[dict, list]:
    """``FiveX.resolve`` without its fast paths: decode every order, then ``apply_*``."""
    values = FIVEX._decode_all(state, parsed)
    s = state.copy()
    ev: list = []
    phase = state["phase"]
    if phase in R.PLAY_PHASES:
        R.apply_play(s, values, ev)
    elif phase == R.BID:
        R.apply_bids(s, values, ev)
    elif phase == R.EXCAVATE_PHASE:
        R.apply_excavate(s, values, ev)
    elif phase == R.DIDO_PHASE:
        (i,) = state["pending"]
        R.apply_dido(s, i, values[i], ev)
    else:
        R.apply_draft(s, values, ev)
    return s, ev


def test_fast_resolve_agrees_with_decode_and_apply() -> None:
    rnd = random.Random(11)
    for game in range(40):
        players = ["ann", "bob", "cat", "dan", "eve", "fay"][: 3 + game % 4]
        options = [{}, {"leaders": False}, {"all_leaders": True}][game % 3]
        state = FIVEX.new_game(players=players, options=options, seed=1000 + game)
        while not FIVEX.is_over(state):
            before = dumps(state)
            parsed = {seat: FIVEX.parse_order(state, seat, rnd.choice(FIVEX.legal_orders(state, seat)))
                      for seat in FIVEX.pending(state)}
            fast, fast_events = FIVEX.resolve(state, parsed)
            assert dumps(state) == before  # resolve never changes its input
            slow, slow_events = _slow_resolve(state, parsed)
            assert dumps(state) == before
            assert list(fast) == list(slow)  # same keys, same order
            assert dumps(fast) == dumps(slow)
            assert dumps(fast_events) == dumps(slow_events)
            state = fast
