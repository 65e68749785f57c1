"""An organizer who is not a league administrator is told their tournament is "rated in
the ann:5x ratings (the organizer's own pool)". Typing that name into the next
tournament's Rating pool field must put it in that pool, not refuse it as a name with
a character it may not hold; a pool of someone else's (bob:5x) is refused saying why."""

from __future__ import annotations

import pytest

from games.errors import ValidationError
from tests.tournaments.test_tournament_services import make_users
from tournaments.models import Tournament
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db


def _create(organizer, pool: str, name: str = "Second cup") -> Tournament:
    return tsvc.tournament_create(organizer=organizer, name=name, ruleset="6x5",
                                  table_sizes=[2], rounds_count=1, rating_pool=pool)  # fmt: skip


def test_the_organizers_own_pool_as_the_pages_name_it_is_that_pool():
    ann, _bob = make_users(2, prefix="op")
    first = _create(ann, "", name="First cup")
    assert first.rating_pool == "op00:6x5"  # what the tournament's page shows
    assert _create(ann, "op00:6x5").rating_pool == "op00:6x5"
    assert _create(ann, "OP00:winter", name="Third cup").rating_pool == "op00:winter"


def test_someone_elses_pool_is_refused_saying_why():
    ann, bob = make_users(2, prefix="oq")
    with pytest.raises(ValidationError) as caught:
        _create(ann, f"{bob.username}:6x5")
    message = str(caught.value)
    assert "oq00:" in message and "no colon" in message, message
    assert not Tournament.objects.exists()


def test_the_form_keeps_the_own_pool(client):
    (ann,) = make_users(1, prefix="or")
    client.force_login(ann)
    answer = client.post("/tournaments/new/", {
        "name": "Spring duel", "ruleset": "6x5", "table_sizes": "2", "rounds_count": "3",
        "deadline_hours": "48", "quiet_hours_time_zone": "UTC", "rating_pool": "or00:6x5",
        "tiebreaks": ["buchholz"], "away_days": "0",
    })  # fmt: skip
    assert answer.status_code == 302, answer.content.decode()[:3000]
    assert Tournament.objects.get(name="Spring duel").rating_pool == "or00:6x5"
