"""The Redis cache fails soft (fivex_site/cache.py): from a failure-mode audit, every API
order answered 500 while Redis restarted (the rate limit's cache read raised)."""

from __future__ import annotations

import pytest
from django.core.cache import caches

import engine
from games.models import SealedOrder
from games.selectors import current_state
from tests.games.core_support import eager_celery, start_fixed
from tests.games.web_support import token_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]

AWAY = "redis://127.0.0.1:1/0"  # nothing listens there


def _cache(location: str) -> dict:
    return {
        "default": {
            "BACKEND": "fivex_site.cache.FailSoftRedisCache",
            "LOCATION": location,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }


def test_the_settings_pick_the_fail_soft_backend_for_a_redis_cache_url(monkeypatch) -> None:
    import importlib

    import fivex_site.settings.database as database

    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:6379/14")
    try:
        reloaded = importlib.reload(database)
        assert reloaded.CACHES["default"]["BACKEND"] == "fivex_site.cache.FailSoftRedisCache"
        assert reloaded.CACHES["default"]["OPTIONS"]["socket_timeout"] == 1
    finally:
        monkeypatch.delenv("CACHE_URL")
        importlib.reload(database)


def test_a_reachable_redis_caches_as_usual(settings) -> None:
    settings.CACHES = _cache("redis://127.0.0.1:6379/14")
    cache = caches["default"]
    try:
        cache.set("fivex-test-key", [1, 2], 30)
        assert cache.get("fivex-test-key") == [1, 2]
        assert cache.add("fivex-test-key", "other") is False
        cache.set("fivex-test-counter", 1, 30)
        assert cache.incr("fivex-test-counter") == 2
    finally:
        cache.delete_many(["fivex-test-key", "fivex-test-counter"])
    assert cache.get("fivex-test-key") is None


def test_with_the_cache_away_reads_miss_writes_drop_and_orders_go_through(settings, caplog) -> None:
    settings.CACHES = _cache(AWAY)
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "orders": "2/min"},
    }
    cache = caches["default"]
    assert cache.get("k", "fallback") == "fallback"
    cache.set("k", 1)  # dropped, no error
    assert cache.add("k", 1) is True and cache.get_many(["k"]) == {}  # allauth locks with add
    with pytest.raises(ValueError):
        cache.incr("k")
    game, seats = start_fixed(["ann", "bob", "cat"])
    state = current_state(game=game)
    client = token_client(seats["ann"].user)
    legal = engine.get("5x").legal_orders(state, "ann")
    for text in [legal[0], legal[1], legal[0]]:  # over 2/min: no cache, no limit (no 500)
        answer = client.post(f"/api/games/{game.pk}/orders/", {"text": text}, format="json")
        assert answer.status_code == 201, answer.content
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).text == legal[0]
    assert "cache unreachable" in caplog.text


def test_with_the_cache_away_people_can_still_log_in(settings, client) -> None:
    """From a review: allauth's rate limit locks with cache.add(); a refusal answered every
    login, sign-up and password reset 429 while Redis was away."""
    from django.contrib.auth import get_user_model

    settings.CACHES = _cache(AWAY)
    get_user_model().objects.create_user("ann", "ann@example.com", "a-long-password-1")
    answer = client.post("/accounts/login/", {"login": "ann@example.com", "password": "a-long-password-1"})
    assert answer.status_code == 302, answer.status_code
    assert client.get("/").wsgi_request.user.username == "ann"
