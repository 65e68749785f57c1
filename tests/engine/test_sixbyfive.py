"""6x5 rules: the goal deck and canonical shapes, set-up, the actions, goal realization
and every way the game ends. Expected values are worked out by hand from
``shared/spec/6x5.md`` (the reasoning is in the comments)."""

from __future__ import annotations

import random

import pytest

from engine.base import ScriptError, dumps
from engine.sixbyfive_shapes import canonical, pentahex_deck, polyhexes
from tests.engine.sixbyfive_support import (
    HOOK,
    HOOK_MIRROR,
    LINE,
    ZIGZAG,
    R,
    craft,
    new,
    play,
)

LINE_CANON = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
# A line of four along r with a bump beside the far end (L4 in the comments).
L4 = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 3]]


# --- shapes -------------------------------------------------------------------------


def test_deck_is_the_33_distinct_one_sided_pentahexes() -> None:
    deck = pentahex_deck()
    assert len(deck) == 33
    assert len({tuple(map(tuple, s)) for s in deck}) == 33
    # Every card is in canonical form and is five connected, distinct cells.
    for shape in deck:
        assert [list(c) for c in canonical([tuple(c) for c in shape])] == shape
        assert len({tuple(c) for c in shape}) == 5
    # Known counts of one-sided polyhexes: 1, 1, 3, 10 (then 33).
    assert [len(polyhexes(n)) for n in (1, 2, 3, 4)] == [1, 1, 3, 10]
    # Sorted, so the deck order before shuffling is fixed.
    assert deck == sorted(deck)
    assert LINE_CANON in deck and deck[0] == LINE_CANON
    # A few shapes known by hand: the spec's example (canonical 0,0 0,1 0,2 1,0 1,1)
    # and the line of four with a bump beside an end (0,0 0,1 0,2 0,3 1,3).
    assert [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]] in deck
    assert [[0, 0], [0, 1], [0, 2], [0, 3], [1, 3]] in deck


def test_canonical_examples_by_hand() -> None:
    # The horizontal line rotated by 60° becomes (0,0)..(0,4), smaller than (0,0),(1,0)...
    assert canonical([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]) == tuple((0, k) for k in range(5))
    # The spec's printed example shape: of its six rotations (worked out by hand) the
    # fifth, 0,0 0,1 0,2 1,0 1,1, is the smallest list.
    assert canonical([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]) == (
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
    )
    # Translation and rotation do not change the canonical form.
    moved = [(q + 7, r - 3) for q, r in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]]
    assert canonical(moved) == canonical([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])


def test_mirror_images_are_distinct_shapes() -> None:
    # HOOK has no mirror symmetry (its only line of four must be kept, its bump fixes
    # one end, and the axis reflection moves the bump off the shape), so its mirror is a
    # different card; the straight line is its own mirror image.
    hook = canonical([tuple(c) for c in HOOK])
    mirror = canonical([tuple(c) for c in HOOK_MIRROR])
    assert hook != mirror
    deck = {tuple(map(tuple, s)) for s in pentahex_deck()}
    assert hook in deck and mirror in deck
    line_mirror = canonical([(r, q) for q, r in [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]])
    assert line_mirror == canonical([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)])


# --- set-up -------------------------------------------------------------------------


def test_new_game_table_and_printed_fields() -> None:
    state = new()
    report = R.report(state)
    assert list(report) == ["turn", "phase", "pending", "board", "reserve", "pawns", "players"]
    assert report["turn"] == 1 and report["phase"] == "turn" and report["pending"] == ["ann"]
    assert report["board"] == {"0,0": "K"}
    assert report["reserve"] == {"BLUE": 8, "RED": 8, "YELLOW": 8}
    assert report["pawns"] == {"ann": None, "bob": None}
    assert report["players"]["ann"] == {"goals": [LINE_CANON], "points": 0}
    # Fixed goals are taken out of the deck: 33 - 2 left.
    assert len(state["deck"]) == 31


def test_board_keys_sorted_by_q_then_r_numerically() -> None:
    state = craft(new(), {"10,0": "B", "-10,0": "R", "2,-1": "Y", "0,0": "K", "2,-3": "B"})
    assert list(R.report(state)["board"]) == ["-10,0", "0,0", "2,-3", "2,-1", "10,0"]


def test_random_setup_is_deterministic_and_deals_distinct_goals() -> None:
    a = R.new_game(players=["ann", "bob", "cat"], options={"goals": 3}, seed=42)
    b = R.new_game(players=["ann", "bob", "cat"], options={"goals": 3}, seed=42)
    assert dumps(a) == dumps(b)
    dealt = [tuple(map(tuple, g)) for s in ("ann", "bob", "cat") for g in a["goals"][s]]
    assert len(dealt) == 9 and len(set(dealt)) == 9
    assert len(a["deck"]) == 33 - 9
    firsts = {R.pending(R.new_game(players=["a", "b", "c"], seed=s))[0] for s in range(30)}
    assert firsts == {"a", "b", "c"}
    assert R.pending(new(first="bob"))[0] == "bob"


