"""Times for people: a UTC moment in a user's own zone, always with its offset."""

from __future__ import annotations

import zoneinfo
from datetime import datetime


def format_local(moment: datetime, zone: str) -> str:
    """E.g. "Tue 27 Oct 2026, 11:00 CET (UTC+01:00)"; the offset makes it unambiguous."""
    local = moment.astimezone(zoneinfo.ZoneInfo(zone))
    offset = local.strftime("%z")
    return (f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()} "
            f"(UTC{offset[:3]}:{offset[3:]})")
