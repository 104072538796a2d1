"""How the API answers errors: one body `{"code", "detail", "field"}` for every refusal.

Domain errors (CampaignError) are 400, missing rights (NotAllowedError) 403, and unknown
objects 404. A campaign the user is not a member of is unknown to them: 404, never 403, so
the API does not tell who plays where.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import (
    ObjectDoesNotExist,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from campaigns.errors import CampaignError, NotAllowedError

logger = logging.getLogger(__name__)

NOT_FOUND = {"code": "not_found", "detail": "Not found.", "field": None}


class ErrorSerializer(serializers.Serializer):
    """The body of every 4xx answer of the API."""

    code = serializers.CharField(help_text="Machine-readable reason, e.g. `not_scout_phase`.")
    detail = serializers.CharField(help_text="A sentence for people, naming the rule.")
    field = serializers.CharField(
        allow_null=True, help_text="The input field to blame, when there is one."
    )


def error_body(code: str, detail: str, field: str | None = None) -> dict[str, Any]:
    return {"code": code, "detail": detail, "field": field}


def _drf_error_body(exc: exceptions.APIException) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        field, message, code = _first_error(exc.detail, exc.get_codes())
        return error_body(code or "invalid", message, field)
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    return error_body(str(code), str(detail))


def _first_error(detail: Any, codes: Any, path: str = "") -> tuple[str | None, str, str]:
    """The first message of a (nested) ValidationError, with its dotted field path."""
    if isinstance(detail, dict):
        key = next(iter(detail))
        name = "" if key == "non_field_errors" else str(key)
        return _first_error(detail[key], codes[key], f"{path}.{name}" if path and name else
                            path or name)
    if isinstance(detail, list) and detail:
        # A list of messages, or a list of per-item errors (then the first non-empty one).
        for i, item in enumerate(detail):
            if item:
                sub = f"{path}.{i}" if isinstance(item, dict | list) and path else path
                return _first_error(item, codes[i], sub)
    return (path or None), str(detail), str(codes)


@csrf_exempt  # it changes nothing; a POST without a CSRF token must get the 404 body too
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any path under /api/ that no route matches (`campaigns/abc/`): the API's 404 body."""
    return JsonResponse(NOT_FOUND, status=404)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, NotAllowedError) and exc.code == "not_member":
        return Response(NOT_FOUND, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, NotAllowedError):
        return Response(error_body(exc.code, exc.message, exc.field),
                        status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, CampaignError):
        return Response(error_body(exc.code, exc.message, exc.field),
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return Response(NOT_FOUND, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent | RequestDataTooBig):
        # Django's limits on a form body: left alone they become the site's HTML 400 page.
        return Response(error_body("request_too_large", str(exc)),
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DataError):
        # A number the database cannot store (an id or an amount of 2^63): the request's fault.
        set_rollback()
        return Response(error_body("out_of_range", "A number in the request is out of range."),
                        status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, OperationalError | InterfaceError):
        # The database went away mid-request (a restart, a killed connection): the
        # transaction was rolled back, so the client may simply try again.
        logger.warning("API request hit a database outage: %s", exc)
        set_rollback()
        return Response(error_body("database_unavailable",
                                   "The database could not be reached; nothing was changed. "
                                   "Try again in a few seconds."),
                        status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "5"})
    response = exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.APIException):
        response.data = _drf_error_body(exc)
    if response is None:
        # Anything else is the server's fault: logged with its traceback, answered as JSON
        # (a client of the API never gets the site's HTML error page), nothing committed.
        logger.exception("API request failed: %s", exc, exc_info=exc)
        set_rollback()
        return Response(error_body("server_error", "The server failed to answer this request; "
                                   "nothing was changed. Try again later."),
                        status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    return response
