"""Every API error is JSON {"error", "message"} with a 4xx status, never a 500."""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.test import APIClient

from games.models import Game, LogEntry, SealedOrder
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
        setup={
            "deal": {
                "ann": ["GANDHI", "CAESAR"],
                "bob": ["QIN", "DIDO"],
                "cat": ["NAPOLEON", "TOKUGAWA"],
            }
        },
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


def test_order_from_a_user_without_a_seat_is_a_403_no_seat(table):
    game, clients = table
    answer = clients["zed"].post(orders_url(game), {"text": "PASS QIN"}, format="json")
    assert_error(answer, 403, "no_seat", "seat")


@pytest.mark.parametrize("action", ["orders", "resign", "leave"])
@pytest.mark.parametrize("state", ["forming", "active", "finished"])
def test_a_caller_with_no_seat_is_a_403_no_seat_whatever_the_action_and_the_games_state(
    table, action, state
):
    # Regression: the same caller was a 403 forbidden for an order or a resignation (as
    # if not the organizer), a 409 no_seat for leaving a forming game, and a 409 conflict
    # "you can resign, but not leave" for leaving a started one.
    game, clients = table
    if state == "forming":
        game = game_services.game_create(organizer=game.organizer, ruleset="5x", seats_count=3)
        game_services.game_join(game=game, user=game.organizer)
    elif state == "finished":
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    body = {"text": "PASS QIN"} if action == "orders" else {}
    before = (
        list(game.seats.values_list("name", "status")),
        LogEntry.objects.filter(game=game).count(),
    )
    answer = clients["zed"].post(f"/api/games/{game.pk}/{action}/", body, format="json")
    assert_error(answer, 403, "no_seat")
    assert answer.json()["message"] == "You do not hold a seat in this game."
    assert (
        list(game.seats.values_list("name", "status")),
        LogEntry.objects.filter(game=game).count(),
    ) == before
    assert not SealedOrder.objects.filter(prompt__game=game, seat_name="zed").exists()


def test_the_schema_says_a_caller_with_no_seat_is_a_403_no_seat(client):
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    for action in ("orders", "resign", "leave"):
        refused = paths[f"/api/games/{{game_id}}/{action}/"]["post"]["responses"]["403"]
        assert "no_seat" in refused["description"], action
    organizer = paths["/api/games/{game_id}/pause/"]["post"]["responses"]["403"]
    assert "no_seat" not in organizer["description"]


@pytest.mark.parametrize("action", ["orders", "resign", "leave"])
def test_a_player_whose_seat_was_handed_over_is_a_403_no_seat_naming_the_seat(table, action):
    from django.contrib.auth import get_user_model

    from games.services import handover

    game, clients = table
    staff = get_user_model().objects.create_user("sam", "sam@example.com", is_staff=True)
    handover.seat_replace(seat=game.seats.get(name="bob"), new_user=make_user("dave"), by=staff)
    body = {"text": "PASS QIN"} if action == "orders" else {}
    answer = clients["bob"].post(f"/api/games/{game.pk}/{action}/", body, format="json")
    assert_error(
        answer, 403, "no_seat", "Your seat bob was handed over to another player", "spectator"
    )
    assert game.seats.get(name="bob", status="active").user.username == "dave"


def test_order_when_not_pending_is_a_conflict(
    table,
    eager_celery,  # noqa: F811
    django_capture_on_commit_callbacks,
):
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
    assert view["prompt"]["pending"] == ["ann", "bob"] or sorted(view["prompt"]["pending"]) == [
        "ann",
        "bob",
    ]
    assert view["legal_orders"] == []
    answer = clients["cat"].post(orders_url(game), {"text": "BID 1"}, format="json")
    assert_error(answer, 409, "not_your_turn", "not asked")


def test_same_order_twice_is_one_order(table):
    game, clients = table
    first = clients["cat"].post(orders_url(game), {"text": "PASS NAPOLEON"}, format="json")
    second = clients["cat"].post(orders_url(game), {"text": "PASS NAPOLEON"}, format="json")
    # The second is a retry: its receipt again, 200 (nothing stored), not 201.
    assert (first.status_code, second.status_code) == (201, 200)
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
    # a code of its own (an API audit: not_your_turn read as "wait for your turn")
    assert_error(answer, 409, "resigned", "resigned")
    again = clients["bob"].post(f"/api/games/{game.pk}/resign/", format="json")
    assert_error(again, 409, "resigned", "already resigned")


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
        "/api/games/",
        {"ruleset": "5x", "seats_count": 4, "options": {"leaders": "maybe"}},
        format="json",
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
    assert_error(
        clients["bob"].post(f"/api/games/{game.pk}/start/", {}, format="json"), 403, "forbidden"
    )
    assert_error(
        clients["ann"].post(f"/api/games/{game.pk}/start/", {}, format="json"),
        409,
        "conflict",
        "started",
    )
    assert_error(
        clients["zed"].post(f"/api/games/{game.pk}/join/", {}, format="json"), 409, "conflict"
    )
    assert_error(clients["ann"].get(f"/api/games/{game.pk}/export/"), 409, "conflict", "over")


