"""Every piece of 5X rules data, in one place.

Each entry says where it comes from: ``RULEBOOK`` when the rulebook text
(``shared/seeds/5x-rules.md``) prints it, ``READING`` when it is our reading of a point
the text leaves open (``shared/spec/5x.md`` explains each reading). To change a reading,
change it here and nowhere else.

Cards are coded as small integers so the hot paths index lists instead of hashing
strings: the five action cards are 0..4 in their resolution order, the fifteen Great
Leaders are 5..19 in alphabetical order of id. Sorting a hand of codes therefore gives
the printed hand order (action cards by number, then leaders alphabetically).
"""

from __future__ import annotations

from typing import Final, NamedTuple

RULEBOOK: Final = "rulebook"
READING: Final = "reading"

# --- action numbers --------------------------------------------------------------------
EXPLOIT_ACTION: Final = 1
EXTERMINATE_ACTION: Final = 2
EXPAND_ACTION: Final = 3
EXPLORE_ACTION: Final = 4
EXCAVATE_ACTION: Final = 5


class Card(NamedTuple):
    """One card: its order-language id, the action it counts as (1..5), the printed
    name, whether it is a Great Leader, whether it carries the star, and the source."""

    id: str
    action: int
    name: str
    leader: bool
    star: bool
    source: str


# Index in this tuple == the card's code in a game state.
CARDS: Final[tuple[Card, ...]] = (
    Card("EXPLOIT", 1, "Exploit", False, False, RULEBOOK),
    Card("EXTERMINATE", 2, "Exterminate", False, False, RULEBOOK),
    Card("EXPAND", 3, "Expand", False, False, RULEBOOK),
    Card("EXPLORE", 4, "Explore", False, False, RULEBOOK),
    Card("EXCAVATE", 5, "Excavate", False, False, RULEBOOK),
    # Great Leaders, alphabetical by id. Action and name: rulebook. Star: our reading
    # (the text does not print which five carry it; see the module docstring of the spec).
    Card("BOUDICCA", 2, "Boudicca", True, False, RULEBOOK),
    Card("CAESAR", 5, "Caesar", True, False, RULEBOOK),
    Card("CATHARINE", 5, "Catharine the Great", True, False, RULEBOOK),
    Card("CLEOPATRA", 3, "Cleopatra", True, False, RULEBOOK),
    Card("DIDO", 4, "Dido", True, False, RULEBOOK),
    Card("ELIZABETH", 1, "Elizabeth I", True, False, RULEBOOK),
    Card("ERIK", 4, "Erik the Red", True, True, READING),
    Card("GANDHI", 1, "Gandhi", True, True, READING),
    Card("GENGHIS", 2, "Genghis Khan", True, False, RULEBOOK),
    Card("ISABELLA", 4, "Isabella", True, False, RULEBOOK),
    Card("MONTEZUMA", 2, "Montezuma", True, True, READING),
    Card("NAPOLEON", 3, "Napoleon", True, True, READING),
    Card("QIN", 1, "Qin Shi Huang", True, False, RULEBOOK),
    Card("SULEIMAN", 5, "Suleiman", True, True, READING),
    Card("TOKUGAWA", 3, "Tokugawa Ieyasu", True, False, RULEBOOK),
)

N_CARDS: Final = len(CARDS)
ACTION_CARDS: Final = (0, 1, 2, 3, 4)
LEADERS: Final = tuple(range(5, N_CARDS))
CARD_IDS: Final = tuple(c.id for c in CARDS)
CARD_CODE: Final = {c.id: i for i, c in enumerate(CARDS)}
ACTION_OF: Final = tuple(c.action for c in CARDS)
IS_LEADER: Final = tuple(c.leader for c in CARDS)

# Action card code for each action number (the card an Expand-type loser takes back).
EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, EXCAVATE = ACTION_CARDS
BOUDICCA = CARD_CODE["BOUDICCA"]
CAESAR = CARD_CODE["CAESAR"]
CATHARINE = CARD_CODE["CATHARINE"]
CLEOPATRA = CARD_CODE["CLEOPATRA"]
DIDO = CARD_CODE["DIDO"]
ELIZABETH = CARD_CODE["ELIZABETH"]
ERIK = CARD_CODE["ERIK"]
GANDHI = CARD_CODE["GANDHI"]
GENGHIS = CARD_CODE["GENGHIS"]
ISABELLA = CARD_CODE["ISABELLA"]
MONTEZUMA = CARD_CODE["MONTEZUMA"]
NAPOLEON = CARD_CODE["NAPOLEON"]
QIN = CARD_CODE["QIN"]
SULEIMAN = CARD_CODE["SULEIMAN"]
TOKUGAWA = CARD_CODE["TOKUGAWA"]

