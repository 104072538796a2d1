"""The client's address, as the proxies of ours in front of the server report it."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """With TRUSTED_PROXY_COUNT proxies, the entry of X-Forwarded-For that the first of ours
    appended (the n-th from the right); entries further left are the client's own claims and
    never trusted. Without proxies, REMOTE_ADDR. The same rule as the API's throttles
    (NUM_PROXIES) and the login rate limits (ALLAUTH_TRUSTED_PROXY_COUNT)."""
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    forwarded = request.headers.get("X-Forwarded-For", "")
    if count > 0 and forwarded:
        entries = [e.strip() for e in forwarded.split(",")]
        return entries[-min(count, len(entries))]
    return str(request.META.get("REMOTE_ADDR", ""))
