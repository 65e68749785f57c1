"""Short, player-facing rules texts: tooltips, prompt hints and game summaries.

Pure data (no Django import), written for first-time players. Every sentence follows
the rulings of the game specs (``shared/spec/5x.md``, ``shared/spec/4x-dice.md``,
``shared/spec/6x5.md``), which is also what the engine in ``engine/`` does; the longer
rules pages are ``templates/games/rules/<ruleset id>.html``.

Keys use the engine's own spellings:

* ``LEADER_POWERS``: 5X Great Leader ids (``engine/fivex/data.py``).
* ``CARD_ACTIONS``: 5X action card ids.
* ``PHASE_HINTS``: ``(ruleset id, phase)`` for every phase in which a player can be
  asked for an order (``Ruleset.phase``; the end state ``"over"`` asks nobody and has
  no hint). 6x5's Change Goal is not a phase of its own: ``CHANGE <k>`` is an optional
  first line of the ``turn`` order.
* ``GAME_SUMMARIES``: ruleset ids as ``python -m engine games`` lists them.
"""

from __future__ import annotations

from typing import Final

LEADER_POWERS: Final[dict[str, str]] = {
    # Exploit (action 1)
    "ELIZABETH": "Counts as Exploit; you are immune to every Exterminate card this round, "
    "Boudicca included.",
    "GANDHI": "Counts as Exploit; to every other exploiter it counts as two Exploit cards: "
    "they gain 2 less (never below 0; Qin still gains 3).",
    "QIN": "Counts as Exploit; you always gain 3, however many other Exploit cards "
    "(Gandhi included) are played.",
    # Exterminate (action 2)
    "BOUDICCA": "Counts as Exterminate; also takes 1 from every seat that played a Great "
    "Leader, never more than 1 from any one seat.",
    "GENGHIS": "Counts as Exterminate; also takes 1 from every seat that played an "
    "Excavate card (Excavate or an Excavate leader).",
    "MONTEZUMA": "Counts as Exterminate; also takes 1 from every seat that played an "
    "Excavate card (Excavate or an Excavate leader).",
    # Expand (action 3)
    "CLEOPATRA": "Counts as Expand; bid at least 3 and pay 3 if you lose; you are immune to "
    "every Exterminate card this round.",
    "NAPOLEON": "Counts as Expand; bid at least 3 and pay 3 if you lose; your bid counts "
    "½ more (a bid of 3 is worth 3½).",
    "TOKUGAWA": "Counts as Expand; bid at least 3, but if you lose you pay nothing and get "
    "your whole bid back.",
    # Explore (action 4)
    "DIDO": "Counts as Explore; if nobody played an Expand card this round, you may then "
    "pay 3 to build the current Wonder.",
    "ERIK": "Counts as Explore; next round you choose your card last, after seeing every "
    "card played, the other explorers' too.",
    "ISABELLA": "Counts as Explore; gain 2 instead of 1 (5 instead of 3 in the last round).",
    # Excavate (action 5)
    "CAESAR": "Counts as Excavate; instead of an action card you may take a Great Leader "
    "from any discard pile into your hand.",
    "CATHARINE": "Counts as Excavate; gain 1 first, and you are immune to every Exterminate "
    "card this round.",
    "SULEIMAN": "Counts as Excavate; instead of an action card you may pay 3 to build any "
    "removed Wonder (with its bonus).",
}

CARD_ACTIONS: Final[dict[str, str]] = {
    "EXPLOIT": "Gain 3 resources, minus 1 for each other Exploit card played this round "
    "(Gandhi counts 2), never below 0.",
    "EXTERMINATE": "Take 1 from every other seat that played an Exploit or Expand card "
    "(Elizabeth, Cleopatra and Catharine are immune).",
    "EXPAND": "Bid for the current Wonder: the highest bid nobody else matched wins it; other "
    "bidders pay 1 and take EXPAND back.",
    "EXPLORE": "Gain 1 resource (3 in the last round); next round you choose your card "
    "after seeing the cards of those who did not explore.",
    "EXCAVATE": "Take one action card from your discard pile back into your hand; EXCAVATE "
    "itself returns to your hand too.",
}

