"""The 5X order language: accepted spellings, every refusal and its message, legal and
default orders, forced prompts, views and secrecy."""

from __future__ import annotations

import json

import pytest

from engine.base import IllegalOrder, ScriptError, dumps, events_for
from tests.engine.fivex_support import ACTIONS, FIVEX, deal3, run, state_after

P3 = ["ann", "bob", "cat"]
DEAL = deal3(["GANDHI", "CAESAR"], ["QIN", "DIDO"], ["ERIK", "NAPOLEON"])
DRAFT = {"ann": "PASS CAESAR", "bob": "PASS DIDO", "cat": "PASS ERIK"}
# After DRAFT: ann holds GANDHI + ERIK, bob QIN + CAESAR, cat NAPOLEON + DIDO.


def started() -> dict:
    """Round 1, every seat asked to play."""
    return state_after(P3, [DRAFT], deal=DEAL, options={"all_leaders": True})


def refused(state: dict, seat: str, text: str) -> str:
    """The reason ``text`` is refused (the test fails if it is accepted)."""
    with pytest.raises(IllegalOrder) as info:
        FIVEX.parse_order(state, seat, text)
    return info.value.reason


# --- accepted spellings -----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "PLAY GANDHI", "play gandhi", "  Play   Gandhi ", "# my order\n\nplay gandhi\n# -- ann",
])
def test_case_spaces_comments_and_blank_lines_are_tolerated(text: str) -> None:
    assert FIVEX.parse_order(started(), "ann", text) == {"play": "GANDHI"}


@pytest.mark.parametrize("text", ["play erik the red", "PLAY Erik The Red", "play ERIK"])
def test_full_names_are_accepted(text: str) -> None:
    assert FIVEX.parse_order(started(), "ann", text) == {"play": "ERIK"}


def test_draft_accepts_full_names() -> None:
    state = FIVEX.new_game(players=P3, seed=1, setup={"deal": DEAL})
    assert FIVEX.parse_order(state, "bob", "pass qin shi huang") == {"pass": "QIN"}


# --- refusals -----------------------------------------------------------------------------


def test_card_not_in_hand_names_the_playable_cards() -> None:
    state = started()
    assert refused(state, "bob", "PLAY ERIK") == (
        "ERIK is not in your hand; you can play: EXPLOIT, EXTERMINATE, EXPAND, EXPLORE, "
        "EXCAVATE, CAESAR, QIN")


def test_unknown_card_empty_and_two_orders() -> None:
    state = started()
    assert refused(state, "ann", "PLAY PIZZA").startswith("'PIZZA' is not a 5X card; you can play:")
    assert refused(state, "ann", "   \n# nothing").startswith("the order is empty; you can play:")
    assert refused(state, "ann", "PLAY EXPLOIT\nPLAY EXPAND").startswith(
        "send exactly one order per message, not 2; you can play:")
    assert refused(state, "ann", "PLAY").startswith("PLAY needs a card")


def test_wrong_verb_for_the_phase() -> None:
    reason = refused(started(), "ann", "BID 2")
    assert reason.startswith("BID is not an order of the play phase (order PLAY <card>)")


def test_seat_not_pending_and_not_a_seat() -> None:
    state = state_after(P3, [DRAFT, {"ann": "PLAY EXPLORE", "bob": "PLAY EXPLOIT",
                                     "cat": "PLAY EXPLOIT"}], deal=DEAL,
                        options={"all_leaders": True})
    assert FIVEX.pending(state) == ["bob", "cat"]
    assert refused(state, "ann", "PLAY EXPLOIT") == "you are not asked to order now"
    assert "not a seat" in refused(state, "zed", "PLAY EXPLOIT")
    assert FIVEX.legal_orders(state, "ann") == []


def test_bid_refusals_name_the_range() -> None:
    # ann CLEOPATRA? No: cat holds NAPOLEON (min 3), bob plays EXPAND (min 1).
    state = state_after(P3, [DRAFT, {"ann": "PLAY EXPLORE", "bob": "PLAY EXPAND",
                                     "cat": "PLAY NAPOLEON"}], deal=DEAL,
                        options={"all_leaders": True})
    assert FIVEX.phase(state) == "bid"
    assert refused(state, "cat", "BID 2") == (
        "you have 3 resources; Napoleon must bid between 3 and 3")
    assert refused(state, "bob", "BID 4") == (
        "you have 3 resources; a bid must be between 1 and 3")
    assert refused(state, "bob", "BID two").startswith("'TWO' is not a whole number")
    assert refused(state, "bob", "BID").startswith("BID needs a number")
    assert FIVEX.legal_orders(state, "bob") == ["BID 1", "BID 2", "BID 3"]
    assert FIVEX.legal_orders(state, "cat") == ["BID 3"]
    assert FIVEX.default_order(state, "bob") == "BID 1"


