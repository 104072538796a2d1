"""Movement search over a ruleset's step cost: reachable sets and cheapest paths (rules/pathing.py)."""

from __future__ import annotations

from collections.abc import Mapping

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.hexgrid import Grid, Hex, distance, format_label, parse_label
from rules.pathing import Path, PathingError, StepCost, cheapest_path, reachable

ALL = -1  # in the tables below: entering costs all remaining movement (at least 1)


def table_cost(costs: Mapping[str, int | None]) -> StepCost:
    """A step cost that charges the entered hex's cost (default 1); None = cannot enter."""
    by_hex = {parse_label(k): v for k, v in costs.items()}

    def step(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        cost = by_hex.get(to_hex, 1)
        if cost == ALL:
            return movement_left if movement_left >= 1 else None
        return cost

    return step


REACHABLE = [
    # (cols, rows, costs, start, allowance, stop_at, expected: label -> movement left)
    (3, 3, {}, "A1", 0, [], {"A1": 0}),
    (3, 3, {}, "A1", 1, [], {"A1": 1, "B1": 0, "A2": 0}),
    (3, 3, {}, "B2", 1, [],
     {"B2": 1, "B1": 0, "C2": 0, "C3": 0, "B3": 0, "A3": 0, "A2": 0}),
    (3, 3, {"B1": 3}, "A1", 3, [], {"A1": 3, "B1": 0, "A2": 2, "B2": 1, "A3": 1, "B3": 0,
                                    "C2": 0, "C3": 0}),
    # A barrier of impassable hexes forces the long way round.
    (3, 3, {"B1": None, "B2": None}, "A1", 5, [],
     {"A1": 5, "A2": 4, "A3": 3, "B3": 2, "C3": 1, "C2": 0}),
    # A1-B1-C1-D1 is a chain on a one-row map; C1 costs all remaining movement.
    (4, 1, {"C1": ALL}, "A1", 3, [], {"A1": 3, "B1": 2, "C1": 0}),
    (4, 1, {"C1": ALL}, "A1", 1, [], {"A1": 1, "B1": 0}),
    # Stop hexes may be entered but not passed through.
    (4, 1, {}, "A1", 3, ["B1"], {"A1": 3, "B1": 2}),
    (4, 1, {}, "A1", 3, ["A1"], {"A1": 3, "B1": 2, "C1": 1, "D1": 0}),
]


@pytest.mark.parametrize(
    ("cols", "rows", "costs", "start", "allowance", "stop_at", "expected"), REACHABLE
)
def test_reachable(
    cols: int,
    rows: int,
    costs: dict[str, int | None],
    start: str,
    allowance: int,
    stop_at: list[str],
    expected: dict[str, int],
) -> None:
    got = reachable(
        start=parse_label(start),
        allowance=allowance,
        step_cost=table_cost(costs),
        grid=Grid(cols=cols, rows=rows),
        stop_at=[parse_label(s) for s in stop_at],
    )
    assert {format_label(h): left for h, left in got.items()} == expected


PATHS = [
    # (cols, rows, costs, start, goal, allowance, expected path or None, cost)
    (3, 3, {}, "A1", "A1", 0, ["A1"], 0),
    # Two equally cheap ways: the one through the hex earliest in map order (A2) wins.
    (2, 2, {}, "A1", "B2", 2, ["A1", "A2", "B2"], 2),
    (2, 2, {"A2": 2}, "A1", "B2", 2, ["A1", "B1", "B2"], 2),
    (3, 3, {"B1": None, "B2": None}, "A1", "C1", 6,
     ["A1", "A2", "A3", "B3", "C3", "C2", "C1"], 6),
    (3, 3, {"B1": None, "B2": None}, "A1", "C1", 5, None, None),
    (4, 1, {"C1": ALL}, "A1", "C1", 4, ["A1", "B1", "C1"], 4),
    (4, 1, {"C1": ALL}, "A1", "D1", 9, None, None),
    (4, 1, {}, "A1", "E1", 9, None, None),  # goal off the map
]


@pytest.mark.parametrize(
    ("cols", "rows", "costs", "start", "goal", "allowance", "expected", "cost"), PATHS
)
def test_cheapest_path(
    cols: int,
    rows: int,
    costs: dict[str, int | None],
    start: str,
    goal: str,
    allowance: int,
    expected: list[str] | None,
    cost: int | None,
) -> None:
    path = cheapest_path(
        start=parse_label(start),
        goal=parse_label(goal),
        allowance=allowance,
        step_cost=table_cost(costs),
        grid=Grid(cols=cols, rows=rows),
    )
    if expected is None:
        assert path is None
    else:
        assert path == Path(hexes=tuple(parse_label(x) for x in expected), cost=cost or 0)


def test_search_errors() -> None:
    grid = Grid(cols=3, rows=3)
    with pytest.raises(PathingError, match=r"start hex \(q=5, r=0\) is not on the map"):
        reachable(start=Hex(5, 0), allowance=1, step_cost=table_cost({}), grid=grid)
    with pytest.raises(PathingError, match="allowance must be 0 or more, not -1"):
        cheapest_path(start=Hex(0, 0), goal=Hex(0, 1), allowance=-1,
                      step_cost=table_cost({}), grid=grid)


def test_negative_step_cost_is_a_bug() -> None:
    with pytest.raises(ValueError, match="step cost must be 0 or more"):
        reachable(start=Hex(0, 0), allowance=2, step_cost=table_cost({"A2": -5}),
                  grid=Grid(cols=2, rows=2))


@given(cols=st.integers(1, 9), rows=st.integers(1, 9), allowance=st.integers(0, 12))
def test_uniform_cost_reach_is_hex_distance(cols: int, rows: int, allowance: int) -> None:
    grid = Grid(cols=cols, rows=rows)
    start = Hex(0, 0)
    got = reachable(start=start, allowance=allowance, step_cost=table_cost({}), grid=grid)
    expected = {h: allowance - distance(start, h) for h in grid.hexes()
                if distance(start, h) <= allowance}
    assert got == expected


cost_values = st.sampled_from([None, 1, 1, 2, 3, 4, 0])


@st.composite
def maps(draw: st.DrawFn) -> tuple[Grid, dict[Hex, int | None], Hex, Hex, int]:
    cols = draw(st.integers(1, 7))
    rows = draw(st.integers(1, 7))
    grid = Grid(cols=cols, rows=rows)
    hexes = list(grid.hexes())
    costs = {h: draw(cost_values) for h in hexes}
    start = draw(st.sampled_from(hexes))
    goal = draw(st.sampled_from(hexes))
    return grid, costs, start, goal, draw(st.integers(0, 20))


@settings(max_examples=300)
@given(case=maps())
def test_agrees_with_networkx(case: tuple[Grid, dict[Hex, int | None], Hex, Hex, int]) -> None:
    grid, costs, start, goal, allowance = case

    def step(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        return costs[to_hex]

    graph: nx.DiGraph[Hex] = nx.DiGraph()
    graph.add_nodes_from(grid.hexes())
    for h in grid.hexes():
        for n in grid.neighbors(h).values():
            if costs[n] is not None:
                graph.add_edge(h, n, weight=costs[n])
    lengths = nx.single_source_dijkstra_path_length(graph, start, cutoff=allowance)
    got = reachable(start=start, allowance=allowance, step_cost=step, grid=grid)
    assert got == {h: allowance - used for h, used in lengths.items()}

    path = cheapest_path(start=start, goal=goal, allowance=allowance, step_cost=step, grid=grid)
    if goal in lengths:
        assert path is not None
        assert path.cost == lengths[goal]
        assert path.hexes[0] == start and path.hexes[-1] == goal
        assert sum(costs[h] or 0 for h in path.hexes[1:]) == path.cost
        assert all(distance(a, b) == 1 for a, b in zip(path.hexes, path.hexes[1:], strict=False))
    else:
        assert path is None