def test_private_game_needs_the_invitation(table):
    _game, clients = table
    created = clients["zed"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3, "is_private": True}, format="json"
    )
    assert created.status_code == 201
    private = created.json()
    url = f"/api/games/{private['id']}/"
    # To a stranger without the token a private game does not exist: every operation
    # answers what an unknown id does.
    unknown = clients["bob"].post("/api/games/999999/join/", {}, format="json").json()
    for body in ({}, {"invite_token": "nope"}):
        answer = clients["bob"].post(url + "join/", body, format="json")
        assert assert_error(answer, 404, "not_found") == unknown
    for op, body in (("start/", {}), ("leave/", {}), ("resign/", {}), ("orders/", {"text": "X"})):
        answer = clients["bob"].post(url + op, body, format="json")
        assert assert_error(answer, 404, "not_found") == unknown, op
    # The organizer needs no token to sit at its own game; the token is in its list.
    assert clients["zed"].post(url + "join/", {}, format="json").status_code == 201
    listed = {g["id"]: g for g in clients["zed"].get("/api/games/").json()}
    assert listed[private["id"]]["invite_token"] == private["invite_token"]
    ok = clients["bob"].post(
        url + "join/", {"invite_token": private["invite_token"]}, format="json"
    )
    assert ok.status_code == 201
    # Seated, bob sees the game but not the token (it is the organizer's to share).
    listed = {g["id"]: g for g in clients["bob"].get("/api/games/").json()}
    assert listed[private["id"]]["invite_token"] is None
    assert_error(
        clients["bob"].post(url + "start/", {}, format="json"), 403, "forbidden", "organizer"
    )


def test_api_create_reports_the_not_recommended_warning(table):
    _game, clients = table
    created = clients["zed"].post(
        "/api/games/",
        {"ruleset": "5x", "seats_count": 5, "options": {"leaders": False}},
        format="json",
    )
    assert created.status_code == 201
    assert any("not recommended" in w.lower() for w in created.json()["warnings"])


def test_unexpected_errors_are_json_500_not_html(table, monkeypatch):
    game, clients = table
    from games.api import log_views as api_views

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

    import fivex_site.urls  # noqa: F401 - registers the <id:...> converter, run alone too

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
    assert set(receipt) == {"commitment", "prompt", "submitted_at", "text", "source"}
    entry = schema["components"]["schemas"]["LogEntry"]
    assert set(entry["properties"]) == {
        "seq", "kind", "payload", "created_at", "prev_hash", "hash", "redacted"
    }  # fmt: skip
    assert "redacted" not in entry["required"] and "hash" in entry["required"]
    # A read answers 409 only where it can: the export of a game still running.
    for route in ("/api/games/{game_id}/", "/api/games/{game_id}/log/"):
        assert "409" not in paths[route]["get"]["responses"], route
    export = paths["/api/games/{game_id}/export/"]["get"]["responses"]
    assert "409" in export
    assert export["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Export"
    }
    assert client.get("/api/schema/").status_code == 200


def test_the_whole_schema_generates_without_warnings() -> None:
    # Games, tournaments and ratings together: a status enum shared by name between the
    # tournament and its rounds used to get a made-up name (StatusA19Enum) and a warning.
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    from tournaments.models import Tournament

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache, (
        dict(GENERATOR_STATS._warn_cache),
        dict(GENERATOR_STATS._error_cache),
    )
    enums = schema["components"]["schemas"]
    assert enums["TournamentStatusEnum"]["enum"] == list(Tournament.Status.values)
    assert not [name for name in enums if re.fullmatch(r"Status[0-9A-F]+Enum", name)]
    # No "oneOf" with an empty schema: a null matches both branches, and a strict OpenAPI
    # 3.1 validator refused every unfinished game's `ranking` (an API audit's schemathesis).
    found: list[str] = []

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            if {} in (node.get("oneOf") or []):
                found.append(path)
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(schema, "")
    assert found == []
    assert enums["Game"]["properties"]["ranking"]["type"] == ["array", "null"]


def test_the_api_log_is_the_log_as_stored_and_redacted(
    table,
    eager_celery,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    from games.models import LogEntry

    game, clients = table
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("ann", "PASS GANDHI"), ("bob", "PASS QIN"), ("cat", "PASS NAPOLEON")):
            assert (
                clients[name].post(orders_url(game), {"text": text}, format="json").status_code
                == 201
            )
    entries = clients["ann"].get(f"/api/games/{game.pk}/log/").json()["entries"]
    stored = list(LogEntry.objects.filter(game=game).order_by("seq"))
    assert [(e["seq"], e["kind"], e["hash"], e["prev_hash"]) for e in entries] == [
        (s.seq, s.kind, s.hash, s.prev_hash) for s in stored
    ]
    [revealed] = [e for e in entries if e["kind"] == "orders_revealed"]
    assert revealed["redacted"] is True
    assert revealed["payload"]["orders"]["ann"]["text"] == "PASS GANDHI"
    assert "text" not in revealed["payload"]["orders"]["bob"]
    assert all("redacted" not in e for e in entries if e["kind"] != "orders_revealed")
    assert all(e["created_at"].endswith("Z") for e in entries)