def test_draft_refusals() -> None:
    state = FIVEX.new_game(players=P3, seed=1, setup={"deal": DEAL})
    assert refused(state, "ann", "PASS QIN") == "you were not dealt QIN; you can pass: CAESAR or GANDHI"
    assert refused(state, "ann", "PASS EXPLOIT").startswith("EXPLOIT is not a Great Leader")
    assert refused(state, "ann", "PLAY GANDHI").startswith("PLAY is not an order of the draft")
    assert FIVEX.legal_orders(state, "ann") == ["PASS CAESAR", "PASS GANDHI"]
    assert FIVEX.default_order(state, "ann") == "PASS CAESAR"


def test_dido_orders() -> None:
    deal = deal3(["DIDO", "CAESAR"], ["QIN", "GANDHI"], ["NAPOLEON", "ERIK"])
    state = state_after(P3, [{"ann": "PASS CAESAR", "bob": "PASS QIN", "cat": "PASS ERIK"},
                             {"ann": "PLAY DIDO", "bob": "PLAY EXPLOIT", "cat": "PLAY EXPLOIT"}],
                        deal=deal, options={"all_leaders": True})
    assert FIVEX.legal_orders(state, "ann") == ["BUILD", "DECLINE"]
    assert FIVEX.default_order(state, "ann") == "DECLINE"
    assert FIVEX.parse_order(state, "ann", "build a") == {"dido": "BUILD"}
    assert "only build the current Wonder, A" in refused(state, "ann", "BUILD B")
    assert refused(state, "ann", "TAKE EXPLOIT").startswith("TAKE is not an order of the dido")


def test_excavate_refusals() -> None:
    # ann CAESAR in round 2 with EXPLOIT in her pile and GANDHI in bob's.
    deal = deal3(["CAESAR", "QIN"], ["GANDHI", "DIDO"], ["NAPOLEON", "ERIK"])
    state = state_after(P3, [
        {"ann": "PASS QIN", "bob": "PASS DIDO", "cat": "PASS ERIK"},
        {"ann": "PLAY EXPLOIT", "bob": "PLAY GANDHI", "cat": "PLAY EXPLOIT"},
        {"ann": "PLAY CAESAR", "bob": "PLAY EXPLORE", "cat": "PLAY EXPLORE"},
    ], deal=deal, options={"all_leaders": True})
    allowed = "you can order: TAKE EXPLOIT, TAKE GANDHI FROM bob"
    assert refused(state, "ann", "TAKE EXPAND") == f"EXPAND is not in your discard pile; {allowed}"
    assert refused(state, "ann", "TAKE GANDHI FROM cat") == (
        f"GANDHI is in bob's discard pile, not cat's; {allowed}")
    assert refused(state, "ann", "TAKE QIN") == f"QIN is not in any discard pile; {allowed}"
    assert refused(state, "ann", "TAKE GANDHI FROM zed").startswith("'zed' is not a seat")
    assert refused(state, "ann", "BUILD A").startswith(
        "only Suleiman can build a Wonder when excavating")
    assert refused(state, "ann", "TAKE EXPLOIT FROM bob").startswith(
        "EXPLOIT can only come from your own discard pile")
    # TAKE <leader> without FROM is understood: the leader is in one pile only.
    assert FIVEX.parse_order(state, "ann", "take gandhi") == {"take": "GANDHI", "from": "bob"}
    assert FIVEX.default_order(state, "ann") == "TAKE EXPLOIT"


