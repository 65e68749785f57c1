"""The runner against the letter of ``shared/spec/engine.md``: the spec's own example of a
refused step, a step after the game is over, and what makes a script malformed."""

from __future__ import annotations

from typing import Any

from engine.runner import EXIT_MALFORMED, EXIT_OK, EXIT_REJECTED, run_script

P3 = ["ann", "bob", "cat"]
DEAL = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["ERIK", "NAPOLEON"]}


def script(orders: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"game": "5x", "players": P3, "seed": 1, "orders": orders}
    out.update(extra)
    return out


def test_refused_bid_reason_is_the_spec_example() -> None:
    """engine.md's printed object: step 4, bob's ``BID 9`` with 4 resources in round 3's
    bid is refused with reason "you have 4 resources; a bid must be between 1 and 4"."""
    orders = [
        {"ann": "PASS CAESAR", "bob": "PASS QIN", "cat": "PASS ERIK"},
        {"ann": "PLAY EXPLOIT", "bob": "PLAY EXPLOIT", "cat": "PLAY EXPLOIT"},
        {"ann": "PLAY EXTERMINATE", "bob": "PLAY EXCAVATE", "cat": "PLAY EXCAVATE"},
        {"ann": "PLAY EXPLORE", "bob": "PLAY EXPAND", "cat": "PLAY EXPAND"},
        {"bob": "BID 9", "cat": "BID 1"},
    ]
    code, out = run_script(script(orders, setup={"deal": DEAL}))
    assert code == EXIT_REJECTED
    assert (out["status"], out["round"], out["phase"], out["pending"]) == (
        "rejected",
        3,
        "bid",
        ["bob", "cat"],
    )
    assert out["players"]["bob"]["resources"] == 4
    assert out["rejected"] == {
        "step": 4,
        "seat": "bob",
        "order": "BID 9",
        "reason": "you have 4 resources; a bid must be between 1 and 4",
    }


def test_empty_step_after_the_game_is_over_applies() -> None:
    """A step holds one order for every pending seat and no other: once the game is over
    nobody is pending, so ``{}`` is such a step; it applies (exit 0, status "over")."""
    rounds = [
        {p: f"PLAY {card}" for p in P3} for card in ["EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE"]
    ]
    # Round 3: three Expands bid 1 each (no unique value, EXPAND back to hand); round 4
    # everyone explores, so round 5 starts at explore-play; rounds 5 and 6: Excavate,
    # each time with a choice of cards in the discard pile.
    orders = [
        rounds[0],
        rounds[1],
        rounds[2],
        {p: "BID 1" for p in P3},
        rounds[3],
        {p: "PLAY EXCAVATE" for p in P3},
        {p: "TAKE EXPLOIT" for p in P3},
        {p: "PLAY EXCAVATE" for p in P3},
        {p: "TAKE EXTERMINATE" for p in P3},
    ]
    code, out = run_script(script(orders, options={"leaders": False}))
    assert (code, out["status"]) == (EXIT_OK, "over"), out
    code, after = run_script(script([*orders, {}], options={"leaders": False}))
    assert code == EXIT_OK
    assert after == out


def test_options_and_setup_must_be_objects() -> None:
    """A script whose ``options`` or ``setup`` is not an object is malformed (exit 2);
    absent (or null) means none."""
    assert run_script(script([], options=[]))[0] == EXIT_MALFORMED
    assert run_script(script([], setup=[]))[0] == EXIT_MALFORMED
    assert run_script(script([], options=False))[0] == EXIT_MALFORMED
    assert run_script(script([], options=None, setup=None))[0] == EXIT_OK


def test_a_malformed_script_still_names_its_game() -> None:
    """engine.md's common fields start with ``game``: an exit 2 names the game the
    script named (wrong player count, unknown option), or none when it named none."""
    code, out = run_script({"game": "5x", "players": ["ann", "bob"], "seed": 1, "orders": []})
    assert (code, out["game"], out["status"]) == (EXIT_MALFORMED, "5x", "error")
    assert "3 to 6 players" in out["error"]
    code, out = run_script({**script([]), "options": {"no_such": 1}})
    assert (code, out["game"]) == (EXIT_MALFORMED, script([])["game"])
    code, out = run_script({"players": ["ann", "bob", "cat"], "seed": 1, "orders": []})
    assert code == EXIT_MALFORMED and "game" not in out


def test_a_game_that_is_not_a_string_is_malformed() -> None:
    """``"game": {}`` or ``[]`` (unhashable) is exit 2 with a message, not a traceback."""
    for game in ({}, [], 5, None, True):
        code, out = run_script({**script([]), "game": game})
        assert code == EXIT_MALFORMED
        assert out["status"] == "error" and "unknown game" in out["error"]


