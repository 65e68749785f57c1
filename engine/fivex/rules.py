"""5X game logic: the state, its set-up, and every step of a round.

The state is a flat JSON dict (``new_state`` documents every key). Seats are indices
into ``state["players"]``; cards and Wonders are the integer codes of
``engine.fivex.data``; a hand is a bit mask of card codes (bit ``c`` set: card ``c`` is
in the hand), so a hand is one integer and its set bits in ascending order are the
printed hand order. The step functions work on a copy made by ``copy_state`` and append
events to a list; the ``FiveX`` ruleset wraps them in the pure ``Ruleset`` interface.

Speed matters (the benchmark plays thousands of games a second), hence the flat state:
a step copies the state dict (``copy_state``) and only the flat per-seat lists it changes
in place; nested lists (discard piles) and the other lists are never changed in place,
only replaced (copy-on-write). ``play_fast`` and ``draft_fast`` are ``FiveX.resolve``'s
fast paths for the usual orders (decoded and applied in one pass); every odd order goes
through ``orders.decode`` and the ``apply_*`` steps.

Readings of points the rulebook leaves open (each one is also the spec's ruling):

* The draft passes to the left: seat ``i`` passes to seat ``(i + 1) % n``.
* The leader pool, in alphabetical order of id, is shuffled with the game's RNG
  (``engine.rng.shuffled``); seat ``i`` is dealt cards ``2i`` and ``2i + 1``.
* A seat that played ERIK plays after every other seat next round, after the other
  explorers too; in the last round ERIK only gains (there is no next round).
* A bid prompt with exactly one eligible seat is answered with its minimum bid.
* An Excavate prompt with exactly one option is answered by the engine, Suleiman's
  lone ``BUILD`` included (paying 3 for a Wonder worth at least 1.5 VP never loses VP);
  EXCAVATE itself always returns to hand; Catharine gains 1 before choosing.
* Without leaders the Rocket is out of the game from the start: it is neither current,
  built nor removed (it is not listed under ``removed``).
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.fivex import data as D

State = dict[str, Any]
Event = dict[str, Any]

ACTION_OF = D.ACTION_OF
CARD_CODE = D.CARD_CODE
BUILD_COST = D.BUILD_COST
IS_LEADER = D.IS_LEADER
IDS = D.CARD_IDS
NAMES = tuple(c.name for c in D.CARDS)
LETTERS = D.WONDER_LETTERS
EXPAND = D.EXPAND
EXCAVATE = D.EXCAVATE
ERIK = D.ERIK
DIDO = D.DIDO
QIN = D.QIN
CATHARINE = D.CATHARINE
CAESAR = D.CAESAR
SULEIMAN = D.SULEIMAN
BOUDICCA = D.BOUDICCA
IMMUNE = D.IMMUNE
HITS_EXCAVATORS = D.HITS_EXCAVATORS
EXPLOIT_WEIGHT = tuple(D.EXPLOIT_WEIGHT.get(c, 0) for c in range(D.N_CARDS))
MIN_BID = tuple(D.MIN_BID.get(c, 0) for c in range(D.N_CARDS))
LOSS_PAY = tuple(D.LOSS_PAY.get(c, 0) for c in range(D.N_CARDS))
BID_BONUS = tuple(D.BID_BONUS_HALVES.get(c, 0) for c in range(D.N_CARDS))
GAIN_NORMAL = tuple(D.EXPLORE_GAIN.get(c, (0, 0))[0] for c in range(D.N_CARDS))
GAIN_LAST = tuple(D.EXPLORE_GAIN.get(c, (0, 0))[1] for c in range(D.N_CARDS))
ACTIONS_MASK = 0b11111


def _hits(e: int, v: int) -> bool:
    """Whether an Exterminate-type card ``e`` takes 1 from a seat that played ``v``."""
    if ACTION_OF[e] != 2 or v in IMMUNE:
        return False
    a = ACTION_OF[v]
    return (a == 1 or a == 3 or (e in HITS_EXCAVATORS and a == 5)
            or (e in D.HITS_LEADERS and IS_LEADER[v]))


HIT = tuple(tuple(_hits(e, v) for v in range(D.N_CARDS)) for e in range(D.N_CARDS))
"""``HIT[e][v]``: an exterminator that played ``e`` takes 1 from a seat that played ``v``."""
WONDER_BONUS = D.WONDER_BONUS
VP_HALVES = D.WONDER_VP_HALVES
N_WONDERS = D.N_WONDERS
TO_COME = -1  # a Wonder still in the stack
REMOVED = -2  # a Wonder removed from the game
OUT_OF_GAME = -3  # the Rocket in the no-leader variant: never in the game at all

# Phases, in round order.
DRAFT = "draft"
PLAY = "play"
EXPLORE_PLAY = "explore-play"
ERIK_PLAY = "erik-play"
BID = "bid"
DIDO_PHASE = "dido"
EXCAVATE_PHASE = "excavate"
OVER = "over"
PLAY_PHASES = frozenset({PLAY, EXPLORE_PLAY, ERIK_PLAY})


def _label(code: int) -> str:
    if IS_LEADER[code] and NAMES[code].upper() != IDS[code]:
        return f"{IDS[code]} ({NAMES[code]})"
    return IDS[code]


LABEL = tuple(_label(c) for c in range(D.N_CARDS))
"""How events name a card: its id, plus the full name of a leader."""
WLABEL = tuple(f"{w.name} ({w.letter})" for w in D.WONDERS)
"""How events name a Wonder: ``the Pyramids (A)``."""
PLAYED_TEXT = tuple(" played " + label for label in LABEL)
GAINED_TEXT = tuple(f" gained {n}" for n in range(8))
TOOK_BACK_TEXT = tuple(f" took {IDS[c]} back from the discard pile" for c in range(D.N_CARDS))
BIT = tuple(1 << c for c in range(D.N_CARDS))
EXPAND_BIT = 1 << EXPAND
EXCAVATE_BIT = 1 << EXCAVATE
OPT_ACTION = tuple((0, c) for c in range(5))
"""Excavate options ``(0, card)`` of the action cards (shared, immutable)."""

_CARDS_OF: dict[int, tuple[int, ...]] = {}


def cards_of(mask: int) -> tuple[int, ...]:
    """The card codes of a hand mask, ascending (= printed hand order)."""
    out = _CARDS_OF.get(mask)
    if out is None:
        out = _CARDS_OF[mask] = tuple(c for c in range(D.N_CARDS) if mask >> c & 1)
    return out


def lowest_card(mask: int) -> int:
    """The lowest card code in a non-empty hand mask."""
    return (mask & -mask).bit_length() - 1


def _names(players: list[str], seats: list[int]) -> str:
    names = [players[i] for i in seats]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


# --- state ------------------------------------------------------------------------------

_POOLS: dict[tuple[int, bool], tuple[int, ...]] = {}
_M64 = (1 << 64) - 1
_LIMIT = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(D.N_CARDS + 1))
_MIN_LIMIT = min(_LIMIT[2:])  # no draw below this is ever rejected (n <= 20)


def shuffled(r: int, items: tuple[int, ...]) -> tuple[list[int], int]:
    """``engine.rng.shuffled(r, items)`` (same Fisher-Yates, same SplitMix64 draws,
    same result), inlined for speed; ``items`` has at most 20 elements."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        r = (r + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((r ^ (r >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        if z >= _MIN_LIMIT:  # practically never: the exact rejection test, then redraw
            while z >= _LIMIT[i + 1]:
                r = (r + 0x9E3779B97F4A7C15) & _M64
                z = ((r ^ (r >> 30)) * 0xBF58476D1CE4E5B9) & _M64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
                z ^= z >> 31
        j = z % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out, r