@pytest.mark.parametrize(
    "setup",
    [
        {"goals": {"zed": [LINE]}},
        {"goals": {"ann": [[[0, 0], [1, 0], [2, 0], [3, 0]]]}},
        {"goals": {"ann": [[[0, 0], [1, 0], [2, 0], [3, 0], [5, 0]]]}},
        {"goals": {"ann": [[[0, 0], [0, 0], [2, 0], [3, 0], [1, 0]]]}},
        {"goals": {"ann": "line"}},
        {"goals": {"ann": []}},
        {"first": "zed"},
    ],
)
def test_bad_setup_is_a_script_error(setup: dict) -> None:
    with pytest.raises(ScriptError):
        R.new_game(players=["ann", "bob"], seed=1, setup=setup)


@pytest.mark.parametrize(
    "players, options",
    [
        (["a"], {}),
        (["a", "b", "c", "d", "e", "f"], {}),
        (["a", "b"], {"goals": 6}),
        (["a", "b"], {"target": -1}),
        (["a", "b"], {"colour": 1}),
        (["a", "b"], {"max_turns": 0}),
    ],
)
def test_bad_players_or_options_are_script_errors(players: list, options: dict) -> None:
    with pytest.raises(ScriptError):
        R.new_game(players=players, options=options, seed=1)


# --- actions ------------------------------------------------------------------------


def test_place_switch_and_pawns() -> None:
    state, events = play(new(), "PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE YELLOW 0,1")
    assert events[0]["text"] == "ann placed a BLUE tile at 1,0" and events[0]["to"] is None
    assert state["pawns"] == {"ann": "0,1", "bob": "-1,0"}
    # ann's pawn left 1,0, so bob may switch it now: BLUE goes back, a YELLOW comes out.
    state, events = play(state, "SWITCH 1,0 TO YELLOW")
    assert state["board"]["1,0"] == "Y"
    assert state["reserve"] == {"BLUE": 8, "RED": 7, "YELLOW": 6}
    assert state["pawns"] == {"ann": "0,1", "bob": "1,0"}
    assert events[0]["text"] == "bob switched the tile at 1,0 from BLUE to YELLOW"
    assert R.report(state)["turn"] == 5


def test_move_black_leaves_its_hex_and_carries_the_pawn() -> None:
    state, events = play(new(), "PLACE BLUE 1,0", "MOVE BLACK TO 2,0")
    assert state["board"] == {"1,0": "B", "2,0": "K"}
    assert state["pawns"]["bob"] == "2,0"
    assert events[-1]["text"] == "bob moved the black tile from 0,0 to 2,0"
    # 0,0 is free again and touches the blue tile: a legal place.
    state, _ = play(state, "PLACE RED 0,0")
    assert state["board"]["0,0"] == "R"


def test_open_game_swap_exchanges_two_tiles() -> None:
    state = craft(
        new(options={"open_game": True}),
        {"0,0": "K", "1,0": "B", "-1,0": "R", "0,1": "Y"},
        {"BLUE": 0, "RED": 0, "YELLOW": 0},
    )
    state, events = play(state, "SWAP 0,0 1,0")
    assert state["board"] == {"-1,0": "R", "0,0": "B", "0,1": "Y", "1,0": "K"}
    assert state["pawns"]["ann"] == "0,0"
    assert events[0]["text"] == "ann swapped the tiles at 0,0 and 1,0"
    # MOVE BLACK stays allowed in the open game: 1,1 touches the yellow tile at 0,1.
    state, _ = play(state, "MOVE BLACK TO 1,1")
    assert state["board"]["1,1"] == "K" and "1,0" not in state["board"]


# --- goal realization -----------------------------------------------------------------


def test_rotated_goal_wins() -> None:
    # ann's line is realized along the 1,-1 direction (a rotation of 0,0..4,0).
    state, events = play(
        new(),
        "PLACE BLUE 1,-1",
        "PLACE RED -1,0",
        "PLACE BLUE 2,-2",
        "PLACE RED -2,0",
        "PLACE BLUE 3,-3",
        "PLACE YELLOW -3,0",
        "PLACE BLUE 4,-4",
    )
    assert R.is_over(state) and R.ranking(state) == [["ann"], ["bob"]]
    assert R.report(state)["turn"] == 7 and R.pending(state) == []
    end = [e for e in events if e["kind"] == "end"][0]
    assert end["text"].startswith("ann wins")


