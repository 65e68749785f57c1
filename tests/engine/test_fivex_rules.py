"""Hand-worked 5X cases: every leader and every ruling of shared/spec/5x.md.

Expected values are worked out by hand from the rules in each test's comments; they
are not copied from the engine's output.
"""

from __future__ import annotations

from tests.engine.fivex_support import ACTIONS, FIVEX, deal3, ok, resources, run, state_after

P3 = ["ann", "bob", "cat"]


def draft(ann_pass: str, bob_pass: str, cat_pass: str) -> dict[str, str]:
    """The draft step."""
    return {"ann": f"PASS {ann_pass}", "bob": f"PASS {bob_pass}", "cat": f"PASS {cat_pass}"}


def play(**cards: str) -> dict[str, str]:
    """A play step."""
    return {seat: f"PLAY {card}" for seat, card in cards.items()}


# --- Exploit ------------------------------------------------------------------------------


def test_exploit_alone_takes_three_and_two_exploiters_take_two() -> None:
    # ann and bob Exploit: each 3 - 1 = 2. cat Explores: +1.
    out = ok(P3, [play(ann="EXPLOIT", bob="EXPLOIT", cat="EXPLORE")],
             options={"leaders": False})
    assert resources(out) == {"ann": 5, "bob": 5, "cat": 4}


def test_exploit_never_below_zero_with_gandhi() -> None:
    # 4 exploiters with Gandhi: plain EXPLOIT sees 1 + 1 + 2 others = 4 -> max(0, -1) = 0;
    # Gandhi sees 3 others -> 0. Deal: dan passes nothing relevant.
    deal = {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["ERIK", "NAPOLEON"],
            "dan": ["ISABELLA", "TOKUGAWA"]}
    out = ok(["ann", "bob", "cat", "dan"], [
        {"ann": "PASS CAESAR", "bob": "PASS DIDO", "cat": "PASS NAPOLEON", "dan": "PASS TOKUGAWA"},
        play(ann="GANDHI", bob="EXPLOIT", cat="EXPLOIT", dan="EXPLOIT"),
    ], deal=deal, options={"all_leaders": True})
    assert resources(out) == {"ann": 3, "bob": 3, "cat": 3, "dan": 3}


# --- Exterminate ----------------------------------------------------------------------------


def test_boudicca_takes_at_most_one_from_a_leader_exploiter() -> None:
    # ann keeps BOUDICCA (gets ERIK), bob keeps GANDHI (gets CAESAR), cat keeps QIN.
    # bob's Gandhi alone: +3 -> 6. Boudicca takes 1 from bob (Exploit AND leader: only 1);
    # cat's EXCAVATE is neither Exploit/Expand nor a leader: untouched. ann 3 + 1.
    out = ok(P3, [draft("CAESAR", "DIDO", "ERIK"),
                  play(ann="BOUDICCA", bob="GANDHI", cat="EXCAVATE")],
             deal=deal3(["BOUDICCA", "CAESAR"], ["GANDHI", "DIDO"], ["QIN", "ERIK"]))
    assert resources(out) == {"ann": 4, "bob": 5, "cat": 3}
    # EXCAVATE with an empty discard pile only returns itself.
    assert out["players"]["cat"]["hand"] == ACTIONS + ["DIDO", "QIN"]
    assert out["players"]["cat"]["discard"] == []
    assert out["players"]["bob"]["discard"] == ["GANDHI"]


def test_boudicca_hits_a_leader_that_is_not_exploit_or_expand() -> None:
    # bob plays ISABELLA (a leader, Explore-type): Boudicca takes 1, Isabella gains 2.
    out = ok(P3, [draft("CAESAR", "DIDO", "ERIK"),
                  play(ann="BOUDICCA", bob="ISABELLA", cat="EXPLORE")],
             deal=deal3(["BOUDICCA", "CAESAR"], ["ISABELLA", "DIDO"], ["QIN", "ERIK"]))
    assert resources(out) == {"ann": 4, "bob": 3 - 1 + 2, "cat": 4}


