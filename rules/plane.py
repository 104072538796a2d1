"""Exact plane geometry for the measured rule systems (a continuous board in MU or cm).

Positions are points with rational coordinates (`Fraction`); nothing is ever a float. A
length is compared by its square, so "within 6 MU", "in the 45° arc" or "this move costs at
most its allowance" are exact. Terrain is a polygon (a list of vertices, its boundary
inside). A move or a line of fire is a segment; where it crosses terrain it is cut at the
polygon edges, so the share of it in each going is an exact fraction of its length.

x grows to the east, y to the north.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["EdgeGap", "Point", "Vec", "along", "cuts", "dist2", "farthest", "in_arc", "inside",
           "segment_dist2", "within"]


@dataclass(frozen=True, order=True)
class Point:
    x: Fraction
    y: Fraction

    def __add__(self, v: Vec) -> Point:
        return Point(self.x + v.dx, self.y + v.dy)

    def __sub__(self, other: Point) -> Vec:
        return Vec(self.x - other.x, self.y - other.y)


@dataclass(frozen=True)
class Vec:
    dx: Fraction
    dy: Fraction

    def __mul__(self, k: Fraction | int) -> Vec:
        return Vec(self.dx * k, self.dy * k)

    def __neg__(self) -> Vec:
        return Vec(-self.dx, -self.dy)

    def dot(self, other: Vec) -> Fraction:
        return self.dx * other.dx + self.dy * other.dy

    @property
    def norm2(self) -> Fraction:
        return self.dot(self)


def dist2(a: Point, b: Point) -> Fraction:
    return (a - b).norm2


def within(a: Point, b: Point, d: Fraction | int) -> bool:
    """Whether b is at most d from a (exactly: by the squares)."""
    return d >= 0 and dist2(a, b) <= Fraction(d) ** 2


def in_arc(facing: Vec, a: Point, b: Point) -> bool:
    """Whether b lies within 45° of `facing` seen from a (cos² 45° = ½)."""
    v = b - a
    d = facing.dot(v)
    return d > 0 and 2 * d * d >= facing.norm2 * v.norm2


def along(a: Point, b: Point, t: Fraction) -> Point:
    return a + (b - a) * t


def segment_dist2(a: Point, b: Point, p: Point) -> Fraction:
    """The squared distance from p to the segment ab."""
    ab = b - a
    if ab.norm2 == 0:
        return dist2(a, p)
    t = min(max((p - a).dot(ab) / ab.norm2, Fraction(0)), Fraction(1))
    return dist2(along(a, b, t), p)


def _cross(u: Vec, v: Vec) -> Fraction:
    return u.dx * v.dy - u.dy * v.dx


def inside(p: Point, polygon: Sequence[Point]) -> bool:
    """Whether p is inside the polygon or on its boundary (even–odd rule, exact)."""
    n = len(polygon)
    hit = False
    for i in range(n):
        a, b = polygon[i], polygon[(i + 1) % n]
        if _cross(b - a, p - a) == 0 and min(a.x, b.x) <= p.x <= max(a.x, b.x) \
                and min(a.y, b.y) <= p.y <= max(a.y, b.y):
            return True
        if (a.y > p.y) != (b.y > p.y):
            x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y)
            if p.x < x:
                hit = not hit
    return hit


def cuts(a: Point, b: Point, polygon: Sequence[Point]) -> list[Fraction]:
    """The parameters t in (0, 1) where the segment ab crosses an edge of the polygon."""
    out: list[Fraction] = []
    d = b - a
    n = len(polygon)
    for i in range(n):
        p, q = polygon[i], polygon[(i + 1) % n]
        e = q - p
        denom = _cross(d, e)
        if denom == 0:
            continue
        t = _cross(p - a, e) / denom
        u = _cross(p - a, d) / denom
        if 0 < t < 1 and 0 <= u <= 1:
            out.append(t)
    return out


def farthest(ok: Callable[[Fraction], bool], *, steps: int = 1024) -> Fraction:
    """The largest t = k/steps in [0, 1] with ok(t), for a condition that, once false, stays
    false as t grows (0 when even the first step fails)."""
    lo, hi = 0, steps
    if ok(Fraction(1)):
        return Fraction(1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(Fraction(mid, steps)):
            lo = mid
        else:
            hi = mid
    return Fraction(lo, steps)


@dataclass(frozen=True)
class EdgeGap:
    """The gap between two bases: the distance between their centres less `base` (their
    width), kept exactly as the square of the centre distance. It compares with numbers and
    with gaps of the same base exactly, and prints to two decimals (0 when touching)."""

    square: Fraction
    base: Fraction = Fraction(0)

    def _key(self, other: object) -> Fraction:
        if isinstance(other, EdgeGap):
            if other.base != self.base:
                raise ValueError("gaps between bases of different widths do not compare")
            return other.square
        if isinstance(other, int | Fraction):
            reach = Fraction(other) + self.base
            return reach * reach if reach >= 0 else Fraction(-1)
        raise TypeError(f"cannot compare a gap with {other!r}")

    def __le__(self, other: object) -> bool:
        return self.square <= self._key(other)

    def __lt__(self, other: object) -> bool:
        return self.square < self._key(other)

    def __ge__(self, other: object) -> bool:
        return self.square >= self._key(other)

    def __gt__(self, other: object) -> bool:
        return self.square > self._key(other)

    def __str__(self) -> str:
        value = max(math.sqrt(self.square) - float(self.base), 0.0)
        text = f"{value:.2f}".rstrip("0").rstrip(".")
        return text or "0"