def test_mirror_image_does_not_match_but_the_shape_does_for_another_seat() -> None:
    # Blue tiles make HOOK with the black tile; ann holds its mirror image, bob holds
    # HOOK turned by 180°. ann's own move completes bob's goal: bob wins, ann does not.
    hook_turned = [[-q, -r] for q, r in HOOK]
    state = new(goals={"ann": [HOOK_MIRROR], "bob": [hook_turned]})
    state, _ = play(
        state,
        "PLACE BLUE 1,0",
        "PLACE RED -1,0",
        "PLACE BLUE 2,0",
        "PLACE RED -2,0",
        "PLACE BLUE 3,0",
        "PLACE YELLOW -3,0",
        "PLACE BLUE 3,1",
    )
    assert R.ranking(state) == [["bob"], ["ann"]]


def test_win_through_another_seats_move() -> None:
    state, events = play(
        new(), "PLACE BLUE 1,0", "PLACE BLUE 2,0", "PLACE BLUE 3,0", "PLACE BLUE 4,0"
    )
    assert R.ranking(state) == [["ann"], ["bob"]]
    assert any(e["text"].startswith("ann wins") for e in events)


def _two_groups_table(goals: dict) -> dict:
    # Blue line 1,0..4,0 and red L4 0,1 0,2 0,3 1,3; the black tile waits at -1,0,
    # touching none of them; moving it to 0,0 completes both groups at once.
    state = new(players=("ann", "bob", "cat"), goals=goals)
    board = {
        "-1,0": "K",
        "1,0": "B",
        "2,0": "B",
        "3,0": "B",
        "4,0": "B",
        "0,1": "R",
        "0,2": "R",
        "0,3": "R",
        "1,3": "R",
    }
    return craft(state, board, {"BLUE": 4, "RED": 4, "YELLOW": 8})


def test_simultaneous_realization_is_a_draw_of_all_seats() -> None:
    state = _two_groups_table({"ann": [LINE], "bob": [L4], "cat": [ZIGZAG]})
    state, events = play(state, "MOVE BLACK TO 0,0")
    assert R.is_over(state) and R.ranking(state) == [["ann", "bob", "cat"]]
    assert R.report(state)["turn"] == 1
    assert [e["kind"] for e in events] == ["action", "end", "reveal"]


def test_single_realizer_among_three_wins_alone() -> None:
    state = _two_groups_table({"ann": [ZIGZAG], "bob": [HOOK], "cat": [L4]})
    state, _ = play(state, "MOVE BLACK TO 0,0")
    assert R.ranking(state) == [["cat"], ["ann", "bob"]]


def test_multiple_goals_any_one_wins() -> None:
    state = new(options={"goals": 2}, goals={"ann": [ZIGZAG, LINE], "bob": [HOOK, L4]})
    state, _ = play(state, "PLACE BLUE 1,0", "PLACE BLUE 2,0", "PLACE BLUE 3,0", "PLACE BLUE 4,0")
    assert R.ranking(state) == [["ann"], ["bob"]]


# --- other ends -----------------------------------------------------------------------


def test_reserve_exhaustion_is_a_draw() -> None:
    state = craft(new(), {"0,0": "K"}, {"BLUE": 1, "RED": 0, "YELLOW": 0})
    state, events = play(state, "PLACE BLUE 1,0")
    assert R.is_over(state) and R.ranking(state) == [["ann", "bob"]]
    assert R.report(state)["reserve"] == {"BLUE": 0, "RED": 0, "YELLOW": 0}
    assert "reserve is empty" in [e for e in events if e["kind"] == "end"][0]["text"]


def test_last_tile_completing_a_goal_wins_rather_than_draws() -> None:
    board = {"0,0": "K", "1,0": "B", "2,0": "B", "3,0": "B"}
    state = craft(new(), board, {"BLUE": 1, "RED": 0, "YELLOW": 0})
    state, _ = play(state, "PLACE BLUE 4,0")
    assert R.ranking(state) == [["ann"], ["bob"]]


def test_open_game_goes_on_when_the_reserve_runs_out() -> None:
    state = craft(
        new(options={"open_game": True}), {"0,0": "K"}, {"BLUE": 1, "RED": 0, "YELLOW": 0}
    )
    state, _ = play(state, "PLACE BLUE 1,0")
    assert not R.is_over(state) and R.pending(state) == ["bob"] and state["turn"] == 2


def test_max_turns_draw() -> None:
    state, _ = play(new(options={"max_turns": 3}), "PLACE BLUE 1,0", "PLACE RED -1,0")
    assert not R.is_over(state) and state["turn"] == 3
    state, _ = play(state, "PLACE YELLOW 0,1")
    assert R.is_over(state) and R.ranking(state) == [["ann", "bob"]]
    assert R.report(state)["turn"] == 3 and R.phase(state) == "over"


