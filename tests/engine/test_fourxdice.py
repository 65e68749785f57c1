"""4X Dice (``shared/spec/4x-dice.md``): hand-computed cases for every rule and refusal.

Dice are fixed with ``setup.rolls`` (set-up rolls seat by seat in seating order, then
each turn's roll); counters are sometimes preset in the plain state dict to reach an
edge (the cap at 19, the end of the game) without playing twenty rounds.
"""

from __future__ import annotations

import random
import re

import pytest

import engine
from engine import fourxdice, rng
from engine.base import IllegalOrder, ScriptError, StepRejected, dumps
from engine.fourxdice_data import COUNTERS, FACES
from engine.runner import run_script

R = engine.get("4x-dice")
ZERO = [0, 0]


def new(players=("ann", "bob"), rolls=(), first="ann", dice=3, seed=1):
    setup = {"rolls": [list(f) for f in rolls]}
    if first is not None:
        setup["first"] = first
    return R.new_game(players=list(players), options={"dice": dice}, seed=seed, setup=setup)


def step(state, orders):
    return R.submit_step(state, orders)


def seat(state, name):
    return R.report(state)["players"][name]


def texts(events):
    return [e["text"] for e in events]


def refusal(state, who, text):
    """The reason an order is refused; also checks that the refusal changed nothing."""
    before = dumps(state)
    with pytest.raises(IllegalOrder) as info:
        R.parse_order(state, who, text)
    assert dumps(state) == before
    return info.value.reason


ALL_EXPLORE = "ALLOCATE EXPLORE EXPLORE EXPLORE"


# --- the four areas -----------------------------------------------------------------


def test_explore_adds_the_ships_on_explore_dice():
    s = new(rolls=[[2, 0], [1, 1], [0, 2], [1, 0], [1, 0], [1, 0]])
    s, events = step(s, {"ann": ALL_EXPLORE, "bob": ALL_EXPLORE})
    ann = seat(s, "ann")
    assert (ann["explore"], ann["expand"], ann["extract"], ann["vp"], ann["score"]) == (3, 0, 0, 0, 3)
    assert any("ann explored 3 (now 3)" in t for t in texts(events))


def test_expand_adds_asteroids_when_explore_allows():
    s = new(rolls=[[1, 0], [2, 0], [0, 2], ZERO, ZERO, ZERO])
    s, _ = step(s, {"ann": "ALLOCATE EXPLORE EXPLORE EXPAND", "bob": ALL_EXPLORE})
    assert (seat(s, "ann")["explore"], seat(s, "ann")["expand"]) == (3, 2)
    assert seat(s, "ann")["score"] == 3 + 2 * 3


def test_expand_never_rises_above_explore():
    s = new(rolls=[[1, 0], [0, 2], [1, 1], ZERO, ZERO, ZERO])
    s, events = step(s, {"ann": "ALLOCATE EXPLORE EXPAND EXPAND", "bob": ALL_EXPLORE})
    # eXplore 1 first; then 3 asteroids, but eXpand stops at eXplore's 1.
    assert (seat(s, "ann")["explore"], seat(s, "ann")["expand"]) == (1, 1)
    assert any("ann expanded 1" in t for t in texts(events))


def test_extract_scores_two_per_pair_up_to_the_expand_counter():
    s = new(rolls=[[1, 0], [0, 2], [2, 2], ZERO, ZERO, ZERO])
    s, _ = step(s, {"ann": "ALLOCATE EXPLORE EXPAND EXTRACT", "bob": ALL_EXPLORE})
    # explore 1, expand min(2, 1) = 1, pairs min(2, 2) = 2 but only 1 allowed: 2 VP.
    ann = seat(s, "ann")
    assert (ann["explore"], ann["expand"], ann["extract"], ann["vp"]) == (1, 1, 1, 2)
    assert ann["score"] == 2 + 1 + 3 + 2


