"""The Sessions page's hourly "last seen" (fivex_site.middleware.SessionSeenMiddleware):
it never writes the session itself, so a concurrent request's change to the session is
kept, and a player's clicks within the hour cost no query."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import SESSION_KEY, get_user_model
from django.test import Client
from django.test.utils import CaptureQueriesContext

PASSWORD = "correct-horse-battery-7"
# What sessions written before the mark moved out of them may still carry.
OLD_SESSION_MARK = "_fivex_seen"


def _signed_in(name: str) -> tuple:
    from allauth.account.models import EmailAddress

    user = get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=f"{name}@example.com", verified=True, primary=True)
    client = Client()
    client.post("/accounts/login/", {"login": f"{name}@example.com", "password": PASSWORD})
    return user, client


def _an_hour_later(client: Client) -> None:
    """As the session looks an hour after it was last seen: its row's "last seen" is old
    and whatever marked the hour is gone (the cache's marks live an hour)."""
    from allauth.usersessions.models import UserSession
    from django.core.cache import cache
    from django.utils import timezone

    session = client.session
    UserSession.objects.filter(session_key=session.session_key).update(
        last_seen_at=timezone.now() - timedelta(hours=2)
    )
    cache.clear()
    session.pop(OLD_SESSION_MARK, None)
    session.save()


@pytest.mark.django_db
def test_the_hourly_mark_keeps_a_concurrent_request_s_change_to_the_session() -> None:
    """Two requests of one session at once: the second stores a new API token to show
    once while the first (the hour's "last seen") is still running. The first must not
    write its whole, older copy of the session back over the second's."""
    from allauth.usersessions.models import UserSession
    from django.contrib.sessions.middleware import SessionMiddleware
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django.utils import timezone

    from fivex_site.middleware import SessionSeenMiddleware

    user, client = _signed_in("una")
    _an_hour_later(client)
    key = client.session.session_key
    engine = SessionMiddleware(lambda r: HttpResponse()).SessionStore

    def first_request_view(request):  # noqa: ANN001, ANN202
        assert int(request.session[SESSION_KEY]) == user.pk  # it read its session
        # Meanwhile the second request of the same session stores its secret and ends.
        second = engine(session_key=key)
        second["once_token"] = "sealed-half"
        second.save()
        return HttpResponse("page")

    request = RequestFactory().get("/games/")
    request.COOKIES["sessionid"] = key
    stack = SessionMiddleware(SessionSeenMiddleware(first_request_view))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("django.contrib.auth.get_user", lambda r: user)
        request.user = user
        assert stack(request).status_code == 200
    assert engine(session_key=key).get("once_token") == "sealed-half"
    # ... and the hour's "last seen" was still written.
    row = UserSession.objects.get(session_key=key)
    assert timezone.now() - row.last_seen_at < timedelta(minutes=1)


def _queries(client: Client, path: str) -> int:
    from django.db import connection

    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


@pytest.mark.django_db
def test_a_player_s_clicks_within_the_hour_cost_no_query_more(settings) -> None:
    """A page within the hour of the log-in: as many queries with the middleware as
    without it; the request an hour later costs one more (the row's "last seen")."""
    _, client = _signed_in("vera")
    client.get("/games/")  # warm: whatever a first page does once
    with_it = _queries(client, "/games/")
    stack = list(settings.MIDDLEWARE)
    settings.MIDDLEWARE = [m for m in stack if not m.endswith("SessionSeenMiddleware")]
    without = _queries(client, "/games/")
    assert with_it == without
    settings.MIDDLEWARE = stack
    _an_hour_later(client)
    baseline = _queries(client, "/games/")  # after the hour: its one write
    assert _queries(client, "/games/") == without  # and nothing the next request
    assert baseline == without + 1
