"""A game that is over turns every hand face up, on its page, in the API and in its
emails, as players of a board game expect: 5X's hands, 6x5's goals, also when a walkover
or the organizer ended it before its rules did (its seed and set-up are public in the log
then). Nobody is asked for an order any more, and the API says how the game ended.

The expected hands and goals come from the engine's umpire table (``Ruleset.report``),
which the views never use."""

from __future__ import annotations

import html
import re

import pytest
from django.template.loader import render_to_string

import engine
from engine.fivex.data import CARDS
from games.models import Game, OutboxMessage
from games.presentation import winner_words
from games.selectors import current_state
from games.services.games import game_create, game_join, seat_resign
from games.services.organizer import game_end
from tests.games.core_support import eager_celery, make_users, play_defaults, start_fixed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]

CARD_NAMES = {card.id: card.name for card in CARDS}


def _umpire(game: Game) -> dict:
    return engine.get(game.ruleset).report(current_state(game=game))["players"]


def _row(page: str, name: str) -> str:
    return page.split(f"<strong>{name}</strong>", 1)[1].split("</tr>", 1)[0]


def test_a_5x_game_ended_by_its_organizer_shows_every_hand(client) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    assert not play_defaults(game, prompts=4)  # into round 1: hands of action cards
    spectator = make_users(["sue"])[0]
    client.force_login(spectator)
    before = client.get(f"/api/games/{game.pk}/").json()["view"]
    assert all("hand" not in p for p in before["players"].values())  # sealed while it runs

    game_end(game=game, by=game.organizer, reason="the league closed")
    hands = {name: p["hand"] for name, p in _umpire(game).items()}
    assert all(hands.values())
    body = client.get(f"/api/games/{game.pk}/").json()
    assert {name: p["hand"] for name, p in body["view"]["players"].items()} == hands
    assert body["view"]["pending"] == [] and "orders" not in body["view"]
    assert body["game"]["end_reason"] == "the league closed"
    assert body["game"]["ranking"] is None and body["game"]["finished_at"]

    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert "Where the game ended: round " in page and "· phase" not in page
    assert "Below is the table as the game ended, every hand turned face up." in page
    for name, hand in hands.items():
        row = _row(page, name)
        assert all(CARD_NAMES[card] in row for card in hand), (name, hand)

    # A player's view: the others' hands too, and no order to give.
    client.force_login(seats["ann"].user)
    mine = client.get(f"/api/games/{game.pk}/").json()
    assert mine["view"]["players"]["bob"]["hand"] == hands["bob"]
    assert mine["legal_orders"] == [] and "orders" not in mine["view"]

    # The end's email shows the table as it ended, every hand named.
    notice = OutboxMessage.objects.get(to=seats["ann"].user.email, subject__endswith="Game ended")
    bob_line = next(line for line in notice.body.splitlines() if line.startswith("  bob:"))
    shown = bob_line.split("hand: ", 1)[1].split("; discard pile", 1)[0].split(", played")[0]
    assert re.sub(r" \([^)]*\)", "", shown).split(", ") == hands["bob"]


