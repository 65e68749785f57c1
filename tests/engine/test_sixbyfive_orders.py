"""6x5 order language: tolerant parsing, every refusal with its message (and no state
change), CHANGE, views and the secrecy of goals, the default order and legal orders.
Expected values are worked out by hand from ``shared/spec/6x5.md``."""

from __future__ import annotations

import pytest

from engine.base import IllegalOrder, StepRejected, dumps, events_for
from tests.engine.sixbyfive_support import HOOK, ZIGZAG, R, craft, new, play

LINE_CANON = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
PLACE_FORM = "PLACE <colour> <q>,<r> (e.g. PLACE BLUE 1,0)"


def refuse(state: dict, seat: str, text: str) -> str:
    """The refusal reason of an order; checks the state did not change."""
    before = dumps(state)
    with pytest.raises(IllegalOrder) as info:
        R.parse_order(state, seat, text)
    assert dumps(state) == before
    return info.value.reason


# --- parsing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "PLACE BLUE 1,0",
        "place blue 1, 0",
        "  Place   b  1 ,0 ",
        "# my move\n\nPLACE BLUE 1,0\n",
        "PLACE BLUE (1,0)",
        "PLACE BLUE AT 1,0",
        "place 1,0 blue",
        "PLACE BLUE +1,-0",
    ],
)
def test_place_spellings(text: str) -> None:
    order = R.parse_order(new(), "ann", text)
    assert order == {"kind": "place", "colour": "BLUE", "hex": "1,0", "change": None}


def test_other_action_spellings() -> None:
    state, _ = play(new(), "PLACE BLUE 1,0", "PLACE RED -1,0", "PLACE BLUE 0,1", "PLACE RED 0,-1")
    assert R.parse_order(state, "ann", "switch -1,0 to y")["colour"] == "YELLOW"
    assert R.parse_order(state, "ann", "Switch -1, 0 Yellow")["hex"] == "-1,0"
    assert R.parse_order(state, "ann", "move black to 1,1") == {
        "kind": "move",
        "hex": "1,1",
        "change": None,
    }
    assert R.parse_order(state, "ann", "MOVE K 1,1")["hex"] == "1,1"
    # A word processor's or phone's minus sign (U+2212, en dash, full-width) is a minus.
    for minus in ("\u2212", "\u2013", "\uff0d"):
        assert R.parse_order(state, "ann", f"SWITCH {minus}1,0 TO YELLOW")["hex"] == "-1,0"


# --- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, reason",
    [
        ("PLACE BLUE 0,0", "0,0 already holds the black tile"),
        ("PLACE BLUE 3,3", "3,3 does not touch any tile"),
        ("PLACE GREEN 1,0", "'GREEN' is not a colour; use BLUE, RED or YELLOW (or B, R, Y)"),
        ("PLACE BLUE 1/0", "'1/0' is not a hex; write a hex as q,r (e.g. 1,0 or -1,2)"),
        ("PLACE BLUE", f"PLACE needs a hex; write {PLACE_FORM}"),
        ("PLACE", f"PLACE needs a colour; write {PLACE_FORM}"),
        ("PLACE BLUE 1,0 NOW", f"unexpected 'NOW' at the end of the order; write {PLACE_FORM}"),
        ("SWITCH 0,0 TO RED", "the black tile cannot be switched"),
        ("SWITCH 2,2 TO RED", "there is no tile at 2,2"),
        ("MOVE BLACK TO 1,0", "1,0 does not touch any tile other than the black tile"),
        (
            "MOVE BLUE TO 1,0",
            "only the black tile can be moved; write MOVE BLACK TO <q>,<r> (e.g. MOVE BLACK TO 1,1)",
        ),
        ("SWAP 0,0 1,0", "SWAP is only allowed in the open game once the reserve is empty"),
        ("CHANGE 1\nPLACE BLUE 1,0", "CHANGE is only allowed with the change_goal option"),
        ("CHANGE 1", "CHANGE is only allowed with the change_goal option"),
        (
            "PLACE BLUE 1,0\nPLACE RED -1,0",
            "one action per turn: the order has 2 action lines; send only one of them",
        ),
    ],
)
def test_refusals_on_a_fresh_table(text: str, reason: str) -> None:
    assert refuse(new(), "ann", text) == reason


def test_unknown_and_empty_orders_name_what_is_allowed() -> None:
    reason = refuse(new(), "ann", "JUMP 1,0")
    assert reason.startswith("unknown order 'JUMP'; allowed now: PLACE <colour> <q>,<r>")
    assert "SWAP" not in reason and "CHANGE" not in reason
    assert refuse(new(), "ann", "# nothing\n\n").startswith("the order is empty; allowed now:")


