"""Times for the viewer: a moment in their own zone, and a live deadline countdown."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from accounts.timefmt import format_local, zoned_text

register = template.Library()


def span_text(seconds: int) -> str:
    """A span of time as people read it: "2 d 3 h 5 min" (days and hours only when there are
    any; at least "0 min")."""
    days, rest = divmod(max(seconds, 0), 86400)
    hours, rest = divmod(rest, 3600)
    parts = [f"{days} d"] if days else []
    if days or hours:
        parts.append(f"{hours} h")
    parts.append(f"{rest // 60} min")
    return " ".join(parts)


def time_left(deadline: datetime, now: datetime) -> str:
    """"2 d 3 h 5 min left" / "deadline passed 4 h 10 min ago" (the same wording as the
    countdown script, which takes over in the browser and adds seconds under an hour)."""
    seconds = int((deadline - now).total_seconds())
    text = span_text(abs(seconds))
    return f"deadline passed {text} ago" if seconds < 0 else f"{text} left"


@register.filter
def local(moment: datetime | None, user: Any) -> str:
    """`{{ moment|local:user }}`: the moment in the user's zone, with its offset."""
    if moment is None:
        return ""
    zone = getattr(user, "time_zone", None) or "UTC"
    return format_local(moment, zone)


@register.filter
def duration_text(value: Any) -> str:
    """`{{ timedelta|duration_text }}`: "2 d 3 h 5 min" (at least "0 min")."""
    return span_text(int(value.total_seconds()) if value is not None else 0)


@register.filter(is_safe=True)
def zoned(text: str, user: Any) -> str:
    """`{{ summary|zoned:user }}`: the engine's UTC times in the text in the user's zone. Safe
    text stays safe: a replacement holds only letters, digits, spaces and "+-:(),"."""
    zone = getattr(user, "time_zone", None) or "UTC"
    result = zoned_text(str(text), zone)
    return mark_safe(result) if isinstance(text, SafeString) else result  # noqa: S308


@register.simple_tag(takes_context=True)
def countdown(context: template.Context, deadline: datetime | None) -> SafeString:
    """The deadline in the viewer's zone and the time left; static/js/countdown.js keeps
    the time left ticking from the ISO moment in `datetime` (it never formats the date)."""
    if deadline is None:
        return format_html("")
    user = context.get("user")
    return format_html(
        '<span class="countdown" data-countdown="{}">'
        '<time datetime="{}">{}</time> '
        '<span class="countdown-left" data-countdown-left>({})</span></span>',
        deadline.isoformat(), deadline.isoformat(), local(deadline, user),
        time_left(deadline, timezone.now()),
    )
