"""A text field the API refuses blank says so in the schema (``minLength`` 1 and a pattern
needing a character other than white space), as the order text and a seat offer's player
do: schemathesis's positive-data check sent ``""`` where the schema allowed it and got a
400 "This field may not be blank." (a tournament's name, created or renamed; a result's
reason; the settings' time zone)."""

from __future__ import annotations

import re

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db

FIELDS = (
    ("TournamentCreateInput", "name"),
    ("RenameInput", "name"),
    ("ResultInput", "reason"),
    ("PatchedSettingsInput", "time_zone"),
)


def test_the_schema_refuses_the_blank_texts_the_api_refuses():
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for component, field in FIELDS:
        said = components[component]["properties"][field]
        assert said.get("minLength") == 1, (component, field, said)
        pattern = said.get("pattern", "")
        assert pattern and re.search(pattern, " x ") and not re.search(pattern, " \t "), (
            component, field, said,
        )  # fmt: skip


def test_the_api_still_refuses_them_with_the_same_words():
    api = token_client(make_user("ann"))
    for blank in ("", "   "):
        made = api.post("/api/tournaments/", {"name": blank, "ruleset": "6x5", "table_sizes": [2],
                                              "rounds_count": 2}, format="json")  # fmt: skip
        assert made.status_code == 400
        assert made.json()["fields"]["name"] == ["This field may not be blank."]
        zone = api.patch("/api/settings/", {"time_zone": blank}, format="json")
        assert zone.status_code == 400
        assert zone.json()["fields"]["time_zone"] == ["This field may not be blank."]