def test_turn_order_is_enforced() -> None:
    state = new()
    assert refuse(state, "bob", "PLACE BLUE 1,0") == "it is ann's turn, not bob's"
    with pytest.raises(StepRejected):
        R.submit_step(state, {"bob": "PLACE BLUE 1,0"})
    over, _ = play(new(options={"max_turns": 1}), "PLACE BLUE 1,0")
    assert refuse(over, "bob", "PLACE RED -1,0") == "the game is over; no more orders are taken"


def test_pawns_block_any_seat_including_the_mover() -> None:
    state, _ = play(new(), "PLACE BLUE 1,0")
    assert refuse(state, "bob", "SWITCH 1,0 TO RED") == "the tile at 1,0 is under ann's pawn"
    assert refuse(state, "bob", "MOVE BLACK TO 1,0") == "1,0 already holds a BLUE tile"
    # -1,0 touches only the black tile.
    assert refuse(state, "bob", "MOVE BLACK TO -1,0") == (
        "-1,0 does not touch any tile other than the black tile"
    )
    state, _ = play(state, "PLACE RED -1,0")
    assert refuse(state, "ann", "SWITCH 1,0 TO RED") == "the tile at 1,0 is under ann's pawn"
    assert refuse(state, "ann", "SWITCH -1,0 TO BLUE") == "the tile at -1,0 is under bob's pawn"
    state, _ = play(state, "PLACE YELLOW 0,1", "PLACE YELLOW 0,-1")
    # bob's pawn moved on to 0,-1: -1,0 is free, but it is RED already.
    assert refuse(state, "ann", "SWITCH -1,0 TO RED") == (
        "the tile at -1,0 is already RED; switch it to BLUE or YELLOW"
    )


def test_black_tile_under_a_pawn_cannot_move_or_be_swapped() -> None:
    state, _ = play(new(), "PLACE BLUE 1,0", "MOVE BLACK TO 2,0")
    assert (
        refuse(state, "ann", "MOVE BLACK TO 0,0") == "the black tile (at 2,0) is under bob's pawn"
    )
    state = craft(
        new(options={"open_game": True}),
        {"0,0": "K", "1,0": "B", "-1,0": "R"},
        {"BLUE": 0, "RED": 0, "YELLOW": 0},
    )
    state["pawns"]["bob"] = "0,0"
    assert refuse(state, "ann", "SWAP 1,0 0,0") == "the tile at 0,0 is under bob's pawn"
    assert refuse(state, "ann", "SWAP 1,0 1,0") == "SWAP needs two different hexes"
    assert refuse(state, "ann", "SWAP 1,0 5,5") == "there is no tile at 5,5"
    assert R.parse_order(state, "ann", "SWAP 1,0 and -1,0")["hex2"] == "-1,0"


def test_swap_needs_the_open_game_and_an_empty_reserve() -> None:
    reason = refuse(new(options={"open_game": True}), "ann", "SWAP 0,0 1,0")
    assert reason == (
        "SWAP is only allowed in the open game once the reserve is empty "
        "(the reserve still holds 24 tiles)"
    )


def test_reserve_shortages() -> None:
    state = craft(new(), {"0,0": "K", "1,0": "B"}, {"BLUE": 3, "RED": 0, "YELLOW": 2})
    assert refuse(state, "ann", "PLACE RED -1,0") == "there is no RED tile left in the reserve"
    assert refuse(state, "ann", "SWITCH 1,0 TO R") == "there is no RED tile left in the reserve"
    state = craft(
        new(options={"open_game": True}),
        {"0,0": "K", "1,0": "B"},
        {"BLUE": 0, "RED": 0, "YELLOW": 0},
    )
    assert refuse(state, "ann", "PLACE RED -1,0") == "the reserve is empty; no tile can be placed"


# --- change goal ------------------------------------------------------------------------


def test_change_goal_shows_discards_and_draws_in_secret() -> None:
    start = new(options={"change_goal": True})
    top = start["deck"][0]
    state, events = play(start, "CHANGE 1\nPLACE BLUE 1,0")
    assert state["goals"]["ann"] == [top] and state["discarded"]["ann"] == [LINE_CANON]
    assert len(state["deck"]) == 30 and state["board"]["1,0"] == "B"
    change = events[0]
    assert change["to"] is None and change["text"].startswith("ann changed goal 1")
    assert change["data"]["goal"] == LINE_CANON
    drawn = [e for e in events if e["kind"] == "draw"]
    assert len(drawn) == 1 and drawn[0]["to"] == ["ann"]
    # bob and a spectator see the shown goal but not the new one.
    for viewer in ("bob", None):
        view = R.view(state, viewer)
        assert "goals" not in view["players"]["ann"]
        assert view["players"]["ann"]["discarded"] == [LINE_CANON]
        assert dumps(top) not in dumps(view)
        assert dumps(top) not in dumps(events_for(events, viewer))
    assert R.view(state, "ann")["players"]["ann"]["goals"] == [top]