def test_genghis_hits_excavators_and_elizabeth_is_immune() -> None:
    # bob's Elizabeth: alone, +3 -> 6, immune to Genghis. cat's EXCAVATE: Genghis takes 1.
    out = ok(P3, [draft("CAESAR", "DIDO", "ERIK"),
                  play(ann="GENGHIS", bob="ELIZABETH", cat="EXCAVATE")],
             deal=deal3(["GENGHIS", "CAESAR"], ["ELIZABETH", "DIDO"], ["QIN", "ERIK"]))
    assert resources(out) == {"ann": 4, "bob": 6, "cat": 2}


def test_montezuma_catharine_immune_and_gains_one_lone_bidder_wins() -> None:
    # Montezuma: bob's Catharine is immune; cat's EXPAND loses 1 (3 -> 2), ann 3 + 1.
    # cat is the only bidder: bids its minimum 1 unasked, wins the Pyramids: 2 - 1 + 2.
    # Catharine gains 1 (3 -> 4); bob's discard pile is empty: nothing to excavate.
    out = ok(P3, [draft("CAESAR", "DIDO", "ERIK"),
                  play(ann="MONTEZUMA", bob="CATHARINE", cat="EXPAND")],
             deal=deal3(["MONTEZUMA", "CAESAR"], ["CATHARINE", "DIDO"], ["QIN", "ERIK"]))
    assert resources(out) == {"ann": 4, "bob": 4, "cat": 3}
    assert out["wonders"] == {"current": "B", "built": {"A": "cat"}, "removed": []}
    assert out["players"]["cat"]["discard"] == ["EXPAND"]
    assert out["players"]["bob"]["discard"] == ["CATHARINE"]
    assert out["players"]["cat"]["vp"] == 2.5  # floor(3/3) + 1.5


def test_exterminate_takings_happen_at_once_and_supply_covers_the_rest() -> None:
    # Four Exterminators take 1 each from eve's EXPAND: 3 - 4 -> 0, each gains 1 anyway.
    # eve has 0 < 1: she cannot bid and takes EXPAND back; the Pyramids are removed.
    players = ["ann", "bob", "cat", "dan", "eve"]
    out = ok(players, [play(ann="EXTERMINATE", bob="EXTERMINATE", cat="EXTERMINATE",
                            dan="EXTERMINATE", eve="EXPAND")], options={"leaders": False})
    assert resources(out) == {"ann": 4, "bob": 4, "cat": 4, "dan": 4, "eve": 0}
    assert out["players"]["eve"]["hand"] == ACTIONS
    assert out["players"]["eve"]["discard"] == []
    assert out["wonders"]["removed"] == ["A"]
    assert out["phase"] == "play" and out["round"] == 2


# --- Expand ---------------------------------------------------------------------------------


def test_napoleon_half_wins_ties_tokugawa_pays_nothing_expand_pays_one() -> None:
    # Deal (4 seats) so ann keeps NAPOLEON, bob TOKUGAWA, cat holds EXPAND, dan Exploits.
    # dan alone Exploits: 3 + 3. Bids: Napoleon 3 (value 3.5), Tokugawa 3, cat 3: 3.5 is the
    # only unique value -> ann pays 3 (0) and gets the Pyramids (+2 at end of round = 2).
    # Tokugawa loses and pays 0 (3); cat pays 1 (2) and takes EXPAND back.
    deal = {"ann": ["NAPOLEON", "CAESAR"], "bob": ["TOKUGAWA", "DIDO"],
            "cat": ["QIN", "ERIK"], "dan": ["ISABELLA", "GANDHI"]}
    steps = [
        {"ann": "PASS CAESAR", "bob": "PASS DIDO", "cat": "PASS ERIK", "dan": "PASS GANDHI"},
        play(ann="NAPOLEON", bob="TOKUGAWA", cat="EXPAND", dan="EXPLOIT"),
    ]
    mid = ok(["ann", "bob", "cat", "dan"], steps, deal=deal, options={"all_leaders": True})
    assert mid["phase"] == "bid" and mid["pending"] == ["ann", "bob", "cat"]
    out = ok(["ann", "bob", "cat", "dan"],
             steps + [{"ann": "BID 3", "bob": "BID 3", "cat": "BID 3"}],
             deal=deal, options={"all_leaders": True})
    assert resources(out) == {"ann": 2, "bob": 3, "cat": 2, "dan": 6}
    assert out["wonders"]["built"] == {"A": "ann"}
    assert out["players"]["ann"]["vp"] == 1.5
    assert out["players"]["bob"]["discard"] == ["TOKUGAWA"]
    assert "EXPAND" in out["players"]["cat"]["hand"] and out["players"]["cat"]["discard"] == []