def new_state(
    players: list[str], leaders: bool, all_leaders: bool, seed: int, deal: list[list[int]] | None
) -> State:
    """Build the initial state (already advanced past any forced prompt).

    Keys: ``players`` (names, clockwise), ``leaders``/``all_leaders`` (options),
    ``rounds`` (7, or 6 without leaders), ``round`` (0 during the draft), ``phase``,
    ``pending`` (seat indices, ascending), ``rng`` (SplitMix64 state, after the deal),
    ``res`` (resources per seat), ``hand`` (hand bit mask per seat), ``disc`` (discard
    pile per seat, card codes in discard order), ``dealt`` (the two leaders dealt to each
    seat, ascending), ``passed`` (the leader each seat passed, -1 before the draft),
    ``played`` (the card each seat played this round, -1 not yet), ``bids`` (this
    round's bids, -1 none), ``explorers`` (seats that play in explore-play this round),
    ``erik`` (the seat that plays in erik-play this round, -1 none), ``wonders`` (per
    Wonder: owner seat, -1 still to come, -2 removed, -3 out of the game), ``cur``
    (current Wonder, -1 none), ``built`` (Wonders built this round)."""
    n = len(players)
    r = rng.seed_state(seed)
    if leaders and deal is None:
        key = (n, all_leaders)
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = tuple(D.leader_pool(n, all_leaders))
        pool, r = shuffled(r, pool)
        dealt = []
        for k in range(0, 2 * n, 2):
            a = pool[k]
            b = pool[k + 1]
            dealt.append([a, b] if a < b else [b, a])
    elif leaders and deal:
        dealt = [sorted(d) for d in deal]
    else:
        dealt = [[] for _ in range(n)]
    wonders = [TO_COME] * D.N_WONDERS
    if not leaders:
        wonders[D.ROCKET] = OUT_OF_GAME
    s: State = {
        "players": list(players),
        "leaders": leaders,
        "all_leaders": all_leaders,
        "rounds": D.ROUNDS_WITH_LEADERS if leaders else D.ROUNDS_WITHOUT_LEADERS,
        "round": 0,
        "phase": DRAFT,
        "pending": list(range(n)),
        "rng": r,
        "res": [D.STARTING_RESOURCES] * n,
        "hand": [ACTIONS_MASK] * n,
        "disc": [[] for _ in range(n)],
        "dealt": dealt,
        "passed": [-1] * n,
        "played": [-1] * n,
        "bids": [-1] * n,
        "explorers": [],
        "erik": -1,
        "wonders": wonders,
        "cur": 0,
        "built": [],
    }
    if not leaders:
        _start_round(s, 1, [])
    return s


