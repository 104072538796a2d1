"""Movement search on a hex map (reachable set, cheapest path) over a cost function from a ruleset.

The ruleset supplies a `StepCost`: called as step_cost(from_hex, to_hex, movement_left), it
returns the movement points it costs to step from `from_hex` into the adjacent `to_hex`
when `movement_left` points remain, or None when that step is not allowed. Costs are
integers ≥ 0; a step whose cost exceeds `movement_left` is never taken. The cost may
depend on `movement_left` (Erfworld: entering an opposition tower costs all remaining
movement, at least 1) as long as having more movement left never leaves you with less
after the step: `movement_left - cost` must not decrease when `movement_left` grows, and
a step allowed with some movement left must stay allowed with more. Under that
condition Dijkstra's search stays exact.

Ties are broken deterministically: the search settles hexes in order of (movement
used, position in `Grid.hexes()` order), and a route to a hex is replaced only by a
strictly cheaper one, so among equally cheap paths the one found first is kept.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Protocol

from rules.hexgrid import Direction, Grid, Hex

__all__ = ["Path", "PathingError", "StepCost", "cheapest_path", "reachable"]


class PathingError(ValueError):
    """A search that cannot start: the start hex is off the map or the allowance is negative."""


class StepCost(Protocol):
    """Cost of stepping into an adjacent hex with `movement_left` points left; None = forbidden."""

    def __call__(self, from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None: ...


@dataclass(frozen=True)
class Path:
    """A route from its first hex to its last, and the movement points it costs."""

    hexes: tuple[Hex, ...]
    cost: int


@dataclass(frozen=True)
class _Tables:
    hexes: tuple[Hex, ...]
    index: dict[Hex, int]
    # For each hex index, the indices of its on-map neighbours in Direction order.
    neighbours: tuple[tuple[int, ...], ...]


@functools.lru_cache(maxsize=16)
def _tables(grid: Grid) -> _Tables:
    # Index = column * rows + (row - 1), the order of Grid.hexes(); neighbours are found by
    # arithmetic on offset coordinates rather than by hashing hexes.
    cols, rows = grid.cols, grid.rows
    hexes = tuple(grid.hexes())
    deltas = [d.value for d in Direction]
    neighbours: list[tuple[int, ...]] = []
    for h in hexes:
        found: list[int] = []
        for dq, dr in deltas:
            col = h.q + dq
            if 0 <= col < cols:
                row0 = h.r + dr + (col - (col & 1)) // 2
                if 0 <= row0 < rows:
                    found.append(col * rows + row0)
        neighbours.append(tuple(found))
    index = {h: i for i, h in enumerate(hexes)}
    return _Tables(hexes=hexes, index=index, neighbours=tuple(neighbours))


_UNSEEN = 1 << 62


def _search(
    tables: _Tables,
    *,
    start: int,
    allowance: int,
    step_cost: StepCost,
    goal: int,
    stop_at: frozenset[int],
) -> tuple[list[int], list[int], list[int]]:
    """Dijkstra from `start`; returns (settled indices in order, movement used, predecessors)."""
    hexes = tables.hexes
    nbrs = tables.neighbours
    n = len(hexes)
    used_at = [_UNSEEN] * n
    prev = [-1] * n
    done = bytearray(n)
    settled: list[int] = []
    used_at[start] = 0
    heap: list[tuple[int, int]] = [(0, start)]
    while heap:
        used, i = heappop(heap)
        if done[i]:
            continue
        done[i] = 1
        settled.append(i)
        if i == goal or (i in stop_at and i != start):
            if i == goal:
                break
            continue
        left = allowance - used
        here = hexes[i]
        for j in nbrs[i]:
            if done[j]:
                continue
            cost = step_cost(here, hexes[j], left)
            if cost is None or cost > left:
                continue
            if cost < 0:
                raise ValueError(f"A step cost must be 0 or more, got {cost}.")
            total = used + cost
            if total < used_at[j]:
                used_at[j] = total
                prev[j] = i
                heappush(heap, (total, j))
    return settled, used_at, prev


def _start_index(tables: _Tables, start: Hex, allowance: int) -> int:
    if allowance < 0:
        raise PathingError(f"Movement allowance must be 0 or more, not {allowance}.")
    i = tables.index.get(start)
    if i is None:
        raise PathingError(f"The start hex (q={start.q}, r={start.r}) is not on the map.")
    return i


def reachable(
    *,
    start: Hex,
    allowance: int,
    step_cost: StepCost,
    grid: Grid,
    stop_at: Collection[Hex] = (),
) -> dict[Hex, int]:
    """Every hex reachable from start (start included) → the movement left after the best way there.

    Hexes in `stop_at` may be entered but not passed through.
    """
    tables = _tables(grid)
    s = _start_index(tables, start, allowance)
    stops = frozenset(tables.index[h] for h in stop_at if h in tables.index)
    settled, used_at, _ = _search(
        tables, start=s, allowance=allowance, step_cost=step_cost, goal=-1, stop_at=stops
    )
    hexes = tables.hexes
    return {hexes[i]: allowance - used_at[i] for i in settled}


def cheapest_path(
    *,
    start: Hex,
    goal: Hex,
    allowance: int,
    step_cost: StepCost,
    grid: Grid,
    stop_at: Collection[Hex] = (),
) -> Path | None:
    """The cheapest path from start to goal within the allowance, or None when there is none."""
    tables = _tables(grid)
    s = _start_index(tables, start, allowance)
    g = tables.index.get(goal)
    if g is None:
        return None
    stops = frozenset(tables.index[h] for h in stop_at if h in tables.index)
    settled, used_at, prev = _search(
        tables, start=s, allowance=allowance, step_cost=step_cost, goal=g, stop_at=stops
    )
    if not settled or settled[-1] != g:
        return None
    route = [g]
    while route[-1] != s:
        route.append(prev[route[-1]])
    hexes = tables.hexes
    return Path(hexes=tuple(hexes[i] for i in reversed(route)), cost=used_at[g])
