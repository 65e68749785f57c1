"""The tournament organizer's API sent twice at the same moment (a bot's retry racing its
first attempt, two organizer scripts) on PostgreSQL: one round paired, one set of games
started, one result, one close; the other request answered 409 (review check: the
services' tournament lock holds, no fault found)."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services.organizer import game_end
from tests.concurrency import at_once
from tests.games.web_support import make_user, token_client
from tournaments.models import Round, Table, TournamentLog

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CREATE = {"name": "Race Cup", "ruleset": "6x5", "table_sizes": [2], "rounds_count": 2}


def _twice(api, path: str, body: dict) -> list[int]:
    """``path`` posted by two threads at once; their answers' status codes, sorted."""
    answers, errors = at_once(*[lambda: api.post(path, body, format="json")] * 2)
    assert not errors, errors
    return sorted(answer.status_code for answer in answers)


def test_double_submits_at_the_same_moment_do_each_thing_once(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "organizer": None},
    }
    olga = make_user("olga")
    olga.is_staff = True
    olga.save()
    api = token_client(olga)
    slug = api.post("/api/tournaments/", CREATE, format="json").json()["slug"]
    base = f"/api/tournaments/{slug}"
    assert api.post(f"{base}/open/", {}, format="json").status_code == 200
    for name in ("ann", "bob", "cat", "dan"):
        make_user(name)
        assert _twice(api, f"{base}/registrations/", {"player": name}) == [201, 409]
    assert _twice(api, f"{base}/rounds/", {}) == [201, 409]
    assert Round.objects.filter(tournament__slug=slug).count() == 1
    assert _twice(api, f"{base}/rounds/1/start/", {}) == [200, 409]
    tables = Table.objects.filter(round__tournament__slug=slug)
    assert tables.count() == 2 and Game.objects.filter(pk__in=tables.values("game")).count() == 2
    first = tables.get(number=1)
    game_end(game=first.game, by=olga, reason="played offline")  # its result entered by hand
    names = list(first.game.seats.order_by("position").values_list("user__username", flat=True))
    body = {"ranking": [[names[0]], [names[1]]], "reason": "played offline", "forfeit": True}
    assert _twice(api, f"{base}/rounds/1/tables/1/result/", body) == [200, 409]
    second = tables.get(number=2)
    game_end(game=second.game, by=olga, reason="played offline")
    names = list(second.game.seats.order_by("position").values_list("user__username", flat=True))
    body = {"ranking": [[names[1]], [names[0]]], "reason": "played offline", "forfeit": True}
    assert api.post(f"{base}/rounds/1/tables/2/result/", body, format="json").status_code == 200
    assert _twice(api, f"{base}/close/", {"confirm": True}) == [200, 409]
    kinds = list(TournamentLog.objects.filter(tournament__slug=slug).values_list("kind", flat=True))
    for kind in ("round_paired", "round_started", "tournament_closed"):
        assert kinds.count(kind) == 1, (kind, kinds)
    assert kinds.count("result_entered") == 2  # one a table
    assert kinds.count("registration_added") == 4
