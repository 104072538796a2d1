"""`{% calendar_controls %}`: the profile's private calendar feed section."""

from __future__ import annotations

from typing import Any

from django import template

from calendars.services import calendar_token_active

register = template.Library()


@register.inclusion_tag("calendars/_profile.html", takes_context=True)
def calendar_controls(context: dict[str, Any]) -> dict[str, Any]:
    request = context["request"]
    return {
        "active": calendar_token_active(user=request.user),
        # The new link is shown once, right after it was made.
        "new_url": request.session.pop("new_calendar_url", None),
        "csrf_token": context.get("csrf_token"),
    }
