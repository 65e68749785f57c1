"""The API documentation's examples of the order POST (an API audit: the schema had none)
are what the API answers: each request example is sent to a real game in the state the
examples name (3 seats of 5X without leaders, prompt 1 open), and each answer's example
is checked against the answer (the commitment and the time, which differ every time, by
their form), and against the schema of that answer."""

from __future__ import annotations

import re

import jsonschema
import pytest
from rest_framework.test import APIClient

from games.services.games import game_create, game_join
from tests.games.core_support import make_users

pytestmark = pytest.mark.django_db

ROUTE = "/api/games/{game_id}/orders/"


def operation(schema: dict) -> dict:
    return schema["paths"][ROUTE]["post"]


def examples(op: dict, status: str) -> dict:
    return op["responses"][status]["content"]["application/json"].get("examples", {})


def resolved(schema: dict, node: dict) -> dict:
    """The schema with its $refs to components taken in (jsonschema's own resolver needs a
    registry for an OpenAPI document)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return resolved(schema, schema["components"]["schemas"][node["$ref"].rpartition("/")[2]])
        return {k: resolved(schema, v) for k, v in node.items()}
    if isinstance(node, list):
        return [resolved(schema, v) for v in node]
    return node


@pytest.fixture
def setup():
    users = make_users(["organizer", "ann", "bob", "cat"])
    game = game_create(organizer=users[0], ruleset="5x", options={"leaders": False}, seats_count=3)
    for user in users[1:]:
        game_join(game=game, user=user)
    client = APIClient()
    client.force_authenticate(users[1])
    schema = client.get("/api/schema/", {"format": "json"}).json()
    return game, client, schema


def test_each_request_example_is_sealed_with_the_receipt_the_examples_show(setup):
    game, client, schema = setup
    op = operation(schema)
    requests = [e["value"] for e in op["requestBody"]["content"]["application/json"]["examples"].values()]
    receipts = [e["value"] for e in examples(op, "201").values()]
    assert len(requests) == len(receipts) == 2
    body_schema = resolved(schema, op["requestBody"]["content"]["application/json"]["schema"])
    answer_schema = resolved(schema, op["responses"]["201"]["content"]["application/json"]["schema"])
    for request, receipt in zip(requests, receipts, strict=True):
        jsonschema.validate(request, body_schema)
        jsonschema.validate(receipt, answer_schema)
        answer = client.post(f"/api/games/{game.pk}/orders/", request, format="json")
        assert answer.status_code == 201, answer.content
        got = answer.json()
        assert re.fullmatch(r"[0-9a-f]{64}", got["commitment"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", got["submitted_at"])
        same = {k: v for k, v in got.items() if k not in ("commitment", "submitted_at")}
        assert same == {k: v for k, v in receipt.items() if k not in ("commitment", "submitted_at")}
        assert set(got) == set(receipt)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        ("422", {"text": "PLAY ROCKET", "prompt": 1}),
        ("409", {"text": "PLAY EXPAND", "prompt": 2}),
        ("400", {"text": "  "}),
    ],
)
def test_each_refusal_example_is_the_answer_to_the_request_it_names(setup, status, body):
    game, client, schema = setup
    op = operation(schema)
    (example,) = examples(op, status).values()
    # The example says which request it answers.
    assert example["description"].replace(" ", "").startswith(
        str(body).replace("'", '"').replace(" ", "")
    ) or example["description"] == str(body).replace("'", '"'), example["description"]
    answer = client.post(f"/api/games/{game.pk}/orders/", body, format="json")
    assert answer.status_code == int(status)
    assert answer.json() == example["value"]
    jsonschema.validate(answer.json(), resolved(schema, op["responses"][status]["content"]["application/json"]["schema"]))
    # Nothing was stored.
    view = client.get(f"/api/games/{game.pk}/").json()
    assert view["my_order"] is None


def test_the_invitation_token_says_where_it_comes_from(setup):
    _game, _client, schema = setup
    field = schema["components"]["schemas"]["JoinInput"]["properties"]["invite_token"]
    assert "/games/{id}/invite/{token}/" in field["description"]