def copy_state(s: State) -> State:
    """A copy the step functions (``apply_*``) may change: a shallow copy. No list of a
    state is ever changed in place unless this step copied it first: each step copies
    the flat per-seat lists it (and the round pipeline after it) changes in place
    (``res``, ``hand``, ``played``, ``bids``; ``wonders`` is copied where a Wonder
    changes hands); every other list is only ever replaced."""
    return s.copy()


# --- the round pipeline -----------------------------------------------------------------

SEATS = tuple(range(n) for n in range(8))
"""``SEATS[n]``: the seat indices of an ``n``-player game (iterated, never built anew)."""


def _start_round(s: State, number: int, ev: list[Event]) -> None:
    """Begin round ``number``: ask the seats that did not explore last round to play
    (or, if nobody is left, go on to the explorers)."""
    n = len(s["players"])
    s["round"] = number
    s["played"] = [-1] * n
    s["bids"] = [-1] * n
    s["built"] = []
    explorers = s["explorers"]
    erik = s["erik"]
    if explorers or erik >= 0:
        pend = [i for i in range(n) if i not in explorers and i != erik]
        if not pend:
            if explorers:
                s["phase"] = EXPLORE_PLAY
                s["pending"] = explorers
            else:
                s["phase"] = ERIK_PLAY
                s["pending"] = [erik]
            return
    else:
        pend = list(range(n))
    s["phase"] = PLAY
    s["pending"] = pend