def test_all_bids_tied_nobody_wins_cleopatra_pays_three() -> None:
    # ann CLEOPATRA bids 3, bob EXPAND bids 3: no unique value, nobody wins, A removed.
    # Cleopatra pays 3 (0) and is discarded; bob pays 1 (2) and takes EXPAND back.
    steps = [draft("CAESAR", "DIDO", "ERIK"), play(ann="CLEOPATRA", bob="EXPAND", cat="EXPLORE"),
             {"ann": "BID 3", "bob": "BID 3"}]
    out = ok(P3, steps, deal=deal3(["CLEOPATRA", "CAESAR"], ["QIN", "DIDO"], ["GANDHI", "ERIK"]))
    assert resources(out) == {"ann": 0, "bob": 2, "cat": 4}
    assert out["wonders"] == {"current": "B", "built": {}, "removed": ["A"]}
    assert out["players"]["ann"]["discard"] == ["CLEOPATRA"]
    assert out["players"]["bob"]["hand"] == ACTIONS + ["CAESAR", "QIN"]


def test_cleopatra_too_poor_to_bid_is_discarded_and_lone_expand_wins() -> None:
    # Round 1: ann EXPAND, bob EXPAND bid 3/2 (ann wins A: 0 + 2 = 2; bob pays 1 -> 2).
    # Round 2: ann CLEOPATRA with 2 < 3 cannot bid (no EXPAND back: she played a leader);
    # bob is then the only eligible bidder: bids 1 unasked and wins B (2 - 1 + 1 = 2).
    steps = [draft("CAESAR", "DIDO", "ERIK"),
             play(ann="EXPAND", bob="EXPAND", cat="EXPLOIT"), {"ann": "BID 3", "bob": "BID 2"},
             play(ann="CLEOPATRA", bob="EXPAND", cat="EXPLORE")]
    out = ok(P3, steps, deal=deal3(["CLEOPATRA", "CAESAR"], ["QIN", "DIDO"], ["GANDHI", "ERIK"]))
    assert out["wonders"]["built"] == {"A": "ann", "B": "bob"}
    assert resources(out) == {"ann": 2, "bob": 2, "cat": 3 + 3 + 1}
    assert out["players"]["ann"]["discard"] == ["EXPAND", "CLEOPATRA"]
    assert out["players"]["bob"]["discard"] == ["EXPAND"]


# --- Explore, Erik, Dido, Isabella ------------------------------------------------------------


