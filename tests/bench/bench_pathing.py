"""Benchmark: rules.pathing against networkx's Dijkstra on a 100 × 100 map; writes docs/perf.md.

Run with `python tests/bench/bench_pathing.py` (pytest does not collect it). Both searches
work on the same weighted digraph: an edge into a hex weighs what entering it costs. The
script asserts that both give identical costs, then records the median times and the
median ratio ours / networkx (target ≤ 1.0) in the "Pathing" section of docs/perf.md.
"""

from __future__ import annotations

import datetime
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import networkx as nx  # noqa: E402

from rules.erfworld.board import Board, Tower  # noqa: E402
from rules.erfworld.movement import movement_profile, stack_step_cost  # noqa: E402
from rules.erfworld.types import SideKind, Terrain, UnitStats  # noqa: E402
from rules.hexgrid import Direction, Grid, Hex, format_label  # noqa: E402
from rules.pathing import StepCost, cheapest_path, reachable  # noqa: E402

SIZE = 100
REPEATS = 9
SEED = 20240603
BIG = 10**6  # an allowance large enough to reach the whole map
PERF_DOC = ROOT / "docs" / "perf.md"


@dataclass(frozen=True)
class Scenario:
    name: str
    grid: Grid
    # Called inside the timed region: a ruleset builds its step cost for every search.
    make_step_cost: Callable[[], StepCost]
    graph: nx.DiGraph[Hex]


def random_board(rng: random.Random) -> Board:
    """Random terrain, walls around a few fortified hexes and some enemy stacks (no towers:
    a tower's cost depends on the movement left, which a static graph cannot express)."""
    grid = Grid(cols=SIZE, rows=SIZE)
    hexes = list(grid.hexes())
    weights = [(Terrain.OPEN, 45), (Terrain.ROAD, 15), (Terrain.HILLS, 15),
               (Terrain.WOODS, 15), (Terrain.SWAMP, 10)]
    kinds = [t for t, w in weights for _ in range(w)]
    terrain = {h: rng.choice(kinds) for h in hexes}
    corners = {hexes[0], hexes[-1]}
    forts = [h for h in rng.sample(hexes, 60) if h not in corners]
    walls = {(h, d): rng.choice([0, 20, 40]) for h in forts for d in Direction}
    owners = {h: rng.choice(list(SideKind)) for h in forts}
    enemies = frozenset(h for h in rng.sample(hexes, 200) if h not in corners)
    return Board(grid=grid, terrain=terrain, walls=walls, fort_owners=owners,
                 towers={h: Tower(hits=0, owner=owners[h]) for h in forts[:10]},
                 stacks={SideKind.OPPOSITION: enemies})


def graph_of(grid: Grid, step_cost: StepCost) -> nx.DiGraph[Hex]:
    graph: nx.DiGraph[Hex] = nx.DiGraph()
    graph.add_nodes_from(grid.hexes())
    for a in grid.hexes():
        for b in grid.neighbors(a).values():
            cost = step_cost(a, b, BIG)
            if cost is not None:
                graph.add_edge(a, b, weight=cost)
    return graph