def apply_draft(s: State, passes: Any, ev: list[Event]) -> None:
    """Every seat passes one dealt leader to its left; hands get the two leaders.
    ``passes``: seat -> the leader it passes (a dict, or a list in seat order)."""
    players = s["players"]
    n = len(players)
    passed = passes if type(passes) is list else [passes[i] for i in range(n)]
    s["passed"] = passed
    dealt = s["dealt"]
    hand = []
    right = n - 1
    for i in range(n):
        left = i + 1 if i + 1 < n else 0
        a, b = dealt[i]
        p = passed[i]
        got = passed[right]
        hand.append(ACTIONS_MASK | 1 << (b if p == a else a) | 1 << got)
        me = players[i]
        to = players[left]
        frm = players[right]
        ev.append({
            "kind": "draft",
            "text": f"you passed {LABEL[p]} to {to} and received {LABEL[got]} from {frm}",
            "to": [me],
            "data": {"passed": IDS[p], "to": to, "received": IDS[got], "from": frm},
        })
        right = i
    s["hand"] = hand
    ev.append({"kind": "draft", "text": "the Great Leader draft is over; round 1 begins",
               "to": None, "data": {}})
    _start_round(s, 1, ev)


def draft_fast(state: State, orders: Any) -> tuple[State, list[Event]] | None:
    """``FiveX.resolve`` of the draft when every seat (hence no other) has a well-formed
    ``{"pass": id}`` order for one of its dealt leaders; ``None`` otherwise."""
    players = state["players"]
    if len(orders) != len(players) or len(state["pending"]) != len(players):
        return None
    dealt = state["dealt"]
    try:
        passed = []
        for i in SEATS[len(players)]:
            c = CARD_CODE[orders[players[i]]["pass"]]
            if c not in dealt[i]:
                return None
            passed.append(c)
    except (KeyError, TypeError):
        return None
    s = state.copy()
    ev: list[Event] = []
    apply_draft(s, passed, ev)
    return s, ev


def play_fast(state: State, orders: Any) -> tuple[State, list[Event]] | None:
    """``FiveX.resolve`` of a play prompt when every pending seat (hence no other) has a
    well-formed ``{"play": id}`` order for a card in its hand; ``None`` otherwise (the
    orders are then decoded, and refused, one by one)."""
    pend = state["pending"]
    if len(orders) != len(pend):
        return None
    players = state["players"]
    hand = state["hand"].copy()
    played = state["played"].copy()
    shown = {}
    parts = []
    try:
        for i in pend:
            name = players[i]
            c = CARD_CODE[orders[name]["play"]]
            h = hand[i]
            if not h >> c & 1:
                return None
            hand[i] = h ^ BIT[c]
            played[i] = c
            shown[name] = IDS[c]
            parts.append(name + PLAYED_TEXT[c])
    except (KeyError, TypeError):
        return None
    s = state.copy()
    s["played"] = played
    s["hand"] = hand
    ev = [{"kind": "reveal", "text": "; ".join(parts), "to": None, "data": {"played": shown}}]
    # ``_after_play``, inlined.
    phase = s["phase"]
    if phase == PLAY:
        if s["explorers"]:
            s["phase"] = EXPLORE_PLAY
            s["pending"] = s["explorers"]
            return s, ev
        if s["erik"] >= 0:
            s["phase"] = ERIK_PLAY
            s["pending"] = [s["erik"]]
            return s, ev
    elif phase == EXPLORE_PLAY and s["erik"] >= 0:
        s["phase"] = ERIK_PLAY
        s["pending"] = [s["erik"]]
        return s, ev
    s["res"] = s["res"].copy()
    _run(s, ev, 0)
    return s, ev


def apply_play(s: State, cards: dict[int, int], ev: list[Event]) -> None:
    """The pending seats play their cards (each in its hand), revealed at once; then
    ask the next group of players, or resolve the round."""
    players = s["players"]
    played = s["played"] = s["played"][:]
    hand = s["hand"] = s["hand"][:]
    shown = {}
    parts = []
    for i, c in cards.items():
        played[i] = c
        hand[i] ^= 1 << c
        name = players[i]
        shown[name] = IDS[c]
        parts.append(name + PLAYED_TEXT[c])
    ev.append({"kind": "reveal", "text": "; ".join(parts), "to": None,
               "data": {"played": shown}})
    _after_play(s, ev)


