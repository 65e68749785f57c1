"""Every API error is JSON {"error", "message"} with a 4xx status, never a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.models import Game, SealedOrder
from games.services import games as game_services
from games.services import organizer as organizer_services
from tests.games.web_support import eager_celery, make_user, token_client  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(django_capture_on_commit_callbacks):
    """A started 3-player 5X game with a fixed seating and deal: ann, bob, cat."""
    users = {n: make_user(n) for n in ("ann", "bob", "cat")}
    outsider = make_user("zed")
    game = game_services.game_create(
        organizer=users["ann"],
        ruleset="5x",
        seats_count=3,
        setup={"deal": {"ann": ["GANDHI", "CAESAR"], "bob": ["QIN", "DIDO"], "cat": ["NAPOLEON", "TOKUGAWA"]}},
    )
    for name in ("ann", "bob"):
        game_services.game_join(game=game, user=users[name])
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_join(game=game, user=users["cat"])
    game.refresh_from_db()
    assert game.status == "active"
    clients = {n: token_client(u) for n, u in users.items()}
    clients["zed"] = token_client(outsider)
    return game, clients


def assert_error(response, status: int, code: str, *fragments: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    for fragment in fragments:
        assert fragment.lower() in body["message"].lower(), body["message"]
    return body


def orders_url(game: Game) -> str:
    return f"/api/games/{game.pk}/orders/"


def test_illegal_order_text_is_refused_with_the_engine_reason_and_stores_nothing(table):
    game, clients = table
    # ann was dealt GANDHI and CAESAR: QIN is not hers to pass.
    answer = clients["ann"].post(orders_url(game), {"text": "PASS QIN"}, format="json")
    body = assert_error(answer, 422, "order_refused")
    assert "GANDHI" in body["message"] or "Gandhi" in body["message"]
    garbage = clients["ann"].post(orders_url(game), {"text": "DANCE WILDLY"}, format="json")
    assert_error(garbage, 422, "order_refused")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_order_from_a_user_without_a_seat_is_forbidden(table):
    game, clients = table
    answer = clients["zed"].post(orders_url(game), {"text": "PASS QIN"}, format="json")
    assert_error(answer, 403, "forbidden", "seat")


def test_order_when_not_pending_is_a_conflict(table, eager_celery, django_capture_on_commit_callbacks):  # noqa: F811
    game, clients = table
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("ann", "PASS GANDHI"), ("bob", "PASS QIN"), ("cat", "PASS NAPOLEON")):
            answer = clients[name].post(orders_url(game), {"text": text}, format="json")
            assert answer.status_code == 201, answer.content
    # Round 1: ann and bob expand, cat explores -> only ann and bob bid.
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("ann", "PLAY EXPAND"), ("bob", "PLAY EXPAND"), ("cat", "PLAY EXPLORE")):
            answer = clients[name].post(orders_url(game), {"text": text}, format="json")
            assert answer.status_code == 201, answer.content
    view = clients["cat"].get(f"/api/games/{game.pk}/").json()
    assert view["prompt"]["phase"] == "bid"
    assert view["prompt"]["pending"] == ["ann", "bob"] or sorted(view["prompt"]["pending"]) == ["ann", "bob"]
    assert view["legal_orders"] == []
    answer = clients["cat"].post(orders_url(game), {"text": "BID 1"}, format="json")
    assert_error(answer, 409, "not_your_turn", "not asked")


def test_same_order_twice_is_one_order(table):
    game, clients = table
    first = clients["cat"].post(orders_url(game), {"text": "PASS NAPOLEON"}, format="json")
    second = clients["cat"].post(orders_url(game), {"text": "PASS NAPOLEON"}, format="json")
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert SealedOrder.objects.filter(prompt__game=game, seat_name="cat").count() == 1
    replaced = clients["cat"].post(orders_url(game), {"text": "PASS TOKUGAWA"}, format="json")
    assert replaced.status_code == 201
    assert replaced.json()["commitment"] != first.json()["commitment"]
    current = SealedOrder.objects.get(prompt__game=game, seat_name="cat", is_current=True)
    assert current.text == "PASS TOKUGAWA"


def test_resigned_seat_is_not_pending(table, eager_celery, django_capture_on_commit_callbacks):  # noqa: F811
    game, clients = table
    seat = game.seats.get(name="bob")
    with django_capture_on_commit_callbacks(execute=True):
        game_services.seat_resign(seat=seat)
    answer = clients["bob"].post(orders_url(game), {"text": "PASS QIN"}, format="json")
    assert_error(answer, 409, "not_your_turn", "resigned")


def test_order_in_a_finished_game_is_a_conflict(table):
    game, clients = table
    organizer_services.game_end(game=game, by=game.organizer, reason="test")
    answer = clients["ann"].post(orders_url(game), {"text": "PASS GANDHI"}, format="json")
    assert_error(answer, 409, "game_finished", "over")


def test_paused_game_refuses_orders(table):
    game, clients = table
    organizer_services.game_pause(game=game, by=game.organizer)
    answer = clients["bob"].post(orders_url(game), {"text": "PASS QIN"}, format="json")
    assert_error(answer, 409, "conflict", "paused")


def test_unknown_game_is_404_everywhere(table):
    _game, clients = table
    client = clients["ann"]
    for method, url in (
        ("get", "/api/games/999999/"),
        ("post", "/api/games/999999/orders/"),
        ("post", "/api/games/999999/join/"),
        ("post", "/api/games/999999/start/"),
        ("get", "/api/games/999999/log/"),
        ("get", "/api/games/999999/export/"),
    ):
        data = {"text": "PASS QIN"} if url.endswith("orders/") else {}
        answer = getattr(client, method)(url, data, format="json")
        assert_error(answer, 404, "not_found", "no such game")


def test_malformed_bodies_are_400(table):
    game, clients = table
    client = clients["ann"]
    bad_json = client.generic(
        "POST", orders_url(game), '{"text": "PASS', content_type="application/json"
    )
    assert_error(bad_json, 400, "parse_error", "json")
    missing = client.post(orders_url(game), {}, format="json")
    body = assert_error(missing, 400, "invalid", "text")
    assert "text" in body["fields"]
    wrong_type = client.post(orders_url(game), {"text": ["PASS", "QIN"]}, format="json")
    assert_error(wrong_type, 400, "invalid", "text")
    too_long = client.post(orders_url(game), {"text": "PASS GANDHI\n" + "#" * 5000}, format="json")
    assert_error(too_long, 400, "invalid", "4000")
    not_object = client.generic("POST", orders_url(game), "[1, 2]", content_type="application/json")
    assert not_object.status_code == 400
    assert not_object.json()["error"] in {"invalid", "parse_error"}
    bad_create = client.post("/api/games/", {"ruleset": "chess", "seats_count": 2}, format="json")
    assert_error(bad_create, 400, "invalid", "ruleset")
    bad_option = client.post(
        "/api/games/", {"ruleset": "5x", "seats_count": 4, "options": {"leaders": "maybe"}}, format="json"
    )
    assert_error(bad_option, 400, "invalid", "leaders")
    bad_count = client.post("/api/games/", {"ruleset": "5x", "seats_count": 9}, format="json")
    assert_error(bad_count, 400, "invalid", "3 to 6")


def test_unauthenticated_requests_are_401_json(table):
    game, _clients = table
    anonymous = APIClient()
    for method, url in (
        ("get", "/api/games/"),
        ("post", "/api/games/"),
        ("get", f"/api/games/{game.pk}/"),
        ("post", orders_url(game)),
    ):
        answer = getattr(anonymous, method)(url, {}, format="json")
        assert_error(answer, 401, "not_authenticated")
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(bad_token.get("/api/games/"), 401, "authentication_failed", "token")


def test_start_join_and_export_refusals(table):
    game, clients = table
    # Not the organizer; already started.
    assert_error(clients["bob"].post(f"/api/games/{game.pk}/start/", {}, format="json"), 403, "forbidden")
    assert_error(clients["ann"].post(f"/api/games/{game.pk}/start/", {}, format="json"), 409, "conflict", "started")
    assert_error(clients["zed"].post(f"/api/games/{game.pk}/join/", {}, format="json"), 409, "conflict")
    assert_error(clients["ann"].get(f"/api/games/{game.pk}/export/"), 409, "conflict", "over")


def test_private_game_needs_the_invitation(table):
    _game, clients = table
    created = clients["zed"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3, "is_private": True}, format="json"
    )
    assert created.status_code == 201
    private = created.json()
    assert_error(
        clients["bob"].post(f"/api/games/{private['id']}/join/", {}, format="json"), 403, "forbidden", "invitation"
    )
    assert_error(
        clients["bob"].post(f"/api/games/{private['id']}/join/", {"invite_token": "nope"}, format="json"),
        403,
        "forbidden",
    )
    ok = clients["bob"].post(
        f"/api/games/{private['id']}/join/", {"invite_token": private["invite_token"]}, format="json"
    )
    assert ok.status_code == 201


def test_api_create_reports_the_not_recommended_warning(table):
    _game, clients = table
    created = clients["zed"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": 5, "options": {"leaders": False}}, format="json"
    )
    assert created.status_code == 201
    assert any("not recommended" in w.lower() for w in created.json()["warnings"])


def test_unexpected_errors_are_json_500_not_html(table, monkeypatch):
    game, clients = table
    from games.api import views as api_views

    def boom(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(api_views, "public_log", boom)
    clients["ann"].raise_request_exception = False
    answer = clients["ann"].get(f"/api/games/{game.pk}/log/")
    assert answer.status_code == 500
    assert answer.json()["error"] == "server_error"
    assert "secret internals" not in answer.content.decode()


def test_schema_of_the_games_api_generates_without_warnings(client):
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    generator = SchemaGenerator(patterns=[path("api/", include("games.api.urls"))])
    schema = generator.get_schema(request=None, public=True)
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache, (
        dict(GENERATOR_STATS._warn_cache),
        dict(GENERATOR_STATS._error_cache),
    )
    paths = schema["paths"]
    for route in ("/api/games/", "/api/games/{game_id}/", "/api/games/{game_id}/orders/"):
        assert route in paths
    receipt = schema["components"]["schemas"]["Receipt"]["properties"]
    assert set(receipt) == {"commitment", "prompt", "submitted_at", "text"}
    assert client.get("/api/schema/").status_code == 200


def test_open_games_leave_and_resign(table, django_capture_on_commit_callbacks):
    game, clients = table
    created = clients["zed"].post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json")
    forming = created.json()["id"]
    listed = clients["bob"].get("/api/games/open/").json()
    assert [g["id"] for g in listed] == [forming]
    assert clients["bob"].post(f"/api/games/{forming}/join/", {}, format="json").status_code == 201
    left = clients["bob"].post(f"/api/games/{forming}/leave/", {}, format="json")
    assert left.status_code == 200 and left.json()["seats"] == []
    assert_error(clients["bob"].post(f"/api/games/{forming}/leave/", {}, format="json"), 409, "not_your_turn")
    assert_error(clients["bob"].post(f"/api/games/{game.pk}/leave/", {}, format="json"), 409, "conflict", "resign")
    with django_capture_on_commit_callbacks(execute=True):
        resigned = clients["cat"].post(f"/api/games/{game.pk}/resign/", {}, format="json")
    assert resigned.status_code == 200 and resigned.json()["status"] == "resigned"
    assert_error(clients["zed"].post(f"/api/games/{game.pk}/resign/", {}, format="json"), 403, "forbidden")


def test_order_for_a_closed_prompt_number_is_refused(table, eager_celery, django_capture_on_commit_callbacks):  # noqa: F811
    game, clients = table
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("ann", "PASS GANDHI"), ("bob", "PASS QIN"), ("cat", "PASS NAPOLEON")):
            answer = clients[name].post(orders_url(game), {"text": text, "prompt": 1}, format="json")
            assert answer.status_code == 201, answer.content
    # A late client still answering prompt 1 must not land on prompt 2.
    late = clients["ann"].post(orders_url(game), {"text": "PLAY EXPLORE", "prompt": 1}, format="json")
    assert_error(late, 409, "prompt_closed", "prompt 2 is open")
    assert not SealedOrder.objects.filter(prompt__number=2).exists()
    ok = clients["ann"].post(orders_url(game), {"text": "PLAY EXPLORE", "prompt": 2}, format="json")
    assert ok.status_code == 201 and ok.json()["prompt"] == 2
