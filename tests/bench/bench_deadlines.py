"""Benchmark of the deadline sweep: 10,000 campaigns with open phases, none due vs 100 due.

Run: `python tests/bench/bench_deadlines.py` (or `./dev bench`) with PostgreSQL reachable
(DATABASE_URL, default postgres://postgres@127.0.0.1:5432/warcamp). It creates and drops its
own database `test_<name>_bench`, and writes the figures and the query plan into docs/perf.md
("Deadline sweep"). The baseline in the same run is the same query with index scans turned off.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/warcamp")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

CAMPAIGNS = 10_000
DUE = 100
RUNS = 7


def populate(now):
    from campaigns.models import Campaign, CampaignStatus, Phase, PhaseKind, Turn

    campaigns = Campaign.objects.bulk_create(
        [Campaign(name=f"Bench {i}", scenario_key="broad_way", status=CampaignStatus.RUNNING,
                  entry_hex="A1", invite_code=f"bench{i:05d}", setup_dice_seed="s" * 64,
                  setup_dice_commitment="c" * 64) for i in range(CAMPAIGNS)],
        batch_size=2000,
    )
    turns = Turn.objects.bulk_create([Turn(campaign=c, number=1) for c in campaigns],
                                     batch_size=2000)
    Phase.objects.bulk_create(
        [Phase(campaign=c, turn=t, kind=PhaseKind.SCOUT, opened_at=now,
               deadline_at=now + timedelta(hours=72, minutes=i % 600), dice_seed="s" * 64,
               dice_commitment="c" * 64) for i, (c, t) in enumerate(zip(campaigns, turns, strict=True))],
        batch_size=2000,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def make_due(now):
    from campaigns.models import Event, Notice, Phase

    ids = list(Phase.objects.order_by("pk").values_list("pk", flat=True)[:DUE])
    Notice.objects.all().delete()
    Event.objects.all().delete()
    Phase.objects.filter(pk__in=ids).update(deadline_at=now - timedelta(minutes=1),
                                            opened_at=now - timedelta(hours=72, minutes=1),
                                            deadline_processed_at=None)
    return ids


def median_ms(fn, reset=None):
    times = []
    for _ in range(RUNS):
        if reset:
            reset()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def explain(now) -> str:
    """The plans of the sweep's three selection queries (as due_phase_ids builds them)."""
    from campaigns.models import CampaignStatus, Phase, PhaseStatus

    horizon = now + timedelta(hours=24)
    live = Phase.objects.filter(status=PhaseStatus.OPEN, campaign__status=CampaignStatus.RUNNING,
                                processing_flagged_at__isnull=True)
    queries = {
        "deadlines not yet processed": live.filter(deadline_processed_at__isnull=True,
                                                   deadline_at__lte=horizon),
        "hard deadlines passed": live.filter(campaign__hard_deadline=True, deadline_at__lte=now),
        "early-close campaigns": live.filter(campaign__early_close=True,
                                             kind__in=["scout", "move_combat"]),
    }
    return "\n\n".join(f"-- {name}\n{qs.values_list('pk', flat=True).explain()}"
                        for name, qs in queries.items())


def main() -> None:
    from campaigns.services.deadlines import due_phase_ids, sweep

    creation = connection.creation
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"test_{old_name}_bench"
    creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        now = timezone.now()
        populate(now)
        none_query = median_ms(lambda: due_phase_ids(now=now))
        none_sweep = median_ms(lambda: sweep(now=now))
        with connection.cursor() as cursor:
            cursor.execute("SET enable_indexscan = off; SET enable_bitmapscan = off")
        baseline_query = median_ms(lambda: due_phase_ids(now=now))
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_indexscan; RESET enable_bitmapscan")
        plan_none = explain(now)
        make_due(now)
        due_count = len(due_phase_ids(now=now))
        due_query = median_ms(lambda: due_phase_ids(now=now))
        due_sweep = median_ms(lambda: sweep(now=now), reset=lambda: make_due(now))
    finally:
        creation.destroy_test_db(old_name, verbosity=0)
    assert due_count == DUE, due_count
    report = f"""## Deadline sweep

`python tests/bench/bench_deadlines.py`: {CAMPAIGNS:,} running campaigns, each with an open phase;
first none is due, then {DUE} have passed their deadline. Median of {RUNS} runs on PostgreSQL
{connection.pg_version // 10000 if hasattr(connection, 'pg_version') else ''}; the sweep's
timing includes processing each due phase (lock, late players, event, notice). Baseline in
the same run: the same selection query with index and bitmap scans turned off.

- Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}
- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}

| case | selection query (ms) | whole sweep (ms) |
|---|---:|---:|
| none due | {none_query:.2f} | {none_sweep:.2f} |
| {DUE} due | {due_query:.2f} | {due_sweep:.1f} ({due_sweep / DUE:.2f} per phase) |
| baseline: none due, no index scans | {baseline_query:.2f} | |

Ratio selection query / sequential-scan baseline (none due): {none_query / baseline_query:.2f}.

Query plans of the selection (none due):

```
{plan_none}
```
"""
    perf = ROOT / "docs" / "perf.md"
    text = perf.read_text() if perf.exists() else "# Performance\n"
    start = text.find("## Deadline sweep")
    if start != -1:
        end = text.find("\n## ", start + 1)
        text = text[:start] + (text[end + 1:] if end != -1 else "")
    perf.write_text(text.rstrip() + "\n\n" + report)
    print(report)


if __name__ == "__main__":
    main()