def test_open_games_leave_and_resign(table, django_capture_on_commit_callbacks):
    game, clients = table
    created = clients["zed"].post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json")
    forming = created.json()["id"]
    listed = clients["bob"].get("/api/games/open/").json()
    assert [g["id"] for g in listed] == [forming]
    assert clients["bob"].post(f"/api/games/{forming}/join/", {}, format="json").status_code == 201
    again = clients["bob"].post(f"/api/games/{forming}/join/", {}, format="json")
    assert again.status_code == 200 and again.json()["name"] == "bob"
    left = clients["bob"].post(f"/api/games/{forming}/leave/", {}, format="json")
    assert left.status_code == 200 and left.json()["seats"] == []
    assert_error(
        clients["bob"].post(f"/api/games/{forming}/leave/", {}, format="json"), 403, "no_seat"
    )
    assert_error(
        clients["bob"].post(f"/api/games/{game.pk}/leave/", {}, format="json"),
        409,
        "conflict",
        "resign",
    )
    with django_capture_on_commit_callbacks(execute=True):
        resigned = clients["cat"].post(f"/api/games/{game.pk}/resign/", {}, format="json")
    assert resigned.status_code == 200 and resigned.json()["status"] == "resigned"
    assert_error(
        clients["zed"].post(f"/api/games/{game.pk}/resign/", {}, format="json"), 403, "no_seat"
    )


