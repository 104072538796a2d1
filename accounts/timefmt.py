"""Times for people: a UTC moment in a user's own zone, always with its offset."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime


def format_local(moment: datetime, zone: str) -> str:
    """E.g. "Tue 27 Oct 2026, 11:00 CET (UTC+01:00)"; the offset makes it unambiguous."""
    local = moment.astimezone(zoneinfo.ZoneInfo(zone))
    offset = local.strftime("%z")
    return (f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()} "
            f"(UTC{offset[:3]}:{offset[3:]})")


# How the engine writes a moment into stored text (event summaries, posts, exports).
UTC_STAMP = re.compile(r"\b(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) UTC\b")


def zoned_text(text: str, zone: str) -> str:
    """Stored text with each engine time ("2026-11-28 22:09 UTC") in the reader's zone; the
    stored text stays in UTC so that every reader can be given their own."""
    def local(match: re.Match[str]) -> str:
        year, month, day, hour, minute = (int(g) for g in match.groups())
        return format_local(datetime(year, month, day, hour, minute, tzinfo=UTC), zone)

    return UTC_STAMP.sub(local, text)
