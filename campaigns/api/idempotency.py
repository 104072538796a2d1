"""`Idempotency-Key` for the API's writes: a retried POST (a double click, a client's retry
after a lost answer) with the same key answers the first result instead of acting again.

The first answer (any status but a 5xx) is kept in the cache for IDEMPOTENCY_SECONDS under
the caller (their token or session), the method, the path and the key. The same key with
another body is 422; while the first request still runs, 409. When the cache is down the
key is ignored (logged): the services' own checks (the phase a request names) still hold.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse

from config.client_ip import client_address

logger = logging.getLogger(__name__)

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def _caller(request: HttpRequest) -> str:
    auth = request.headers.get("Authorization", "")
    if auth:
        return "auth:" + auth
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    session = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    if session:
        return "session:" + session
    return "anon:" + client_address(request)


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


class IdempotencyKeyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get("Idempotency-Key", "")
        if (not key or request.method not in UNSAFE
                or not request.path.startswith("/api/")):
            return self.get_response(request)
        if len(key) > 255:
            return JsonResponse({"code": "invalid_idempotency_key", "field": None,
                                 "detail": "An Idempotency-Key has at most 255 characters."},
                                status=400)
        slot = "idem:" + _digest(_caller(request), str(request.method), request.path, key)
        body = _digest(request.body)
        try:
            kept = cache.get(slot)
            if kept is None and not cache.add(slot + ":running", 1, 60):
                return JsonResponse({"code": "request_in_progress", "field": None,
                                     "detail": "A request with this Idempotency-Key is still "
                                     "being answered; retry in a moment."}, status=409)
        except Exception:  # the cache is down: act without the key
            logger.warning("Idempotency-Key ignored: the cache cannot be reached",
                           exc_info=True)
            return self.get_response(request)
        if kept is not None:
            if kept["body"] != body:
                return JsonResponse({"code": "idempotency_key_reused", "field": None,
                                     "detail": "This Idempotency-Key was used for another "
                                     "request; use a new key for a new request."}, status=422)
            replay = HttpResponse(kept["content"], status=kept["status"],
                                  content_type=kept["content_type"])
            replay["Idempotent-Replayed"] = "true"
            return replay
        try:
            response = self.get_response(request)
        finally:
            self._forget(slot + ":running")
        if response.status_code < 500 and not response.streaming:
            try:
                cache.set(slot, {"body": body, "status": response.status_code,
                                 "content": response.content,
                                 "content_type": response.get("Content-Type", "")},
                          getattr(settings, "IDEMPOTENCY_SECONDS", 86_400))
            except Exception:  # the answer stands: only a retry would act again
                logger.warning("Idempotency-Key: the answer could not be kept", exc_info=True)
        return response

    @staticmethod
    def _forget(slot: str) -> None:
        try:
            cache.delete(slot)
        except Exception:
            logger.warning("Idempotency-Key: the cache cannot be reached", exc_info=True)