def _after_play(s: State, ev: list[Event]) -> None:
    """After a play step: ask the explorers, then Erik, else resolve the round."""
    phase = s["phase"]
    if phase == PLAY:
        if s["explorers"]:
            s["phase"] = EXPLORE_PLAY
            s["pending"] = s["explorers"]
            return
        if s["erik"] >= 0:
            s["phase"] = ERIK_PLAY
            s["pending"] = [s["erik"]]
            return
    elif phase == EXPLORE_PLAY and s["erik"] >= 0:
        s["phase"] = ERIK_PLAY
        s["pending"] = [s["erik"]]
        return
    s["res"] = s["res"].copy()
    _run(s, ev, 0)


def apply_bids(s: State, bids: dict[int, int], ev: list[Event]) -> None:
    """The eligible Expand-type seats bid; resolve Expand and go on."""
    b = s["bids"] = s["bids"][:]
    for i, n in bids.items():
        b[i] = n
    _own(s)
    _run(s, ev, 1)


def apply_dido(s: State, seat: int, build: bool, ev: list[Event]) -> None:
    """Dido's player builds the current Wonder for 3, or declines; go on."""
    _own(s)
    name = s["players"][seat]
    cur = s["cur"]
    if build:
        s["res"][seat] -= D.BUILD_COST
        w = s["wonders"] = s["wonders"].copy()
        w[cur] = seat
        s["built"] = s["built"] + [cur]
        text = f"{name} paid 3 and built {WLABEL[cur]} (Dido)"
    else:
        text = f"{name} declined to build {WLABEL[cur]} (Dido)"
    ev.append({"kind": "dido", "text": text, "to": None, "data": {"build": build}})
    _run(s, ev, 2)


def apply_excavate(s: State, choices: dict[int, tuple[int, int]], ev: list[Event]) -> None:
    """The pending excavators take their choices; end the round."""
    _own(s)
    for i, opt in choices.items():
        _excavate(s, i, opt, ev)
    _run(s, ev, 3)


def _own(s: State) -> None:
    """Copy the lists the round pipeline after a bid, Dido or Excavate prompt changes
    in place (``res``, ``hand``; ``wonders`` is copied where it changes)."""
    s["res"] = s["res"].copy()
    s["hand"] = s["hand"].copy()


