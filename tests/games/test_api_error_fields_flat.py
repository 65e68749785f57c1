"""An error's ``fields`` is what the schema says it is, ``{field: [message, ...]}``, also when
the field refused is a list (or a list of lists) and DRF names the item refused in a dict
of its own: schemathesis found ``{"players": {"0": ["This field may not be blank."]}}``
(``POST /api/games/{id}/invitations/``, ``POST /api/tournaments/`` with a bad
``forbidden_pairs`` item, ``POST .../rounds/by-hand/``), a body that violates the ``Error``
schema a generated client decodes it with. The item is named in the message instead."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator

from games.services.games import game_create
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db


def _error_schema() -> dict:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {**schema["components"]["schemas"]["Error"], "components": schema["components"]}


def _check(answer, field: str, said: str) -> None:
    assert answer.status_code == 400, answer.content
    body = answer.json()
    # Regression: fields[field] was a dict of the items' messages, not a list of strings.
    errors = list(Draft202012Validator(_error_schema()).iter_errors(body))
    assert not errors, [e.message for e in errors]
    assert body["error"] == "invalid"
    assert any(said in m for m in body["fields"][field]), body["fields"]


def test_a_refused_list_item_is_named_in_a_list_of_messages():
    ann = make_user("ann")
    api = token_client(ann)
    game = game_create(organizer=ann, ruleset="5x", seats_count=4, name="Ann's")
    blank = api.post(f"/api/games/{game.pk}/invitations/", {"players": ["bob", ""]}, format="json")
    _check(blank, "players", "1: This field may not be blank.")
    pairs = api.post(
        "/api/tournaments/",
        {"name": "Cup", "ruleset": "6x5", "table_sizes": [2], "rounds_count": 2,
         "forbidden_pairs": [["ann", "bob"], 0, [None, "x"]]},
        format="json",
    )  # fmt: skip
    _check(pairs, "forbidden_pairs", "1: Expected a list of items")
    assert any(m.startswith("2: 0: ") for m in pairs.json()["fields"]["forbidden_pairs"])