def scenarios() -> list[Scenario]:
    rng = random.Random(SEED)
    board = random_board(rng)
    grid = board.grid
    plain = {h: rng.choice([1, 1, 1, 2, 2, 4]) for h in grid.hexes()}

    def table_cost(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        return plain[to_hex]

    cavalry = movement_profile(UnitStats(hits=10, attack=8, defence=2, move=4))

    def erfworld() -> StepCost:
        return stack_step_cost([cavalry], board, side=SideKind.ALLIANCE)

    return [
        Scenario("terrain table (cost of the entered hex)", grid, lambda: table_cost,
                 graph_of(grid, table_cost)),
        Scenario("Erfworld cavalry (terrain, walls, forts, enemy stacks)", grid, erfworld,
                 graph_of(grid, erfworld())),
    ]


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


@dataclass(frozen=True)
class Figures:
    scenario: str
    task: str
    ours: float
    networkx: float

    @property
    def ratio(self) -> float:
        return self.ours / self.networkx


def run_scenario(s: Scenario) -> list[Figures]:
    hexes = list(s.grid.hexes())
    start, goal = hexes[0], hexes[-1]
    reach_ours: list[float] = []
    reach_nx: list[float] = []
    path_ours: list[float] = []
    path_nx: list[float] = []
    for _ in range(REPEATS):
        t, ours = timed(lambda: reachable(start=start, allowance=BIG,
                                          step_cost=s.make_step_cost(), grid=s.grid))
        reach_ours.append(t)
        t, theirs = timed(lambda: nx.single_source_dijkstra_path_length(
            s.graph, start, cutoff=BIG, weight="weight"))
        reach_nx.append(t)
        assert isinstance(ours, dict) and isinstance(theirs, dict)
        assert {h: BIG - left for h, left in ours.items()} == theirs, "reachable costs differ"

        t, path = timed(lambda: cheapest_path(start=start, goal=goal, allowance=BIG,
                                              step_cost=s.make_step_cost(), grid=s.grid))
        path_ours.append(t)
        t, nx_path = timed(lambda: nx.dijkstra_path(s.graph, start, goal, weight="weight"))
        path_nx.append(t)
        assert path is not None and isinstance(nx_path, list)
        nx_cost = nx.path_weight(s.graph, nx_path, weight="weight")
        assert getattr(path, "cost", None) == nx_cost == theirs[goal], "path costs differ"
    return [
        Figures(s.name, f"reachable set from {format_label(start)} (whole map)",
                statistics.median(reach_ours), statistics.median(reach_nx)),
        Figures(s.name, f"cheapest path {format_label(start)} → {format_label(goal)}",
                statistics.median(path_ours), statistics.median(path_nx)),
    ]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def table_build_time() -> float:
    """Time of the first search on a new grid, which builds the neighbour tables once."""
    grid = Grid(cols=SIZE, rows=SIZE + 1)  # a grid the cache has not seen

    def one(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        return 1

    t, _ = timed(lambda: reachable(start=Hex(0, 0), allowance=0, step_cost=one, grid=grid))
    return t


def report(figures: list[Figures], build: float) -> str:
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Pathing",
        "",
        "`python tests/bench/bench_pathing.py`: `rules.pathing` against networkx's Dijkstra "
        f"(`single_source_dijkstra_path_length`, `dijkstra_path`) on a {SIZE} × {SIZE} map "
        f"with random terrain (seed {SEED}), both on the same weighted digraph (an edge into "
        "a hex weighs the cost of entering it). Allowance large enough to cover the whole "
        f"map. Median of {REPEATS} runs each, measured in the same process; both give "
        "identical costs (asserted). The networkx graph is built beforehand and not timed; "
        "our timing includes building the ruleset's step cost for each search.",
        "",
        f"- Machine: {cpu_name()}, {platform.system()} {platform.release()}",
        f"- Python {platform.python_version()}, networkx {nx.__version__}",
        f"- Date: {today}",
        "",
        "| scenario | task | ours (ms) | networkx (ms) | ratio ours/networkx |",
        "|---|---|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {f.scenario} | {f.task} | {f.ours * 1000:.1f} | {f.networkx * 1000:.1f} "
            f"| {f.ratio:.2f} |"
        )
    worst = max(f.ratio for f in figures)
    lines += [
        "",
        f"Worst ratio: {worst:.2f} (target ≤ 1.0: {'met' if worst <= 1.0 else 'NOT met'}). "
        f"The first search on a new grid also builds its neighbour tables once "
        f"({build * 1000:.1f} ms for {SIZE} × {SIZE + 1}); they are cached per grid size.",
        "",
    ]
    return "\n".join(lines)


def write_section(text: str, path: Path = PERF_DOC) -> None:
    """Replace the "## Pathing" section of docs/perf.md (other sections are kept)."""
    old = path.read_text() if path.exists() else "# Performance\n\n"
    head, sep, rest = old.partition("## Pathing\n")
    if sep:
        nxt = rest.find("\n## ")
        tail = rest[nxt + 1:] if nxt >= 0 else ""
        new = head + text + ("\n" + tail if tail else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new)


def main() -> int:
    figures: list[Figures] = []
    for s in scenarios():
        figures.extend(run_scenario(s))
    build = table_build_time()
    text = report(figures, build)
    print(text)
    write_section(text)
    return 0 if max(f.ratio for f in figures) <= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
