"""Simulated turns on generated maps with 500, 1,000 and 2,000 opposition stacks: seconds and
queries per turn and per action. Writes the "## Campaign simulation" section of docs/perf.md.

Run: DATABASE_URL=postgres://… .venv/bin/python tests/bench/bench_simulate.py (a scratch
database: it creates campaigns in it).
"""

import os
import platform
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django  # noqa: E402

django.setup()

from campaigns.simulation import simulate  # noqa: E402

TURNS = 3
SIZE = (80, 80)


def main() -> None:
    rows = []
    for stacks in (500, 1000, 2000):
        totals = simulate(turns=TURNS, seed=11, size=SIZE, stacks=stacks)
        turns = totals.per_turn
        seconds = sum(t["seconds"] for t in turns) / len(turns)
        queries = sum(t["queries"] for t in turns) / len(turns)
        actions = sum(t["actions"] for t in turns)
        per_action = sum(t["queries"] for t in turns) / max(1, actions)
        rows.append((stacks, len(turns), seconds, queries, actions, per_action))
        print(stacks, turns, flush=True)
    lines = [
        "## Campaign simulation",
        "",
        f"`python tests/bench/bench_simulate.py`: `campaigns.simulation.simulate` (the bots of "
        f"`manage.py simulate_campaign`) on a generated {SIZE[0]} × {SIZE[1]} map with random "
        f"terrain and N opposition stacks, {TURNS} turns, seed 11, PostgreSQL. A turn is the "
        "scout phase, the alliance's move/combat phase and the opposition phase, every action "
        "through the real services.",
        "",
        f"- Machine: {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        "| stacks | turns | seconds / turn | queries / turn | actions | queries / action |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {s} | {t} | {sec:.3f} | {q:.0f} | {a} | {qa:.1f} |"
              for s, t, sec, q, a, qa in rows]
    lines += ["", "Queries per action do not depend on the number of stacks (each action "
              "reads the board with one query for fortifications and one for the hexes "
              "holding stacks); seconds grow with the rows those two queries return.", ""]
    perf = ROOT / "docs" / "perf.md"
    text = perf.read_text()
    section = "\n".join(lines)
    if "## Campaign simulation" in text:
        text = re.sub(r"## Campaign simulation.*?(?=\n## |\Z)", section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    perf.write_text(text)


if __name__ == "__main__":
    main()
