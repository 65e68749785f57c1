"""Property tests over every registered ruleset (``engine.ids()``), plus 5X invariants.

Random legal play: each step's orders are drawn from the engine's own ``legal_orders``
with a ``random.Random`` seeded by hypothesis. Along the way, at every prompt:

* every legal order and the default order parse, and are in the game's order language
  (``Ruleset.in_order_language``);
* no call (``pending``, ``legal_orders``, ``parse_order``, ``default_order``, ``view``,
  ``resolve``) changes the state it is given (the games room caches open prompts' states);
* the state survives a JSON round trip, and resolving from the round-tripped copy gives
  byte-identical results;
* no seat's view, and no event that seat may see, contains another seat's secrets
  (``Ruleset.secrets``, JSON fragments) unless the viewer holds the same fragment;
* the game ends, and replaying the same setup and orders gives the same bytes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.base import Ruleset, dumps, events_for

MAX_STEPS = 5000
GAME_IDS = engine.ids()
PROPS = settings(max_examples=8, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow])


def _check_secrets(ruleset: Ruleset, state: Any, events: list, players: list[str]) -> None:
    secrets = {seat: set(ruleset.secrets(state, seat)) for seat in players}
    for viewer in [*players, None]:
        own = secrets.get(viewer, set()) if viewer is not None else set()
        seen = dumps(ruleset.view(state, viewer)) + dumps(events_for(events, viewer))
        for other in players:
            if other == viewer:
                continue
            for fragment in secrets[other] - own:
                assert fragment not in seen, f"{viewer} sees {other}'s secret {fragment}"


def play_random(
    ruleset: Ruleset,
    players: list[str],
    options: dict[str, Any],
    seed: int,
    order_seed: int,
    check: bool = True,
    on_state: Any = None,
) -> tuple[Any, list[dict[str, str]]]:
    """Play a random legal game; return the final state and the steps (order texts)."""
    state = ruleset.new_game(players=players, options=options, seed=seed)
    rnd = random.Random(order_seed)
    steps: list[dict[str, str]] = []
    if on_state:
        on_state(state)
    produced = dumps(state)
    for _ in range(MAX_STEPS):
        if check:  # nothing since the state was made has changed it
            assert dumps(state) == produced, "a call changed the state it was given"
        pending = ruleset.pending(state)
        if not pending:
            break
        texts = {}
        for seat in pending:
            legal = ruleset.legal_orders(state, seat)
            assert legal, f"{ruleset.id}: pending seat {seat} has no legal order"
            if check:
                for text in legal:
                    ruleset.parse_order(state, seat, text)
                    assert ruleset.in_order_language(text), f"{ruleset.id}: {text!r}"
                default = ruleset.default_order(state, seat)
                ruleset.parse_order(state, seat, default)
                assert ruleset.in_order_language(default), f"{ruleset.id}: {default!r}"
                ruleset.view(state, seat)
            texts[seat] = rnd.choice(legal)
        parsed = {seat: ruleset.parse_order(state, seat, text) for seat, text in texts.items()}
        before = dumps(state)
        new_state, events = ruleset.resolve(state, parsed)
        if check:
            produced = dumps(new_state)
            assert dumps(state) == before, "resolve changed its input state"
            copy = json.loads(before)
            assert copy == state
            again, events_again = ruleset.resolve(copy, parsed)
            assert dumps(again) == dumps(new_state) and dumps(events_again) == dumps(events)
            _check_secrets(ruleset, new_state, events, players)
        steps.append(texts)
        state = new_state
        if on_state:
            on_state(state)
    else:
        pytest.fail(f"{ruleset.id}: no end after {MAX_STEPS} steps")
    return state, steps


@pytest.mark.parametrize("game_id", GAME_IDS)
@PROPS
@given(data=st.data())
def test_random_legal_play_keeps_every_promise(game_id: str, data: st.DataObject) -> None:
    ruleset = engine.get(game_id)
    n = data.draw(st.integers(ruleset.min_players, ruleset.max_players), label="players")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    order_seed = data.draw(st.integers(0, 2**32), label="order_seed")
    players = [f"s{i}" for i in range(n)]
    final, steps = play_random(ruleset, players, {}, seed, order_seed)
    assert ruleset.is_over(final) and ruleset.pending(final) == []
    ranking = ruleset.ranking(final)
    assert ranking is not None
    assert sorted(seat for group in ranking for seat in group) == sorted(players)
    # Replay: same setup and orders, same bytes.
    state = ruleset.new_game(players=players, options={}, seed=seed)
    for step in steps:
        state, _ = ruleset.submit_step(state, step)
    assert dumps(state) == dumps(final)


# --- 5X invariants ---------------------------------------------------------------------------

FIVEX = engine.get("5x") if "5x" in GAME_IDS else None
ACTIONS = ["EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE"]


class FiveXWatcher:
    """Checks the 5X invariants on every state of a game."""

    def __init__(self, leaders: bool) -> None:
        self.leaders = leaders
        self.dealt: set[str] | None = None
        self.rounds: list[int] = []

    def __call__(self, state: Any) -> None:
        table = FIVEX.report(state)
        players = table["players"]
        if table["phase"] == "draft":
            self.dealt = {c for p in players.values() for c in p["dealt"]}
            return
        self.rounds.append(table["round"])
        leaders_seen: list[str] = []
        for name, p in players.items():
            assert p["resources"] >= 0, f"{name} has negative resources"
            played = p["played"]
            # A played card is "in play" until the end of the round (then discarded).
            live = played is not None and table["phase"] != "over"
            in_play = [played] if live and played not in p["hand"] else []
            cards = p["hand"] + p["discard"] + in_play
            assert sorted(c for c in cards if c in ACTIONS) == sorted(ACTIONS), (name, p)
            leaders_seen += [c for c in cards if c not in ACTIONS]
        assert len(leaders_seen) == len(set(leaders_seen)), "a leader is in two places"
        if self.leaders:
            assert set(leaders_seen) == self.dealt
        else:
            assert leaders_seen == []
        wonders = table["wonders"]
        letters = "ABCDEFG" if self.leaders else "ABCDEF"
        built, removed, current = wonders["built"], wonders["removed"], wonders["current"]
        assert not set(built) & set(removed)
        assert all(owner in players for owner in built.values())
        for letter in letters:
            if current is None or letter < current:
                assert (letter in built) != (letter in removed), letter
            elif letter == current:  # may be built this round, not yet removed
                assert letter not in removed, letter
            else:
                assert letter not in built and letter not in removed, letter
        for name, p in players.items():
            assert p["wonders"] == sorted(w for w, o in built.items() if o == name)
        if not self.leaders:
            assert "G" not in built and "G" not in removed and current != "G"


@pytest.mark.skipif(FIVEX is None, reason="5x is not installed")
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 6),
    leaders=st.booleans(),
    all_leaders=st.booleans(),
    seed=st.integers(0, 2**32),
    order_seed=st.integers(0, 2**32),
)
def test_fivex_random_games_keep_the_invariants(
    n: int, leaders: bool, all_leaders: bool, seed: int, order_seed: int
) -> None:
    players = [f"s{i}" for i in range(n)]
    watcher = FiveXWatcher(leaders)
    options = {"leaders": leaders, "all_leaders": all_leaders}
    final, _steps = play_random(FIVEX, players, options, seed, order_seed, check=n == 4,
                                on_state=watcher)
    rounds = 7 if leaders else 6
    assert FIVEX.progress(final) == rounds
    assert sorted(set(watcher.rounds)) == list(range(1, rounds + 1))
    table = FIVEX.report(final)
    assert table["wonders"]["current"] is None and table["pending"] == []
    assert len(table["ranking"]) >= 1