def test_change_goal_refusals() -> None:
    state = new(options={"change_goal": True})
    assert refuse(state, "ann", "CHANGE 2\nPLACE BLUE 1,0") == (
        "you have 1 goal; CHANGE takes a number from 1 to 1"
    )
    assert refuse(state, "ann", "CHANGE 1\nCHANGE 1\nPLACE BLUE 1,0") == (
        "only one goal may be changed per turn"
    )
    # The refusal said "on the next line" although the turn email's one-line example
    # "CHANGE 1 PLACE BLUE -1,0" is accepted (an audit): both places are named, and both work.
    assert refuse(state, "ann", "CHANGE 1") == (
        "CHANGE must be followed by the turn's action, on the same line or the next "
        "(PLACE, SWITCH, MOVE BLACK or SWAP)"
    )
    for both in ("CHANGE 1 PLACE BLUE 1,0", "CHANGE 1\nPLACE BLUE 1,0"):
        assert R.parse_order(state, "ann", both)["change"] == 1
    assert refuse(state, "ann", "CHANGE one\nPLACE BLUE 1,0").startswith("CHANGE needs the number")
    assert R.parse_order(state, "ann", "change 1 place blue 1,0")["change"] == 1
    state["deck"] = []
    assert refuse(state, "ann", "CHANGE 1\nPLACE BLUE 1,0") == (
        "the goal deck is empty; no goal can be changed"
    )


def test_change_after_the_action_is_refused_as_out_of_order() -> None:
    # 6x5.md: "CHANGE <k> first ..., then the action". A CHANGE written after the action
    # is no second action: the refusal says where it goes (it said "2 action lines").
    state = new(options={"change_goal": True})
    expected = "CHANGE comes first: write CHANGE <k> on one line, then the action on the next"
    for text in ("PLACE BLUE 1,0\nCHANGE 1", "PLACE BLUE 1,0; change 1"):
        assert refuse(state, "ann", text) == expected
    assert refuse(new(), "ann", "PLACE BLUE 1,0\nCHANGE 1") == (
        "CHANGE is only allowed with the change_goal option"
    )


def test_a_new_goal_already_on_the_table_wins_after_the_action() -> None:
    # The line is already on the table; ann swaps her zigzag for it (the deck's top
    # card) and plays elsewhere: checked after the action, she wins.
    state = new(options={"change_goal": True}, goals={"ann": [ZIGZAG], "bob": [HOOK]})
    state = craft(
        state,
        {"0,0": "K", "1,0": "B", "2,0": "B", "3,0": "B", "4,0": "B"},
        {"BLUE": 4, "RED": 8, "YELLOW": 8},
    )
    state["deck"] = [LINE_CANON] + [g for g in state["deck"] if g != LINE_CANON]
    state, _ = play(state, "CHANGE 1\nPLACE RED -1,0")
    assert R.ranking(state) == [["ann"], ["bob"]]


# --- views and secrecy --------------------------------------------------------------------


def test_goals_are_secret_unless_visible() -> None:
    state = new()
    secret = dumps(LINE_CANON)
    assert R.secrets(state, "ann") == [secret]
    for viewer in ("bob", None):
        view = R.view(state, viewer)
        assert "goals" not in view["players"]["ann"] and view["players"]["ann"]["goal_count"] == 1
        assert secret not in dumps(view)
    assert R.view(state, "ann")["players"]["ann"]["goals"] == [LINE_CANON]
    # Refusals to bob never mention ann's goal.
    for text in ("CHANGE 1\nPLACE BLUE 1,0", "JUMP", "PLACE BLUE 9,9", "SWAP 0,0 1,0"):
        for seat in ("ann", "bob"):
            try:
                R.parse_order(state, seat, text)
            except IllegalOrder as exc:
                assert "0,4" not in exc.reason and secret not in exc.reason
    visible = new(options={"visible_goals": True})
    assert R.view(visible, "bob")["players"]["ann"]["goals"] == [LINE_CANON]
    assert R.view(visible, None)["players"]["ann"]["goals"] == [LINE_CANON]
    assert R.secrets(visible, "ann") == []


def test_goals_are_revealed_when_the_game_ends() -> None:
    state, events = play(new(options={"max_turns": 1}), "PLACE BLUE 1,0")
    assert R.view(state, "bob")["players"]["ann"]["goals"] == [LINE_CANON]
    assert R.secrets(state, "ann") == []
    assert R.view(state, None)["ranking"] == [["ann", "bob"]]


