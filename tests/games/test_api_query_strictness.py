"""Query strings are as strict as bodies (a bad-input audit): an operation that takes no
query parameter refuses one, whatever its method."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from games.models import SealedOrder
from tests.games.test_api_errors import assert_error, orders_url, table  # noqa: F401
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db

UNKNOWN = ["Unknown query parameter (this operation takes none)."]


def test_a_post_refuses_query_parameters_it_does_not_take(table):  # noqa: F811
    """Regression: a POST ignored its query string, a stale-prompt guard in it included
    (``orders/?prompt=2&bogus=1`` stored the order on prompt 1; ``extend/?extensions=0``
    extended again)."""
    game, clients = table
    answer = clients["ann"].post(
        orders_url(game) + "?prompt=2&bogus=1", {"text": "PASS GANDHI"}, format="json"
    )
    body = assert_error(answer, 400, "invalid", "unknown query parameter")
    assert body["fields"] == {"bogus": UNKNOWN, "prompt": UNKNOWN}
    assert not SealedOrder.objects.filter(prompt__game=game).exists()

    deadline = game.prompts.get(number=1).deadline
    extend = clients["ann"].post(
        f"/api/games/{game.pk}/extend/?prompt=1&extensions=0", {"hours": 1}, format="json"
    )
    assert_error(extend, 400, "invalid", "unknown query parameter")
    assert game.prompts.get(number=1).deadline == deadline
    # ?format=json is still taken, as on a GET.
    ordered = clients["ann"].post(
        orders_url(game) + "?format=json", {"text": "PASS GANDHI"}, format="json"
    )
    assert ordered.status_code == 201, ordered.content


def test_every_operation_in_the_schema_refuses_an_unknown_query_parameter(table):  # noqa: F811
    """Regression: only the GETs checked their query string. Every operation, whatever its
    method, answers an unknown parameter with a 400 naming it, and the schema lists that
    400 for each."""
    game, clients = table
    client = clients["ann"]
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    values = {"game_id": game.pk, "position": 1, "offer_id": 1, "slug": "none", "pool": "none", "number": 1,
              "player": "none", "table": 1, "name": "nobody"}
    seen = 0
    for route, operations in paths.items():
        url = re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), route)
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            answer = getattr(client, method)(url + "?bogus=1", {}, format="json") if method != "get" \
                else client.get(url + "?bogus=1")  # fmt: skip
            assert answer.status_code == 400, (method, route, answer.status_code, answer.content)
            assert "bogus" in answer.json()["fields"], (method, route, answer.content)
            assert "400" in operation["responses"], (method, route)
            seen += 1
    assert seen >= 30
    # Anonymous callers of the public reads are refused alike.
    anonymous = token_client(make_user("anon"))
    anonymous.credentials()
    for url in ("/api/ping/", "/api/rulesets/", "/api/tournaments/none/"):
        assert anonymous.get(url + "?bogus=1").status_code == 400, url


def test_a_query_parameter_given_twice_is_refused_not_the_last_taken(table):  # noqa: F811
    """Regression: ``?status=active&status=finished`` listed the finished games only and
    ``limit=3&limit=5`` gave 5, as a JSON key or a form field given twice is a 400."""
    game, clients = table
    client = clients["ann"]
    for url in ("/api/games/?status=active&status=finished", "/api/games/?limit=3&limit=5",
                "/api/games/open/?offset=0&offset=1", f"/api/games/{game.pk}/log/?after=1&after=2",
                "/api/tournaments/?limit=1&limit=2", "/api/ratings/5x/?limit=1&limit=2",
                "/api/ping/?format=json&format=json"):  # fmt: skip
        answer = client.get(url)
        body = assert_error(answer, 400, "invalid", "given 2 times")
        name = url.split("?")[1].split("=")[0]
        assert list(body["fields"]) == [name], (url, body)
    assert client.get("/api/games/?status=active&limit=3").status_code == 200


@pytest.mark.parametrize(
    "value", ["5.0", "\u0661\u0662", "\uff15", " 5", "5_0", "+5", "0x5", "5e0"]
)
def test_a_whole_number_in_a_query_is_ascii_digits_only(table, value):  # noqa: F811
    """Regression: ``limit=5.0``, Arabic-Indic ``١٢`` and full-width ``５`` were read as
    numbers (int() takes any Unicode digit; DRF drops a ``.0``), where JSON's 1.0 is
    refused as not a whole number."""
    game, clients = table
    client = clients["ann"]
    for url in (
        "/api/games/",
        "/api/games/open/",
        f"/api/games/{game.pk}/log/",
        "/api/tournaments/",
    ):
        body = assert_error(client.get(url, {"limit": value}), 400, "invalid", "whole number")
        assert list(body["fields"]) == ["limit"], (url, body)
    assert client.get("/api/games/", {"limit": "5"}).status_code == 200
    assert_error(client.get("/api/games/", {"limit": "-1"}), 400, "invalid", "greater than")


def test_a_whole_number_in_a_form_body_is_ascii_digits_only(table):  # noqa: F811
    """Regression: a form body is text as a query string is, and its ``prompt=١`` (an
    Arabic-Indic one) or ``prompt=1.0`` guarded the order as prompt 1."""
    from urllib.parse import urlencode

    game, clients = table
    for prompt in ("\u0661", "1.0", "\uff11"):
        answer = clients["ann"].post(
            orders_url(game), urlencode({"text": "PASS GANDHI", "prompt": prompt}),
            content_type="application/x-www-form-urlencoded",
        )  # fmt: skip
        body = assert_error(answer, 400, "invalid", "whole number")
        assert list(body["fields"]) == ["prompt"]
    assert not SealedOrder.objects.filter(prompt__game=game).exists()
    taken = clients["ann"].post(orders_url(game), urlencode({"text": "PASS GANDHI", "prompt": "1"}),
                                content_type="application/x-www-form-urlencoded")  # fmt: skip
    assert taken.status_code == 201, taken.content


def test_a_method_an_operation_lacks_is_a_405_whatever_the_query(table):  # noqa: F811
    """An API audit (schemathesis): ``TRACE /api/tournaments/?limit=1`` answered 400 "this
    operation takes none" (the GET takes limit); without the query it was a 405. The
    method is checked first, on every route, for a player and for anyone."""
    from rest_framework.test import APIClient

    game, clients = table
    client = clients["ann"]
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    values = {"game_id": game.pk, "position": 1, "offer_id": 1, "slug": "none", "pool": "none", "number": 1,
              "player": "none", "table": 1, "name": "nobody"}
    seen = 0
    for route, operations in paths.items():
        url = re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), route)
        for method in ("get", "post", "put", "patch", "delete", "trace"):
            if method in operations:
                continue
            answer = client.generic(method.upper(), url + "?limit=1&bogus=1")
            body = assert_error(answer, 405, "method_not_allowed")
            assert "query" not in body["message"].lower(), (method, route, body)
            assert method.upper() not in answer["Allow"], (method, route)
            seen += 1
    assert seen > 50
    anyone = APIClient().generic("TRACE", "/api/tournaments/?limit=1&offset=0")
    assert_error(anyone, 405, "method_not_allowed")
    assert "GET" in anyone["Allow"]
    # A method the route has still refuses a parameter it does not take.
    assert_error(client.delete("/api/tournaments/?limit=1"), 405, "method_not_allowed")
    assert_error(client.get(f"/api/games/{game.pk}/?limit=1"), 400, "invalid", "unknown query")


def test_every_operation_declares_format_json_and_answers_406_to_another(table):  # noqa: F811
    """An API audit (schemathesis): ``?format=`` was taken by every operation and in none's
    parameters, and its 406 (``format=xml``) was declared nowhere. Each operation declares
    both, and answers so."""
    game, clients = table
    client = clients["ann"]
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    values = {"game_id": game.pk, "position": 1, "offer_id": 1, "slug": "none", "pool": "none", "number": 1,
              "player": "none", "table": 1, "name": "nobody"}
    seen = 0
    for route, operations in paths.items():
        url = re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), route)
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            (param,) = [
                p for p in operation["parameters"] if p["in"] == "query" and p["name"] == "format"
            ]
            assert param["schema"] == {"type": "string", "enum": ["json"]}, (method, route)
            assert not param.get("required"), (method, route)
            declared = operation["responses"]["406"]
            assert declared["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }, (method, route)
            answer = client.generic(method.upper(), url + "?format=xml")
            assert_error(answer, 406, "not_acceptable", "json only")
            if method == "get":
                assert client.get(url + "?format=json").status_code not in (400, 406), (
                    method,
                    route,
                )
            seen += 1
    assert seen > 30


def test_a_long_whole_number_in_a_query_or_form_is_told_its_bounds(table):  # noqa: F811
    """Regression (schemathesis, bench/fuzz_api.py): a number of more than 18 digits in a
    query or a form was told "Must be a whole number, in the digits 0-9", though it is
    one; talk's ``after`` up to 2**62 (19 digits, the schema's maximum) was refused so."""
    game, clients = table
    client = clients["ann"]
    talk = f"/api/games/{game.pk}/talk/"
    assert client.get(talk, {"after": str(2**62)}).status_code == 200
    body = assert_error(client.get(talk, {"after": str(2**62 + 1)}), 400, "invalid")
    assert body["fields"] == {
        "after": ["Ensure this value is less than or equal to 4611686018427387904."]
    }
    body = assert_error(
        client.get(talk, {"after": "1" * 40}), 400, "invalid", "from 0 to 4611686018427387904"
    )
    body = assert_error(
        client.get(f"/api/games/{game.pk}/log/", {"after": "12345678901234567890"}), 400, "invalid"
    )
    assert body["fields"] == {"after": ["Must be a whole number from 0 to 1000000000."]}
    form = client.post(
        orders_url(game),
        urlencode({"text": "PASS GANDHI", "prompt": "9" * 30}),
        content_type="application/x-www-form-urlencoded",
    )
    body = assert_error(form, 400, "invalid", "at most 19 digits")
    assert list(body["fields"]) == ["prompt"]
    assert not SealedOrder.objects.filter(prompt__game=game).exists()


def test_an_empty_format_is_a_406_and_changes_nothing(table):  # noqa: F811
    """Regression (schemathesis, bench/fuzz_api.py): ``?format=`` with no value was taken
    as no format at all, though the schema's ``format`` is ``json`` only and the README
    says any other is a 406: a talk message was posted, a GET answered 200."""
    game, clients = table
    client = clients["ann"]
    before = client.get(f"/api/games/{game.pk}/talk/").json()
    posted = client.post(f"/api/games/{game.pk}/talk/?format=", {"text": "hello"}, format="json")
    assert_error(posted, 406, "not_acceptable", "json only")
    assert client.get(f"/api/games/{game.pk}/talk/").json() == before
    for url in ("/api/ping/", "/api/rulesets/", "/api/tournaments/", f"/api/games/{game.pk}/"):
        assert_error(client.get(url + "?format="), 406, "not_acceptable", "json only")
    assert_error(APIClient().get("/api/ping/?format="), 406, "not_acceptable", "json only")


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "no",
        "on",
        "off",
        "t",
        "f",
        "Y",
        "",
        "null",
        "maybe",
        " true",
        "true ",
        "2",
        "-1",
        "01",
    ],
)
def test_a_boolean_in_a_query_is_true_or_false_only(table, value):  # noqa: F811
    """Regression: ``?order_needed=`` took DRF's loose spellings (``yes``, ``on``, ``t``,
    ``y``...) and ``order_needed=`` or ``=null`` were silently no filter at all; only a
    word DRF did not know was refused, without saying what is taken."""
    game, clients = table
    body = assert_error(
        clients["ann"].get("/api/games/", {"order_needed": value}), 400, "invalid",
        "order_needed: Must be true or false (1 or 0 also do).",
    )  # fmt: skip
    assert body["fields"] == {"order_needed": ["Must be true or false (1 or 0 also do)."]}


def test_a_boolean_in_a_query_is_true_or_false_in_any_case_or_1_or_0(table):  # noqa: F811
    from games.services import games as game_services

    game, clients = table
    forming = game_services.game_create(organizer=game.organizer, ruleset="5x", seats_count=3)
    ann = clients["ann"]
    for value in ("true", "True", "TRUE", "tRuE", "1"):
        assert [g["id"] for g in ann.get("/api/games/", {"order_needed": value}).json()] == [
            game.pk
        ], value
    for value in ("false", "False", "FALSE", "0"):
        assert [g["id"] for g in ann.get("/api/games/", {"order_needed": value}).json()] == [
            forming.pk
        ], value


def test_a_boolean_in_a_form_body_is_true_or_false_only_as_in_a_query(table):  # noqa: F811
    """A form body is text as a query string is: ``is_private=yes`` (or ``on``) made a
    private game, where JSON's ``"yes"`` is refused."""
    from urllib.parse import urlencode

    from games.models import Game

    game, clients = table
    form = "application/x-www-form-urlencoded"

    def create(is_private: str):
        data = urlencode({"ruleset": "5x", "seats_count": "3", "is_private": is_private})
        return clients["ann"].post("/api/games/", data, content_type=form)

    before = Game.objects.count()
    for value in ("yes", "on", "t", "null"):
        body = assert_error(create(value), 400, "invalid", "is_private: Must be true or false")
        assert list(body["fields"]) == ["is_private"]
    assert Game.objects.count() == before
    made = create("TRUE")
    assert made.status_code == 201, made.content
    assert Game.objects.get(pk=made.json()["id"]).is_private
    public = create("0")
    assert public.status_code == 201 and not Game.objects.get(pk=public.json()["id"]).is_private
    blank = create("")  # an HTML form's field left blank: not given, as for a number
    assert blank.status_code == 201 and not Game.objects.get(pk=blank.json()["id"]).is_private


def test_the_schema_names_the_spellings_a_query_boolean_takes(table):  # noqa: F811
    game, clients = table
    schema = clients["ann"].get("/api/schema/", {"format": "json"}).json()
    (param,) = [
        p
        for p in schema["paths"]["/api/games/"]["get"]["parameters"]
        if p["name"] == "order_needed"
    ]
    assert param["schema"]["type"] == "boolean"
    assert "true or false (in any letter case), or 1 or 0" in param["description"]
