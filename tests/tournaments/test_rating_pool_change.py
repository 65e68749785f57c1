"""A pool's "Last change" column (h3's organizer walk): a draw between players rated a
little apart moves each by less than 0.05, shown "0.0" for the one who lost it and
"+0.0" for an exact 0 or a tiny gain; each is now the change rounded as shown, signed
only when it is not zero."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tournaments.models import RatingEntry

pytestmark = pytest.mark.django_db


def test_changes_that_round_to_zero_read_alike_and_others_keep_their_sign():
    User = get_user_model()
    changes = {"ann": 0.0, "bob": -0.03, "cat": 0.04, "dan": 12.34, "eve": -7.06}
    for seq, (name, change) in enumerate(changes.items(), start=1):
        user = User.objects.create_user(name, f"{name}@example.com", "pw")
        RatingEntry.objects.create(pool="club", seq=seq, user=user, game_key=f"g{seq}",
                                   rating_before=1500.0, expected=0.5, actual=0.5, k=40,
                                   rating_after=1500.0 + change)  # fmt: skip
    page = Client().get("/ratings/club/").content.decode()
    shown = {}
    for name in changes:
        row = page[page.index(f">{name}</a>"):]
        row = row[: row.index("</tr>")]
        shown[name] = row.rsplit("<td>", 1)[1].removesuffix("</td>")
    assert shown == {"ann": "0.0", "bob": "0.0", "cat": "0.0", "dan": "+12.3", "eve": "-7.1"}
