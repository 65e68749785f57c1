"""The organizer API's result entry refused by the tournament's state (the round not
started, the table's game still being played, the tournament closed): a 409 conflict,
as every other state refusal of the organizer's API, not a 400 (the request itself is
well formed: the same body succeeds once the state allows it)."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services.organizer import game_end
from tests.games.web_support import token_client
from tests.tournaments.test_api_organizer import _cup_with, _staff
from tournaments.models import TournamentLog

pytestmark = pytest.mark.django_db

BODY = {"ranking": [["ann"], ["bob"]], "reason": "played offline"}


def test_result_refused_by_the_state_is_a_409_conflict_not_a_400():
    # Regression: these three refusals answered 400 "invalid" with no `fields`.
    olga = _staff()
    api = token_client(olga)
    slug = _cup_with(api, ["ann", "bob"], rounds_count=1)
    base = f"/api/tournaments/{slug}"
    url = f"{base}/rounds/1/tables/1/result/"
    api.post(f"{base}/rounds/", {}, format="json")

    not_started = api.post(url, BODY, format="json")
    assert (not_started.status_code, not_started.json()["error"]) == (409, "conflict")
    assert "not started" in not_started.json()["message"]

    started = api.post(f"{base}/rounds/1/start/", {}, format="json").json()
    playing = api.post(url, BODY, format="json")
    assert (playing.status_code, playing.json()["error"]) == (409, "conflict")
    assert "still being played" in playing.json()["message"]

    game_end(game=Game.objects.get(pk=started["rounds"][0]["tables"][0]["game"]), by=olga,
             reason="offline")  # fmt: skip
    assert api.post(url, BODY, format="json").status_code == 200  # the same body, now allowed
    assert api.post(f"{base}/close/", {"confirm": True}, format="json").status_code == 200
    closed = api.post(url, {**BODY, "ranking": [["bob"], ["ann"]]}, format="json")
    assert (closed.status_code, closed.json()["error"]) == (409, "conflict")
    assert "closed" in closed.json()["message"]
    assert not TournamentLog.objects.filter(tournament__slug=slug, kind="result_corrected").exists()


def test_the_schema_documents_the_results_conflicts(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    route = "/api/tournaments/{slug}/rounds/{number}/tables/{table}/result/"
    responses = schema["paths"][route]["post"]["responses"]
    conflict = responses["409"]["description"]
    for said in ("already_done", "conflict", "not started", "still being played", "closed"):
        assert said in conflict, said
    # The code's own meaning, in the schema's list of codes, says a tournament's too.
    codes = schema["components"]["schemas"]["ErrorCodeEnum"]["description"]
    line = next(row for row in codes.splitlines() if row.startswith("* `conflict`"))
    assert "tournament's result" in line, line
