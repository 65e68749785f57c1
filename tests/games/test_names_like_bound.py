"""The "did you mean" after a name that finds nobody (/players/?q=, anyone may ask, and
the organizers' forms) reads a bounded number of rows: it read every active name of a
similar length, a whole user table for a short name on a big site, per request."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors_players
from games.selectors_players import player_names_like

pytestmark = pytest.mark.django_db

CAP = 40


def _users(names: list[str]) -> None:
    get_user_model().objects.bulk_create(get_user_model()(username=n) for n in names)


def _rows_read(captured: CaptureQueriesContext) -> list[int]:
    """Each query's row bound (its LIMIT); a query without one reads without bound."""
    out = []
    for query in captured.captured_queries:
        bound = re.search(r"\bLIMIT (\d+)", query["sql"])
        out.append(int(bound.group(1)) if bound else 10**9)
    return out


def test_the_suggestions_read_a_bounded_number_of_rows(client, monkeypatch):
    # Regression: every active name of a similar length was read, per request.
    monkeypatch.setattr(selectors_players, "NAMES_LIKE_ROWS", CAP)
    _users([f"user{i:03d}" for i in range(3 * CAP)])  # plain names the length of "zoe_x"
    _users(["Zoë_x", "José_x"])
    with CaptureQueriesContext(connection) as captured:
        assert player_names_like(text="zoe_x") == ["Zoë_x"]
    assert len(captured.captured_queries) <= 2
    assert all(rows <= CAP + 1 for rows in _rows_read(captured)), captured.captured_queries
    # The players page says it as before.
    assert "Did you mean José_x?" in client.get("/players/", {"q": "jose_x"}).content.decode()


def test_an_accented_name_typed_suggests_the_plain_one_and_many_accented_names_stay_bounded(
    monkeypatch,
):
    monkeypatch.setattr(selectors_players, "NAMES_LIKE_ROWS", CAP)
    _users(["jose", "Bjørn_Straße"])
    assert player_names_like(text="José") == ["jose"]
    assert player_names_like(text="bjorn_strasse") == ["Bjørn_Straße"]
    _users([f"zö{i:03d}" for i in range(3 * CAP)])  # many accented names of that length
    with CaptureQueriesContext(connection) as captured:
        assert player_names_like(text="zo001") == ["zö001"]
    assert len(captured.captured_queries) <= 2
    assert all(rows <= CAP + 1 for rows in _rows_read(captured)), captured.captured_queries
