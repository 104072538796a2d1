"""The production cache: Redis that fails open. The cache holds only what can be lost
(throttle and rate-limit counters, the map JSON, Idempotency-Key answers): when Redis cannot
be reached, a read is a miss and a write is skipped, each with a log line, so logins, the API
and the pages keep answering instead of failing with 500."""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

DOWN = (RedisError, OSError)


def _warn(operation: str, exc: BaseException) -> None:
    logger.warning("cache %s skipped: Redis cannot be reached (%s)", operation, exc)


class FailOpenRedisCache(RedisCache):
    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        try:
            return super().get(key, default, version)
        except DOWN as exc:
            _warn("get", exc)
            return default

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        try:
            return super().get_many(keys, version)
        except DOWN as exc:
            _warn("get_many", exc)
            return {}

    def has_key(self, key: Any, version: Any = None) -> bool:
        try:
            return super().has_key(key, version)
        except DOWN as exc:
            _warn("has_key", exc)
            return False

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT,
            version: Any = None) -> bool:
        # Fail open: as if the key was free (a lock or a first request goes ahead).
        try:
            return super().add(key, value, timeout, version)
        except DOWN as exc:
            _warn("add", exc)
            return True

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT,
            version: Any = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except DOWN as exc:
            _warn("set", exc)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        try:
            return super().set_many(data, timeout, version)
        except DOWN as exc:
            _warn("set_many", exc)
            return list(data)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except DOWN as exc:
            _warn("touch", exc)
            return False

    def delete(self, key: Any, version: Any = None) -> bool:
        try:
            return super().delete(key, version)
        except DOWN as exc:
            _warn("delete", exc)
            return False

    def delete_many(self, keys: Any, version: Any = None) -> None:
        try:
            super().delete_many(keys, version)
        except DOWN as exc:
            _warn("delete_many", exc)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        try:
            return super().incr(key, delta, version)
        except DOWN as exc:
            _warn("incr", exc)
            raise ValueError(f"Key {key!r} not found (the cache is down).") from exc

    def clear(self) -> None:
        try:
            super().clear()
        except DOWN as exc:
            _warn("clear", exc)
