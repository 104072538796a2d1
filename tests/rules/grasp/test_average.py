"""GRASP's average dice ("or average versions of the same"), read as the plain die with each
face one nearer the mean unless already within one of it: the classic average d6."""

from __future__ import annotations

import pytest

from rules.dice import FixedDice
from rules.grasp.dielevels import DieLevel, average_face, parse_die, roll_pool


@pytest.mark.parametrize(("level", "faces"), [
    (DieLevel.D4, [2, 2, 3, 3]),
    (DieLevel.D6, [2, 3, 3, 4, 4, 5]),
    (DieLevel.D8, [2, 3, 4, 4, 5, 5, 6, 7]),
    (DieLevel.D10, [2, 3, 4, 5, 5, 6, 6, 7, 8, 9]),
])
def test_an_average_die_has_the_plain_dies_faces_pulled_toward_the_mean(level, faces):
    assert [average_face(f, level.value) for f in range(1, level.value + 1)] == faces


def test_the_average_die_keeps_the_mean_and_loses_one_at_each_end():
    for level in DieLevel:
        faces = [average_face(f, level.value) for f in range(1, level.value + 1)]
        assert (min(faces), max(faces), sum(faces) * 2) == (2, level.value - 1,
                                                            level.value * (level.value + 1))


@pytest.mark.parametrize(("text", "label", "top"), [
    ("avg d6", "avg d6", 5), ("AVG >2d8", "avg >2d8", 7), ("avg<2d4", "avg <2d4", 3),
    ("d6", "d6", 6),
])
def test_an_average_die_is_written_avg_before_the_die(text, label, top):
    spec = parse_die(text)
    assert (spec.label, spec.top, parse_die(spec.label) == spec) == (label, top, True)


def test_rolling_an_average_die_reads_each_rolled_face():
    one = roll_pool(FixedDice([6]), level=DieLevel.D6, tech_count=0, purpose="cc",
                    average=True)
    assert (one.values, one.kept, one.to_dict()["die"]) == ((5,), 5, "avg d6")
    best = roll_pool(FixedDice([1, 4]), level=DieLevel.D6, tech_count=1, purpose="cc",
                     average=True)
    assert (best.values, best.kept) == ((2, 4), 4)