def test_extract_scores_every_pair_when_expand_is_high_enough():
    s = new(rolls=[[2, 0], [0, 2], [2, 2], ZERO, ZERO, ZERO])
    s, _ = step(s, {"ann": "ALLOCATE EXPLORE EXPAND EXTRACT", "bob": ALL_EXPLORE})
    ann = seat(s, "ann")
    assert (ann["explore"], ann["expand"], ann["extract"], ann["vp"]) == (2, 2, 1, 4)
    assert ann["score"] == 4 + 2 + 6 + 2


def test_extract_pairs_are_the_smaller_of_ships_and_asteroids():
    s = new(rolls=[[2, 0], [2, 0], [0, 1], ZERO, ZERO, ZERO])
    s["seats"]["ann"].update(explore=5, expand=5)
    s, _ = step(s, {"ann": "ALLOCATE EXTRACT EXTRACT EXTRACT", "bob": ALL_EXPLORE})
    # 4 ships, 1 asteroid: one pair, 2 VP.
    assert (seat(s, "ann")["vp"], seat(s, "ann")["extract"]) == (2, 1)


def test_extract_counter_rises_even_without_a_pair_but_not_without_a_die():
    s = new(rolls=[[2, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0]])
    s, _ = step(s, {"ann": "ALLOCATE EXTRACT EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert (seat(s, "ann")["vp"], seat(s, "ann")["extract"]) == (0, 1)
    s, _ = step(s, {"ann": ALL_EXPLORE})
    assert seat(s, "bob")["extract"] == 0  # bob had no die on eXtract


def test_counters_never_pass_19():
    s = new(rolls=[[2, 0], [2, 0], [2, 2], ZERO, ZERO, ZERO])
    s["seats"]["ann"].update(explore=18, expand=18, extract=19)
    s, _ = step(s, {"ann": "ALLOCATE EXPLORE EXPLORE EXPAND", "bob": ALL_EXPLORE})
    assert (seat(s, "ann")["explore"], seat(s, "ann")["expand"]) == (19, 19)
    s2 = new(rolls=[[1, 1], ZERO, ZERO, ZERO, ZERO, ZERO])
    s2["seats"]["ann"].update(explore=3, expand=3, extract=19)
    s2, _ = step(s2, {"ann": "ALLOCATE EXTRACT EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert (seat(s2, "ann")["extract"], seat(s2, "ann")["vp"]) == (19, 2)


# --- eXterminate ----------------------------------------------------------------------

EXT_ROLLS = [[2, 0], ZERO, ZERO, [1, 0], [0, 2], [1, 1], ZERO, ZERO, [0, 1]]


def exterminate_state():
    """ann (2 ships on eXterminate) must hit; bob shows [1,0] [0,2] [1,1]; cat [0,0] [0,0] [0,1]."""
    s = new(players=("ann", "bob", "cat"), rolls=EXT_ROLLS)
    s, _ = step(s, {
        "ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE",
        "bob": "ALLOCATE EXPLORE EXPAND EXTRACT",
        "cat": "ALLOCATE EXPLORE EXPAND EXTRACT",
    })
    return s


def test_exterminate_phase_for_the_seat_alone():
    s = exterminate_state()
    assert (R.phase(s), R.pending(s), R.progress(s)) == ("exterminate", ["ann"], 1)


def test_hits_lower_dice_and_raise_the_exterminate_counter():
    s, events = step(exterminate_state(), {"ann": "HIT bob 2 ASTEROID; hit BOB 2 asteroid"})
    assert seat(s, "bob")["dice"][1] == {"face": [0, 0], "area": "EXPAND"}
    assert seat(s, "ann")["exterminate"] == 2
    assert any("ann hit bob's die 2: one asteroid fewer" in t for t in texts(events))
    assert (R.phase(s), R.pending(s)) == ("allocate", ["ann"])


def test_hit_word_may_be_left_out_after_a_semicolon():
    s, _ = step(exterminate_state(), {"ann": "HIT bob 1 SHIP; cat 3 asteroid"})
    assert seat(s, "bob")["dice"][0]["face"] == [0, 0]
    assert seat(s, "cat")["dice"][2]["face"] == [0, 0]


def test_pass_hits_nothing():
    s, events = step(exterminate_state(), {"ann": "pass"})
    assert seat(s, "ann")["exterminate"] == 0
    assert seat(s, "bob")["dice"][2]["face"] == [1, 1]
    assert any("passed" in t for t in texts(events))


def test_exterminate_counter_capped_but_the_hit_still_lands():
    s = exterminate_state()
    s["seats"]["ann"]["exterminate"] = 18
    s, _ = step(s, {"ann": "HIT bob 1 SHIP; HIT bob 3 SHIP"})
    assert seat(s, "ann")["exterminate"] == 19
    assert [d["face"] for d in seat(s, "bob")["dice"]] == [[0, 0], [0, 2], [0, 1]]


def test_no_exterminate_prompt_when_no_other_die_shows_anything():
    s = new(rolls=[[2, 0], ZERO, ZERO, ZERO, ZERO, ZERO])
    s, events = step(s, {"ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert (R.phase(s), R.pending(s)) == ("allocate", ["ann"])
    assert any("no other die shows anything" in t for t in texts(events))


def test_no_exterminate_prompt_without_ships_there():
    s = new(rolls=[[0, 2], ZERO, ZERO, [2, 2], [2, 2], [2, 2]])
    s, _ = step(s, {"ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert (R.phase(s), R.pending(s)) == ("allocate", ["ann"])


@pytest.mark.parametrize(
    ("order", "reason"),
    [
        ("HIT bob 1 SHIP; HIT bob 2 ASTEROID; HIT bob 3 SHIP",
         "you have 2 ships, so at most 2 hits"),
        ("HIT bob 2 SHIP", "bob's die 2 shows no ship"),
        ("HIT cat 1 ASTEROID", "cat's die 1 shows no asteroid"),
        ("HIT bob 1 SHIP; HIT bob 1 SHIP",
         "bob's die 1 shows no ship left after your earlier hits on it"),
        ("HIT ann 1 SHIP", "you cannot hit your own dice"),
        ("HIT dan 1 SHIP", "there is no seat 'dan' (seats: ann, bob, cat)"),
        ("HIT bob 4 SHIP", "bob has 3 dice, numbered 1 to 3: '4' is not one of them"),
        ("HIT bob x SHIP", "bob has 3 dice, numbered 1 to 3: 'x' is not one of them"),
        ("HIT bob 1 LASER", "a hit lowers a SHIP or an ASTEROID, not 'LASER'"),
        # Written as people write lists (an email-only player): the way to write them.
        ("Hit bob 1 ship, hit cat 1 asteroid",
         "cannot read 'Hit bob 1 ship, hit cat 1 asteroid': send HIT <seat> <die> SHIP|ASTEROID, "
         "up to 2 hits, separated by ';' (e.g. HIT bob 1 SHIP; HIT bob 2 ASTEROID), or PASS"),
        ("HIT bob die 1 SHIP",
         "there is no seat 'bob die': write the seat, then the die's number (HIT bob 1 SHIP)"),
        # A word after a whole hit (an email-only player's "pls") was read as part of the
        # seat's name: "there is no seat 'bob 1'", with the order as written as the fix.
        ("hit bob 1 ship pls",
         "'pls' after HIT bob 1 ship is not part of a hit: send HIT <seat> <die> SHIP|ASTEROID, "
         "up to 2 hits, separated by ';' (e.g. HIT bob 1 SHIP; HIT bob 2 ASTEROID), or PASS"),
        # ... but a hit on one's own dice is the first thing wrong (a code review)
        ("HIT ann 1 SHIP pls", "you cannot hit your own dice"),
    ],
)
def test_hit_refusals(order, reason):
    assert refusal(exterminate_state(), "ann", order) == reason


def test_the_hit_example_names_a_seat_the_player_may_hit():
    """An email-only player (bob) was shown "e.g. HIT bob 1 SHIP": his own seat. The
    example names the next seat clockwise."""
    s = exterminate_state()
    s["seats"]["cat"]["dice"] = s["seats"]["ann"]["dice"]  # cat's turn to eXterminate, as ann's
    s["turn"] = "cat"
    reason = refusal(s, "cat", "ok then")
    assert "(e.g. HIT ann 1 SHIP; HIT bob 1 SHIP)" in reason and "HIT cat" not in reason


def _hit_example(reason):
    """The example in a refusal's "send HIT ... (e.g. <example>), or PASS"."""
    found = re.findall(r"\(e\.g\. ([^()]*)\), or PASS", reason)
    assert len(found) == 1, reason
    return found[0]


@pytest.mark.parametrize(
    ("rolls", "hits"),
    [
        # The audit: ann has 1 ship, bob shows [0,1] [2,0] [0,2] (the example was
        # "HIT bob 1 SHIP; HIT bob 2 ASTEROID": two hits, and neither on bob's dice).
        ([[1, 0], ZERO, ZERO, [0, 1], [2, 0], [0, 2]], 1),
        ([[2, 0], ZERO, ZERO, [0, 0], [0, 0], [0, 2]], 2),  # one die, hit twice
        ([[1, 1], [2, 0], ZERO, [1, 0], ZERO, ZERO], 1),  # 3 ships, one thing to hit
        ([[2, 2], [2, 0], [1, 0], [0, 2], [1, 0], ZERO], 3),  # 5 ships, 3 things to hit
    ],
)
def test_the_hit_example_is_itself_accepted(rolls, hits):
    """A refused order's example, sent back as it stands, is accepted (an audit: the
    fixed example was refused with one ship, or when bob's dice showed no such thing)."""
    s = new(rolls=rolls)
    s, _ = step(s, {"ann": "ALLOCATE EXTERMINATE EXTERMINATE EXTERMINATE", "bob": ALL_EXPLORE})
    assert (R.phase(s), R.pending(s)) == ("exterminate", ["ann"])
    reason = refusal(s, "ann", ALL_EXPLORE)
    wording = "up to 1 hit (" if hits == 1 else f"up to {hits} hits, separated by ';' ("
    assert wording in reason
    example = _hit_example(reason)
    assert example.count("HIT ") == min(hits, 2)
    assert R.parse_order(s, "ann", example)["kind"] == "exterminate"


def test_every_hit_example_is_accepted_on_random_dice():
    """Random dice, two or three seats: every refusal's example parses."""
    rnd = random.Random(8)
    checked = 0
    for _ in range(200):
        players = ("ann", "bob", "cat")[: rnd.choice((2, 3))]
        rolls = [list(rnd.choice(FACES)) for _ in range(3 * len(players))]
        s = new(players=players, rolls=rolls)
        s, _ = step(s, {p: ("ALLOCATE EXTERMINATE EXTERMINATE EXTERMINATE" if p == "ann"
                            else ALL_EXPLORE) for p in players})
        if R.phase(s) != "exterminate":
            continue
        for bad in (ALL_EXPLORE, "", "FIRE", "PASS; HIT"):
            example = _hit_example(refusal(s, "ann", bad))
            assert R.parse_order(s, "ann", example)["hits"], (rolls, example)
        checked += 1
    assert checked > 50


def test_other_exterminate_refusals():
    s = exterminate_state()
    assert refusal(s, "ann", "HIT bob 1").startswith("say what the hit lowers")
    assert refusal(s, "ann", "PASS; HIT bob 1 SHIP").startswith("PASS means no hits")
    assert refusal(s, "ann", ALL_EXPLORE).startswith("you eXterminate before you roll")
    assert refusal(s, "ann", "  \n# nothing to say\n").startswith("empty order")
    assert refusal(s, "ann", "FIRE").startswith("cannot read 'FIRE'")
    assert refusal(s, "bob", "PASS").startswith("it is not your turn")


def test_one_ship_allows_one_hit():
    s = new(rolls=[[1, 0], ZERO, ZERO, [1, 1], ZERO, ZERO])
    s, _ = step(s, {"ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert refusal(s, "ann", "HIT bob 1 SHIP; HIT bob 1 ASTEROID") == (
        "you have 1 ship, so at most 1 hit"
    )
    s, _ = step(s, {"ann": "HIT bob 1 SHIP;"})  # a trailing ';' is harmless
    assert seat(s, "bob")["dice"][0]["face"] == [0, 1]


def test_refused_step_through_the_runner_changes_nothing():
    script = {
        "game": "4x-dice", "players": ["ann", "bob", "cat"], "seed": 1,
        "setup": {"first": "ann", "rolls": EXT_ROLLS},
        "orders": [
            {"ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE",
             "bob": "ALLOCATE EXPLORE EXPAND EXTRACT", "cat": "ALLOCATE EXPLORE EXPAND EXTRACT"},
            {"ann": "HIT bob 2 SHIP"},
        ],
    }
    code, out = run_script(script)
    assert code == 3
    assert out["rejected"] == {"step": 1, "seat": "ann", "order": "HIT bob 2 SHIP",
                               "reason": "bob's die 2 shows no ship"}
    assert out["phase"] == "exterminate"
    assert out["players"]["bob"]["dice"][1]["face"] == [0, 2]


# --- allocation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "start"),
    [
        ("ALLOCATE EXPLORE EXPAND", "you have 3 dice: name 3 areas"),
        ("ALLOCATE EXPLORE EXPAND EXTRACT EXPAND", "you have 3 dice: name 3 areas"),
        ("ALLOCATE EXPLORE EXPAND EXPLODE", "'EXPLODE' is not an area"),
        ("ALLOCATE EXPL EXPAND EXTRACT", "'EXPL' is not an area"),
        ("PASS", "you are allocating your dice now, so send ALLOCATE and 3 areas"),
        ("HIT bob 1 SHIP", "you are allocating your dice now"),
        # An email-only player's typo was answered with the hint alone, naming nothing.
        ("alocate explore expand extrct", "'alocate' is not ALLOCATE: send ALLOCATE and 3 areas"),
        ("explore expand extract", "start the order with ALLOCATE: send ALLOCATE and 3 areas"),
        ("Allocate: explore expand extract", "write ALLOCATE without ':': send ALLOCATE and 3 areas"),
        ("ALLOCATE EXPLORE\nALLOCATE EXPAND EXTRACT", "send one order on one line, not 2 lines"),
        ("", "empty order"),
    ],
)
def test_allocate_refusals(order, start):
    assert refusal(new(), "ann", order).startswith(start)


def test_allocate_is_case_and_space_tolerant():
    s = new(rolls=[[1, 0], [0, 1], [1, 1], ZERO, ZERO, ZERO])
    s, _ = step(s, {"ann": "# my plan\n\n  allocate   explore Expand\textract  \n",
                    "bob": "Allocate exterminate EXTERMINATE exterminate"})
    assert [d["area"] for d in seat(s, "bob")["dice"]] == ["EXTERMINATE"] * 3
    assert seat(s, "ann")["explore"] == 1


def test_setup_allocate_is_simultaneous_and_checks_every_seat():
    s = new()
    assert (R.phase(s), R.pending(s), R.progress(s)) == ("allocate", ["ann", "bob"], 0)
    with pytest.raises(StepRejected) as info:
        step(s, {"ann": ALL_EXPLORE})
    assert info.value.reason == "no order from bob, who is pending"
    s2, _ = step(s, {"ann": ALL_EXPLORE, "bob": ALL_EXPLORE})
    with pytest.raises(StepRejected) as info:
        step(s2, {"bob": ALL_EXPLORE})
    assert info.value.reason.startswith("bob is not pending")


def test_dice_option_sets_the_number_of_dice():
    for dice in (2, 3, 4):
        s = new(dice=dice)
        assert len(seat(s, "bob")["dice"]) == dice
        reason = refusal(s, "ann", "ALLOCATE EXPLORE")
        assert reason == f"you have {dice} dice: name {dice} areas"


# --- default and legal orders ------------------------------------------------------------


def test_default_orders():
    assert R.default_order(new(dice=2), "ann") == "ALLOCATE EXPLORE EXPAND"
    assert R.default_order(new(dice=3), "bob") == "ALLOCATE EXPLORE EXPAND EXTRACT"
    assert R.default_order(new(dice=4), "ann") == "ALLOCATE EXPLORE EXPAND EXTRACT EXTERMINATE"
    s = exterminate_state()
    assert R.default_order(s, "ann") == "PASS"
    assert R.parse_order(s, "ann", "PASS") == {"kind": "exterminate", "hits": []}


def test_legal_allocations_are_every_assignment():
    orders = R.legal_orders(new(dice=2), "ann")
    assert len(orders) == 16 == len(set(orders))
    assert orders[0] == "ALLOCATE EXPLORE EXPLORE"
    assert orders[-1] == "ALLOCATE EXTERMINATE EXTERMINATE"
    assert len(R.legal_orders(new(dice=4), "bob")) == 256
    assert R.legal_orders(exterminate_state(), "bob") == []


def test_legal_hits_respect_ships_and_what_dice_show():
    s = new(rolls=[[2, 0], ZERO, ZERO, [2, 1], ZERO, ZERO])
    s, _ = step(s, {"ann": "ALLOCATE EXTERMINATE EXPLORE EXPLORE", "bob": ALL_EXPLORE})
    assert R.legal_orders(s, "ann") == [
        "PASS",
        "HIT bob 1 SHIP",
        "HIT bob 1 ASTEROID",
        "HIT bob 1 SHIP; HIT bob 1 SHIP",
        "HIT bob 1 SHIP; HIT bob 1 ASTEROID",
    ]


def test_legal_hits_are_capped_and_all_parse():
    players = ("ann", "bob", "cat", "dan", "eve", "fay")
    s = new(players=players, rolls=[[2, 2]] * 24, dice=4)
    s, _ = step(s, {p: "ALLOCATE EXTERMINATE EXTERMINATE EXTERMINATE EXTERMINATE"
                    if p == "ann" else "ALLOCATE EXPLORE EXPAND EXTRACT EXPLORE" for p in players})
    orders = R.legal_orders(s, "ann")
    assert len(orders) == fourxdice.LEGAL_ORDERS_CAP == len(set(orders))
    assert orders[0] == "PASS" and orders[1] == "HIT bob 1 SHIP"
    for text in orders[:: 37]:
        R.parse_order(s, "ann", text)


# --- set-up, RNG and rolls ------------------------------------------------------------


def test_setup_rolls_go_seat_by_seat_then_turn_rolls_then_rng():
    rolls = [[1, 0], [2, 0], [0, 1], [0, 2], [1, 1], [2, 2], ZERO, [1, 0], [0, 1],
             [2, 2], [2, 2], [2, 2]]
    s = new(players=("ann", "bob", "cat"), rolls=rolls, first="cat", seed=5)
    # Set-up rolls in seating order (ann, bob, cat), whoever plays first.
    assert [d["face"] for d in seat(s, "ann")["dice"]] == [[1, 0], [2, 0], [0, 1]]
    assert [d["face"] for d in seat(s, "bob")["dice"]] == [[0, 2], [1, 1], [2, 2]]
    assert [d["face"] for d in seat(s, "cat")["dice"]] == [[0, 0], [1, 0], [0, 1]]
    s, _ = step(s, {p: "ALLOCATE EXPLORE EXPAND EXTRACT" for p in ("ann", "bob", "cat")})
    # cat plays first: [0,0] explores 0, [1,0] expands 0, [0,1] extracts no pair.
    cat = seat(s, "cat")
    assert (cat["explore"], cat["expand"], cat["extract"], cat["vp"]) == (0, 0, 1, 0)
    assert [d["face"] for d in cat["dice"]] == [[2, 2]] * 3
    assert R.pending(s) == ["cat"]
    s, _ = step(s, {"cat": ALL_EXPLORE})
    # ann's turn: explore 1 ([1,0]), extract 1; then the list has run out, so ann's
    # roll comes from the RNG, untouched until now (setup.first was given).
    state = rng.seed_state(5)
    expected = []
    for _ in range(3):
        k, state = rng.randbelow(state, 6)
        expected.append({"face": list(FACES[k]), "area": None})
    ann = seat(s, "ann")
    assert (ann["explore"], ann["extract"], ann["dice"]) == (1, 1, expected)


def test_rng_draws_the_first_seat_before_rolling():
    players = ["ann", "bob", "cat", "dan"]
    for seed in (3, 11, 2024):
        s = R.new_game(players=players, options={}, seed=seed, setup={})
        k, state = rng.randbelow(rng.seed_state(seed), 4)
        assert R.report(s)["first"] == players[k]
        faces = []
        for _ in range(12):
            j, state = rng.randbelow(state, 6)
            faces.append(list(FACES[j]))
        got = [d["face"] for p in players for d in seat(s, p)["dice"]]
        assert got == faces


def test_setup_is_checked():
    base = {"game": "4x-dice", "players": ["ann", "bob"], "seed": 1}
    bad = [
        {"setup": {"first": "dan"}},
        {"setup": {"rolls": [[1]]}},
        {"setup": {"rolls": [[-1, 0]]}},
        {"setup": {"rolls": [[True, 0]]}},
        {"setup": {"rolls": "1,0"}},
        {"setup": {"deal": {}}},
        {"options": {"dice": 5}},
        {"options": {"speed": 1}},
        {"players": ["ann"]},
        {"players": ["a", "b", "c", "d", "e", "f", "g"]},
    ]
    for extra in bad:
        code, out = run_script({**base, **extra})
        assert code == 2, extra
        assert out["status"] == "error"
    with pytest.raises(ScriptError):
        R.new_game(players=["ann", "bob"], setup={"first": 3})
    # An explicit null first seat is the same as none: the RNG draws it.
    drawn = R.new_game(players=["ann", "bob"], seed=4, setup={"first": None})
    assert R.report(drawn)["first"] == ["ann", "bob"][rng.randbelow(rng.seed_state(4), 2)[0]]


# --- end of the game, scoring, ranking --------------------------------------------------


def end_state():
    """ann, bob, cat; bob plays first, so ann is the last seat. All dice [1, 0]."""
    s = new(players=("ann", "bob", "cat"), rolls=[[1, 0]] * 30, first="bob")
    return step(s, {p: ALL_EXPLORE for p in ("ann", "bob", "cat")})[0]


def test_round_completes_after_someone_reaches_19():
    s = end_state()
    s["seats"]["cat"]["explore"] = 18
    assert R.pending(s) == ["bob"]
    s, _ = step(s, {"bob": ALL_EXPLORE})
    assert seat(s, "cat")["explore"] == 19  # 18 + 3, capped
    assert R.pending(s) == ["cat"] and not R.is_over(s)
    s, _ = step(s, {"cat": ALL_EXPLORE})
    assert R.pending(s) == ["ann"] and R.progress(s) == 1 and not R.is_over(s)
    assert R.ranking(s) is None
    s, events = step(s, {"ann": ALL_EXPLORE})  # the last seat's turn ends with its allocation
    assert R.is_over(s) and R.phase(s) == "over" and R.pending(s) == []
    report = R.report(s)
    assert report["round"] == 1
    # bob 3, cat 19, ann 3 (eXplore only): cat first, ann and bob tied in seating order.
    assert report["ranking"] == [["cat"], ["ann", "bob"]]
    assert [report["players"][p]["score"] for p in ("ann", "bob", "cat")] == [3, 3, 19]
    assert any("game is over" in t for t in texts(events))
    assert R.legal_orders(s, "ann") == []
    with pytest.raises(StepRejected):
        step(s, {"ann": ALL_EXPLORE})


def test_allocations_of_the_last_round_are_entered_for_the_seats():
    # Once a counter stands at 19 the game ends with this round: an allocation now is for
    # a turn that never comes, so the site need not wait for it (the runner still does).
    s = end_state()
    s["seats"]["cat"]["explore"] = 18
    assert R.forced_order(s, "bob") is None  # round 1, nobody at 19 yet: a real choice
    s, _ = step(s, {"bob": ALL_EXPLORE})
    assert R.pending(s) == ["cat"]
    assert R.forced_order(s, "cat") == "ALLOCATE EXPLORE EXPAND EXTRACT"  # the default
    assert R.forced_order(s, "ann") is None  # not pending
    s, _ = step(s, {"cat": R.forced_order(s, "cat")})
    assert R.forced_order(s, "ann") == R.default_order(s, "ann")
    s, _ = step(s, {"ann": R.forced_order(s, "ann")})
    assert R.is_over(s)
    # The set-up allocation is never entered, whatever the counters say.
    fresh = new(players=("ann", "bob"), rolls=[[1, 0]] * 10)
    assert [R.forced_order(fresh, p) for p in ("ann", "bob")] == [None, None]


def test_game_goes_on_while_no_counter_is_at_19():
    s = end_state()
    for who in ("bob", "cat", "ann"):
        s, _ = step(s, {who: ALL_EXPLORE})
    assert (R.progress(s), R.pending(s), R.is_over(s)) == (2, ["bob"], False)


def test_last_seat_reaching_19_ends_the_game_after_its_turn():
    s = end_state()
    s["seats"]["ann"]["extract"] = 19
    s, _ = step(s, {"bob": ALL_EXPLORE})
    s, _ = step(s, {"cat": ALL_EXPLORE})
    assert R.pending(s) == ["ann"]
    s, _ = step(s, {"ann": ALL_EXPLORE})
    assert R.is_over(s)
    assert R.ranking(s) == [["ann"], ["bob", "cat"]]  # 3 + 38 against 3 and 3


def test_other_reading_ends_without_the_last_roll(monkeypatch):
    monkeypatch.setattr(fourxdice, "ROLL_AFTER_LAST_TURN", False)
    s = end_state()
    s["seats"]["cat"]["explore"] = 18
    s, _ = step(s, {"bob": ALL_EXPLORE})
    s, _ = step(s, {"cat": ALL_EXPLORE})
    assert R.is_over(s)  # ann's actions done, no roll
    assert [d["area"] for d in seat(s, "ann")["dice"]] == ["EXPLORE"] * 3


def test_score_weights_and_ties():
    s = end_state()
    s["seats"]["ann"].update(vp=3, explore=4, expand=2, extract=1, exterminate=5)
    s["seats"]["bob"].update(vp=0, explore=19, expand=0, extract=0, exterminate=0)
    s["seats"]["cat"].update(vp=13, explore=5, expand=0, extract=1, exterminate=0)
    assert seat(s, "ann")["score"] == 3 + 4 + 6 + 2 + 5
    # bob's actions are done (end_state); cat and ann explore 3 more each:
    # ann 3 + 7 + 6 + 2 + 5 = 23, bob 19, cat 13 + 8 + 2 = 23.
    for who in ("bob", "cat", "ann"):
        s, _ = step(s, {who: ALL_EXPLORE})
    scores = {p: seat(s, p)["score"] for p in ("ann", "bob", "cat")}
    assert scores == {"ann": 23, "bob": 19, "cat": 23}
    assert R.ranking(s) == [["ann", "cat"], ["bob"]]


# --- whole games ---------------------------------------------------------------------


def test_random_games_end_and_replay_identically():
    for g in range(6):
        pick = random.Random(g)
        players = [f"p{i}" for i in range(pick.randint(2, 6))]
        dice = pick.choice([2, 3, 4])
        s = R.new_game(players=players, options={"dice": dice}, seed=g)
        again = R.new_game(players=players, options={"dice": dice}, seed=g)
        steps = 0
        while not R.is_over(s):
            orders = {p: pick.choice(R.legal_orders(s, p)) for p in R.pending(s)}
            s, _ = step(s, orders)
            again, _ = step(again, orders)
            steps += 1
            assert steps < 3000
        assert dumps(s) == dumps(again)
        assert sorted(sum(R.ranking(s), [])) == sorted(players)
        assert any(seat(s, p)[c] == 19 for p in players for c in COUNTERS)


def test_default_orders_alone_finish_a_game():
    s = R.new_game(players=["ann", "bob", "cat"], options={}, seed=9)
    steps = 0
    while not R.is_over(s):
        s, _ = step(s, {p: R.default_order(s, p) for p in R.pending(s)})
        steps += 1
        assert steps < 1000


def test_view_is_the_public_table():
    s = exterminate_state()
    for who in ("ann", "bob", None):
        view = R.view(s, who)
        assert view["players"] == R.report(s)["players"]
        assert view["seat"] == who
    assert "ranking" not in R.report(s)