def test_caesar_takes_from_seats_whose_names_differ_only_in_case() -> None:
    # Orders ignore case, so "FROM BOB" names both bob and BOB: the seat holding the
    # leader is meant (the order legal_orders lists was refused as "not bob's").
    players = ["ann", "bob", "BOB"]
    deal = {"ann": ["CAESAR", "QIN"], "bob": ["NAPOLEON", "DIDO"], "BOB": ["GANDHI", "ERIK"]}
    state = state_after(players, [
        {"ann": "PASS QIN", "bob": "PASS DIDO", "BOB": "PASS ERIK"},
        {"ann": "PLAY EXPLOIT", "bob": "PLAY EXPLOIT", "BOB": "PLAY GANDHI"},
        {"ann": "PLAY CAESAR", "bob": "PLAY EXPLORE", "BOB": "PLAY EXPLORE"},
    ], deal=deal, options={"all_leaders": True})
    assert "TAKE GANDHI FROM BOB" in FIVEX.legal_orders(state, "ann")
    for text in ("TAKE GANDHI FROM BOB", "take gandhi from bob"):
        assert FIVEX.parse_order(state, "ann", text) == {"take": "GANDHI", "from": "BOB"}
    assert refused(state, "ann", "TAKE GANDHI FROM ann").startswith(
        "GANDHI is in BOB's discard pile, not ann's")


def test_refusals_never_reveal_another_seats_hand() -> None:
    # QIN is in bob's hand: ann's refusal must not say so.
    state = started()
    for text in ["PLAY QIN", "PLAY CAESAR", "PLAY NAPOLEON"]:
        reason = refused(state, "ann", text)
        assert "bob" not in reason and "cat" not in reason
        for secret in ("QIN", "CAESAR", "NAPOLEON", "DIDO"):
            assert reason.count(secret) == text.count(secret)


def test_a_refused_step_changes_nothing() -> None:
    code, out = run(P3, [DRAFT, {"ann": "PLAY EXPLOIT", "bob": "PLAY ERIK", "cat": "PLAY DIDO"}],
                    deal=DEAL, options={"all_leaders": True})
    assert code == 3
    assert out["rejected"] == {"step": 1, "seat": "bob", "order": "PLAY ERIK",
                               "reason": "ERIK is not in your hand; you can play: EXPLOIT, "
                                         "EXTERMINATE, EXPAND, EXPLORE, EXCAVATE, CAESAR, QIN"}
    assert out["round"] == 1 and out["phase"] == "play"
    assert {n: p["resources"] for n, p in out["players"].items()} == {"ann": 3, "bob": 3, "cat": 3}


# --- set-up -------------------------------------------------------------------------------