def _run(s: State, ev: list[Event], stage: int) -> None:
    """Resolve the round from ``stage`` on (0: every card is revealed; 1: bids are in;
    2: Dido has chosen; 3: excavators have chosen) until a prompt needs a player, the
    next round starts, or the game ends. ``res`` and ``hand`` are this step's copies."""
    players = s["players"]
    played = s["played"]
    res = s["res"]
    by: list[list[int]] = [[], [], [], [], [], []]
    for i in SEATS[len(played)]:
        by[ACTION_OF[played[i]]].append(i)
    _, exploiters, exterminators, expanders, explorers, excavators = by
    if stage == 0:
        # Exploit-type: 3 minus the other exploiters (Gandhi counts 2); Qin always 3.
        if exploiters:
            if len(exploiters) == 1:
                i = exploiters[0]
                res[i] += 3
                text = f"Exploit: {players[i]} gained 3"
            else:
                total = 0
                for i in exploiters:
                    total += EXPLOIT_WEIGHT[played[i]]
                parts = []
                for i in exploiters:
                    c = played[i]
                    gain = 3 if c == QIN else 3 - total + EXPLOIT_WEIGHT[c]
                    if gain < 0:
                        gain = 0
                    res[i] += gain
                    parts.append(players[i] + GAINED_TEXT[gain])
                text = "Exploit: " + ", ".join(parts)
            ev.append({"kind": "exploit", "text": text, "to": None, "data": {}})
        # Exterminate-type: all takings at once, from the holdings at the start.
        if exterminators:
            _exterminate(players, played, res, exterminators, ev)
        if len(expanders) == 1:
            i = expanders[0]
            bid = MIN_BID[played[i]]
            if res[i] >= bid:
                b = s["bids"] = s["bids"].copy()
                b[i] = bid
        elif expanders:
            eligible = [i for i in expanders if res[i] >= MIN_BID[played[i]]]
            if len(eligible) > 1:
                s["phase"] = BID
                s["pending"] = eligible
                return
            if eligible:
                i = eligible[0]
                b = s["bids"] = s["bids"].copy()
                b[i] = MIN_BID[played[i]]
        stage = 1
    if stage == 1:
        if expanders:
            _expand(s, expanders, ev)
        if explorers:
            gains = GAIN_LAST if s["round"] == s["rounds"] else GAIN_NORMAL
            parts = []
            dido = -1
            for i in explorers:
                c = played[i]
                gain = gains[c]
                res[i] += gain
                parts.append(players[i] + GAINED_TEXT[gain])
                if c == DIDO:
                    dido = i
            ev.append({"kind": "explore", "text": "Explore: " + ", ".join(parts),
                       "to": None, "data": {}})
            if dido >= 0 and not expanders and res[dido] >= BUILD_COST:
                s["phase"] = DIDO_PHASE
                s["pending"] = [dido]
                return
        stage = 2
    if stage == 2 and excavators:
        pend = []
        for i in excavators:
            c = played[i]
            if c == CATHARINE:
                res[i] += D.CATHARINE_GAIN
                ev.append({"kind": "excavate", "text": f"{players[i]} gained 1 (Catharine)",
                           "to": None, "data": {}})
            if c == CAESAR or c == SULEIMAN:
                opts = excavate_options(s, i)
                if len(opts) > 1:
                    pend.append(i)
                else:
                    _excavate(s, i, opts[0] if opts else None, ev)
            else:
                # EXCAVATE or Catharine: the action cards of the own discard pile.
                acts = [x for x in s["disc"][i] if x < 5]
                if len(acts) > 1:
                    pend.append(i)
                else:
                    _excavate(s, i, OPT_ACTION[acts[0]] if acts else None, ev)
        if pend:
            s["phase"] = EXCAVATE_PHASE
            s["pending"] = pend
            return
    _end_round(s, by, ev)


def _exterminate(
    players: list[str], played: list[int], res: list[int], seats: list[int], ev: list[Event]
) -> None:
    """Every exterminator in ``seats`` takes 1 from each seat its card hits."""
    seats_all = SEATS[len(played)]
    taken = [0] * len(played)
    parts = []
    gains = []
    for e in seats:
        row = HIT[played[e]]
        victims = [v for v in seats_all if row[played[v]] and v != e]
        if victims:
            for v in victims:
                taken[v] += 1
            gains.append((e, len(victims)))
            parts.append(f"{players[e]} took 1 from {_names(players, victims)}")
        else:
            parts.append(players[e] + " took nothing")
    if gains:
        for i in seats_all:
            t = taken[i]
            if t:
                left = res[i] - t
                res[i] = left if left > 0 else 0
        for e, g in gains:
            res[e] += g
    ev.append({"kind": "exterminate", "text": "Exterminate: " + "; ".join(parts),
               "to": None, "data": {}})