# --- default and legal orders -------------------------------------------------------------


def test_default_order_choices() -> None:
    state = new()
    # Every colour has 8: BLUE first; distance-1 hexes, smallest q then r: -1,0.
    assert R.default_order(state, "ann") == "PLACE BLUE -1,0"
    state, _ = play(state, "PLACE BLUE -1,0")
    # BLUE 7, RED 8, YELLOW 8: RED; next free distance-1 hex by q then r: -1,1.
    assert R.default_order(state, "bob") == "PLACE RED -1,1"
    ring = {"0,0": "K", "1,0": "Y", "-1,0": "Y", "0,1": "Y", "0,-1": "Y", "1,-1": "Y", "-1,1": "Y"}
    state = craft(new(), ring, {"BLUE": 2, "RED": 5, "YELLOW": 5})
    # The ring is full: distance 2, smallest q is -2, then smallest r: -2,0.
    assert R.default_order(state, "ann") == "PLACE RED -2,0"
    # Black alone at 5,5: its neighbours 4,5 and 5,4 are both 9 from 0,0; q decides.
    state = craft(new(), {"5,5": "K"}, {"BLUE": 1, "RED": 1, "YELLOW": 3})
    assert R.default_order(state, "ann") == "PLACE YELLOW 4,5"
    # Empty reserve in the open game: the first legal order (MOVE BLACK, hexes by q).
    state = craft(
        new(options={"open_game": True}),
        {"0,0": "K", "1,0": "B", "-1,0": "R"},
        {"BLUE": 0, "RED": 0, "YELLOW": 0},
    )
    assert R.default_order(state, "ann") == "MOVE BLACK TO -2,0"


def test_legal_orders_on_a_fresh_table() -> None:
    state = new()
    hexes = ["-1,0", "-1,1", "0,-1", "0,1", "1,-1", "1,0"]
    expected = [f"PLACE {c} {h}" for c in ("BLUE", "RED", "YELLOW") for h in hexes]
    assert R.legal_orders(state, "ann") == expected
    assert R.legal_orders(state, "bob") == []


def test_legal_orders_are_exactly_the_accepted_ones() -> None:
    state = craft(
        new(options={"open_game": True, "change_goal": True}),
        {"0,0": "K", "1,0": "B", "-1,0": "R", "0,1": "Y"},
        {"BLUE": 0, "RED": 0, "YELLOW": 0},
    )
    state["pawns"]["bob"] = "0,1"
    legal = R.legal_orders(state, "ann")
    # 3 free tiles (0,1 carries bob's pawn): 6 ordered swaps. MOVE BLACK: the empty
    # hexes touching 1,0 (2,0 1,1 1,-1 2,-1), -1,0 (-2,0 -1,1 -1,-1 0,-1 -2,1) or 0,1
    # (0,2 -1,2): 11. Then CHANGE 1 before each of those 17.
    assert len([t for t in legal if t.startswith("SWAP")]) == 6
    assert len([t for t in legal if t.startswith("MOVE")]) == 11
    assert len(legal) == 2 * 17
    for text in legal:
        R.parse_order(state, "ann", text)
    assert "SWAP 0,1 1,0" not in legal


def test_an_unknown_order_names_only_the_actions_legal_now() -> None:
    """ann's pawn stands on the only coloured tile and bob's on the black one: cat can
    only PLACE, and the refusal said SWITCH and MOVE BLACK were allowed too."""
    state = R.new_game(players=["ann", "bob", "cat"], seed=1, setup={"first": "ann"})
    state, _ = R.submit_step(state, {"ann": "PLACE YELLOW 1,0"})
    state, _ = R.submit_step(state, {"bob": "MOVE BLACK TO 2,0"})
    assert {order.split()[0] for order in R.legal_orders(state, "cat")} == {"PLACE"}
    assert refuse(state, "cat", "P YELLOW 1 0") == "unknown order 'P'; allowed now: PLACE <colour> <q>,<r>"
    # After ann's first tile, bob may PLACE or MOVE BLACK (the tile is under ann's pawn).
    state = R.new_game(players=["ann", "bob", "cat"], seed=1, setup={"first": "ann"})
    state, _ = R.submit_step(state, {"ann": "PLACE YELLOW 1,0"})
    assert {order.split()[0] for order in R.legal_orders(state, "bob")} == {"PLACE", "MOVE"}
    assert refuse(state, "bob", "JUMP") == (
        "unknown order 'JUMP'; allowed now: PLACE <colour> <q>,<r>; MOVE BLACK TO <q>,<r>"
    )