PHASE_HINTS: Final[dict[tuple[str, str], str]] = {
    # --- 5X (engine/fivex/rules.py: DRAFT .. EXCAVATE_PHASE) ---
    ("5x", "draft"): "Before round 1: pass one of your two dealt Great Leaders to the seat "
    "on your left (PASS <leader>). You keep the other and receive one from the seat on "
    "your right.",
    ("5x", "play"): "Choose the card you play this round (PLAY <card>). Everyone asked "
    "chooses in secret; the cards are revealed together.",
    ("5x", "explore-play"): "You played an Explore card last round, so you choose now "
    "(PLAY <card>), having seen the cards the others just revealed.",
    ("5x", "erik-play"): "You played Erik the Red last round, so you choose last "
    "(PLAY <card>), having seen every card played this round.",
    ("5x", "bid"): "Everyone who played an Expand card and can afford the minimum bids in "
    "secret (BID <n>: at least 1, or 3 for Cleopatra, Napoleon and Tokugawa). The highest "
    "bid nobody else matched wins the "
    "Wonder and pays it; the others pay 1 (Cleopatra and Napoleon 3, Tokugawa 0) and keep "
    "the rest.",
    ("5x", "dido"): "Nobody played an Expand card this round: with Dido you may pay 3 "
    "resources to build the current Wonder (BUILD) or keep them (DECLINE).",
    ("5x", "excavate"): "Choose what your Excavate card brings back: an action card from "
    "your own discard pile (TAKE <card>), or with Caesar a leader from any discard pile "
    "(TAKE <leader> FROM <seat>), or with Suleiman a removed Wonder built for 3 "
    "(BUILD <letter>).",
    # --- 4X Dice (engine/fourxdice.py) ---
    ("4x-dice", "allocate"): "Put each of your dice in an area, in die order (ALLOCATE "
    "<area> ...: EXPLORE, EXPAND, EXTRACT or EXTERMINATE). At set-up everyone allocates at "
    "once; later you allocate at the end of your own turn, for your next turn.",
    ("4x-dice", "exterminate"): "Each ship on your eXterminate dice may lower another "
    "player's die by one ship or one asteroid (HIT <seat> <die> SHIP|ASTEROID, the die by "
    "its number as listed: die 1, die 2, ...; several hits joined by ; or one per line, at "
    "most one per ship), or PASS. Each hit adds 1 to your eXterminate track.",
    # --- 6x5 (engine/sixbyfive.py: the one phase "turn") ---
    ("6x5", "turn"): "Your turn: one action, PLACE a tile, SWITCH a tile's colour or MOVE "
    "BLACK (SWAP in the open game), with CHANGE <k> first if Change Goal is on. Your pawn "
    "then stands on that hex and every player's goals are checked.",
}

# What a game that is over (by its rules, a walkover or the organizer) shows on its page
# that it hid while it went on (``Ruleset.revealed``); 4X Dice hides nothing.
REVEALED_AT_END: Final[dict[str, str]] = {
    "5x": "every hand turned face up",
    "6x5": "every goal turned face up",
}

# Why an order was entered for a seat (``Ruleset.forced_order``) when it is not the
# seat's only legal order: the rules make every choice the same.
FORCED_NOTES: Final[dict[str, str]] = {
    "4x-dice": "the game ends after this round, so these dice are not used again",
}

GAME_SUMMARIES: Final[dict[str, str]] = {
    "5x": "A micro civilisation game for 3 to 6 players: seven rounds (six without leaders) "
    "of secretly played action cards and Great Leaders, gathering resources and bidding for "
    "Wonders.",
    "4x-dice": "A space dice game for 2 to 6 players: your dice drive four tracks, "
    "eXplore, eXpand, eXtract and eXterminate, then you reroll and place them for your next "
    "turn.",
    "6x5": "An abstract hex-tile game for 2 to 5 players: place and switch coloured tiles, "
    "and move the black tile, to complete your secret five-hex shape first.",
}