def test_a_four_x_dice_order_of_commas_only_is_refused_not_a_crash() -> None:
    for text in (",", ", ,", "\n ,"):
        code, out = run_script(
            {
                "game": "4x-dice",
                "players": ["ann", "bob"],
                "seed": 1,
                "orders": [{"ann": text, "bob": "ALLOCATE EXPLORE EXPAND EXTRACT"}],
            }
        )
        assert code == EXIT_REJECTED
        assert out["rejected"]["seat"] == "ann"
        assert out["rejected"]["reason"].startswith("empty order")


def test_an_order_holding_a_lone_surrogate_is_refused_and_printed(tmp_path) -> None:
    """Valid JSON (``"\\ud800"``) that UTF-8 output cannot hold: the runner still prints
    its one JSON object (ASCII-escaped) and exits 3."""
    import json
    import subprocess
    import sys

    path = tmp_path / "s.json"
    path.write_text(
        '{"game": "6x5", "players": ["ann", "bob"], "setup": {"first": "ann"},'
        ' "orders": [{"ann": "PLACE \\ud800 1,0"}]}'
    )
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(path)],
        capture_output=True,
        text=True,
        env={"PYTHONIOENCODING": "utf-8", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == EXIT_REJECTED, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "rejected" and out["rejected"]["order"] == "PLACE \ud800 1,0"


def test_a_number_of_thousands_of_digits_in_an_order_is_refused_not_a_crash() -> None:
    """engine.md: an illegal order gets a refusal (exit 3). Python refuses to read an
    integer of over 4,300 digits (a ValueError): a bid or a die number that long crashed
    the runner (exit 1, a traceback, nothing printed) where one digit fewer was refused
    (a spec audit)."""
    huge = "9" * 4301
    fivex = {
        "game": "5x", "players": P3, "seed": 1, "options": {"leaders": False},
        "orders": [
            {"ann": "PLAY EXPAND", "bob": "PLAY EXPAND", "cat": "PLAY EXPLORE"},
            {"ann": f"BID {huge}", "bob": "BID 1"},
        ],
    }  # fmt: skip
    code, out = run_script(fivex)
    assert code == EXIT_REJECTED
    # ann holds 3 resources after round 1's Expand: the reason a bid of 4 gets.
    fivex["orders"][1]["ann"] = "BID 4"
    assert run_script(fivex)[1]["rejected"]["reason"] == out["rejected"]["reason"]
    assert out["rejected"]["seat"] == "ann" and "between 1 and 3" in out["rejected"]["reason"]
    assert run_script(dict(fivex, orders=[fivex["orders"][0], {"ann": "BID 0003", "bob": "BID 1"}]))[0] == EXIT_OK

    dice = {
        "game": "4x-dice", "players": ["ann", "bob"], "seed": 1,
        "setup": {"first": "bob", "rolls": [[2, 0], [0, 2], [0, 2], [1, 1], [2, 2], [1, 1]]},
        "orders": [
            {"ann": "ALLOCATE EXPLORE EXPAND EXTRACT", "bob": "ALLOCATE EXTERMINATE EXTRACT EXPLORE"},
            {"bob": f"HIT ann {huge} SHIP"},
        ],
    }  # fmt: skip
    code, out = run_script(dice)
    assert code == EXIT_REJECTED
    assert out["rejected"]["seat"] == "bob"
    assert out["rejected"]["reason"].startswith("ann has 3 dice, numbered 1 to 3")


def test_json_nested_thousands_deep_is_a_malformed_script(tmp_path) -> None:
    """engine.md: bad JSON is exit 2. Arrays nested 100,000 deep made ``json.load`` raise
    a RecursionError: exit 1 with a traceback and nothing on stdout (a spec audit)."""
    import json
    import subprocess
    import sys

    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == EXIT_MALFORMED, done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout) == {
        "status": "error", "error": "cannot read script: JSON nested too deeply",
    }  # fmt: skip


def test_option_values_of_the_wrong_type_are_a_malformed_script() -> None:
    """5x.md's options are booleans (``leaders`` default true, ``all_leaders`` default
    false); engine.md: a malformed script is exit 2 with no state. A string, a number or
    null where a boolean belongs is refused, never read as truthy; explicit defaults run."""
    for options in ({"leaders": "false"}, {"leaders": 0}, {"all_leaders": 1}, {"all_leaders": None}):
        code, out = run_script(script([], options=options))
        assert (code, out["status"]) == (EXIT_MALFORMED, "error"), options
        assert "players" not in out and "rejected" not in out
        assert next(iter(options)) in out["error"]
    code, out = run_script(script([], options={"leaders": True, "all_leaders": False}))
    assert (code, out["status"], out["phase"]) == (EXIT_OK, "waiting", "draft")


