"""A tournament's refusals quote what was typed shortened (its first 40 characters and
"…"), from the form and from the services: a 100 KB game, tie-break, table size or
points-per-place line came back whole in the message (a review)."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.auth import get_user_model

from games.errors import ValidationError
from tournaments.forms import parse_points_per_place
from tournaments.models import Tournament
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db

HUGE = 100_000


def _create(org, **fields):
    base = {"organizer": org, "name": "Long cup", "ruleset": "6x5", "table_sizes": [2], "rounds_count": 2}
    return tsvc.tournament_create(**(base | fields))


@pytest.fixture
def org():
    return get_user_model().objects.create_user("longboss", "longboss@example.com", "pw")


def test_an_unknown_game_of_100_kb_is_quoted_short(org):
    # Regression: "Unknown game 'rrrr…(100 KB)'."
    with pytest.raises(ValidationError) as refused:
        _create(org, ruleset="r" * 40 + "s" * HUGE)
    assert refused.value.message == f"Unknown game '{'r' * 40}…'."
    with pytest.raises(ValidationError) as refused:
        _create(org, ruleset="chess")
    assert refused.value.message == "Unknown game 'chess'."
    assert Tournament.objects.count() == 0


def test_an_unknown_tiebreak_of_100_kb_is_quoted_short(org):
    # Regression: "Unknown tie-break 'tttt…(100 KB)' (choose from …)."
    with pytest.raises(ValidationError) as refused:
        _create(org, tiebreaks=["buchholz", "t" * 40 + "u" * HUGE])
    assert refused.value.message.startswith(f"Unknown tie-break '{'t' * 40}…' (choose from buchholz, ")
    assert len(refused.value.message) < 300
    with pytest.raises(ValidationError) as refused:
        _create(org, tiebreaks=["median"])
    assert refused.value.message.startswith("Unknown tie-break 'median' (choose from ")
    assert Tournament.objects.count() == 0


def test_a_points_per_place_size_of_100_kb_is_quoted_short(org):
    # Regression: "Points per place: 'kkkk…(100 KB)' is not a table size." (an API's JSON key)
    with pytest.raises(ValidationError) as refused:
        _create(org, points_per_place={"k" * 40 + "l" * HUGE: [1, 0]})
    assert refused.value.message == f"Points per place: '{'k' * 40}…' is not a table size."
    assert Tournament.objects.count() == 0


def test_a_points_per_place_line_of_100_kb_is_quoted_short():
    # Regression: "Write 'xxxx…(100 KB)' as a table size, …" in the new-tournament form.
    with pytest.raises(forms.ValidationError) as refused:
        parse_points_per_place("x" * 40 + "y" * HUGE)
    assert refused.value.messages == [
        f"Write '{'x' * 40}…' as a table size, a colon and the points from first to last place, e.g. 4: 3 2 1 0."
    ]
    with pytest.raises(forms.ValidationError) as refused:
        parse_points_per_place("4 3 2 1 0")
    assert refused.value.messages == [
        "Write '4 3 2 1 0' as a table size, a colon and the points from first to last place, e.g. 4: 3 2 1 0."
    ]
