"""``Ruleset.in_order_language``: whether a text is written as one order of the game's
order language, legal now or not. The expected values are read from each game's spec
(``shared/spec/5x.md`` "Orders", ``6x5.md`` "Phases" and "Actions", ``4x-dice.md``
"Set-up and phases"), not from the parsers; every order ``legal_orders`` lists is in the
language too (``tests/engine/test_properties.py`` checks that at every prompt of random
games)."""

from __future__ import annotations

import pytest

import engine
from engine.base import Ruleset

FIVEX_IN = [
    "PLAY EXPAND",  # PLAY <card>, in any phase (refused during the draft, still 5X)
    "play expand",  # case does not matter
    "PLAY   Qin Shi Huang",  # a card by its full name; extra spaces do not matter
    "PLAY erik the red",
    "PASS CAESAR",  # PASS <leader>
    "pass qin",
    "BID 3",
    "BID 40",  # more than anybody has: refused, but a bid
    "BUILD",  # Dido
    "DECLINE",
    "TAKE EXPLORE",  # TAKE <card>
    "TAKE NAPOLEON FROM bob",  # TAKE <leader> FROM <seat>
    "BUILD B",  # BUILD <letter>
    "# my order\nPLAY EXPLORE\n\n",  # '#' lines and blank lines are ignored
]
FIVEX_OUT = [
    "",
    "PLAY",  # no card
    "PLAY HELLO",  # not a card
    "PLAY EXPAND BIG AL",  # a card and a name
    "PASS EXPLORE",  # PASS takes a Great Leader
    "BID",
    "BID three",
    "BID 2.5",
    "DECLINE B",
    "BUILD H",  # the Wonders are A to G
    "TAKE",
    "TAKE EXPLORE FROM bob",  # FROM <seat> only after a leader
    "TAKE NAPOLEON FROM",  # FROM without a seat
    "PLAY EXPAND\nPLAY EXPLORE",  # two orders: a message holds exactly one
    "EXPAND",
    "Big Al",
    "PLACE BLUE 1,0",  # 6x5's
    "ALLOCATE EXPLORE EXPAND EXTRACT",  # 4X Dice's
]

SIXBYFIVE_IN = [
    "PLACE BLUE 1,0",
    "place b 1,0",  # orders may say B, R, Y; words in any case
    "PLACE YELLOW -1,2",
    "PLACE BLUE 9,9",  # far from every tile: refused, but a PLACE
    "SWITCH 1,0 TO RED",
    "MOVE BLACK TO 1,1",
    "SWAP 1,0 2,0",  # only in the open game once the reserve is empty: still 6x5
    "CHANGE 1\nPLACE RED 0,1",  # with change_goal: CHANGE <k>, then the action
    "CHANGE 2\nSWITCH 1,0 TO BLUE",
]
SIXBYFIVE_OUT = [
    "",
    "PLACE",
    "PLACE BLUE",  # no hex
    "PLACE GREEN 1,0",  # not a colour
    "PLACE BLUE 1,0 2,0",
    "PLACE BLUE 1,0\nBig Al",
    "CHANGE 1",  # a change needs the turn's action
    "PLACE BLUE 1,0\nSWITCH 1,0 TO RED",  # one action per turn
    "SWITCH 1,0",
    "Big Al",
    "PLAY EXPAND",  # 5X's
    "HIT bob 1 SHIP",  # 4X Dice's
]

FOURXDICE_IN = [
    "ALLOCATE EXPLORE EXPAND EXTRACT",  # an area for each die
    "allocate explore expand",  # 2 dice
    "ALLOCATE EXTERMINATE EXTERMINATE EXTERMINATE EXTERMINATE",  # 4 dice
    "PASS",
    "pass",
    "HIT bob 1 SHIP",
    "hit bob 9 asteroid",  # no die 9: refused, but a hit
    "HIT bob 1 SHIP; HIT cat 2 ASTEROID",  # several hits separated by ';'
    "HIT bob 1 SHIP; bob 3 ASTEROID",  # HIT may be left out after ';'
    "HIT bob 1 SHIP\nHIT cat 2 ASTEROID",  # one hit per line
]
FOURXDICE_OUT = [
    "",
    "ALLOCATE",
    "ALLOCATE EXPLORE",  # one area: every game has 2 to 4 dice
    "ALLOCATE EXPLORE EXPAND EXTRACT EXTERMINATE EXPLORE",  # five
    "ALLOCATE EXPLORE EXPAND SLEEP",
    "ALLOCATE EXPLORE\nEXPAND EXTRACT",  # an allocation is one line
    "EXPLORE EXPAND EXTRACT",  # without ALLOCATE
    "HIT",
    "HIT bob SHIP",  # no die
    "HIT bob 1",  # what it lowers
    "HIT bob 1 SHIELD",
    "PASS; HIT bob 1 SHIP",  # PASS means no hits
    "HIT bob 1 SHIP HIT cat 2 SHIP",  # two hits without ';'
    "ALLOCATE EXPLORE EXPAND EXTRACT\nBig Al",
    "Big Al",
    "PLAY EXPAND",  # 5X's
    "PLACE BLUE 1,0",  # 6x5's
]

CASES = [
    ("5x", FIVEX_IN, FIVEX_OUT),
    ("6x5", SIXBYFIVE_IN, SIXBYFIVE_OUT),
    ("4x-dice", FOURXDICE_IN, FOURXDICE_OUT),
]


@pytest.mark.parametrize(("game_id", "inside", "outside"), CASES, ids=[c[0] for c in CASES])
def test_each_ruleset_knows_its_order_language(game_id: str, inside: list, outside: list) -> None:
    rules = engine.get(game_id)
    assert [t for t in inside if not rules.in_order_language(t)] == []
    assert [t for t in outside if rules.in_order_language(t)] == []


def test_a_ruleset_without_an_order_language_reads_nothing_as_one() -> None:
    """The base class's default: no language known, so nothing is taken for an order of
    it (the email gateway then needs a verb legal now to read words a line)."""

    class Bare(Ruleset):
        id = "bare"

    assert not Bare().in_order_language("PLAY EXPAND")
    assert not Bare().in_order_language("")


@pytest.mark.parametrize("game_id", [c[0] for c in CASES])
def test_not_text_is_not_an_order(game_id: str) -> None:
    rules = engine.get(game_id)
    assert rules.in_order_language(None) is False  # type: ignore[arg-type]
