"""A Content-Security-Policy on every page: scripts only from this server or inline with the
response's nonce, nothing fetched from another host, no framing. Pages that set their own
policy (the API's viewers, map pictures) keep it."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

POLICY = (
    "default-src 'self'; script-src 'self' 'nonce-{nonce}'; "
    # htmx adds its indicator styles inline; map.js sets style attributes.
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        nonce = secrets.token_urlsafe(16)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        content_type = response.get("Content-Type", "")
        # The API's viewers (/api/docs/, /api/redoc/) carry their own policy in a meta tag.
        if ("Content-Security-Policy" not in response and content_type.startswith("text/html")
                and not request.path.startswith("/api/")):
            response["Content-Security-Policy"] = POLICY.format(nonce=nonce)
        return response