def test_erik_plays_after_the_other_explorers() -> None:
    # Round 1: ann ERIK, bob EXPLORE, cat EXPLOIT. Round 2: cat plays first, then bob
    # (explore-play), then ann alone (erik-play).
    steps = [draft("CAESAR", "DIDO", "ERIK"), play(ann="ERIK", bob="EXPLORE", cat="EXPLOIT")]
    deal = deal3(["GANDHI", "CAESAR"], ["QIN", "DIDO"], ["NAPOLEON", "ERIK"])
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert (out["round"], out["phase"], out["pending"]) == (2, "play", ["cat"])
    steps.append(play(cat="EXTERMINATE"))
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert (out["phase"], out["pending"]) == ("explore-play", ["bob"])
    assert out["players"]["cat"]["played"] == "EXTERMINATE"
    steps.append(play(bob="EXPLOIT"))
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert (out["phase"], out["pending"]) == ("erik-play", ["ann"])
    steps.append(play(ann="EXPLOIT"))
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    # Round 1: ann 4, bob 4, cat 6. Round 2: two Exploits (+2 each), cat takes 1 from both.
    assert resources(out) == {"ann": 5, "bob": 5, "cat": 8}
    assert (out["round"], out["phase"]) == (3, "play")


def test_everybody_explored_skips_the_empty_play_prompt() -> None:
    out = ok(P3, [play(ann="EXPLORE", bob="EXPLORE", cat="EXPLORE")], options={"leaders": False})
    assert (out["round"], out["phase"], out["pending"]) == (2, "explore-play", P3)


def test_dido_builds_when_nobody_expands() -> None:
    # ann DIDO: +1 -> 4 >= 3 and nobody Expanded: asked; BUILD pays 3 (1) and takes the
    # Pyramids (+2 at end of round = 3). bob and cat Exploit: 2 each -> 5.
    steps = [draft("CAESAR", "QIN", "ERIK"), play(ann="DIDO", bob="EXPLOIT", cat="EXPLOIT")]
    deal = deal3(["DIDO", "CAESAR"], ["QIN", "GANDHI"], ["NAPOLEON", "ERIK"])
    mid = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert (mid["phase"], mid["pending"]) == ("dido", ["ann"])
    out = ok(P3, steps + [{"ann": "BUILD"}], deal=deal, options={"all_leaders": True})
    assert resources(out) == {"ann": 3, "bob": 5, "cat": 5}
    assert out["wonders"]["built"] == {"A": "ann"}
    # ann explored: round 2 starts with bob and cat only.
    assert (out["round"], out["phase"], out["pending"]) == (2, "play", ["bob", "cat"])
    declined = ok(P3, steps + [{"ann": "decline"}], deal=deal, options={"all_leaders": True})
    assert resources(declined)["ann"] == 4
    assert declined["wonders"]["removed"] == ["A"]


def test_dido_is_not_asked_when_someone_expands() -> None:
    steps = [draft("CAESAR", "QIN", "ERIK"), play(ann="DIDO", bob="EXPAND", cat="EXPLOIT")]
    deal = deal3(["DIDO", "CAESAR"], ["QIN", "GANDHI"], ["NAPOLEON", "ERIK"])
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert (out["round"], out["phase"]) == (2, "play")
    assert out["wonders"]["built"] == {"A": "bob"}
    assert resources(out)["ann"] == 4


def test_isabella_gains_two_and_five_in_the_last_round() -> None:
    state = state_after(P3, [draft("CAESAR", "DIDO", "ERIK")],
                        deal=deal3(["ISABELLA", "CAESAR"], ["QIN", "DIDO"], ["GANDHI", "ERIK"]))
    after, _ = FIVEX.submit_step(state, play(ann="ISABELLA", bob="EXPLOIT", cat="EXPLOIT"))
    assert FIVEX.report(after)["players"]["ann"]["resources"] == 5
    # The same play in round 7 (the last): Isabella +5, and the game ends.
    last = dict(state, round=7)
    final, events = FIVEX.submit_step(last, play(ann="ISABELLA", bob="EXPLOIT", cat="EXPLOIT"))
    assert FIVEX.is_over(final)
    assert FIVEX.report(final)["players"]["ann"]["resources"] == 8
    assert events[-1]["kind"] == "end"


