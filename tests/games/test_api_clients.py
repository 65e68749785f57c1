"""What a bot author meets: lists a page at a time, strict inputs, rate limits, one date
format, answers that are never cached and always JSON."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Game, SealedOrder
from games.services import games as game_services
from tests.games.test_api_errors import assert_error, orders_url, table  # noqa: F401
from tests.games.web_support import eager_celery, make_user, token_client  # noqa: F401

pytestmark = pytest.mark.django_db


def _link(response, rel: str) -> str | None:
    for part in response.get("Link", "").split(","):
        found = re.match(r'\s*<([^>]+)>;\s*rel="([^"]+)"', part)
        if found and found.group(2) == rel:
            return found.group(1)
    return None


def test_my_games_come_a_page_at_a_time_with_the_total_and_links() -> None:
    user = make_user("pat")
    client = token_client(user)
    created = [
        game_services.game_create(organizer=user, ruleset="6x5", seats_count=2).pk
        for _ in range(7)
    ]
    newest_first = created[::-1]
    first = client.get("/api/games/?limit=3")
    assert first.status_code == 200
    assert [g["id"] for g in first.json()] == newest_first[:3]
    assert first["X-Total-Count"] == "7"
    assert _link(first, "prev") is None
    seen = [g["id"] for g in first.json()]
    url = _link(first, "next")
    while url:
        page = client.get(url)
        assert page.status_code == 200 and page["X-Total-Count"] == "7"
        seen += [g["id"] for g in page.json()]
        url = _link(page, "next")
    assert seen == newest_first  # every game once, in order
    last = client.get("/api/games/?limit=3&offset=6")
    assert [g["id"] for g in last.json()] == newest_first[6:]
    assert "offset=3" in _link(last, "prev")
    # Without parameters: the first 100, no link needed here.
    plain = client.get("/api/games/")
    assert len(plain.json()) == 7 and "Link" not in plain


def test_my_games_filter_by_status_and_by_order_needed(table) -> None:  # noqa: F811
    game, clients = table
    forming = game_services.game_create(
        organizer=Game.objects.get(pk=game.pk).organizer, ruleset="5x", seats_count=3
    )
    ann = clients["ann"]
    assert {g["id"] for g in ann.get("/api/games/").json()} == {game.pk, forming.pk}
    assert [g["id"] for g in ann.get("/api/games/?status=active").json()] == [game.pk]
    assert [g["id"] for g in ann.get("/api/games/?status=forming").json()] == [forming.pk]
    # Every seat owes the first prompt's order: ann's one running game needs it ...
    needed = ann.get("/api/games/?order_needed=true")
    assert [g["id"] for g in needed.json()] == [game.pk] and needed["X-Total-Count"] == "1"
    # ... by the deadline the seat view gives (which game next: one request, not one a game).
    view = ann.get(f"/api/games/{game.pk}/").json()
    assert needed.json()[0]["order_deadline"] == view["prompt"]["deadline"] is not None
    assert ann.get("/api/games/?status=forming").json()[0]["order_deadline"] is None
    assert [g["id"] for g in ann.get("/api/games/?order_needed=false").json()] == [forming.pk]
    # ... until she orders.
    assert ann.post(orders_url(game), {"text": "PASS GANDHI", "prompt": 1}, format="json").status_code == 201
    assert ann.get("/api/games/?order_needed=true").json() == []
    assert ann.get("/api/games/?order_needed=true")["X-Total-Count"] == "0"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("page=2", "page"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("offset=-1", "offset"),
        ("status=asleep", "status"),
        ("order_needed=maybe", "order_needed"),
    ],
)
def test_a_list_query_it_does_not_understand_is_a_400_naming_it(query: str, field: str) -> None:
    client = token_client(make_user("pat"))
    body = assert_error(client.get(f"/api/games/?{query}"), 400, "invalid", field)
    assert field in body["fields"]


def test_open_games_come_a_page_at_a_time() -> None:
    organizer = make_user("org")
    made = [
        game_services.game_create(organizer=organizer, ruleset="6x5", seats_count=2).pk
        for _ in range(5)
    ]
    client = token_client(make_user("pat"))
    first = client.get("/api/games/open/?limit=2")
    assert [g["id"] for g in first.json()] == made[::-1][:2]
    assert first["X-Total-Count"] == "5"
    assert "offset=2" in _link(first, "next")
    assert_error(client.get("/api/games/open/?status=forming"), 400, "invalid", "status")


def test_seat_lists_show_who_holds_each_seat_now(table) -> None:  # noqa: F811
    from games.services import handover

    game, clients = table
    dan = make_user("dan")
    handover.seat_replace(
        seat=game.seats.get(name="bob"), new_user=dan, by=game.organizer
    )
    listed = {g["id"]: g for g in clients["ann"].get("/api/games/").json()}[game.pk]
    assert [(s["name"], s["user"], s["status"]) for s in listed["seats"]] == [
        (s.name, s.user.username, s.status)
        for s in game.seats.exclude(status="replaced").order_by("position")
    ]
    assert len(listed["seats"]) == 3
    assert ("bob", "dan", "active") in [(s["name"], s["user"], s["status"]) for s in listed["seats"]]


def test_unknown_fields_are_refused_and_nothing_is_stored(table) -> None:  # noqa: F811
    game, clients = table
    ann = clients["ann"]
    misspelt = ann.post(orders_url(game), {"text": "PASS GANDHI", "promt": 1}, format="json")
    body = assert_error(misspelt, 400, "invalid", "promt", "unknown field")
    assert "prompt" in body["message"] and "text" in body["message"]
    other_seat = ann.post(orders_url(game), {"text": "PASS GANDHI", "seat": "bob"}, format="json")
    assert_error(other_seat, 400, "invalid", "seat")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()
    assert_error(
        ann.post("/api/games/", {"ruleset": "5x", "seats_count": 3, "seed": 4}, format="json"),
        400,
        "invalid",
        "seed",
    )
    assert_error(ann.post(f"/api/games/{game.pk}/start/", {"now": True}, format="json"), 400, "invalid", "now")
    assert Game.objects.count() == 1


def test_an_order_text_must_be_a_string_of_real_text(table) -> None:  # noqa: F811
    game, clients = table
    for text in (5, 1.5, True, ["PASS GANDHI"]):
        answer = clients["ann"].post(orders_url(game), {"text": text}, format="json")
        assert_error(answer, 400, "invalid", "text")
    surrogate = clients["ann"].post(
        orders_url(game),
        b'{"text": "PASS \\ud800"}',
        content_type="application/json",
    )
    assert_error(surrogate, 400, "invalid", "surrogate")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_a_form_encoded_create_takes_its_options_as_json_text() -> None:
    client = token_client(make_user("pat"))
    def form(data: dict) -> object:
        return client.post(
            "/api/games/", urlencode(data), content_type="application/x-www-form-urlencoded"
        )

    made = form({"ruleset": "6x5", "seats_count": "2", "options": '{"goals": 2}'})
    assert made.status_code == 201, made.content
    assert made.json()["options"]["goals"] == 2
    bad = form({"ruleset": "6x5", "seats_count": "2", "options": "goals=2"})
    assert_error(bad, 400, "invalid", "options", "JSON object")
    assert Game.objects.count() == 1


def test_a_file_upload_is_refused_before_it_is_read(table) -> None:  # noqa: F811
    game, clients = table
    answer = clients["ann"].post(
        orders_url(game),
        {"text": "PASS GANDHI", "file": SimpleUploadedFile("x.bin", b"x" * 1000)},
        format="multipart",
    )
    assert_error(answer, 415, "unsupported_media_type", "multipart")
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_errors_are_json_whatever_the_client_accepts(table) -> None:  # noqa: F811
    game, clients = table
    answer = clients["zed"].get("/api/games/999999/", HTTP_ACCEPT="text/html")
    assert_error(answer, 404, "not_found")
    anonymous = clients["zed"].__class__().get("/api/games/", HTTP_ACCEPT="text/html")
    assert_error(anonymous, 401, "not_authenticated")


def test_answers_about_a_seat_are_never_cached(table) -> None:  # noqa: F811
    game, clients = table
    for url in (f"/api/games/{game.pk}/", f"/api/games/{game.pk}/log/", "/api/games/"):
        answer = clients["ann"].get(url)
        assert answer.status_code == 200
        assert answer["Cache-Control"] == "private, no-store", url
    refused = clients["ann"].post(orders_url(game), {"text": "DANCE"}, format="json")
    assert refused["Cache-Control"] == "private, no-store"


def test_every_moment_is_written_the_same_way(table) -> None:  # noqa: F811
    game, clients = table
    receipt = clients["ann"].post(orders_url(game), {"text": "PASS GANDHI", "prompt": 1}, format="json")
    assert receipt.status_code == 201
    view = clients["ann"].get(f"/api/games/{game.pk}/").json()
    assert view["my_order"]["submitted_at"] == receipt.json()["submitted_at"]
    iso_z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"
    assert re.match(iso_z, receipt.json()["submitted_at"])
    assert re.match(iso_z, view["prompt"]["deadline"])
    listed = {g["id"]: g for g in clients["ann"].get("/api/games/").json()}[game.pk]
    assert re.match(iso_z, listed["started_at"])


def test_orders_are_rate_limited_per_user(table, settings) -> None:  # noqa: F811
    game, clients = table
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"orders": "3/min", "games_create": "2/hour"},
    }
    texts = ["PASS GANDHI", "PASS CAESAR", "PASS GANDHI"]
    for left, text in zip((2, 1, 0), texts, strict=True):
        answer = clients["ann"].post(orders_url(game), {"text": text}, format="json")
        assert answer.status_code == 201
        # The limit is told before it is met (RateLimit-* headers).
        assert (answer["RateLimit-Limit"], answer["RateLimit-Remaining"]) == ("3", str(left))
        assert 0 < int(answer["RateLimit-Reset"]) <= 60
    fourth = clients["ann"].post(orders_url(game), {"text": "PASS CAESAR"}, format="json")
    assert_error(fourth, 429, "throttled")
    assert 0 < int(fourth["Retry-After"]) <= 60
    assert (fourth["RateLimit-Limit"], fourth["RateLimit-Remaining"]) == ("3", "0")
    assert "RateLimit-Limit" not in clients["ann"].get(f"/api/games/{game.pk}/")  # GETs cost nothing
    current = SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True)
    assert current.text == "PASS GANDHI"  # the refused fourth changed nothing
    # Per user: bob is not held back by ann's orders.
    assert clients["bob"].post(orders_url(game), {"text": "PASS QIN"}, format="json").status_code == 201
    # Creating games has its own limit; listing them has none.
    for _ in range(2):
        made = clients["zed"].post("/api/games/", {"ruleset": "6x5", "seats_count": 2}, format="json")
        assert made.status_code == 201
    assert_error(
        clients["zed"].post("/api/games/", {"ruleset": "6x5", "seats_count": 2}, format="json"),
        429,
        "throttled",
    )
    for _ in range(3):
        assert clients["zed"].get("/api/games/").status_code == 200


def test_list_links_use_the_sites_address_and_prev_past_the_end_is_the_last_page(settings) -> None:
    settings.FIVEX_BASE_URL = "https://fivex.example.org"
    user = make_user("pat")
    for _ in range(5):
        game_services.game_create(organizer=user, ruleset="6x5", seats_count=2)
    client = token_client(user)
    page = client.get("/api/games/?limit=2&status=forming")
    nxt = _link(page, "next")
    assert nxt.startswith("https://fivex.example.org/api/games/?")
    assert "status=forming" in nxt and "offset=2" in nxt
    beyond = client.get("/api/games/?limit=2&offset=40")
    assert beyond.json() == [] and "offset=3" in _link(beyond, "prev")
    assert_error(client.get("/api/games/?offset=99999999999999999999"), 400, "invalid", "offset")


def test_only_posts_count_against_the_rate_limits(table, settings) -> None:  # noqa: F811
    game, clients = table
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"orders": "2/min", "games_create": "2/hour"},
    }
    for _ in range(5):
        assert clients["ann"].options(orders_url(game)).status_code == 200
    for text in ("PASS GANDHI", "PASS CAESAR"):
        assert clients["ann"].post(orders_url(game), {"text": text}, format="json").status_code == 201
    assert_error(clients["ann"].post(orders_url(game), {"text": "PASS GANDHI"}, format="json"), 429, "throttled")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "5x", "seats_count": 3, "quiet_hours_start": 5}, "quiet_hours_end"),
        ({"ruleset": "5x", "seats_count": 3, "quiet_hours_start": 5, "quiet_hours_end": 5},
         "quiet_hours_end"),
        ({"ruleset": "6x5", "seats_count": 2, "options": {"max_turns": 1001}}, "options"),
        ({"ruleset": "6x5", "seats_count": 2, "options": {"target": 34}}, "options"),
    ],
)
def test_a_refused_game_names_the_field(body: dict, field: str) -> None:
    client = token_client(make_user("pat"))
    refused = assert_error(client.post("/api/games/", body, format="json"), 400, "invalid")
    assert field in refused["fields"]
    assert not Game.objects.exists()