def test_same_script_prints_the_same_bytes_under_any_hash_seed(tmp_path) -> None:
    """engine.md: "Same setup + same orders = same game, byte for byte, on every machine."
    The real ``python -m engine run`` under three string-hash seeds (what differs between
    two machines' processes): a random deal drawn from the seed, then a whole game of
    orders, prints the same bytes each time."""
    import json
    import os
    import random
    import subprocess
    import sys
    from pathlib import Path

    import engine

    fivex = engine.get("5x")
    players = ["zed", "amy", "kim", "bo", "ed"]
    state = fivex.new_game(players=players, seed=20261129)
    rnd = random.Random(7)
    steps = []
    while not fivex.is_over(state):
        step = {seat: rnd.choice(fivex.legal_orders(state, seat)) for seat in fivex.pending(state)}
        state, _ = fivex.submit_step(state, step)
        steps.append(step)
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": "5x", "players": players, "seed": 20261129, "orders": steps}))
    printed = set()
    for hash_seed in ("0", "1", "4242"):
        done = subprocess.run(
            [sys.executable, "-m", "engine", "run", str(path)],
            capture_output=True, text=True, check=False, timeout=60,
            cwd=Path(engine.__file__).resolve().parent.parent,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )  # fmt: skip
        assert done.returncode == EXIT_OK, done.stderr
        printed.add(done.stdout)
    assert len(printed) == 1
    out = json.loads(printed.pop())
    assert out["status"] == "over" and out["round"] == 7 and out["pending"] == []


def test_a_player_name_no_order_can_write_is_a_malformed_script() -> None:
    """engine.md: orders are text in the order language, and 5x.md's language names a
    seat (``TAKE <leader> FROM <seat>``) on one line where "extra spaces do not matter";
    4X Dice's ``HIT <seat> ...`` likewise. A name that is blank, spans two lines, or
    starts, ends or is spaced with whitespace a line of text cannot keep was accepted:
    Caesar's listed order ``TAKE GANDHI FROM  `` was then refused ("FROM needs a seat"),
    and a 4X Dice game with a seat named " " refused its own legal orders. Such a
    script is malformed (exit 2), for every game; one plain space inside a name is fine."""
    for name in (" ", "a\nb", " pad", "pad ", "a\tb", "a  b", "n\xa0m", "x\x00y"):
        for game, players in (("5x", ["ann", name, "cat"]), ("4x-dice", ["ann", name])):
            code, out = run_script({"game": game, "players": players, "seed": 1})
            assert (code, out["status"]) == (EXIT_MALFORMED, "error"), (game, name)
            assert "player name" in out["error"] and repr(name) in out["error"], out["error"]
    code, out = run_script({"game": "5x", "players": ["ann smith", "Bob", "cat"], "seed": 1})
    assert (code, out["pending"]) == (EXIT_OK, ["ann smith", "Bob", "cat"])


def test_a_seat_named_twice_in_one_step_is_a_malformed_script(tmp_path) -> None:
    """engine.md: a step holds *one* order for every pending seat, and "the engine
    validates every order of the step before applying any of them". JSON that names a
    seat twice in one step gave it two orders, of which Python's reader silently kept
    the last: ann's ``BID 99`` was never looked at and the step applied (exit 0). Such
    a script is malformed (exit 2), as ``python -m engine verify`` already refuses a key
    given twice; every key is checked, not only a step's."""
    import json
    import subprocess
    import sys

    from engine.__main__ import main

    header = '{"game": "5x", "players": ["ann", "bob", "cat"], "seed": 1, "options": {"leaders": false}, '
    twice = header + '"orders": [{"ann": "BID 99", "ann": "PLAY EXPLOIT", "bob": "PLAY EXPLOIT", "cat": "PLAY EXPLOIT"}]}'
    path = tmp_path / "twice.json"
    path.write_text(twice, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == EXIT_MALFORMED, done.stdout
    out = json.loads(done.stdout)
    assert out["status"] == "error" and "rejected" not in out and "players" not in out
    assert out["error"].startswith("cannot read script:") and '"ann"' in out["error"], out
    path.write_text(header.replace('"seed": 1, ', '"seed": 1, "seed": 2, ') + '"orders": []}')
    assert main(["run", str(path)]) == EXIT_MALFORMED
    path.write_text(twice.replace('"ann": "BID 99", ', ""), encoding="utf-8")
    assert main(["run", str(path)]) == EXIT_OK


def test_a_4x_dice_seat_name_with_the_hit_separator_is_a_malformed_script() -> None:
    """4x-dice.md: "several hits separated by `;`" in ``HIT <seat> <die> SHIP|ASTEROID``.
    A seat named "a;b" was accepted, and then its own legal hits (listed by the engine)
    were refused: such a name cannot be written in an order (exit 2). 5X and 6x5 orders
    have no separator: the name is fine there."""
    code, out = run_script({"game": "4x-dice", "players": ["a;b", "cat"], "seed": 1})
    assert (code, out["status"]) == (EXIT_MALFORMED, "error")
    assert "'a;b'" in out["error"] and "';'" in out["error"], out["error"]
    code, out = run_script({"game": "5x", "players": ["a;b", "cat", "dan"], "seed": 1})
    assert code == EXIT_OK and out["pending"] == ["a;b", "cat", "dan"]