def test_explore_and_erik_gain_three_in_the_last_round_and_erik_has_no_next_round() -> None:
    state = state_after(P3, [draft("CAESAR", "DIDO", "ERIK")],
                        deal=deal3(["GANDHI", "CAESAR"], ["QIN", "DIDO"], ["NAPOLEON", "ERIK"]),
                        options={"all_leaders": True})
    last = dict(state, round=7)
    final, _ = FIVEX.submit_step(last, play(ann="ERIK", bob="EXPLORE", cat="EXPLOIT"))
    table = FIVEX.report(final)
    assert FIVEX.is_over(final) and table["pending"] == [] and table["round"] == 7
    assert {n: p["resources"] for n, p in table["players"].items()} == {
        "ann": 6, "bob": 6, "cat": 6}
    assert table["wonders"]["current"] is None


# --- Excavate -----------------------------------------------------------------------------------


def test_caesar_takes_a_leader_from_another_discard_pile() -> None:
    # Round 1: ann EXPLOIT, bob GANDHI, cat EXPLOIT: weights 1 + 2 + 1 = 4:
    # ann 3 - 3 = 0, bob 3 - 2 = 1, cat 0 -> 3, 4, 3.
    # Round 2: ann CAESAR: options TAKE EXPLOIT (own pile) or TAKE GANDHI FROM bob.
    steps = [draft("QIN", "DIDO", "ERIK"), play(ann="EXPLOIT", bob="GANDHI", cat="EXPLOIT"),
             play(ann="CAESAR", bob="EXPLORE", cat="EXPLORE")]
    deal = deal3(["CAESAR", "QIN"], ["GANDHI", "DIDO"], ["NAPOLEON", "ERIK"])
    state = state_after(P3, steps, deal=deal, options={"all_leaders": True})
    assert FIVEX.phase(state) == "excavate" and FIVEX.pending(state) == ["ann"]
    assert FIVEX.legal_orders(state, "ann") == ["TAKE EXPLOIT", "TAKE GANDHI FROM bob"]
    out = ok(P3, steps + [{"ann": "take gandhi from BOB"}], deal=deal,
             options={"all_leaders": True})
    assert out["players"]["ann"]["hand"] == ["EXTERMINATE", "EXPAND", "EXPLORE", "EXCAVATE",
                                             "ERIK", "GANDHI"]
    assert out["players"]["ann"]["discard"] == ["EXPLOIT", "CAESAR"]
    assert out["players"]["bob"]["discard"] == ["EXPLORE"]
    assert resources(out) == {"ann": 3, "bob": 5, "cat": 4}


def test_caesar_may_take_back_a_leader_from_his_own_pile() -> None:
    # ann's ERIK is the only leader in any pile and her pile holds no action card: the
    # one option (her own Erik) is taken without asking. R1: ann 4, bob/cat 5; R2 +1.
    steps = [draft("QIN", "DIDO", "ERIK"), play(ann="ERIK", bob="EXPLOIT", cat="EXPLOIT"),
             play(bob="EXPLORE", cat="EXPLORE"), play(ann="CAESAR")]
    deal = deal3(["CAESAR", "QIN"], ["GANDHI", "DIDO"], ["NAPOLEON", "ERIK"])
    out = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert out["players"]["ann"]["hand"] == ACTIONS + ["ERIK"]
    assert out["players"]["ann"]["discard"] == ["CAESAR"]
    assert (out["round"], out["phase"], out["pending"]) == (3, "play", ["ann"])
    assert resources(out) == {"ann": 4, "bob": 6, "cat": 6}