# --- scoring points -------------------------------------------------------------------

WIN_ORDERS = (
    "PLACE BLUE 1,0",
    "PLACE RED 0,1",
    "PLACE BLUE 2,0",
    "PLACE RED 0,2",
    "PLACE BLUE 3,0",
    "PLACE YELLOW -1,0",
    "PLACE BLUE 4,0",
)


def test_target_scores_discards_and_replaces() -> None:
    start = new(options={"target": 2})
    top = start["deck"][0]
    state, events = play(start, *WIN_ORDERS)
    assert not R.is_over(state) and state["turn"] == 8 and R.pending(state) == ["bob"]
    assert state["points"] == {"ann": 1, "bob": 0}
    assert state["goals"]["ann"] == [top] and state["discarded"]["ann"] == [LINE_CANON]
    assert len(state["deck"]) == 30
    score = [e for e in events if e["kind"] == "score"]
    assert len(score) == 1 and score[0]["to"] is None
    draw = [e for e in events if e["kind"] == "draw"]
    assert len(draw) == 1 and draw[0]["to"] == ["ann"]
    # The line is still on the table, but ann no longer holds it: no second point.
    state, _ = play(state, "PLACE YELLOW -2,0")
    assert state["points"] == {"ann": 1, "bob": 0}


def test_target_reached_wins() -> None:
    state, _ = play(new(options={"target": 1}), *WIN_ORDERS)
    assert R.ranking(state) == [["ann"], ["bob"]]
    assert R.report(state)["players"]["ann"]["points"] == 1


def test_target_reached_together_shares_the_win() -> None:
    state = new(
        players=("ann", "bob", "cat"),
        options={"target": 1},
        goals={"ann": [LINE], "bob": [LINE], "cat": [ZIGZAG]},
    )
    state, _ = play(
        state,
        "PLACE BLUE 1,0",
        "PLACE RED 0,1",
        "PLACE YELLOW -1,0",
        "PLACE BLUE 2,0",
        "PLACE YELLOW 0,-1",
        "PLACE RED 0,2",
        "PLACE BLUE 3,0",
        "PLACE BLUE 4,0",
    )
    assert R.ranking(state) == [["ann", "bob"], ["cat"]]
    assert state["points"] == {"ann": 1, "bob": 1, "cat": 0}


def test_target_deck_running_out_ends_by_points() -> None:
    board = {"0,0": "K", "1,0": "B", "2,0": "B", "3,0": "B"}
    state = craft(new(options={"target": 3}), board)
    state["deck"] = []
    state["points"]["bob"] = 2
    state, _ = play(state, "PLACE BLUE 4,0")
    assert R.is_over(state) and R.ranking(state) == [["bob"], ["ann"]]
    assert state["points"] == {"ann": 1, "bob": 2} and state["goals"]["ann"] == []


def test_target_reserve_empty_ends_by_points() -> None:
    state = craft(new(options={"target": 2}), {"0,0": "K"}, {"BLUE": 1, "RED": 0, "YELLOW": 0})
    state["points"]["bob"] = 1
    done, _ = play(state, "PLACE BLUE 1,0")
    assert R.ranking(done) == [["bob"], ["ann"]]
    state["points"]["bob"] = 0
    done, _ = play(state, "PLACE BLUE 1,0")
    assert R.ranking(done) == [["ann", "bob"]]


# --- long random games ----------------------------------------------------------------


def test_random_games_terminate_and_replay_identically() -> None:
    for game in range(8):
        rnd = random.Random(game)
        players = [f"p{i}" for i in range(rnd.randint(2, 5))]
        options = {
            "goals": rnd.randint(1, 3),
            "change_goal": game % 3 == 0,
            "open_game": game % 2 == 0,
            "target": rnd.choice([0, 2]),
            "max_turns": 60,
        }
        state = R.new_game(players=players, options=options, seed=game)
        played = []
        while not R.is_over(state):
            seat = R.pending(state)[0]
            R.parse_order(state, seat, R.default_order(state, seat))  # always legal
            for other in players if len(played) % 5 == 0 else ():  # secrets: own view only
                for fragment in R.secrets(state, other):
                    assert fragment in dumps(R.view(state, other))
                    assert fragment not in dumps(R.view(state, None))
            text = rnd.choice(R.legal_orders(state, seat))
            state, _ = R.submit_step(state, {seat: text})
            played.append({seat: text})
            assert state["turn"] <= 60
        ranking = R.ranking(state)
        assert sorted(s for group in ranking for s in group) == sorted(players)
        again = R.new_game(players=players, options=options, seed=game)
        for step in played:
            again, _ = R.submit_step(again, step)
        assert dumps(again) == dumps(state)