def test_a_5x_game_ended_in_the_draft_shows_the_leaders_dealt(client) -> None:
    """A code review: the API gave the leaders dealt, the page and the email did not."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    game_end(game=game, by=game.organizer, reason="")
    dealt = {name: p["dealt"] for name, p in _umpire(game).items()}
    assert all(len(d) == 2 for d in dealt.values())
    client.force_login(seats["ann"].user)
    assert client.get(f"/api/games/{game.pk}/").json()["view"]["players"]["bob"]["dealt"] == dealt["bob"]
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    row = _row(page, "bob").split("leaders dealt:", 1)[1]
    assert all(CARD_NAMES[card] in row for card in dealt["bob"])
    notice = OutboxMessage.objects.get(to=seats["ann"].user.email, subject__endswith="Game ended")
    bob_line = next(line for line in notice.body.splitlines() if line.startswith("  bob:"))
    shown = bob_line.split("leaders dealt: ", 1)[1].split("; discard pile", 1)[0]
    assert re.sub(r" \([^)]*\)", "", shown).split(", ") == dealt["bob"]


def test_a_5x_game_played_out_shows_the_hands_left(client) -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    assert play_defaults(game)
    hands = {name: p["hand"] for name, p in _umpire(game).items()}
    client.force_login(make_users(["sue"])[0])
    view = client.get(f"/api/games/{game.pk}/").json()["view"]
    assert {name: p["hand"] for name, p in view["players"].items()} == hands
    # the end's email names the winner in its subject, and the hands
    game.refresh_from_db()
    last = OutboxMessage.objects.filter(to=seats["cat"].user.email).order_by("-id").first()
    assert last.subject == f"[{game.title}] Game over: {winner_words(game.ranking)}"
    assert winner_words(game.ranking) != "no winner"
    ann_line = next(line for line in last.body.splitlines() if line.startswith("  ann:"))
    shown = ann_line.split("hand: ", 1)[1].split("; discard pile", 1)[0].split(", played")[0]
    assert re.sub(r" \([^)]*\)", "", shown).split(", ") == hands["ann"]


def test_a_6x5_walkover_turns_the_winners_goals_face_up(client) -> None:
    from games.email_views import _cells

    org, ann, bob = make_users(["org", "ann", "bob"])
    game = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Duel")
    game_join(game=game, user=ann)
    game_join(game=game, user=bob)
    client.force_login(ann)
    before = client.get(f"/api/games/{game.pk}/").json()["view"]["players"]
    assert "goals" not in before["bob"] and before["ann"]["goals"]

    seat_resign(seat=game.seats.get(user=ann))
    goals = _umpire(game)
    body = client.get(f"/api/games/{game.pk}/").json()
    assert body["view"]["players"]["bob"]["goals"] == goals["bob"]["goals"]
    assert body["view"]["pending"] == []
    assert body["game"]["ranking"] == [["bob"], ["ann"]]
    assert body["game"]["end_reason"] == "every player but bob resigned; bob wins"
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert "Where the game ended: turn " in page
    assert "Below is the table as the game ended, every goal turned face up." in page
    assert "hidden" not in _row(page, "bob")
    notice = OutboxMessage.objects.get(to=ann.email, subject__endswith="Game over: bob wins")
    assert all(_cells(goal) in notice.body for goal in goals["bob"]["goals"])
    # Her games list says where she finished (it said "finished" only).
    mine = client.get("/games/").content.decode().split('id="my-games"', 1)[1].split("</table>", 1)[0]
    assert '<span class="small" title="where you finished">2nd of 2</span>' in mine


def test_a_4x_dice_game_ended_early_says_where_it_stopped(client) -> None:
    org, ann, bob = make_users(["org", "ann", "bob"])
    game = game_create(organizer=org, ruleset="4x-dice", options={}, seats_count=2, name="Dice")
    game_join(game=game, user=ann)
    game_join(game=game, user=bob)
    game_end(game=game, by=org, reason="")
    client.force_login(ann)
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert "Where the game ended: the set-up" in page
    assert "the score when the game ended" in page
    assert "if the game ended now" not in page and "to act" not in page
    assert "Below is the table as the game ended." in page  # 4X Dice hides nothing


def test_the_end_email_writes_ties_as_the_page_does() -> None:
    body = render_to_string(
        "games/email/turn.txt", {"ranking": [["ann", "bob"], ["cat"]], "headline": "The game is over."}
    )
    assert "Final ranking:\n1. ann = bob\n3. cat\n" in body


@pytest.mark.parametrize(
    ("ranking", "words"),
    [
        ([["ann"], ["bob", "cat"]], "ann wins"),
        ([["ann", "bob"], ["cat"]], "ann and bob share first place"),
        ([["ann", "bob", "cat"]], "a draw"),
        (None, "no winner"),
    ],
)
def test_winner_words(ranking, words) -> None:
    assert winner_words(ranking) == words


def test_the_api_view_of_a_game_over_matches_its_serializer() -> None:
    import json

    from rest_framework.renderers import JSONRenderer
    from rest_framework.test import APIClient

    from games.api.payloads import view_payload
    from games.api.serializers import SeatViewSerializer
    from games.selectors import seat_for_user, seat_view

    game, seats = start_fixed(["ann", "bob", "cat"])
    seat_resign(seat=seats["bob"])
    seat_resign(seat=seats["cat"])
    client = APIClient()
    client.force_authenticate(seats["ann"].user)
    answer = client.get(f"/api/games/{game.pk}/").json()
    game.refresh_from_db()
    seat = seat_for_user(game=game, user=seats["ann"].user)
    expected = SeatViewSerializer(view_payload(game, seat_view(seat=seat), seat)).data
    assert answer == json.loads(JSONRenderer().render(expected))
    assert answer["game"]["ranking"] == [["ann"], ["bob", "cat"]] and answer["game"]["finished_at"]


def test_5x_equal_vp_ranked_apart_says_why() -> None:
    from games.presentation import fivex_tiebreak_note

    view = {
        "ranking": [["dan"], ["ann"], ["bob", "eve"], ["cat"]],
        "players": {
            "dan": {"vp": 6, "wonders": ["B"]},
            "ann": {"vp": 4, "wonders": ["E", "A"]},
            "bob": {"vp": 4, "wonders": []},
            "eve": {"vp": 4, "wonders": []},
            "cat": {"vp": 2, "wonders": []},
        },
    }
    assert fivex_tiebreak_note(view) == (
        "On equal VP the earliest Wonder held ranks first: ann (Wonder A) before "
        "bob (no Wonder) = eve (no Wonder)."
    )
    view["ranking"] = [["dan"], ["ann"], ["bob", "eve", "cat"]]
    for name in ("ann", "bob", "eve", "cat"):
        view["players"][name] = {"vp": 4 if name == "ann" else 2, "wonders": []}
    assert fivex_tiebreak_note(view) == ""  # every tie a tie, every VP apart


def test_the_5x_end_page_and_email_say_why_equal_vp_are_ranked_apart() -> None:
    from games.email_views import fivex

    players = {
        "ann": {"vp": 4, "wonders": ["C"], "resources": 3, "discard": [], "hand_size": 0},
        "bob": {"vp": 4, "wonders": [], "resources": 12, "discard": [], "hand_size": 0},
    }
    view = {"game": "5x", "phase": "over", "round": 5, "rounds": 5, "pending": [],
            "wonders": {"built": {"C": "ann"}, "removed": []},
            "ranking": [["ann"], ["bob"]], "players": players}  # fmt: skip
    said = "On equal VP the earliest Wonder held ranks first: ann (Wonder C) before bob (no Wonder)."
    page = html.unescape(render_to_string("games/rulesets/5x.html", {"v": view}))
    assert f'<span class="small" id="tiebreak-note">{said}</span>' in page
    # beside the ranking, not in it (test_final_scores reads #final-ranking as the ranking
    # alone: a random game with a tie-break failed it)
    ranking = re.search(r'id="final-ranking">(.*?)</div>', page, re.S).group(1)
    assert "On equal VP" not in ranking and "1. ann" in ranking
    assert fivex(view, "bob").startswith(f"Game over after round 5. {said}\n")


def test_the_games_list_gives_public_results_to_anyone(client) -> None:
    """Games over dropped out of every list but their players' (a game-end audit)."""
    org, ann, bob, cat, dan = make_users(["org", "ann", "bob", "cat", "dan"])
    duel = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Public duel")
    hidden = game_create(organizer=org, ruleset="6x5", options={}, seats_count=2, name="Club duel",
                         is_private=True)  # fmt: skip
    for game, players in ((duel, (ann, bob)), (hidden, (cat, dan))):
        for user in players:
            game_join(game=game, user=user, invite_token=game.invite_token if game.is_private else None)
        seat_resign(seat=game.seats.get(user=players[0]))
    ended = game_create(organizer=org, ruleset="4x-dice", options={}, seats_count=2, name="Dice")
    game_join(game=ended, user=cat)
    game_join(game=ended, user=dan)
    game_end(game=ended, by=org, reason="")
    cancelled = game_create(organizer=org, ruleset="4x-dice", options={}, seats_count=2, name="Never")
    game_end(game=cancelled, by=org, reason="")

    page = client.get("/games/").content.decode()
    results = page.split('id="finished-games"', 1)[1].split("</table>", 1)[0]
    rows = [row for row in results.split("<tr>")[2:]]
    assert len(rows) == 2, results  # no private game, none that never started
    assert "Dice" in rows[0] and "ended early" in rows[0]  # the latest first
    assert "Public duel" in rows[1] and '<td class="whole" data-label="Result">bob wins</td>' in rows[1]
    client.force_login(ann)  # her own game is in her list, not here
    mine = client.get("/games/").content.decode().split('id="finished-games"', 1)[1]
    assert "Public duel" not in mine.split("</table>", 1)[0]


def test_a_game_played_out_says_its_hands_are_face_up_and_no_wonder_is_up_for_bids(client) -> None:
    """A visual review: a game played out said nothing of its hands shown; a 5X game ended
    early showed its current Wonder "up for bids"."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    assert play_defaults(game)
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert '<p class="small muted" id="revealed-note">The game is over: every hand turned face up.</p>' in page
    ended, _seats = start_fixed(["dan", "eve", "fay"])
    assert not play_defaults(ended, prompts=4)
    game_end(game=ended, by=ended.organizer, reason="")
    page = html.unescape(client.get(f"/games/{ended.pk}/").content.decode())
    assert "up for bids" not in page and "not reached" in page
    assert 'id="revealed-note"' not in page  # its Final result panel says it