def test_suleiman_builds_a_removed_wonder_with_its_bonus() -> None:
    # Round 1: ann, bob Exploit (2 each -> 5), cat Exterminate takes 1 from both:
    # ann 4, bob 4, cat 5; nobody Expanded, the Pyramids are removed.
    # Round 2: ann SULEIMAN with 4 >= 3: TAKE EXPLOIT or BUILD A. BUILD A: 4 - 3 = 1,
    # +2 for the Pyramids = 3. bob, cat Explore: 5, 6. The Great Wall is removed.
    steps = [draft("CAESAR", "DIDO", "ERIK"), play(ann="EXPLOIT", bob="EXPLOIT", cat="EXTERMINATE"),
             play(ann="SULEIMAN", bob="EXPLORE", cat="EXPLORE")]
    deal = deal3(["SULEIMAN", "CAESAR"], ["QIN", "DIDO"], ["NAPOLEON", "ERIK"])
    state = state_after(P3, steps, deal=deal, options={"all_leaders": True})
    assert FIVEX.legal_orders(state, "ann") == ["TAKE EXPLOIT", "BUILD A"]
    out = ok(P3, steps + [{"ann": "BUILD the pyramids"}], deal=deal,
             options={"all_leaders": True})
    assert resources(out) == {"ann": 3, "bob": 5, "cat": 6}
    assert out["wonders"] == {"current": "C", "built": {"A": "ann"}, "removed": ["B"]}
    assert out["players"]["ann"]["vp"] == 2.5


def test_suleiman_with_a_single_option_builds_without_being_asked() -> None:
    # Round 1: ann EXCAVATE (empty pile: only itself returns), A removed; bob, cat 5.
    # Round 2: ann SULEIMAN, 3 resources, empty pile, one removed Wonder: BUILD A forced:
    # 0 + 2 = 2. bob and cat Explore (+1): 6; they play after ann in round 3.
    steps = [draft("CAESAR", "DIDO", "ERIK"), play(ann="EXCAVATE", bob="EXPLOIT", cat="EXPLOIT"),
             play(ann="SULEIMAN", bob="EXPLORE", cat="EXPLORE")]
    out = ok(P3, steps, deal=deal3(["SULEIMAN", "CAESAR"], ["QIN", "DIDO"], ["NAPOLEON", "ERIK"]),
             options={"all_leaders": True})
    assert (out["round"], out["phase"], out["pending"]) == (3, "play", ["ann"])
    assert out["wonders"]["built"] == {"A": "ann"}
    assert resources(out) == {"ann": 2, "bob": 6, "cat": 6}


def test_excavate_with_one_card_takes_it_without_being_asked() -> None:
    # Round 1: ann EXPLOIT (alone: +3 = 6). Round 2: ann EXCAVATE: pile [EXPLOIT]: taken.
    out = ok(P3, [play(ann="EXPLOIT", bob="EXPLORE", cat="EXPLORE"),
                  play(ann="EXCAVATE"), play(bob="EXPLOIT", cat="EXPLOIT")],
             options={"leaders": False})
    assert out["players"]["ann"]["hand"] == ACTIONS and out["players"]["ann"]["discard"] == []
    assert (out["round"], out["phase"], out["pending"]) == (3, "play", P3)
    assert resources(out) == {"ann": 6, "bob": 6, "cat": 6}


def test_catharine_gains_one_then_takes_a_card() -> None:
    steps = [draft("QIN", "DIDO", "ERIK"), play(ann="EXPLOIT", bob="EXPLORE", cat="EXPLORE"),
             play(ann="CATHARINE")]
    deal = deal3(["CATHARINE", "QIN"], ["GANDHI", "DIDO"], ["NAPOLEON", "ERIK"])
    mid = ok(P3, steps, deal=deal, options={"all_leaders": True})
    assert mid["phase"] == "explore-play"
    out = ok(P3, steps + [play(bob="EXTERMINATE", cat="EXPLOIT")], deal=deal,
             options={"all_leaders": True})
    # ann: 3 + 3 = 6; round 2: immune to bob's Exterminate, Catharine +1 = 7, the pile
    # holds only EXPLOIT: taken back without asking. cat Exploits alone (+3) and loses 1.
    assert resources(out) == {"ann": 7, "bob": 4 + 1, "cat": 4 + 3 - 1}
    assert out["players"]["ann"]["discard"] == ["CATHARINE"]
    assert "EXPLOIT" in out["players"]["ann"]["hand"]


# --- a whole game without leaders ----------------------------------------------------------------