# --- leader effects (rulebook, "Great Leader reference list") -------------------------
# Exploit: how many Exploits a card counts as for the *other* exploiters (Gandhi: 2).
EXPLOIT_WEIGHT: Final = {EXPLOIT: 1, ELIZABETH: 1, GANDHI: 2, QIN: 1}
# Qin Shi Huang always takes 3.
EXPLOIT_FIXED: Final = {QIN: 3}
# Immune to every Exterminate-type card (Elizabeth, Cleopatra, Catharine).
IMMUNE: Final = frozenset({ELIZABETH, CLEOPATRA, CATHARINE})
# Exterminators that also hit Excavate-type players (Genghis Khan, Montezuma).
HITS_EXCAVATORS: Final = frozenset({GENGHIS, MONTEZUMA})
# Exterminator that also hits every leader played (Boudicca), at most 1 per victim.
HITS_LEADERS: Final = frozenset({BOUDICCA})
# Expand: minimum bid, what a losing bidder pays, value added to the bid (in halves).
MIN_BID: Final = {EXPAND: 1, CLEOPATRA: 3, NAPOLEON: 3, TOKUGAWA: 3}
LOSS_PAY: Final = {EXPAND: 1, CLEOPATRA: 3, NAPOLEON: 3, TOKUGAWA: 0}
BID_BONUS_HALVES: Final = {EXPAND: 0, CLEOPATRA: 0, NAPOLEON: 1, TOKUGAWA: 0}
# Explore: gain in a normal round / in the last round (Isabella 2 / 5).
EXPLORE_GAIN: Final = {EXPLORE: (1, 3), DIDO: (1, 3), ERIK: (1, 3), ISABELLA: (2, 5)}
# Dido and Suleiman pay this to build a Wonder.
BUILD_COST: Final = 3
# Catharine the Great gains this before excavating.
CATHARINE_GAIN: Final = 1
STARTING_RESOURCES: Final = 3  # rulebook


class Wonder(NamedTuple):
    """One Wonder: its letter, printed name, VP in halves, resources gained when built,
    and the source of the name/value."""

    letter: str
    name: str
    vp_halves: int
    bonus: int
    source: str


# Revealed in this order (index == code). Letters of A and G, the names of A, B and G,
# the bonuses of A and B and the range 1.5..4.5: rulebook. The other names and the
# values of B..F: our reading (evenly spaced, the spec's table).
WONDERS: Final[tuple[Wonder, ...]] = (
    Wonder("A", "the Pyramids", 3, 2, RULEBOOK),
    Wonder("B", "the Great Wall", 4, 1, READING),
    Wonder("C", "the Colossus", 5, 0, READING),
    Wonder("D", "the Great Library", 6, 0, READING),
    Wonder("E", "the Taj Mahal", 7, 0, READING),
    Wonder("F", "the Eiffel Tower", 8, 0, READING),
    Wonder("G", "the Rocket", 9, 0, RULEBOOK),
)
N_WONDERS: Final = len(WONDERS)
WONDER_LETTERS: Final = tuple(w.letter for w in WONDERS)
WONDER_VP_HALVES: Final = tuple(w.vp_halves for w in WONDERS)
WONDER_BONUS: Final = tuple(w.bonus for w in WONDERS)
ROCKET: Final = 6  # removed before play in the no-leader variant (rulebook)

ROUNDS_WITH_LEADERS: Final = 7  # rulebook
ROUNDS_WITHOUT_LEADERS: Final = 6  # rulebook variant

# --- leader pool per player count ------------------------------------------------------
# Rulebook: 5 players remove Montezuma and Erik; fewer than 5 remove the starred cards;
# 3 players also remove Dido and Catharine. Which cards are starred is our reading.
_STARRED = frozenset(i for i in LEADERS if CARDS[i].star)


def leader_pool(n_players: int, all_leaders: bool) -> list[int]:
    """The Great Leader codes in play for ``n_players`` (alphabetical order)."""
    if all_leaders or n_players >= 6:
        return list(LEADERS)
    if n_players == 5:
        drop = {MONTEZUMA, ERIK}
    else:
        drop = set(_STARRED)
        if n_players <= 3:
            drop |= {DIDO, CATHARINE}
    return [c for c in LEADERS if c not in drop]
