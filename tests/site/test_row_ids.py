"""A row id too large for the database is an id that names nothing: the answer is the
one for any unknown id, not "No such API endpoint" nor an overflow (a player's journey
found the API calling /api/games/99999999999999999999999/ an unknown endpoint)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

HUGE = "9" * 23


@pytest.mark.parametrize("path", [f"/api/games/{HUGE}/", "/api/games/9223372036854775808/",
                                  "/api/games/" + "9" * 5000 + "/", "/api/games/" + "0" * 4400 + "1/"])
def test_an_id_too_large_is_no_such_game_in_the_api(client, path):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_user("ann", "ann@example.com", "pw"))
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.json()["message"] == "No such game."


def test_an_id_too_large_is_a_404_on_the_pages_not_an_overflow(client):
    assert client.get(f"/games/{HUGE}/").status_code == 404


def test_the_largest_id_is_still_read_as_itself(client):
    from fivex_site.converters import MAX_ROW_ID, RowIdConverter

    assert RowIdConverter().to_python(str(MAX_ROW_ID)) == MAX_ROW_ID
    assert RowIdConverter().to_python("0" * 30 + "7") == 7
    assert RowIdConverter().to_python("0" * 5000 + "7") == 7  # zeros int() alone would refuse
    assert client.get(f"/games/{MAX_ROW_ID}/").status_code == 404
