"""The organizer API's 404 for a round that does not exist says so: a table's result in
round 7 of a one-round cup answered "No table 1 in round 7 of this tournament." (as if
round 7 were there), and a round number too long for a row id "No round 0"."""

from __future__ import annotations

import pytest

from tests.games.web_support import token_client
from tests.tournaments.test_api_organizer import _cup_with, _staff

pytestmark = pytest.mark.django_db

BODY = {"ranking": [["ann"], ["bob"]], "reason": "played offline"}


def test_a_missing_round_is_named_as_missing():
    api = token_client(_staff())
    slug = _cup_with(api, ["ann", "bob"], rounds_count=1)
    base = f"/api/tournaments/{slug}"
    api.post(f"{base}/rounds/", {}, format="json")

    missing = api.post(f"{base}/rounds/7/tables/1/result/", BODY, format="json")
    assert (missing.status_code, missing.json()["error"]) == (404, "not_found")
    assert missing.json()["message"] == "No round 7 in this tournament."

    huge = api.post(f"{base}/rounds/{'9' * 30}/start/", {}, format="json")
    assert (huge.status_code, huge.json()["message"]) == (404, "No such round in this tournament.")

    no_table = api.post(f"{base}/rounds/1/tables/5/result/", BODY, format="json")
    assert no_table.json()["message"] == "No table 5 in round 1 of this tournament."
