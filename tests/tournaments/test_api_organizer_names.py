"""The organizer's API names a registered player as the rest of the site does, whatever
the letter case (a player name is unique case aside; entering one takes "ANN" for ann):
withdrawing "ANN" withdrew nobody, answered 404 "ANN is not registered" (review finding)."""

from __future__ import annotations

import pytest

from tests.games.web_support import make_user, token_client
from tournaments.models import Registration

pytestmark = pytest.mark.django_db


def test_a_player_is_withdrawn_by_their_name_in_any_letter_case():
    olga = make_user("olga")
    olga.is_staff = True
    olga.save()
    make_user("ann")
    api = token_client(olga)
    made = api.post("/api/tournaments/", {"name": "Case Cup", "ruleset": "6x5", "table_sizes": [2],
                                          "rounds_count": 2}, format="json")  # fmt: skip
    base = f"/api/tournaments/{made.json()['slug']}"
    api.post(f"{base}/open/", {}, format="json")
    assert api.post(f"{base}/registrations/", {"player": "ANN"}, format="json").status_code == 201
    gone = api.post(f"{base}/registrations/ANN/withdraw/", {}, format="json")
    assert gone.status_code == 200, gone.json()
    assert Registration.objects.get(user__username="ann").status == "withdrawn"
