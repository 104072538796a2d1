"""Template context for every page: the signed-in user's unread notification count (the bell)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def unread_notifications(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from campaigns.selectors import notifications_unread_count

    return {"unread_notifications": notifications_unread_count(user=user)}
