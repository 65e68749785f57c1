"""A Redis cache that fails soft: with the cache away, the site keeps answering.

What FiveX keeps in the cache is advisory: the API's per-user rate limits, allauth's
login rate limits and the mark that a game's end has queued the results sweep (with the
cache away, each end queues its own: ``add`` succeeds). Django's ``RedisCache`` raises when Redis cannot be reached, which
turned every API order into a 500 during a Redis restart (a failure-mode audit). Here a
read is a miss, a write is dropped, ``add`` succeeds (allauth's rate limits lock with it:
a refusal answered every login 429), and a warning is logged (at most once a minute per
process); the rate limits are off until Redis is back. Socket timeouts keep a Redis that
does not answer from holding requests.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Unreachable, timing out, read-only after a fail-over, refusing the password: any error
# of Redis itself.
UNREACHABLE = (RedisError, OSError)
_WARN_EVERY = 60.0
_last_warning = [0.0]


def _warn(operation: str, exc: BaseException) -> None:
    now = time.monotonic()
    if now - _last_warning[0] >= _WARN_EVERY:
        _last_warning[0] = now
        logger.warning("cache unreachable (%s: %s): rate limits are off until it is back", operation, exc)


class FailSoftRedisCache(RedisCache):
    """``RedisCache`` whose operations answer as an empty cache when Redis is away."""

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        try:
            return super().get(key, default, version)
        except UNREACHABLE as exc:
            _warn("get", exc)
            return default

    def get_many(self, keys: Any, version: Any = None) -> dict:
        try:
            return super().get_many(keys, version)
        except UNREACHABLE as exc:
            _warn("get_many", exc)
            return {}

    def has_key(self, key: Any, version: Any = None) -> bool:
        try:
            return super().has_key(key, version)
        except UNREACHABLE as exc:
            _warn("has_key", exc)
            return False

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except UNREACHABLE as exc:
            _warn("add", exc)
            # allauth's rate limits take a lock with add(): False would refuse every login
            # (429) while Redis is away. Nothing here relies on add() as a real lock.
            return True

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except UNREACHABLE as exc:
            _warn("set", exc)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list:
        try:
            return super().set_many(data, timeout, version)
        except UNREACHABLE as exc:
            _warn("set_many", exc)
            return list(data)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except UNREACHABLE as exc:
            _warn("touch", exc)
            return False

    def delete(self, key: Any, version: Any = None) -> bool:
        try:
            return super().delete(key, version)
        except UNREACHABLE as exc:
            _warn("delete", exc)
            return False

    def delete_many(self, keys: Any, version: Any = None) -> None:
        try:
            super().delete_many(keys, version)
        except UNREACHABLE as exc:
            _warn("delete_many", exc)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        try:
            return super().incr(key, delta, version)
        except UNREACHABLE as exc:
            _warn("incr", exc)
            raise ValueError(f"Key '{key}' not found (the cache is unreachable)") from exc
