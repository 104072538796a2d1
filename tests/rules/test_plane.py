"""Exact plane geometry (rules/plane.py): distances, arcs, polygons, cuts and the farthest
step, every case with exact rational answers."""

from fractions import Fraction as F

import pytest

from rules.plane import Point, Vec, along, cuts, dist2, farthest, in_arc, inside, segment_dist2

P = Point
SQUARE = (P(F(0), F(0)), P(F(4), F(0)), P(F(4), F(4)), P(F(0), F(4)))


def test_distances_are_compared_by_their_squares():
    assert dist2(P(F(1), F(1)), P(F(4), F(5))) == 25
    assert segment_dist2(P(F(0), F(0)), P(F(10), F(0)), P(F(3), F(2))) == 4
    assert segment_dist2(P(F(0), F(0)), P(F(10), F(0)), P(F(-3), F(4))) == 25  # past the end
    assert along(P(F(0), F(0)), P(F(10), F(5)), F(1, 5)) == P(F(2), F(1))


@pytest.mark.parametrize(("target", "ahead"), [
    ((4, 3), True), ((1, 1), True), ((3, 4), False), ((1, 4), False), ((-4, 1), False),
    ((5, 0), True),
])
def test_the_45_degree_arc_is_exact_on_its_edge(target, ahead):
    assert in_arc(Vec(F(1), F(0)), P(F(0), F(0)), P(F(target[0]), F(target[1]))) is ahead


def test_inside_a_polygon_counts_its_boundary():
    assert inside(P(F(2), F(2)), SQUARE) and inside(P(F(4), F(1)), SQUARE)
    assert inside(P(F(0), F(0)), SQUARE) and not inside(P(F(5), F(2)), SQUARE)
    assert not inside(P(F(2), F(9, 2)), SQUARE)


def test_a_segment_is_cut_where_it_crosses_the_edges():
    assert cuts(P(F(-2), F(2)), P(F(6), F(2)), SQUARE) == [F(3, 4), F(1, 4)]
    assert cuts(P(F(1), F(1)), P(F(2), F(2)), SQUARE) == []


def test_farthest_finds_the_last_step_that_holds():
    assert farthest(lambda t: t <= F(37, 100), steps=100) == F(37, 100)
    assert farthest(lambda t: True) == 1
    assert farthest(lambda t: t == 0, steps=8) == 0