def test_order_for_a_closed_prompt_number_is_refused(
    table,
    eager_celery,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    game, clients = table
    with django_capture_on_commit_callbacks(execute=True):
        for name, text in (("ann", "PASS GANDHI"), ("bob", "PASS QIN"), ("cat", "PASS NAPOLEON")):
            answer = clients[name].post(
                orders_url(game), {"text": text, "prompt": 1}, format="json"
            )
            assert answer.status_code == 201, answer.content
    played = SealedOrder.objects.get(prompt__number=1, seat_name="cat", is_current=True)
    # cat's client lost the answer to the order that closed prompt 1 and sends it again:
    # it was stored and played, so it gets its receipt, not "nothing was stored".
    retry = clients["cat"].post(
        orders_url(game), {"text": "PASS NAPOLEON", "prompt": 1}, format="json"
    )
    assert retry.status_code == 200, retry.content  # its receipt again; nothing stored now
    assert (retry.json()["prompt"], retry.json()["commitment"]) == (1, played.commitment)
    # The same prompt with another text is refused.
    other = clients["cat"].post(
        orders_url(game), {"text": "PASS GANDHI", "prompt": 1}, format="json"
    )
    assert_error(other, 409, "prompt_closed", "prompt 1 is not open any more")
    # A late client still answering prompt 1 must not land on prompt 2.
    late = clients["ann"].post(
        orders_url(game), {"text": "PLAY EXPLORE", "prompt": 1}, format="json"
    )
    assert_error(late, 409, "prompt_closed", "prompt 1 is not open any more", "prompt 2 is open")
    early = clients["ann"].post(
        orders_url(game), {"text": "PLAY EXPLORE", "prompt": 9}, format="json"
    )
    assert_error(early, 409, "prompt_closed", "prompt 9 is not open yet", "prompt 2 is open")
    assert not SealedOrder.objects.filter(prompt__number=2).exists()
    ok = clients["ann"].post(orders_url(game), {"text": "PLAY EXPLORE", "prompt": 2}, format="json")
    assert ok.status_code == 201 and ok.json()["prompt"] == 2


def test_ids_no_row_can_have_and_unknown_endpoints_are_json_404s(table, client):
    game, clients = table
    huge = "9" * 23  # beyond any 64-bit key: once an overflow in the query (500)
    # An id no row can have names no game, as any unknown id does (it was "no such API
    # endpoint": a player's journey found the two answers for one mistake).
    for method, url in (
        ("get", f"/api/games/{huge}/"),
        ("post", f"/api/games/{huge}/orders/"),
        ("get", f"/api/games/{huge}/log/"),
    ):
        data = {"text": "PASS GANDHI"} if method == "post" else {}
        answer = getattr(clients["ann"], method)(url, data, format="json")
        assert_error(answer, 404, "not_found", "no such game")
    answer = clients["ann"].get("/api/no-such-endpoint/")
    assert_error(answer, 404, "not_found", "no such api endpoint")
    # The pages answer with the site's 404 page.
    for url in (f"/games/{huge}/", f"/games/{huge}/status.json", f"/tournaments/x/rounds/{huge}/"):
        page = client.get(url)
        assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    # The largest id the URLs take still reaches the view: a JSON "no such game".
    assert_error(clients["ann"].get(f"/api/games/{'9' * 18}/"), 404, "not_found", "no such game")


def test_a_body_over_the_size_limit_is_413_and_changes_nothing(table, settings):
    game, clients = table
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    answer = clients["ann"].post(
        orders_url(game), {"text": "PASS GANDHI" + " " * 20_000}, format="json"
    )
    assert_error(answer, 413, "too_large", "10000 bytes")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_actions_without_input_refuse_a_malformed_body_and_change_nothing(table):
    game, clients = table
    created = clients["zed"].post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json")
    forming = created.json()["id"]
    assert clients["bob"].post(f"/api/games/{forming}/join/", {}, format="json").status_code == 201
    cases = [
        ("cat", f"/api/games/{game.pk}/resign/"),
        ("bob", f"/api/games/{forming}/leave/"),
        ("zed", f"/api/games/{forming}/start/"),
    ]
    for user, url in cases:
        bad = clients[user].generic("POST", url, "{bad json", content_type="application/json")
        assert_error(bad, 400, "parse_error", "json")
        odd = clients[user].generic("POST", url, "<x/>", content_type="application/xml")
        assert_error(odd, 415, "unsupported_media_type", "application/xml")
        listed = clients[user].generic("POST", url, "[1]", content_type="application/json")
        assert_error(listed, 400, "invalid")
    assert game.seats.get(name="cat").status == "active"
    forming_game = Game.objects.get(pk=forming)
    assert forming_game.status == "forming"
    assert list(forming_game.seats.values_list("user__username", flat=True)) == ["bob"]


def test_json_nested_too_deeply_is_a_parse_error(table):
    game, clients = table
    deep = "[" * 5000 + "]" * 5000
    for url in ("/api/games/", orders_url(game), f"/api/games/{game.pk}/join/"):
        answer = clients["ann"].generic("POST", url, deep, content_type="application/json")
        assert_error(answer, 400, "parse_error", "nested too deeply")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_form_encoded_options_nested_too_deeply_are_a_400(table):
    # In a form-encoded body the options field is JSON text: nested 5,000 deep, the
    # decoder's RecursionError was a 500.
    game, clients = table
    before = Game.objects.count()
    from urllib.parse import urlencode

    form = urlencode({"ruleset": "5x", "seats_count": 3, "options": "[" * 5000 + "]" * 5000})
    answer = clients["ann"].generic(
        "POST", "/api/games/", form, content_type="application/x-www-form-urlencoded"
    )
    assert_error(answer, 400, "invalid", "options")
    assert Game.objects.count() == before


def test_too_many_form_fields_is_a_400(table, settings):
    game, clients = table
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
    body = "&".join(f"a{i}=1" for i in range(200))
    answer = clients["ann"].generic(
        "POST", orders_url(game), body, content_type="application/x-www-form-urlencoded"
    )
    assert_error(answer, 400, "bad_request", "too many fields (the limit is 100)")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_the_deadline_policy_is_set_through_the_api(table):
    _game, clients = table
    body = {
        "ruleset": "6x5",
        "seats_count": 2,
        "deadline_hours": 12,
        "grace_minutes": 15,
        "quiet_hours_start": 23,
        "quiet_hours_end": 6,
        "reminder_hours": 1.5,
        "early_resolution_delay_seconds": 30,
    }
    created = clients["ann"].post("/api/games/", body, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    assert {k: data[k] for k in body if k not in ("ruleset", "seats_count")} == {
        k: v for k, v in body.items() if k not in ("ruleset", "seats_count")
    }
    game = Game.objects.get(pk=data["id"])
    assert (game.grace_minutes, game.quiet_hours_start, game.quiet_hours_end) == (15, 23, 6)
    half = clients["ann"].post("/api/games/", {**body, "quiet_hours_end": None}, format="json")
    assert_error(half, 400, "invalid", "quiet hours need both")
    late = clients["ann"].post("/api/games/", {**body, "grace_minutes": 5000}, format="json")
    assert_error(late, 400, "invalid", "grace_minutes")


def test_an_error_outside_a_drf_view_is_json_under_api_and_a_page_elsewhere(rf):
    from fivex_site.views import server_error

    api = server_error(rf.get("/api/schema/"))
    assert api.status_code == 500 and api["Content-Type"].startswith("application/json")
    assert json.loads(api.content)["error"] == "server_error"
    page = server_error(rf.get("/games/"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")


def test_unknown_endpoints_are_json_404s_with_debug_on_too(table, settings):
    """`make run` serves with DEBUG on, where Django's own 404 page would answer an
    unmatched URL: the API still answers JSON."""
    game, clients = table
    settings.DEBUG = True
    for url in ("/api/no-such-endpoint/", "/api/games/1/nope"):
        answer = clients["ann"].get(url)
        assert_error(answer, 404, "not_found", "no such api endpoint")
    assert_error(clients["ann"].get(f"/api/games/{'9' * 23}/"), 404, "not_found", "no such game")


def test_routes_answer_without_their_trailing_slash(table, client):
    """A POST to .../orders (no slash) stores the order: no redirect that drops the body,
    no APPEND_SLASH error; pages under /api/ (the docs) redirect like the rest of the site."""
    game, clients = table
    answer = clients["ann"].post(
        f"/api/games/{game.pk}/orders", {"text": "PASS GANDHI", "prompt": 1}, format="json"
    )
    assert answer.status_code == 201, answer.content
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).text == (
        "PASS GANDHI"
    )
    view = clients["ann"].get(f"/api/games/{game.pk}")
    assert view.status_code == 200 and view.json()["my_order"]["text"] == "PASS GANDHI"
    docs = client.get("/api/docs?x=1")
    assert docs.status_code == 301 and docs["Location"] == "/api/docs/?x=1"
    assert_error(client.post("/api/docs", {}), 404, "not_found", "no such api endpoint")


def test_the_schema_lists_each_route_once_with_its_slash(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    assert "/api/games/{game_id}/orders/" in paths
    assert all(p.endswith("/") for p in paths), sorted(paths)
    # An order's text must hold a character that is not white space (a blank one is a 400).
    text = schema["components"]["schemas"]["OrderInput"]["properties"]["text"]
    assert (
        text["minLength"] == 1
        and re.search(text["pattern"], "\u00a0 PASS")
        and not re.search(text["pattern"], "\u00a0 \t")
    )


def test_an_unknown_endpoint_posted_with_a_session_cookie_is_a_json_404(table):
    """Not Django's CSRF page: the catch-all changes nothing, so it needs no CSRF token."""
    from django.test import Client

    game, _clients = table
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(game.seats.get(name="ann").user)
    answer = browser.post("/api/no-such-endpoint/orders/", {"text": "PASS GANDHI"})
    assert_error(answer, 404, "not_found", "no such api endpoint")
    # A real endpoint still checks the token: DRF's JSON 403.
    refused = browser.post(f"/api/games/{game.pk}/orders/", {"text": "PASS GANDHI"})
    assert refused.status_code == 403 and "CSRF" in refused.json()["message"]
    assert refused.json()["error"] == "forbidden"  # the code the schema lists for a 403
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_api_notes_are_dropped_before_sealing(table, django_capture_on_commit_callbacks):  # noqa: F811
    import hashlib

    game, clients = table
    sent = clients["ann"].post(orders_url(game), {
        "text": "# plan: keep DIDO, bid 5 on C\r\nPASS GANDHI   # the weak one\r\n", "prompt": 1,
    }, format="json")  # fmt: skip
    assert sent.status_code == 201, sent.content
    order = SealedOrder.objects.get(seat_name="ann", is_current=True)
    assert order.text == "PASS GANDHI" == sent.json()["text"]
    assert order.commitment == hashlib.sha256(f"{order.salt}:PASS GANDHI".encode()).hexdigest()
    from games.models import LogEntry

    assert not any("DIDO, bid" in str(e.payload) for e in LogEntry.objects.filter(game=game))
    only_notes = clients["ann"].post(
        orders_url(game), {"text": "# thinking...", "prompt": 1}, format="json"
    )
    assert only_notes.status_code == 400
    assert "lines starting with # are notes" in str(only_notes.json()["fields"]["text"])
    assert SealedOrder.objects.get(seat_name="ann", is_current=True).pk == order.pk
    # A full stop or "!" at a line's end is dropped, as by email and on the web.
    stop = clients["ann"].post(
        orders_url(game), {"text": "PASS CAESAR!", "prompt": 1}, format="json"
    )
    assert stop.status_code == 201, stop.content
    assert stop.json()["text"] == "PASS CAESAR"
    assert SealedOrder.objects.get(seat_name="ann", is_current=True).text == "PASS CAESAR"
    stop_only = clients["ann"].post(orders_url(game), {"text": " . ", "prompt": 1}, format="json")
    assert stop_only.status_code == 400
    assert stop_only.json()["fields"]["text"] == ["The order is empty."]  # no word of notes
    wide = clients["ann"].post(
        orders_url(game), {"text": "ＰＡＳＳ\u00a0GAN\ufeffDHI", "prompt": 1}, format="json"
    )
    assert wide.status_code == 201, wide.content
    assert wide.json()["text"] == "PASS GANDHI"


def test_a_key_given_twice_in_one_json_object_is_a_parse_error(table):
    # {"prompt": 1, "prompt": 2}: which one the client meant is a guess; nothing is stored.
    game, clients = table
    body = '{"text": "PLAY EXPLOIT", "text": "PLAY EXPAND"}'
    answer = clients["ann"].generic("POST", orders_url(game), body, content_type="application/json")
    assert_error(answer, 400, "parse_error", "'text' appears twice")
    assert not SealedOrder.objects.filter(prompt__game=game, source="api").exists()
    # A body with nested objects and no key twice is read as before.
    nested = '{"ruleset": "5x", "seats_count": 3, "options": {"leaders": true}}'
    made = clients["ann"].generic("POST", "/api/games/", nested, content_type="application/json")
    assert made.status_code == 201, made.content


def test_a_form_body_refuses_a_field_twice_and_bytes_not_in_utf8(table):
    """Form-encoded bodies took the last of a repeated field (``prompt=7&prompt=1``: an
    order guessed onto a prompt) and read a raw byte as Latin-1; JSON refused both."""
    game, clients = table
    form = "application/x-www-form-urlencoded"
    for body, said in (
        ("text=PLAY+EXPLOIT&prompt=7&prompt=1", "'prompt' is given 2 times"),
        (b"text=PLAY+EXPL\xffOIT&prompt=1", "not valid utf-8"),
        ("text=PLAY+EXPL%FFOIT&prompt=1", "'text' is not valid utf-8"),
    ):
        answer = clients["ann"].generic("POST", orders_url(game), body, content_type=form)
        assert_error(answer, 400, "parse_error", said)
    assert not SealedOrder.objects.filter(prompt__game=game, source="api").exists()
    fine = clients["ann"].generic(
        "POST", orders_url(game), "text=PASS+GANDHI&prompt=1", content_type=form
    )
    assert fine.status_code == 201, fine.content


def test_a_json_body_takes_json_numbers_and_booleans_only(table):
    """An API audit: "prompt": "01" and "is_private": "yes" were read as 1 and true, where
    the README says nothing is guessed (a form body is text by nature: it still works)."""
    game, clients = table
    for value in ("01", " 1 ", True):
        answer = clients["ann"].post(
            orders_url(game), {"text": "PASS GANDHI", "prompt": value}, format="json"
        )
        body = assert_error(answer, 400, "invalid", "prompt")
        assert body["fields"] == {"prompt": ["Must be a number (a JSON number, not a string)."]}
    created = clients["ann"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": "3", "is_private": "yes"}, format="json"
    )
    body = assert_error(created, 400, "invalid", "seats_count")
    assert body["fields"]["is_private"] == ["Must be true or false (a JSON boolean)."]
    whole = clients["ann"].post("/api/games/", {"ruleset": "5x", "seats_count": 3.0}, format="json")
    assert assert_error(whole, 400, "invalid", "seats_count")["fields"] == {
        "seats_count": ["Must be a whole number (3, not 3.0)."]
    }
    assert not SealedOrder.objects.filter(prompt__game=game, source="api").exists()
    ok = clients["ann"].post(orders_url(game), {"text": "PASS GANDHI", "prompt": 1}, format="json")
    assert ok.status_code == 201, ok.content
    page = clients["ann"].get("/api/games/?limit=5")  # a query string is text: still read
    assert page.status_code == 200


def test_an_unknown_format_is_a_406_that_says_json_only(table):
    game, clients = table
    for url in ("/api/games/", f"/api/games/{game.pk}/"):
        answer = clients["ann"].get(url, {"format": "xml"})
        assert_error(answer, 406, "not_acceptable", "json only")
        assert clients["ann"].get(url, {"format": "json"}).status_code == 200


def test_the_schema_says_request_bodies_take_no_other_fields(client, table):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    for name in ("GameCreateInput", "JoinInput", "OrderInput"):
        assert components[name]["additionalProperties"] is False, name
    # Answers are not closed: a client must accept fields added later.
    assert "additionalProperties" not in components["Game"]
    # And the API does what the schema says: an unknown field is a 400 naming it.
    game, clients = table
    answer = clients["ann"].post(orders_url(game), {"text": "PLAY EXPLOIT", "x": 1}, format="json")
    assert_error(answer, 400, "invalid", "x: unknown field")


def test_the_schema_speaks_to_bot_authors(client, table):
    """From a bot author's walk: request bodies are documented as JSON only (a generated
    client sent forms that could not carry options), inputs have their own descriptions,
    the error codes are listed, a retried order is a 200, a cut list of legal orders says
    so, and the deadline takes fractions of an hour."""
    from games.views.common import legal_orders_complete

    schema = client.get("/api/schema/", {"format": "json"}).json()
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if isinstance(op, dict) and "requestBody" in op:
                assert list(op["requestBody"]["content"]) == ["application/json"], (path, method)
    components = schema["components"]["schemas"]
    assert "misspelt" not in str(components)
    for code in ("prompt_closed", "order_refused", "not_your_turn", "throttled"):
        assert code in components["Error"]["properties"]["error"]["description"]
    assert "legal_orders_complete" in components["SeatView"]["required"]
    # OpenAPI 3.1: a field that may be null says so as validators read it (3.0's
    # "allOf + nullable" made strict validators refuse every null prompt and my_order).
    assert schema["openapi"].startswith("3.1")
    for field in ("prompt", "my_order"):
        assert {"type": "null"} in components["SeatView"]["properties"][field]["oneOf"], field
    orders = schema["paths"]["/api/games/{game_id}/orders/"]["post"]["responses"]
    assert {"200", "201"} <= set(orders)
    assert not legal_orders_complete("4x-dice", ["x"] * 1000)
    assert legal_orders_complete("4x-dice", ["x"] * 999) and legal_orders_complete(
        "6x5", ["x"] * 5000
    )
    game, clients = table
    view = clients["ann"].get(f"/api/games/{game.pk}/").json()
    assert view["legal_orders_complete"] is True and view["legal_orders"]
    made = clients["ann"].post("/api/games/", {"ruleset": "6x5", "seats_count": 2,
                                               "deadline_hours": 1.5}, format="json")  # fmt: skip
    assert made.status_code == 201 and made.json()["deadline_hours"] == 1.5


def test_the_api_lists_the_rulesets_with_their_options(client):
    """From a bot author's walk: the games and their options were learnt from a 400."""
    answer = client.get("/api/rulesets/")
    assert answer.status_code == 200
    rulesets = {r["id"]: r for r in answer.json()}
    assert set(rulesets) == {"5x", "4x-dice", "6x5"}
    assert rulesets["5x"]["players"] == [3, 6] and rulesets["6x5"]["players"] == [2, 5]
    dice = next(o for o in rulesets["4x-dice"]["options"] if o["name"] == "dice")
    assert (dice["default"], dice["choices"]) == (3, [2, 3, 4])
    assert rulesets["6x5"]["rules_url"].endswith("/games/rules/6x5/")
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "/api/rulesets/" in schema["paths"]


def test_created_answers_say_where_the_game_is(table, settings):
    """A 201 carries ``Location`` (RFC 9110): the game's API address at the public base,
    which a client GETs next; a replayed join or order (200) has none."""
    settings.FIVEX_BASE_URL = "https://play.example.org"
    game, clients = table
    made = clients["bob"].post("/api/games/", {"ruleset": "5x", "seats_count": 3}, format="json")
    assert made.status_code == 201
    new_id = made.json()["id"]
    assert made["Location"] == f"https://play.example.org/api/games/{new_id}/"
    assert clients["bob"].get(made["Location"].removeprefix("https://play.example.org")).json()[
        "game"]["id"] == new_id  # fmt: skip
    joined = clients["cat"].post(f"/api/games/{new_id}/join/", {}, format="json")
    assert joined.status_code == 201
    assert joined["Location"] == f"https://play.example.org/api/games/{new_id}/"
    again = clients["cat"].post(f"/api/games/{new_id}/join/", {}, format="json")
    assert again.status_code == 200 and "Location" not in again
    view = clients["ann"].get(f"/api/games/{game.pk}/").json()
    text = view["legal_orders"][0]
    order = clients["ann"].post(orders_url(game), {"text": text}, format="json")
    assert order.status_code == 201, order.content
    assert order["Location"] == f"https://play.example.org/api/games/{game.pk}/"
    replay = clients["ann"].post(orders_url(game), {"text": text}, format="json")
    assert replay.status_code == 200 and "Location" not in replay
    schema = clients["ann"].get("/api/schema/", {"format": "json"}).json()["paths"]
    for path in ("/api/games/", "/api/games/{game_id}/join/", "/api/games/{game_id}/orders/"):
        assert "Location" in schema[path]["post"]["responses"]["201"]["headers"], path


def test_gets_carry_an_etag_and_answer_304_when_nothing_changed(table):
    """A bot polling its seat view or the log downloaded it whole every time."""
    game, clients = table
    ann = clients["ann"]
    for url in (f"/api/games/{game.pk}/", f"/api/games/{game.pk}/log/"):
        first = ann.get(url)
        etag = first["ETag"]
        assert first.status_code == 200 and etag.startswith('"') and len(etag) == 26
        same = ann.get(url, HTTP_IF_NONE_MATCH=etag)
        assert same.status_code == 304 and same.content == b"" and same["ETag"] == etag
        assert same["Cache-Control"] == "private, no-store"
        assert ann.get(url, HTTP_IF_NONE_MATCH='"other", W/' + etag).status_code == 304
        assert ann.get(url, HTTP_IF_NONE_MATCH='"stale"').status_code == 200
        assert ann.get(url, HTTP_IF_NONE_MATCH="*").status_code == 304  # RFC 9110: any tag
    view = ann.get(f"/api/games/{game.pk}/")
    answered = ann.post(orders_url(game), {"text": "PASS GANDHI", "prompt": 1}, format="json")
    assert answered.status_code == 201
    again = ann.get(f"/api/games/{game.pk}/", HTTP_IF_NONE_MATCH=view["ETag"])
    assert again.status_code == 200 and again["ETag"] != view["ETag"]  # her order is in it now
    # Another seat's tag is of its own view: never a 304 for ann's.
    bob = clients["bob"].get(f"/api/games/{game.pk}/")
    assert ann.get(f"/api/games/{game.pk}/", HTTP_IF_NONE_MATCH=bob["ETag"]).status_code == 200
    assert "ETag" not in clients["ann"].get("/api/ping/")  # the benchmark's ceiling, as it was
    # The schema says so (an API audit: no operation named the ETag, the 304 or the header).
    paths = clients["ann"].get("/api/schema/", {"format": "json"}).json()["paths"]
    for route in ("/api/games/{game_id}/", "/api/games/{game_id}/log/", "/api/tournaments/"):
        get = paths[route]["get"]
        assert "If-None-Match" in [p["name"] for p in get["parameters"] if p["in"] == "header"], (
            route
        )
        assert "ETag" in get["responses"]["200"]["headers"] and "304" in get["responses"], route
        assert "Retry-After" in get["responses"]["503"]["headers"], route
    assert "304" not in paths["/api/ping/"]["get"]["responses"]
    assert "503" in paths["/api/games/{game_id}/orders/"]["post"]["responses"]


def test_public_lists_refuse_a_query_parameter_they_do_not_take(table):
    """An API audit: /api/rulesets/?limt=1 and /api/ratings/?limit=1 answered 200 as if
    the parameter had worked."""
    _game, clients = table
    for url in ("/api/rulesets/?limt=1", "/api/ratings/?limit=1"):
        answer = clients["ann"].get(url)
        assert answer.status_code == 400, url
        assert answer.json()["fields"] == {
            url.split("?")[1].split("=")[0]: [
                "Unknown query parameter (this operation takes none)."
            ]
        }, url


def test_the_rulesets_give_the_sites_own_bounds_of_an_option(table):
    """An API audit: 6x5's max_turns listed no maximum, and 2000 was refused."""
    _game, clients = table
    rulesets = {r["id"]: r for r in clients["ann"].get("/api/rulesets/").json()}
    options = {o["name"]: o for o in rulesets["6x5"]["options"]}
    assert (options["max_turns"]["maximum"], options["target"]["maximum"]) == (1000, 33)


def test_a_get_that_takes_no_query_parameters_refuses_one(table):
    """The list and the log refused an unknown parameter; the seat view and the export
    ignored one (a misspelt parameter looked as if it had worked)."""
    game, clients = table
    for url in (f"/api/games/{game.pk}/", f"/api/games/{game.pk}/export/"):
        answer = clients["ann"].get(url, {"limt": "5"})
        assert_error(answer, 400, "invalid", "unknown query parameter")
        assert answer.json()["fields"] == {
            "limt": ["Unknown query parameter (this operation takes none)."]
        }
    assert clients["ann"].get(f"/api/games/{game.pk}/", {"format": "json"}).status_code == 200


def test_a_refusal_naming_foreign_letters_is_two_sentences(table):
    """The engine's reason has no full stop of its own; the hint about letters outside A
    to Z ran on after it ("... ELIZABETH or GENGHIS Orders are written ...")."""
    game, clients = table
    refused = clients["ann"].post(
        orders_url(game), {"text": "PASS G\u0410NDHI", "prompt": 1}, format="json"
    )
    assert refused.status_code == 422
    message = refused.json()["message"]
    assert re.search(r"[A-Z]\. Orders are written with the letters A to Z", message), message
    assert "U+0410" in message


def test_the_receipt_says_how_the_order_was_read(table):
    """As the game page and the email confirmation do ("Understood as"): a player's
    journey found the API receipt giving the text as typed only."""
    game, clients = table
    url = f"/api/games/{game.pk}/orders/"
    typed = clients["ann"].post(
        url, {"text": "  pass   gandhi  # keep Caesar", "prompt": 1}, format="json"
    )
    assert typed.status_code == 201, typed.content
    assert typed.json()["understood_as"] == "PASS GANDHI"
    again = clients["ann"].post(
        url, {"text": "  pass   gandhi  # keep Caesar", "prompt": 1}, format="json"
    )
    assert again.status_code == 200 and again.json()["understood_as"] == "PASS GANDHI"
    # The same order written as the legal orders are: the rules read it the same, so the
    # order sealed first stands (200), and its receipt says how that text was read.
    same = clients["ann"].post(url, {"text": "PASS GANDHI", "prompt": 1}, format="json")
    assert same.status_code == 200 and same.json()["understood_as"] == "PASS GANDHI"
    plain = clients["ann"].post(url, {"text": "PASS CAESAR", "prompt": 1}, format="json")
    assert plain.status_code == 201 and plain.json()["understood_as"] == ""


def test_the_schema_states_the_rules_between_fields_and_of_whole_numbers(client, table):
    """An API audit (schemathesis): rules the API enforces were in no description: the
    seats of each ruleset, quiet hours both or neither and different, confirm true only,
    and a whole number refused as 3.0 (which OpenAPI 3.1 counts an integer)."""
    import jsonschema

    game, clients = table
    ann = clients["ann"]
    components = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    create = components["GameCreateInput"]["properties"]
    seats = create["seats_count"]["description"]
    for ruleset in client.get("/api/rulesets/").json():
        low, high = ruleset["players"]
        assert f"{ruleset['id']}: {low} to {high}" in seats, (ruleset, seats)
        for count, ok in ((low - 1, False), (low, True), (high + 1, False)):
            made = ann.post(
                "/api/games/", {"ruleset": ruleset["id"], "seats_count": count}, format="json"
            )
            assert (made.status_code == 201) is ok, (ruleset["id"], count, made.content)
    for name in ("quiet_hours_start", "quiet_hours_end"):
        text = create[name]["description"]
        assert "both" in text and "neither" in text and "same hour" in text, text
    for hours in ({"quiet_hours_start": 22}, {"quiet_hours_start": 22, "quiet_hours_end": 22}):
        made = ann.post("/api/games/", {"ruleset": "5x", "seats_count": 3, **hours}, format="json")
        assert_error(made, 400, "invalid", "quiet hours")
    for name in ("EndInput", "ReplaceInput"):
        confirm = components[name]["properties"]["confirm"]
        assert confirm["type"] == "boolean" and "true" in confirm["description"].lower(), name
        jsonschema.Draft202012Validator(confirm).validate(True)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(confirm).validate(False)
    ended = ann.post(f"/api/games/{game.pk}/end/", {"confirm": False}, format="json")
    assert_error(ended, 400, "invalid", "confirm")
    # Every input with a whole number says 3.0 is refused, and the API refuses it.
    whole = [name for name, c in components.items() if name.endswith("Input")
             and any(p.get("type") == "integer" for p in c.get("properties", {}).values())]  # fmt: skip
    assert {"GameCreateInput", "OrderInput", "ExtendInput"} <= set(whole)
    for name in whole:
        assert "3.0" in components[name]["description"], name
    extended = ann.post(f"/api/games/{game.pk}/extend/", {"hours": 2.0}, format="json")
    assert_error(extended, 400, "invalid", "hours", "3.0")


def test_a_refusal_of_several_fields_is_one_sentence_without_a_doubled_stop(table):
    # Regression (API fuzzing): the fields' messages were joined as "...(3, not 3.0).;
    # grace_minutes: ...", a doubled '.;' in every refusal of more than one field.
    game, clients = table
    answer = clients["ann"].post(
        "/api/games/", {"ruleset": "5x", "seats_count": 3.0, "grace_minutes": 1.0}, format="json"
    )
    body = assert_error(answer, 400, "invalid")
    assert body["message"] == (
        "seats_count: Must be a whole number (3, not 3.0); "
        "grace_minutes: Must be a whole number (3, not 3.0)."
    )
    assert body["fields"]["seats_count"] == ["Must be a whole number (3, not 3.0)."]
