"""Independent review of the 5X ruleset (``shared/spec/5x.md``).

A small reference model written from the spec alone (not from ``engine/fivex``) plays
random games against the engine round by round: at every prompt the engine's phase and
pending seats must be the model's, and after every round each seat's resources, hand,
discard, Wonders and VP, and the Wonder table, must match. Also: the leader pools by
player count, and the printed round during the draft.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.runner import run_script

R = engine.get("5x")
ACTIONS = ["EXPLOIT", "EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE"]
KIND = {
    "EXPLOIT": 1, "ELIZABETH": 1, "GANDHI": 1, "QIN": 1,
    "EXTERMINATE": 2, "BOUDICCA": 2, "GENGHIS": 2, "MONTEZUMA": 2,
    "EXPAND": 3, "CLEOPATRA": 3, "NAPOLEON": 3, "TOKUGAWA": 3,
    "EXPLORE": 4, "DIDO": 4, "ERIK": 4, "ISABELLA": 4,
    "EXCAVATE": 5, "CAESAR": 5, "CATHARINE": 5, "SULEIMAN": 5,
}
LEADERS = sorted(c for c in KIND if c not in ACTIONS)
STARRED = {"GANDHI", "MONTEZUMA", "NAPOLEON", "ERIK", "SULEIMAN"}
IMMUNE = {"ELIZABETH", "CLEOPATRA", "CATHARINE"}
VP = {"A": 1.5, "B": 2, "C": 2.5, "D": 3, "E": 3.5, "F": 4, "G": 4.5}
MIN_BID = {"CLEOPATRA": 3, "NAPOLEON": 3, "TOKUGAWA": 3}
LOSS = {"EXPAND": 1, "CLEOPATRA": 3, "NAPOLEON": 3, "TOKUGAWA": 0}


def hand_order(cards: list[str]) -> list[str]:
    """Action cards in number order, then leaders alphabetically (the spec's rule)."""
    return [c for c in ACTIONS if c in cards] + sorted(c for c in cards if c not in ACTIONS)


class Model:
    """The reference table: one seat's resources, hand, discard and Wonders."""

    def __init__(self, players: list[str], leaders: bool) -> None:
        self.players = players
        self.res = dict.fromkeys(players, 3)
        self.hand = {p: list(ACTIONS) for p in players}
        self.discard: dict[str, list[str]] = {p: [] for p in players}
        self.letters = "ABCDEFG" if leaders else "ABCDEF"
        self.last = 7 if leaders else 6
        self.built: dict[str, str] = {}
        self.removed: list[str] = []
        self.current: str | None = "A"
        self.round = 1
        self.explorers: set[str] = set()
        self.erik: str | None = None

    def vp(self, p: str) -> float:
        return self.res[p] // 3 + sum(VP[w] for w, s in self.built.items() if s == p)

    def ranking(self) -> list[list[str]]:
        def key(p: str) -> tuple[float, str]:
            mine = sorted(w for w, s in self.built.items() if s == p)
            return (-self.vp(p), mine[0] if mine else "Z")
        groups: list[list[str]] = []
        for p in sorted(self.players, key=key):
            if groups and key(groups[-1][0]) == key(p):
                groups[-1].append(p)
            else:
                groups.append([p])
        return groups


def expect_prompt(state: dict, phase: str, pending: list[str]) -> None:
    assert (R.phase(state), R.pending(state)) == (phase, pending)


def play_round(state: dict, m: Model, rnd: random.Random) -> dict:
    """Play one round with random legal choices, checking every prompt; return the
    engine's new state."""
    last = m.round == m.last
    play = {p: rnd.choice(m.hand[p]) for p in m.players}
    groups = [
        ("play", [p for p in m.players if p not in m.explorers]),
        ("explore-play", [p for p in m.players if p in m.explorers and p != m.erik]),
        ("erik-play", [m.erik] if m.erik else []),
    ]
    for phase, seats in groups:
        if seats:
            expect_prompt(state, phase, seats)
            state, _ = R.submit_step(state, {p: f"PLAY {play[p]}" for p in seats})
    for p in m.players:
        m.hand[p].remove(play[p])
    kind = {p: KIND[play[p]] for p in m.players}
    # 1. Exploit
    for p in m.players:
        if kind[p] == 1:
            others = sum(2 if play[o] == "GANDHI" else 1 for o in m.players if o != p and kind[o] == 1)
            m.res[p] += 3 if play[p] == "QIN" else max(0, 3 - others)
    # 2. Exterminate, all at once
    taken = dict.fromkeys(m.players, 0)
    gained = dict.fromkeys(m.players, 0)
    for e in m.players:
        if kind[e] != 2:
            continue
        for v in m.players:
            if v == e or play[v] in IMMUNE:
                continue
            hit = kind[v] in (1, 3)
            hit = hit or (play[e] == "BOUDICCA" and play[v] not in ACTIONS)
            hit = hit or (play[e] in ("GENGHIS", "MONTEZUMA") and kind[v] == 5)
            if hit:
                taken[v] += 1
                gained[e] += 1
    for p in m.players:
        m.res[p] = max(0, m.res[p] - taken[p]) + gained[p]
    # 3. Expand
    builders: list[str] = []  # letters built this round
    expanders = [p for p in m.players if kind[p] == 3]
    eligible = [p for p in expanders if m.res[p] >= MIN_BID.get(play[p], 1)]
    bids = {p: MIN_BID.get(play[p], 1) for p in eligible}
    if len(eligible) > 1:
        bids = {p: rnd.randint(MIN_BID.get(play[p], 1), m.res[p]) for p in eligible}
        expect_prompt(state, "bid", eligible)
        state, _ = R.submit_step(state, {p: f"BID {b}" for p, b in bids.items()})
    value = {p: b + (0.5 if play[p] == "NAPOLEON" else 0) for p, b in bids.items()}
    unique = [v for v in value.values() if list(value.values()).count(v) == 1]
    winner = next((p for p in eligible if unique and value[p] == max(unique)), None)
    for p in eligible:
        m.res[p] -= bids[p] if p == winner else LOSS[play[p]]
    if winner:
        m.built[m.current] = winner
        builders.append(m.current)
    returned = {p: [] for p in m.players}
    for p in expanders:
        if p != winner and play[p] == "EXPAND":
            returned[p].append("EXPAND")
    # 4. Explore, then Dido
    for p in m.players:
        if kind[p] == 4:
            m.res[p] += (5 if last else 2) if play[p] == "ISABELLA" else (3 if last else 1)
    dido = next((p for p in m.players if play[p] == "DIDO"), None)
    if dido and not expanders and m.res[dido] >= 3:
        expect_prompt(state, "dido", [dido])
        build = rnd.random() < 0.5
        state, _ = R.submit_step(state, {dido: "BUILD" if build else "DECLINE"})
        if build:
            m.res[dido] -= 3
            m.built[m.current] = dido
            builders.append(m.current)
    # 5. Excavate, from the discard piles as they stood before this round
    before = {p: list(m.discard[p]) for p in m.players}
    options: dict[str, list[tuple[str, Any]]] = {}
    for p in m.players:
        if kind[p] != 5:
            continue
        if play[p] == "CATHARINE":
            m.res[p] += 1
        opts: list[tuple[str, Any]] = [(f"TAKE {c}", ("card", c)) for c in ACTIONS if c in before[p]]
        if play[p] == "CAESAR":
            opts += [(f"TAKE {c} FROM {s}", ("leader", c, s)) for s in m.players for c in before[s] if c not in ACTIONS]
        if play[p] == "SULEIMAN" and m.res[p] >= 3:
            opts += [(f"BUILD {w}", ("build", w)) for w in m.removed]
        options[p] = opts
        if play[p] == "EXCAVATE":
            returned[p].append("EXCAVATE")
    asked = [p for p in m.players if len(options.get(p, [])) > 1]
    chosen = {p: (rnd.choice(o) if len(o) > 1 else o[0]) for p, o in options.items() if o}
    if asked:
        expect_prompt(state, "excavate", asked)
        for p in asked:
            legal = sorted(o.upper() for o in R.legal_orders(state, p))
            assert legal == sorted(text.upper() for text, _ in options[p])
        state, _ = R.submit_step(state, {p: chosen[p][0] for p in asked})
    for p, (_text, what) in chosen.items():
        if what[0] == "card":
            m.discard[p].remove(what[1])
            m.hand[p].append(what[1])
        elif what[0] == "leader":
            m.discard[what[2]].remove(what[1])
            m.hand[p].append(what[1])
        else:
            m.res[p] -= 3
            m.removed.remove(what[1])
            m.built[what[1]] = p
            builders.append(what[1])
    # End of round
    for p in m.players:
        m.hand[p] += returned[p]
        if play[p] not in returned[p]:
            m.discard[p].append(play[p])
    bonus = {"A": 2, "B": 1}
    for w in builders:
        m.res[m.built[w]] += bonus.get(w, 0)
    if m.current not in m.built:
        m.removed = sorted(m.removed + [m.current])
    m.current = next((w for w in m.letters if w not in m.built and w not in m.removed), None)
    m.explorers = {p for p in m.players if kind[p] == 4}
    m.erik = next((p for p in m.players if play[p] == "ERIK"), None)
    m.round += 1
    return state


def compare(state: dict, m: Model) -> None:
    rep = R.report(state)
    for p in m.players:
        got = rep["players"][p]
        want = {
            "resources": m.res[p], "vp": m.vp(p), "hand": hand_order(m.hand[p]),
            "discard": m.discard[p], "wonders": sorted(w for w, s in m.built.items() if s == p),
        }
        assert {k: got[k] for k in want} == want, p
    over = m.round > m.last
    assert rep["wonders"] == {
        "current": None if over else m.current, "built": m.built, "removed": m.removed,
    }
    assert rep["round"] == min(m.round, m.last)
    if over:
        assert R.is_over(state) and rep["ranking"] == m.ranking()


@pytest.mark.parametrize("game", range(60))
def test_random_game_matches_reference_model(game: int) -> None:
    """A random game, checked prompt by prompt and round by round."""
    rnd = random.Random(game)
    n = rnd.randint(3, 6)
    players = ["ann", "bob", "cat", "dan", "eve", "fay"][:n]
    rnd.shuffle(players)
    leaders = game % 4 != 0
    if leaders:
        dealt = rnd.sample(LEADERS, 2 * n)
        deal = {p: dealt[2 * i: 2 * i + 2] for i, p in enumerate(players)}
        state = R.new_game(players=players, options={"all_leaders": True}, seed=game, setup={"deal": deal})
        assert R.phase(state) == "draft" and R.report(state)["round"] == 0
        passed = {p: rnd.choice(deal[p]) for p in players}
        state, _ = R.submit_step(state, {p: f"PASS {c}" for p, c in passed.items()})
    else:
        state = R.new_game(players=players, options={"leaders": False}, seed=game, setup={})
    m = Model(players, leaders)
    if leaders:
        for i, p in enumerate(players):
            left = players[(i + 1) % n]
            m.hand[left].append(passed[p])
            m.hand[p] += [c for c in deal[p] if c != passed[p]]
    compare(state, m)
    while m.round <= m.last:
        state = play_round(state, m, rnd)
        compare(state, m)


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_leader_pools_by_player_count(count: int) -> None:
    """Default deals only use the pool of the player count; all_leaders uses all 15."""
    pool = set(LEADERS)
    if count == 5:
        pool -= {"MONTEZUMA", "ERIK"}
    if count < 5:
        pool -= STARRED
    if count == 3:
        pool -= {"DIDO", "CATHARINE"}
    players = [f"p{i}" for i in range(count)]
    seen: set[str] = set()
    seen_all: set[str] = set()
    for seed in range(40):
        for opts, bag in (({}, seen), ({"all_leaders": True}, seen_all)):
            code, out = run_script({"game": "5x", "players": players, "options": opts, "seed": seed, "orders": []})
            assert code == 0 and out["round"] == 0 and out["phase"] == "draft"
            state = R.new_game(players=players, options=opts, seed=seed)
            passes = {}
            for p in players:
                legal = R.legal_orders(state, p)
                assert len(legal) == 2
                passes[p] = legal[0]
            state, _ = R.submit_step(state, passes)
            dealt = [c for p in players for c in R.report(state)["players"][p]["hand"] if c not in ACTIONS]
            assert len(dealt) == len(set(dealt)) == 2 * count
            bag.update(dealt)
    assert seen == pool
    assert seen_all == set(LEADERS)


def test_options_and_player_counts() -> None:
    """The two options of the spec with their defaults; 3 to 6 players."""
    described = {o.name: o.default for o in R.options}
    assert described == {"leaders": True, "all_leaders": False}
    assert (R.min_players, R.max_players) == (3, 6)
    for n, code in ((2, 2), (3, 0), (6, 0), (7, 2)):
        players = [f"p{i}" for i in range(n)]
        assert run_script({"game": "5x", "players": players, "seed": 1})[0] == code


def test_draft_then_round_one_without_leaders() -> None:
    """With leaders the game opens on the draft (round 0); without, on round 1's play."""
    players = ["zed", "amy", "kim"]
    _, out = run_script({"game": "5x", "players": players, "seed": 3})
    assert (out["round"], out["phase"], out["pending"]) == (0, "draft", players)
    _, out = run_script({"game": "5x", "players": players, "seed": 3, "options": {"leaders": False}})
    assert (out["round"], out["phase"], out["pending"]) == (1, "play", players)