def _expand(s: State, expanders: list[int], ev: list[Event]) -> None:
    """The Expand-type seats ``expanders``: the unique highest bid takes the Wonder."""
    players = s["players"]
    played = s["played"]
    res = s["res"]
    bids = s["bids"]
    cur = s["cur"]
    hand = s["hand"]
    if len(expanders) == 1:
        # One Expand-type seat: it bids (its minimum, or could not bid) alone.
        i = expanders[0]
        bid = bids[i]
        if bid >= 0:
            res[i] -= bid
            w = s["wonders"] = s["wonders"].copy()
            w[cur] = i
            s["built"] = s["built"] + [cur]
            name = players[i]
            ev.append({
                "kind": "expand",
                "text": f"Expand: {name} was the only bidder, bid {bid} and took {WLABEL[cur]}",
                "to": None,
                "data": {"bids": {name: bid}, "winner": name},
            })
            return
        what = players[i] + " could not bid"
        if played[i] == EXPAND:
            hand[i] |= EXPAND_BIT
            what += " and took EXPAND back"
        ev.append({"kind": "expand", "text": "Expand: " + what, "to": None,
                   "data": {"bids": {}, "winner": None}})
        return
    bidders = [i for i in expanders if bids[i] >= 0]
    values = [2 * bids[i] + BID_BONUS[played[i]] for i in bidders]
    winner = -1
    best = -1
    for k, v in enumerate(values):
        if v > best and values.count(v) == 1:
            best = v
            winner = bidders[k]
    parts = []
    if winner >= 0:
        res[winner] -= bids[winner]
        w = s["wonders"] = s["wonders"].copy()
        w[cur] = winner
        s["built"] = s["built"] + [cur]
        only = " was the only bidder," if len(bidders) == 1 else ""
        parts.append(f"{players[winner]}{only} bid {bids[winner]} and took {WLABEL[cur]}")
    elif bidders:
        parts.append(f"no unique highest bid: nobody took {WLABEL[cur]}")
    for i in expanders:
        if i == winner:
            continue
        c = played[i]
        if bids[i] >= 0:
            pay = LOSS_PAY[c]
            res[i] -= pay
            what = f"{players[i]} lost a bid of {bids[i]} and paid {pay}"
        else:
            what = players[i] + " could not bid"
        if c == EXPAND:
            hand[i] |= EXPAND_BIT
            what += " and took EXPAND back"
        parts.append(what)
    ev.append({
        "kind": "expand",
        "text": "Expand: " + "; ".join(parts),
        "to": None,
        "data": {"bids": {players[i]: bids[i] for i in bidders},
                 "winner": players[winner] if winner >= 0 else None},
    })


def excavate_options(s: State, i: int) -> list[tuple[int, int]]:
    """The options of seat ``i``'s Excavate-type card, in a stable order: ``(0, card)``
    an action card of its own discard pile, by number; ``(1, leader)`` a leader of any
    discard pile, alphabetically (Caesar); ``(2, wonder)`` a removed Wonder, by letter
    (Suleiman, holding at least 3 resources)."""
    c = s["played"][i]
    opts = [OPT_ACTION[x] for x in sorted(s["disc"][i]) if x < 5]
    if c == CAESAR:
        opts.extend(sorted([(1, x) for d in s["disc"] for x in d if x >= 5]))
    elif c == SULEIMAN and s["res"][i] >= D.BUILD_COST:
        opts.extend([(2, w) for w, o in enumerate(s["wonders"]) if o == REMOVED])
    return opts


def leader_owner(s: State, leader: int) -> int:
    """The seat whose discard pile holds ``leader`` (-1 if none)."""
    for j, d in enumerate(s["disc"]):
        if leader in d:
            return j
    return -1


def _excavate(s: State, i: int, opt: tuple[int, int] | None, ev: list[Event]) -> None:
    players = s["players"]
    hand = s["hand"]
    name = players[i]
    if opt is None:
        text = name + " had nothing to excavate"
    else:
        kind, x = opt
        if kind == 0:
            disc = s["disc"] = s["disc"].copy()
            pile = disc[i] = disc[i].copy()
            pile.remove(x)  # cards are unique: its only copy
            hand[i] |= BIT[x]
            text = name + TOOK_BACK_TEXT[x]
        elif kind == 1:
            j = leader_owner(s, x)
            disc = s["disc"] = s["disc"].copy()
            pile = disc[j] = disc[j].copy()
            pile.remove(x)
            hand[i] |= BIT[x]
            text = f"{name} took {LABEL[x]} from {players[j]}'s discard pile (Caesar)"
        else:
            s["res"][i] -= D.BUILD_COST
            w = s["wonders"] = s["wonders"].copy()
            w[x] = i
            s["built"] = s["built"] + [x]
            text = f"{name} paid 3 and built {WLABEL[x]} (Suleiman)"
    if s["played"][i] == EXCAVATE:
        hand[i] |= EXCAVATE_BIT
        text += "; EXCAVATE returns to the hand"
    ev.append({"kind": "excavate", "text": text, "to": None, "data": {}})


