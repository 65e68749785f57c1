"""A forming game its organizer cancelled never started: join, leave and start say it was
cancelled, and an order to a game not started yet says that, whatever prompt it names."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.services import games as game_services
from games.services.organizer import game_end
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db


def refusal(answer, status: int, code: str) -> str:
    assert answer.status_code == status, answer.content
    assert answer.json()["error"] == code, answer.json()
    return answer.json()["message"]


@pytest.fixture
def forming():
    users = {n: make_user(n) for n in ("ann", "bob", "zed")}
    game = game_services.game_create(organizer=users["ann"], ruleset="5x", seats_count=3)
    game_services.game_join(game=game, user=users["ann"])
    game_services.game_join(game=game, user=users["bob"])
    return game, {n: token_client(u) for n, u in users.items()}, users


def test_join_leave_and_start_of_a_cancelled_game_say_it_was_cancelled(forming, client):
    # Regression (bad-input audit): they said "This game has already started; no seat is
    # free.", "The game has started: you can resign, but not leave." and "This game has
    # already started." of a game that never started.
    game, clients, users = forming
    game_end(game=game, by=users["ann"])
    api = f"/api/games/{game.pk}"
    said = [
        refusal(clients["zed"].post(f"{api}/join/", {}, format="json"), 409, "game_finished"),
        refusal(clients["bob"].post(f"{api}/leave/", {}, format="json"), 409, "game_finished"),
        refusal(clients["ann"].post(f"{api}/start/", {}, format="json"), 409, "game_finished"),
    ]
    for message in said:
        assert "cancelled" in message and "started" not in message.replace("before it started", ""), message
    # The web pages give the same reasons.
    client.force_login(users["zed"])
    page = client.post(reverse("games:join", args=[game.pk]), follow=True)
    assert any("cancelled" in str(m) for m in page.context["messages"])


def test_an_order_naming_a_prompt_to_a_forming_game_is_not_started(forming):
    # Regression (bad-input audit): with `prompt` it was 409 prompt_closed "Prompt 1 is
    # not open: no prompt is open"; without it, not_started.
    game, clients, _ = forming
    url = f"/api/games/{game.pk}/orders/"
    with_prompt = clients["bob"].post(url, {"text": "PASS CAESAR", "prompt": 1}, format="json")
    without = clients["bob"].post(url, {"text": "PASS CAESAR"}, format="json")
    assert refusal(with_prompt, 409, "not_started") == refusal(without, 409, "not_started")


def test_joining_a_game_over_says_it_is_over(forming, django_capture_on_commit_callbacks):
    # A game ended after it started is over, not "started; no seat is free".
    game, clients, users = forming
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_join(game=game, user=users["zed"])  # the last seat: it starts
    game.refresh_from_db()
    assert game.status == "active"
    game_end(game=game, by=users["ann"])
    answer = token_client(make_user("yan")).post(f"/api/games/{game.pk}/join/", {}, format="json")
    assert refusal(answer, 409, "game_finished") == "The game is over."
