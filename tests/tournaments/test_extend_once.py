"""Extending a round's deadlines is safe to retry: an ``Idempotency-Key`` sent again (a
client's retry after a timeout) answers what the first call did and extends nothing more;
the panel's form carries its own key, so a second tap extends once. Without a key each
call is one more extension, as documented."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import Prompt
from tests.games.web_support import make_user, token_client
from tournaments.models import Tournament, TournamentLog

pytestmark = pytest.mark.django_db


def _started(api) -> str:
    made = api.post("/api/tournaments/", {"name": "Bot Cup", "ruleset": "6x5", "table_sizes": [2],
                                          "rounds_count": 2}, format="json")  # fmt: skip
    slug = made.json()["slug"]
    api.post(f"/api/tournaments/{slug}/open/", {}, format="json")
    for name in ("ann", "bob", "cat", "dan"):
        make_user(name)
        api.post(f"/api/tournaments/{slug}/registrations/", {"player": name}, format="json")
    api.post(f"/api/tournaments/{slug}/rounds/", {}, format="json")
    assert api.post(f"/api/tournaments/{slug}/rounds/1/start/", {}, format="json").status_code == 200
    return slug


def _extensions(slug: str) -> list[int]:
    """Each table's open prompt's extension count, table by table."""
    tournament = Tournament.objects.get(slug=slug)
    out = []
    for table in tournament.rounds.get(number=1).tables.order_by("number"):
        out.append(Prompt.objects.filter(game=table.game, resolved_at__isnull=True).get().extensions)
    return out


def _logged(slug: str) -> int:
    return TournamentLog.objects.filter(tournament__slug=slug, kind="deadlines_extended").count()


@pytest.fixture
def olga():
    user = make_user("olga")
    user.is_staff = True  # enters the players
    user.save()
    return user


def test_a_retry_with_the_same_idempotency_key_extends_once(olga):
    # Regression: every retry of a timed-out call was one more extension of every table.
    api = token_client(olga)
    slug = _started(api)
    url = f"/api/tournaments/{slug}/rounds/1/extend/"
    body = {"hours": 5, "reason": "storm"}
    first = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="ext-1")
    assert first.status_code == 200 and "Idempotent-Replayed" not in first
    assert _extensions(slug) == [1, 1] and _logged(slug) == 1
    again = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="ext-1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert _extensions(slug) == [1, 1] and _logged(slug) == 1
    assert again.json()["log"] == first.json()["log"]

    # The same key with another request: refused, nothing extended.
    for other in ({"hours": 6, "reason": "storm"}, {"hours": 5, "reason": "flood"}):
        reused = api.post(url, other, format="json", HTTP_IDEMPOTENCY_KEY="ext-1")
        assert reused.status_code == 422, other
        assert reused.json()["error"] == "idempotency_key_reused"
        assert "Nothing was extended" in reused.json()["message"]
    assert _extensions(slug) == [1, 1] and _logged(slug) == 1

    # A new key is a new extension; no key at all is one more each call (documented).
    assert api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="ext-2").status_code == 200
    assert _extensions(slug) == [2, 2]
    assert api.post(url, body, format="json").status_code == 200
    assert _extensions(slug) == [3, 3] and _logged(slug) == 3
    # The key is not shown in the log the API answers.
    shown = api.get(f"/api/tournaments/{slug}/organizer/").json()["log"]
    assert not any("ext-1" in str(e["payload"]) for e in shown)


def test_a_bad_idempotency_key_is_refused_naming_the_header(olga):
    api = token_client(olga)
    slug = _started(api)
    for bad in ("", "a" * 65, "two words", "é"):
        answer = api.post(f"/api/tournaments/{slug}/rounds/1/extend/", {"hours": 5},
                          format="json", HTTP_IDEMPOTENCY_KEY=bad)  # fmt: skip
        assert answer.status_code == 400 and "Idempotency-Key" in answer.json()["fields"], bad
    assert _extensions(slug) == [0, 0] and _logged(slug) == 0


def test_another_organizers_key_is_not_a_retry(olga):
    api = token_client(olga)
    slug = _started(api)
    url = f"/api/tournaments/{slug}/rounds/1/extend/"
    assert api.post(url, {"hours": 5}, format="json", HTTP_IDEMPOTENCY_KEY="k").status_code == 200
    admin = make_user("sam")
    admin.is_staff = True
    admin.save()
    other = token_client(admin).post(url, {"hours": 5}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert other.status_code == 200 and "Idempotent-Replayed" not in other
    assert _extensions(slug) == [2, 2]


def test_the_panels_extend_form_sent_twice_extends_once(olga):
    slug = _started(token_client(olga))
    client = Client()
    client.force_login(olga)
    page = client.get(f"/tournaments/{slug}/manage/").content.decode()
    key = re.search(r'id="extend-round".*?name="key" value="([0-9a-f]{32})"', page, re.S)
    assert key, "the extend form carries its own key"
    form = {"hours": "24", "reason": "", "key": key.group(1)}
    url = f"/tournaments/{slug}/manage/extend/"
    first = client.post(url, form, follow=True)
    assert "Deadline extended by 1 day at 2 tables" in first.content.decode()
    again = client.post(url, form, follow=True)
    assert "This form extended the deadlines already: nothing more was changed." in (
        again.content.decode()
    )
    assert _extensions(slug) == [1, 1] and _logged(slug) == 1