def _end_round(s: State, by: list[list[int]], ev: list[Event]) -> None:
    """Discard, Wonder bonuses, remove an unbuilt Wonder, then the next round or the end.
    ``by``: the seats grouped by action (fresh lists, as ``_run`` makes them)."""
    players = s["players"]
    played = s["played"]
    hand = s["hand"]
    wonders = s["wonders"]
    old = s["disc"]
    seats = SEATS[len(played)]
    s["disc"] = [old[i] if hand[i] >> played[i] & 1 else [*old[i], played[i]] for i in seats]
    explorers = by[4]  # a fresh list of this step's
    erik = -1
    if explorers and ERIK in played:
        erik = played.index(ERIK)
        explorers = [i for i in explorers if i != erik]
    s["explorers"] = explorers
    s["erik"] = erik
    parts = []
    built = s["built"]
    if built:
        res = s["res"]
        for w in built:
            bonus = WONDER_BONUS[w]
            if bonus:
                res[wonders[w]] += bonus
                parts.append(f"{players[wonders[w]]} gained {bonus} for {WLABEL[w]}")
    cur = s["cur"]
    if wonders[cur] == TO_COME:
        wonders = s["wonders"] = wonders.copy()
        wonders[cur] = REMOVED
        parts.append(WLABEL[cur] + " was not built and is removed")
    number = s["round"]
    if number >= s["rounds"]:
        s["phase"] = OVER
        s["pending"] = []
        s["cur"] = -1
        vp, ranking = _ranking(s)
        parts.append("Game over: " + "; ".join([
            f"{k + 1}. " + ", ".join([f"{players[i]} ({fmt_vp(vp[i])} VP)" for i in g])
            for k, g in enumerate(ranking)
        ]))
        ev.append({"kind": "end", "text": ". ".join(parts), "to": None,
                   "data": {"ranking": [[players[i] for i in g] for g in ranking]}})
        return
    try:
        nxt = wonders.index(TO_COME, cur + 1)
    except ValueError:
        nxt = -1
    s["cur"] = nxt
    if parts:
        ev.append({"kind": "end_round", "text": ". ".join(parts), "to": None, "data": {}})
    _start_round(s, number + 1, ev)


# --- scoring ----------------------------------------------------------------------------


def vp_halves(s: State, i: int) -> int:
    """Seat ``i``'s VP, in halves: 2 * floor(resources / 3) + its Wonders' VP."""
    total = 2 * (s["res"][i] // 3)
    for w, owner in enumerate(s["wonders"]):
        if owner == i:
            total += D.WONDER_VP_HALVES[w]
    return total


def fmt_vp(halves: int) -> int | float:
    """A VP in halves as the printed number: ``4`` or ``2.5``."""
    return halves // 2 if halves % 2 == 0 else halves / 2


def rank(s: State) -> list[list[int]]:
    """Seats in ranking groups, best first: VP, then the earliest Wonder letter held
    (no Wonder ranks after any Wonder); still equal seats share a group, seat order."""
    return _ranking(s)[1]


def _ranking(s: State) -> tuple[list[int], list[list[int]]]:
    """(every seat's VP in halves, the ranking groups of ``rank``)."""
    vp = [2 * (r // 3) for r in s["res"]]
    n = len(vp)
    first = [N_WONDERS] * n
    for w, owner in enumerate(s["wonders"]):
        if owner >= 0:
            vp[owner] += VP_HALVES[w]
            if first[owner] == N_WONDERS:
                first[owner] = w
    keys = [(-vp[i], first[i]) for i in range(n)]
    groups: list[list[int]] = []
    last = None
    for i in sorted(range(n), key=keys.__getitem__):  # stable: ties stay in seat order
        if keys[i] == last:
            groups[-1].append(i)
        else:
            groups.append([i])
            last = keys[i]
    return vp, groups
