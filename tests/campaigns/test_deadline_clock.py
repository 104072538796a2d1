"""Clock-time deadlines: the first 21:00 in the zone at least N hours of running clock after
the phase opens, never on a day off; exact across summer time changes in both directions."""

from datetime import UTC, datetime, time

import pytest

from campaigns.deadline_clock import clock_deadline, parse_clock

PARIS = "Europe/Paris"
WEEKEND = frozenset({5, 6})


def at(*args):
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(("opened", "hours", "days_off", "expected"), [
    # Tue 10:00 UTC (11:00 Paris, winter) + 24 h → Wed 11:00 Paris → that day's 21:00.
    (at(2026, 11, 24, 10, 0), 24, frozenset(), at(2026, 11, 25, 20, 0)),
    # Just past the earliest moment: the next day's 21:00.
    (at(2026, 11, 24, 21, 0), 24, frozenset(), at(2026, 11, 26, 20, 0)),
    # Friday 12:00 Paris + 24 h with weekends off: Fri 12 h + Mon 12 h → Mon 12:00 → Mon 21:00.
    (at(2026, 11, 27, 11, 0), 24, WEEKEND, at(2026, 11, 30, 20, 0)),
    # Without the weekend off the same phase ends on Saturday.
    (at(2026, 11, 27, 11, 0), 24, frozenset(), at(2026, 11, 28, 20, 0)),
    # Opened on a Saturday with weekends off: the clock starts on Monday.
    (at(2026, 11, 28, 9, 0), 12, WEEKEND, at(2026, 11, 30, 20, 0)),
    # Spring forward (29 March 2026, 02:00 → 03:00 in Paris): 21:00 CEST is 19:00 UTC.
    (at(2026, 3, 28, 12, 0), 24, frozenset(), at(2026, 3, 29, 19, 0)),
    # Autumn back (25 October 2026): 21:00 CET is 20:00 UTC; the Sunday lasts 25 hours.
    (at(2026, 10, 24, 12, 0), 24, frozenset(), at(2026, 10, 25, 20, 0)),
])
def test_the_deadline_is_the_first_clock_time_after_the_minimum(opened, hours, days_off,
                                                                 expected):
    assert clock_deadline(opened_at=opened, min_hours=hours, clock=time(21, 0), zone_name=PARIS,
                          days_off=days_off) == expected


def test_a_clock_time_in_the_skipped_hour_is_the_first_instant_after_it():
    # 02:30 does not exist in Paris on 29 March 2026: the deadline is 03:30 CEST = 01:30 UTC.
    assert clock_deadline(opened_at=at(2026, 3, 28, 12, 0), min_hours=1, clock=time(2, 30),
                          zone_name=PARIS) == at(2026, 3, 29, 1, 30)


def test_a_clock_time_in_the_repeated_hour_is_its_first_occurrence():
    # 02:30 happens twice in Paris on 25 October 2026: the first is 00:30 UTC.
    assert clock_deadline(opened_at=at(2026, 10, 24, 12, 0), min_hours=1, clock=time(2, 30),
                          zone_name=PARIS) == at(2026, 10, 25, 0, 30)


def test_every_day_off_is_refused():
    with pytest.raises(ValueError, match="At least one day of the week"):
        clock_deadline(opened_at=at(2026, 11, 24), min_hours=1, clock=time(21, 0),
                       zone_name=PARIS, days_off=frozenset(range(7)))


def test_parse_clock():
    assert parse_clock(" 21:05 ") == time(21, 5)
    with pytest.raises(ValueError, match=r"HH:MM \(e.g. 21:00\), not '9pm'"):
        parse_clock("9pm")
