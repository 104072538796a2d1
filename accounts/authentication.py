"""`Authorization: Token <key>` against hashed keys (accounts.models.ApiToken)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from .models import ApiToken
from .tokens import token_digest


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's token scheme (same header, same 401 with `WWW-Authenticate: Token`); the key is
    looked up by its digest, so the database never holds a working key."""

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        row = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if row is None:
            raise AuthenticationFailed("Invalid token.")
        if not row.user.is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        now = timezone.now()
        # At most one write a minute per token.
        if row.last_used_at is None or (now - row.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        return row.user, row