FULL_GAME = [
    play(ann="EXPLOIT", bob="EXPLOIT", cat="EXPLORE"),
    play(ann="EXPAND", bob="EXTERMINATE"),
    play(cat="EXPLOIT"),
    play(ann="EXCAVATE", bob="EXPAND", cat="EXPAND"),
    {"bob": "BID 2", "cat": "BID 2"},
    {"ann": "TAKE EXPAND"},
    play(ann="EXPLORE", bob="EXCAVATE", cat="EXTERMINATE"),
    {"bob": "TAKE EXPLOIT"},
    play(bob="EXPAND", cat="EXPAND"),
    play(ann="EXTERMINATE"),
    {"bob": "BID 3", "cat": "BID 1"},
    play(ann="EXCAVATE", bob="EXPLORE", cat="EXCAVATE"),
    {"ann": "TAKE EXPLORE", "cat": "TAKE EXPLOIT"},
]


def test_whole_game_without_leaders_lasts_six_rounds() -> None:
    # Worked by hand round by round (see the report): R1 A removed; R2 ann wins the
    # Great Wall alone (+1); R3 bob and cat tie at 2, C removed; R4 D removed; R5 bob wins
    # the Taj Mahal with 3 over 1; R6 bob Explores in the last round: +3.
    out = ok(P3, FULL_GAME, options={"leaders": False})
    assert out["status"] == "over" and out["round"] == 6 and out["phase"] == "over"
    assert out["pending"] == []
    assert out["wonders"] == {"current": None, "built": {"B": "ann", "E": "bob"},
                              "removed": ["A", "C", "D", "F"]}
    assert resources(out) == {"ann": 7, "bob": 5, "cat": 3}
    assert {n: p["vp"] for n, p in out["players"].items()} == {"ann": 4, "bob": 4.5, "cat": 1}
    assert out["ranking"] == [["bob"], ["ann"], ["cat"]]
    assert out["players"]["ann"]["hand"] == ["EXPAND", "EXPLORE", "EXCAVATE"]
    assert out["players"]["cat"]["discard"] == ["EXPLORE", "EXTERMINATE"]
    assert out["players"]["bob"]["discard"] == ["EXTERMINATE", "EXPAND", "EXPLORE"]


def test_orders_after_the_end_are_refused() -> None:
    code, out = run(P3, FULL_GAME + [play(ann="EXPAND")], options={"leaders": False})
    assert code == 3 and out["status"] == "rejected"
    assert "game is over" in out["rejected"]["reason"]


# --- ranking ------------------------------------------------------------------------------------


def _final(res: list[int], owners: dict[int, int]) -> dict:
    state = FIVEX.new_game(players=["ann", "bob", "cat", "dan"], options={"leaders": False})
    state = dict(state, res=res, phase="over", pending=[], cur=-1,
                 wonders=[owners.get(w, -2) if w < 6 else -3 for w in range(7)])
    return state


def test_ranking_ties_break_on_the_earliest_wonder_then_share_a_group() -> None:
    # ann: 9 res = 3 VP + B (2) = 5; bob: 3 res = 1 + A 1.5 + C 2.5 = 5; cat: 15 = 5 VP;
    # dan: 15 = 5 VP. All 5 VP: bob (A) before ann (B), then cat and dan tied (no Wonder).
    state = _final([9, 3, 15, 15], {0: 1, 1: 0, 2: 1})
    assert FIVEX.ranking(state) == [["bob"], ["ann"], ["cat", "dan"]]
    assert FIVEX.report(state)["players"]["bob"]["vp"] == 5


def test_ranking_by_vp_first() -> None:
    # ann 2 res (0 VP) + F (4) = 4; bob 14 res = 4 VP; cat 1.5 (A); dan 0.
    state = _final([2, 14, 0, 2], {5: 0, 0: 2})
    assert FIVEX.ranking(state) == [["ann"], ["bob"], ["cat"], ["dan"]]