@pytest.mark.parametrize("deal, message", [
    ({"ann": ["GANDHI"], "bob": ["QIN", "DIDO"], "cat": ["ERIK", "NAPOLEON"]}, "two leaders"),
    ({"ann": ["GANDHI", "QIN"], "bob": ["QIN", "DIDO"], "cat": ["ERIK", "NAPOLEON"]},
     "dealt twice"),
    ({"ann": ["GANDHI", "EXPLOIT"], "bob": ["QIN", "DIDO"], "cat": ["ERIK", "NAPOLEON"]},
     "not a Great Leader"),
    ({"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "zed": ["ERIK", "NAPOLEON"]},
     "not a player"),
])
def test_bad_deals_are_script_errors(deal: dict, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        FIVEX.new_game(players=P3, seed=1, setup={"deal": deal})


def test_player_counts_and_deal_without_leaders() -> None:
    assert run(["a", "b"], [])[0] == 2
    assert run(["a", "b", "c", "d", "e", "f", "g"], [])[0] == 2
    with pytest.raises(ScriptError, match="needs Great Leaders"):
        FIVEX.new_game(players=P3, options={"leaders": False}, setup={"deal": DEAL})


@pytest.mark.parametrize("n, pool", [(3, 8), (4, 10), (5, 13), (6, 15)])
def test_random_deal_draws_two_distinct_leaders_per_seat_from_the_pool(n: int, pool: int) -> None:
    from engine.fivex.data import leader_pool
    assert len(leader_pool(n, False)) == pool
    assert len(leader_pool(n, True)) == 15
    players = [f"p{i}" for i in range(n)]
    state = FIVEX.new_game(players=players, seed=7)
    dealt = [c for seat in players for c in FIVEX.report(state)["players"][seat]["dealt"]]
    assert len(dealt) == len(set(dealt)) == 2 * n
    if n == 5:
        assert "MONTEZUMA" not in dealt and "ERIK" not in dealt
    # Same seed, same deal; the printed round is 0 during the draft.
    assert FIVEX.new_game(players=players, seed=7) == state
    assert FIVEX.report(state)["round"] == 0 and FIVEX.phase(state) == "draft"


# --- default orders -------------------------------------------------------------------------


def test_default_play_is_the_lowest_action_card_then_the_first_leader() -> None:
    state = started()
    assert FIVEX.default_order(state, "ann") == "PLAY EXPLOIT"
    leaders_only = dict(state, hand=[1 << 11 | 1 << 12] + state["hand"][1:])  # ERIK, GANDHI
    assert FIVEX.default_order(leaders_only, "ann") == "PLAY ERIK"
    with pytest.raises(IllegalOrder):
        FIVEX.default_order(state_after(P3, [DRAFT, {"ann": "PLAY EXPLORE", "bob": "PLAY EXPLOIT",
                                                     "cat": "PLAY EXPLOIT"}], deal=DEAL), "ann")


def test_every_default_order_is_accepted_in_a_whole_game() -> None:
    state = FIVEX.new_game(players=["a", "b", "c", "d"], seed=3)
    steps = 0
    while not FIVEX.is_over(state):
        step = {seat: FIVEX.default_order(state, seat) for seat in FIVEX.pending(state)}
        state, _ = FIVEX.submit_step(state, step)
        steps += 1
    assert FIVEX.progress(state) == 7 and steps >= 8


# --- views and events -----------------------------------------------------------------------


def test_views_show_own_hand_only() -> None:
    state = started()
    ann = FIVEX.view(state, "ann")
    assert ann["hand"] == ACTIONS + ["ERIK", "GANDHI"]
    assert ann["orders"][0] == "PLAY EXPLOIT"
    assert ann["passed"] == {"leader": "CAESAR", "to": "bob"}
    assert ann["received"] == {"leader": "ERIK", "from": "cat"}
    text = dumps(ann)
    for hidden in ("QIN", "NAPOLEON", "DIDO"):
        assert hidden not in text
    spectator = dumps(FIVEX.view(state, None))
    for hidden in ("QIN", "NAPOLEON", "DIDO", "GANDHI", "ERIK", "CAESAR"):
        assert hidden not in spectator
    assert FIVEX.view(state, None)["players"]["bob"]["hand_size"] == 7


def test_explorers_see_the_cards_of_the_first_step() -> None:
    state = state_after(P3, [DRAFT, {"ann": "PLAY EXPLORE", "bob": "PLAY EXPLOIT",
                                     "cat": "PLAY EXPLORE"},
                             {"bob": "PLAY QIN"}], deal=DEAL, options={"all_leaders": True})
    assert FIVEX.phase(state) == "explore-play" and FIVEX.pending(state) == ["ann", "cat"]
    ann = FIVEX.view(state, "ann")
    assert ann["players"]["bob"]["played"] == "QIN"
    assert ann["players"]["cat"]["played"] is None


def test_draft_events_are_private_and_views_hide_other_deals() -> None:
    state = FIVEX.new_game(players=P3, seed=1, setup={"deal": DEAL})
    assert "dealt" not in json.dumps(FIVEX.view(state, "bob")["players"])
    assert FIVEX.view(state, "bob")["dealt"] == ["DIDO", "QIN"]
    assert "GANDHI" not in dumps(FIVEX.view(state, "bob"))
    _after, events = FIVEX.submit_step(state, DRAFT)
    mine = events_for(events, "bob")
    assert any("you passed DIDO (Dido) to cat" in e["text"] or "you passed DIDO to cat" in e["text"]
               for e in mine)
    assert all("PASS" not in e["text"] for e in events_for(events, None))
    public = dumps(events_for(events, None))
    assert "received" not in public


def test_expand_event_tells_the_story() -> None:
    state = FIVEX.new_game(players=P3, seed=1, options={"leaders": False})
    state, _ = FIVEX.submit_step(state, {"ann": "PLAY EXPAND", "bob": "PLAY EXPAND",
                                         "cat": "PLAY EXPAND"})
    _state, events = FIVEX.submit_step(state, {"ann": "BID 3", "bob": "BID 2", "cat": "BID 3"})
    expand = next(e for e in events if e["kind"] == "expand")
    assert expand["to"] is None
    assert "bob bid 2 and took the Pyramids (A)" in expand["text"]
    assert "ann lost a bid of 3 and paid 1 and took EXPAND back" in expand["text"]
    assert expand["data"] == {"bids": {"ann": 3, "bob": 2, "cat": 3}, "winner": "bob"}
