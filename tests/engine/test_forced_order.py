"""``Ruleset.forced_order``: the one legal order of a pending seat that has no choice
(the site enters it for the seat; the runner still lists the seat as pending)."""

from __future__ import annotations

import random

import pytest

import engine

DEAL = {"ann": ["CLEOPATRA", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "ERIK"]}
DRAFT = {"ann": "PASS CAESAR", "bob": "PASS DIDO", "cat": "PASS ERIK"}


def _bid_state(plays: dict[str, str]) -> dict:
    rules = engine.get("5x")
    state = rules.new_game(players=["ann", "bob", "cat"], seed=1, setup={"deal": DEAL})
    state, _ = rules.submit_step(state, DRAFT)
    state, _ = rules.submit_step(state, plays)
    assert rules.phase(state) == "bid"
    return state


def test_a_bidder_holding_exactly_its_minimum_has_one_order() -> None:
    rules = engine.get("5x")
    state = _bid_state({"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"})
    # Both stay pending (5x.md; the conformance case cleopatra-min-bid expects it).
    assert rules.pending(state) == ["ann", "bob"]
    assert rules.forced_order(state, "ann") == "BID 3"  # 3 resources, CLEOPATRA's minimum
    assert rules.forced_order(state, "bob") is None  # BID 1, 2 or 3
    assert rules.forced_order(state, "cat") is None  # not pending


def test_two_forced_bidders() -> None:
    rules = engine.get("5x")
    state = _bid_state({"ann": "PLAY CLEOPATRA", "bob": "PLAY EXPLORE", "cat": "PLAY NAPOLEON"})
    assert rules.pending(state) == ["ann", "cat"]
    assert [rules.forced_order(state, s) for s in ("ann", "cat")] == ["BID 3", "BID 3"]


def _random_prompts(game_id: str, players: int, games: int):
    """Every (state, pending seat, legal orders) of ``games`` random games."""
    rules = engine.get(game_id)
    names = ["ann", "bob", "cat", "dan", "eve"][:players]
    for seed in range(games):
        rng = random.Random(seed)
        state = rules.new_game(players=names, seed=seed)
        for _ in range(400):
            if rules.is_over(state):
                break
            step = {}
            for seat in rules.pending(state):
                legal = rules.legal_orders(state, seat)
                yield state, seat, legal
                step[seat] = rng.choice(legal)
            state, _ = rules.submit_step(state, step)
        assert rules.is_over(state)


def test_5x_forced_orders_are_exactly_the_seats_with_one_legal_order() -> None:
    rules = engine.get("5x")
    kinds = set()
    for state, seat, legal in _random_prompts("5x", 3, 40):
        forced = rules.forced_order(state, seat)
        assert forced == (legal[0] if len(legal) == 1 else None)
        if forced is not None:
            kinds.add((rules.phase(state), forced.split()[0]))
            # the engine takes it, like any order
            rules.parse_order(state, seat, forced)
    # Both kinds happen in real games: the last card in hand, the minimum bid.
    assert ("bid", "BID") in kinds
    assert any(verb == "PLAY" for _phase, verb in kinds)


@pytest.mark.parametrize(("game_id", "players"), [("6x5", 2), ("6x5", 3)])
def test_other_games_never_ask_a_question_with_one_answer(game_id: str, players: int) -> None:
    """6x5 answers from its legal orders: in these random games, a pending seat always
    had a choice."""
    rules = engine.get(game_id)
    for state, seat, legal in _random_prompts(game_id, players, 12):
        assert len(legal) > 1, (rules.phase(state), seat, legal)
        assert rules.forced_order(state, seat) is None


def test_4x_dice_enters_only_the_allocations_of_the_last_round() -> None:
    """A 4X Dice seat always has a choice, but once a counter stands at 19 its allocation
    is for a turn that never comes: that one is entered (the default), no other."""
    rules = engine.get("4x-dice")
    entered = 0
    for state, seat, legal in _random_prompts("4x-dice", 3, 12):
        assert len(legal) > 1, (rules.phase(state), seat, legal)
        last_round = state["round"] > 0 and any(
            state["seats"][s][c] >= 19 for s in state["players"]
            for c in ("explore", "expand", "extract", "exterminate"))  # fmt: skip
        expected = (rules.default_order(state, seat)
                    if last_round and rules.phase(state) == "allocate" else None)  # fmt: skip
        assert rules.forced_order(state, seat) == expected
        entered += expected is not None
    assert entered >= 12  # at least the last seat's, in each game
