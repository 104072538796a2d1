"""Clock-time deadlines: "every phase ends at 21:00 Europe/Paris, at least N hours after it
opens, never on a weekend". Pure Python (zoneinfo); every instant is UTC, days and clock
times are the zone's own, so a change to or from summer time moves nothing a player reads.

Days off are days the clock does not run: their hours do not count towards the minimum, and
no deadline falls on them.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from campaigns.models import Campaign

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _local_midnight(day: date, zone: zoneinfo.ZoneInfo) -> datetime:
    """The UTC instant the zone's `day` begins (a zone whose midnight is skipped by a DST
    change begins the day at the first local time that exists)."""
    return _at(day, time(0, 0), zone)


def _at(day: date, clock: time, zone: zoneinfo.ZoneInfo) -> datetime:
    """The UTC instant of `clock` on the zone's `day`. A clock time that does not exist (the
    hour skipped in spring) becomes the first instant after the gap; one that exists twice
    (the hour repeated in autumn) is its first occurrence."""
    # fold=0 (PEP 495): in the repeated hour the first occurrence; in the skipped hour the
    # offset before the change, which lands the same distance after the gap (02:30 → 03:30).
    return datetime.combine(day, clock, tzinfo=zone).replace(fold=0).astimezone(UTC)


def clock_deadline(*, opened_at: datetime, min_hours: int, clock: time, zone_name: str,
                   days_off: frozenset[int] = frozenset()) -> datetime:
    """The first `clock` in zone `zone_name`, on a day not in `days_off` (0 = Monday), at least
    `min_hours` hours of running clock after `opened_at`. Raises ValueError when every day
    is off."""
    if len(days_off) >= 7:
        raise ValueError("At least one day of the week must be a working day.")
    zone = zoneinfo.ZoneInfo(zone_name)
    remaining = timedelta(hours=min_hours)
    cursor = opened_at.astimezone(UTC)
    day = cursor.astimezone(zone).date()
    # Count the minimum over the days the clock runs.
    while True:
        day_end = _local_midnight(day + timedelta(days=1), zone)
        if day.weekday() not in days_off:
            chunk = day_end - cursor
            if chunk >= remaining:
                earliest = cursor + remaining
                break
            remaining -= chunk
        cursor = day_end
        day += timedelta(days=1)
    day = earliest.astimezone(zone).date()
    while True:
        if day.weekday() not in days_off:
            candidate = _at(day, clock, zone)
            if candidate >= earliest:
                return candidate
        day += timedelta(days=1)


def parse_clock(value: str) -> time:
    """"21:00" → time(21, 0); ValueError naming the format otherwise."""
    try:
        hours, minutes = value.strip().split(":")
        return time(int(hours), int(minutes))
    except ValueError:
        raise ValueError(f"a time of day as HH:MM (e.g. 21:00), not {value!r}.") from None


def phase_deadline(campaign: Campaign, kind: str, opened_at: datetime) -> datetime:
    """When a phase of `kind` opened at `opened_at` ends, in the campaign's deadline mode
    (its hours after opening, or the clock time at least that many hours on)."""
    hours = campaign.hours_for(kind)
    if campaign.deadline_mode == "clock":
        return clock_deadline(opened_at=opened_at, min_hours=hours,
                              clock=parse_clock(campaign.deadline_clock),
                              zone_name=campaign.deadline_zone,
                              days_off=frozenset(campaign.deadline_days_off))
    return opened_at + timedelta(hours=hours)
