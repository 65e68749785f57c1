"""A game reviewed decision by decision (/games/ID/review/N/): the table while prompt N was
open, the orders it took, what its resolution did; face up and with every order once the
game is over, the public view and no order text while it runs."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from games.services.resolution import prompt_resolve
from tests.games.core_support import play_defaults
from tests.games.web_support import (  # noqa: F401
    DEAL,
    DRAFT,
    NAMES,
    dealt_5x_game,
    eager_celery,
    make_user,
    submit_orders,
    visible_text,
)

pytestmark = pytest.mark.django_db

ROUND_1 = {"ann": "PLAY EXPAND", "bob": "PLAY EXPLORE"}  # cat sends nothing: its default


def step_url(game: Game, number: int) -> str:
    return reverse("games:review_step", args=[game.pk, number])


def page(client: Client, url: str) -> str:
    answer = client.get(url)
    assert answer.status_code == 200, (url, answer.status_code)
    return answer.content.decode()


@pytest.fixture
def played(django_capture_on_commit_callbacks, eager_celery):  # noqa: F811
    """The draft resolved with every seat's order, round 1's play with cat's missing one
    filled by its default order."""
    capture = django_capture_on_commit_callbacks
    game = dealt_5x_game(capture, names=NAMES, organizer="ann", deal=DEAL, name="Reviewed")
    submit_orders(game, capture, DRAFT)
    submit_orders(game, capture, ROUND_1)
    game.prompts.filter(number=2).update(deadline=timezone.now() - timedelta(minutes=1))
    with capture(execute=True):
        assert prompt_resolve(game_id=game.pk, prompt_number=2, fill_missing=True)
    return game


def test_a_game_over_shows_every_order_and_hand_of_each_prompt(played, client):
    game = played
    assert play_defaults(game)  # to the end
    client.force_login(make_user("zed"))  # a spectator

    first = client.get(reverse("games:review", args=[game.pk]))
    assert first.status_code == 302 and first["Location"] == step_url(game, 1)

    draft = page(client, step_url(game, 1))
    text = visible_text(draft)
    assert "Draft (decision 1)" in text
    # What each seat alone was told, now public and headed with its name.
    for seat in ("ann", "bob", "cat"):
        told = rf"{seat}, told alone: you passed {DRAFT[seat][5:]}( \([^)]*\))? to \w+ and received"
        assert re.search(told, text), seat
    for seat, order in DRAFT.items():  # each seat's order, sent on the web
        assert re.search(rf"{seat} {order} on the web", text), (seat, order, text)
    # The table while the draft was open, face up: bob's two leaders, dealt to him alone.
    assert re.search(r"bob 3 1 — [\w ]+ leaders dealt: Dido \(Explore\) Qin Shi Huang", text), text
    steps = game.prompts.filter(status="resolved").count()
    assert f"finished · decision 1 of {steps} «" in text
    assert 'rel="prev"' not in draft and "« First</span>" in draft  # the first step
    assert f'href="{step_url(game, 2)}" rel="next"' in draft

    play = visible_text(page(client, step_url(game, 2)))
    assert "ann PLAY EXPAND on the web" in play and "bob PLAY EXPLORE on the web" in play
    assert re.search(r"cat PLAY \w+ default order: no order by the deadline", play), play
    assert "Round 1 · play (decision 2)" in play

    # bob explored in round 1: in round 2 he plays after seeing the others' cards.
    round_2 = visible_text(page(client, step_url(game, 3)))
    assert "Round 2 · play (decision 3)" in round_2
    assert re.search(r"Asked: (cat, ann|ann, cat); not asked at this decision: bob\.", round_2), (
        round_2
    )
    assert not re.search(r"bob PLAY \w+ (on the web|default)", round_2)

    last = game.prompts.filter(status="resolved").order_by("-number").first().number
    final = page(client, step_url(game, last))
    assert f'href="{reverse("games:review_end", args=[game.pk])}" rel="next"' in final
    assert "The end »" not in final  # "Next" is the end already: one link to it
    # The game-over email links the review.
    from games.models import OutboxMessage

    over = OutboxMessage.objects.filter(subject__contains="Game over").first()
    assert over is not None and f"/games/{game.pk}/review/" in over.body
    end = visible_text(page(client, reverse("games:review_end", args=[game.pk])))
    assert "The end" in end and "Final ranking" in end


def test_while_the_game_runs_the_orders_stay_sealed_and_hands_hidden(played, client):
    game = played
    for viewer in ("zed", None):
        client.logout()
        if viewer == "zed":
            client.force_login(make_user("zed"))
        for number in (1, 2):
            html = page(client, step_url(game, number))
            text = visible_text(html)
            assert "the orders stay sealed here until the game is over" in text
            assert 'id="review-orders"' not in html
            # No order text and nobody's hand: bob was dealt QIN and DIDO, passed DIDO.
            for secret in ("PASS DIDO", "PLAY EXPLORE", "PASS CAESAR", "Dido", "DIDO"):
                assert secret not in html, (viewer, number, secret)
    # What the rules revealed is there: the cards played in round 1.
    assert "played" in visible_text(page(client, step_url(game, 2)))
    # There is no end yet: after the last resolved prompt comes the game as it is now.
    html = page(client, step_url(game, 2))
    assert f'href="{reverse("games:detail", args=[game.pk])}">The game now' in html
    assert client.get(reverse("games:review_end", args=[game.pk])).status_code == 302
    assert client.get(step_url(game, 3)).status_code == 404  # open, not resolved


def test_while_the_game_runs_a_seat_s_player_sees_its_own_hand_and_order_alone(played, client):
    """bob reviews the draft as he saw it: his two dealt leaders and his own order, not
    what ann and cat were dealt or passed (DEAL, DRAFT)."""
    game = played
    client.force_login(game.seats.get(name="bob").user)
    html = page(client, step_url(game, 1))
    text = visible_text(html)
    dealt = r"Leaders dealt to you: (Dido \(Explore\) Qin|Qin Shi Huang \(Exploit\) Dido)"
    assert re.search(dealt, text), text
    assert 'id="review-orders"' in html and "Your order" in text
    assert re.search(r"bob PASS DIDO on the web", text), text
    assert "the other seats' orders stay sealed here until the game is over" in text
    # bob's own event: whom he passed to, what he received from whom; nothing else of
    # the others' leaders (the one kept by the seat that passed to him, the other's pair).
    passed = re.search(r"you passed DIDO to (\w+) and received ([A-Z]+) .*?from (\w+)", text)
    assert passed, text
    received, giver = passed[2], passed[3]
    assert {giver, passed[1]} == {"ann", "cat"} and received in DEAL[giver]
    from engine.fivex.data import CARDS

    names = {c.id: c.name for c in CARDS}
    assert f">{names['QIN']}<" in html  # a card in the hand, as the page draws it
    for leader in DEAL[passed[1]] + [c for c in DEAL[giver] if c != received]:
        assert leader not in html and f">{names[leader]}<" not in html, leader
    for order in ("PASS CAESAR", "PASS ERIK"):
        assert order not in text, order
    # Round 1's play: his own order; ann's stays sealed (PLAY EXPAND) though revealed
    # cards are named by "What happened".
    play = visible_text(page(client, step_url(game, 2)))
    assert "bob PLAY EXPLORE on the web" in play
    assert "ann PLAY EXPAND" not in play and "cat PLAY" not in play
    # A seat the prompt did not ask: bob explored, so round 2's first play was not his.
    assert resolved_round_2_play(game)
    round_2 = visible_text(page(client, step_url(game, 3)))
    assert "None: this decision did not ask bob." in round_2


def resolved_round_2_play(game: Game) -> bool:
    """Round 2's play (decision 3, bob not asked) resolved with its seats' default orders."""
    game.prompts.filter(number=3).update(deadline=timezone.now() - timedelta(minutes=1))
    return bool(prompt_resolve(game_id=game.pk, prompt_number=3, fill_missing=True))



def test_the_jump_form_and_wrong_numbers(played, client):
    game = played
    review = reverse("games:review", args=[game.pk])
    answer = client.get(review, {"prompt": "2"})
    assert answer.status_code == 302 and answer["Location"] == step_url(game, 2)
    for wrong in ("3", "0", "two", "9" * 30, ""):
        answer = client.get(review, {"prompt": wrong}, follow=True)
        assert answer.status_code == 200
        assert answer.redirect_chain[-1][0] == step_url(game, 1)
        assert "There is no resolved decision" in visible_text(answer.content.decode()), wrong


def test_nothing_to_review_before_a_prompt_is_resolved(django_capture_on_commit_callbacks, client):
    game = dealt_5x_game(
        django_capture_on_commit_callbacks, names=NAMES, organizer="ann", deal=DEAL, name="New"
    )
    answer = client.get(reverse("games:review", args=[game.pk]), follow=True)
    assert answer.redirect_chain[-1][0] == reverse("games:detail", args=[game.pk])
    assert "nothing to review" in visible_text(answer.content.decode())
    assert 'id="review-link"' not in answer.content.decode()


def test_a_private_game_is_not_reviewed_by_strangers(
    django_capture_on_commit_callbacks,
    eager_celery,  # noqa: F811
    client,
):
    capture = django_capture_on_commit_callbacks
    game = dealt_5x_game(capture, names=NAMES, organizer="ann", deal=DEAL, name="Private")
    Game.objects.filter(pk=game.pk).update(is_private=True)
    submit_orders(game, capture, DRAFT)
    client.force_login(make_user("zed"))
    for url in (
        reverse("games:review", args=[game.pk]),
        step_url(game, 1),
        reverse("games:review_end", args=[game.pk]),
    ):
        assert client.get(url).status_code == 404, url
    # The API's review too: a stranger is told there is no such game.
    from django.contrib.auth import get_user_model

    from tests.games.web_support import token_client

    zed = get_user_model().objects.get(username="zed")
    answer = token_client(zed).get(f"/api/games/{game.pk}/review/1/")
    assert answer.status_code == 404 and "DIDO" not in answer.content.decode()
    client.force_login(game.seats.get(name="cat").user)
    assert client.get(step_url(game, 1)).status_code == 200


def test_the_game_page_links_each_prompt_to_its_review(played, client):
    game = played
    html = page(client, reverse("games:detail", args=[game.pk]))
    assert f'href="{reverse("games:review", args=[game.pk])}" id="review-link"' in html
    assert f'<a href="{step_url(game, 2)}"' in html  # "What happened"'s heading of decision 2


def test_a_game_of_turns_names_the_seat_asked_and_not_the_others(client):
    from games.services.orders import order_submit
    from tests.games.test_4x_dice_hit_picker import exterminate_game

    game = exterminate_game()  # 4X Dice: the set-up asked everyone, then ann's turn
    order_submit(seat=game.seats.get(name="ann"), text="PASS", source="web")
    assert prompt_resolve(game_id=game.pk, prompt_number=2)
    turn = visible_text(page(client, step_url(game, 2)))
    assert "Asked: ann. Resolved" in turn and "not asked" not in turn


def test_the_api_gives_the_same_review_as_data(played):
    from tests.games.web_support import token_client

    game = played
    api = token_client(game.seats.get(name="bob").user)
    url = f"/api/games/{game.pk}/review/2/"
    running = api.get(url)
    assert running.status_code == 200
    body = running.json()
    assert body["prompt"]["number"] == 2 and body["prompt"]["phase"] == "play"
    # bob's own order alone while the game runs; a spectator gets none.
    assert body["orders"] == [
        {"seat": "bob", "text": "PLAY EXPLORE", "source": "web", "reason": "",
         "submitted_at": body["orders"][0]["submitted_at"]}
    ] and body["events"]  # fmt: skip
    draft = api.get(f"/api/games/{game.pk}/review/1/").json()
    assert sorted(draft["table"]["dealt"]) == ["DIDO", "QIN"] and "orders" not in draft["table"]
    assert not any(c in str(draft) for c in ("CLEOPATRA", "NAPOLEON"))  # kept, unseen
    assert "PASS CAESAR" not in str(draft) and "PASS ERIK" not in str(draft)
    spectator = token_client(make_user("zed")).get(url).json()
    assert spectator["orders"] is None and "DIDO" not in str(spectator)
    assert api.get(f"/api/games/{game.pk}/review/3/").status_code == 404  # open
    assert api.get(f"/api/games/{game.pk}/review/2/?x=1").status_code == 400

    assert play_defaults(game)
    over = api.get(url).json()
    orders = {o["seat"]: (o["text"], o["source"], o["reason"]) for o in over["orders"]}
    assert orders["ann"] == ("PLAY EXPAND", "web", "") and orders["bob"] == ("PLAY EXPLORE", "web", "")
    assert orders["cat"][1:] == ("default", "deadline")
    assert "DIDO" in api.get(f"/api/games/{game.pk}/review/1/").content.decode()  # face up
