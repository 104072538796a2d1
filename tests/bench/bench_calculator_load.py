"""Pages stay responsive while clients hammer the rules calculators.

Run: `python tests/bench/bench_calculator_load.py` (or `./dev bench calculator_load`) with
PostgreSQL reachable (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/warcamp). It
creates and drops its own database `<name>_bench_calc`, starts gunicorn on 127.0.0.1 with the
production settings (3 sync workers, as in docker-compose.yml), and writes the "Calculator
load" section of docs/perf.md.

Two stages of BENCH_SECONDS each (default 30):
- baseline: one prober alone reads the login page and /healthz in turn, as fast as it can;
- load: the same prober while 10 signed-in clients (one API token each, so the per-user
  calculator rate applies, not the anonymous one) post, back to back, the heaviest request the
  bounds allow: the cheapest path on a 100 × 100 map of woods and open ground for a Move 5
  unit (the largest map and the most movement a unit has).
The figures are the prober's latencies (p50, p99, max) in each stage and their ratio, and what
the hammering clients got back (200, 429 throttled, 400 refused by the CPU budget).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/warcamp")
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from tests.bench.common import (  # noqa: E402
    BIN,
    free_port,
    own_database,
    server_env,
    start_gunicorn,
    write_perf_section,
)

SECONDS = int(os.environ.get("BENCH_SECONDS", "30"))
CLIENTS = 10
WORKERS = 3
COLS = ROWS = 100


def heavy_body() -> bytes:
    """The costliest path request the bounds let through: 100 × 100, every third hex woods, a
    Move 5 unit (the most a unit has) going as far as it can."""
    from rules.hexgrid import format_label, offset_to_hex

    terrain = {format_label(offset_to_hex(col=c, row=r)): "woods"
               for c in range(COLS) for r in range(1, ROWS + 1) if (c + r) % 3 == 0}
    return json.dumps({
        "map": {"cols": COLS, "rows": ROWS, "terrain": terrain},
        "unit": {"move": 5, "specials": []},
        "from": format_label(offset_to_hex(col=50, row=50)),
        "to": format_label(offset_to_hex(col=53, row=52)),
    }).encode()


def tokens(n: int) -> list[str]:
    from accounts.services import api_token_create
    from tests.factories import UserFactory

    return [api_token_create(user=UserFactory()) for _ in range(n)]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def probe(base: str, until: float, out: list[float]) -> None:
    urls = [f"{base}/accounts/login/", f"{base}/healthz"]
    i = 0
    while time.monotonic() < until:
        start = time.perf_counter()
        with urllib.request.urlopen(urls[i % 2], timeout=30) as r:  # noqa: S310 (http only)
            r.read()
        out.append(time.perf_counter() - start)
        i += 1


def hammer(base: str, token: str, body: bytes, until: float, got: Counter[int]) -> None:
    url = f"{base}/api/v1/rules/erfworld/path/"
    while time.monotonic() < until:
        req = urllib.request.Request(url, data=body, method="POST", headers={  # noqa: S310
            "Content-Type": "application/json", "Authorization": f"Token {token}"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:  # noqa: S310
                r.read()
                got[r.status] += 1
        except urllib.error.HTTPError as e:
            got[e.code] += 1
            if e.code == 429:
                # A throttled client waits as a well-behaved one would, then tries again.
                time.sleep(float(e.headers.get("Retry-After") or 1))


def stage(base: str, *, hammering: list[str], body: bytes) -> tuple[list[float], Counter[int]]:
    until = time.monotonic() + SECONDS
    latencies: list[float] = []
    got: Counter[int] = Counter()
    threads = [threading.Thread(target=hammer, args=(base, t, body, until, got))
               for t in hammering]
    for t in threads:
        t.start()
    probe(base, until, latencies)
    for t in threads:
        t.join()
    return latencies, got


def main() -> None:
    with own_database("bench_calc"), tempfile.TemporaryDirectory() as tmp:
        keys = tokens(CLIENTS)
        body = heavy_body()
        # The pages need the collected static files, as in production.
        subprocess.run([str(BIN / "python"), "manage.py", "collectstatic", "--noinput", "-v", "0"],
                       cwd=ROOT, env=server_env(Path(tmp)), check=True)
        port = free_port()
        # The throttles count in Redis, as under docker compose (one count for all workers).
        redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
        import redis

        redis.Redis.from_url(redis_url).flushdb()
        server = start_gunicorn(port, Path(tmp), workers=WORKERS, env={"REDIS_URL": redis_url})
        base = f"http://127.0.0.1:{port}"
        try:
            alone, _ = stage(base, hammering=[], body=body)
            loaded, got = stage(base, hammering=keys, body=body)
        finally:
            server.terminate()
            server.wait()
    rows = []
    for name, lat in (("alone", alone), ("10 clients on the calculators", loaded)):
        rows.append(f"| {name} | {len(lat)} | {percentile(lat, 0.5) * 1000:.1f} | "
                    f"{percentile(lat, 0.99) * 1000:.1f} | {max(lat) * 1000:.1f} |")
    ratio = percentile(loaded, 0.99) / percentile(alone, 0.99)
    answers = ", ".join(f"{code}: {n}" for code, n in sorted(got.items()))
    report = (
        "## Calculator load\n\n"
        "`python tests/bench/bench_calculator_load.py`: gunicorn with the production settings "
        f"({WORKERS} sync workers, throttles in Redis) on {platform.machine()} with {os.cpu_count()} cores; a "
        "prober reads the login page and /healthz in turn, first alone, then while "
        f"{CLIENTS} signed-in clients post the heaviest path request the bounds allow "
        f"(100 × 100 map, Move 5) back to back; {SECONDS} s per stage.\n\n"
        "| stage | page requests | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nThe prober's p99 under load is {ratio:.2f}× its p99 alone "
        f"(target: p99 under 1 s: {'met' if percentile(loaded, 0.99) < 1 else 'NOT met'}). "
        f"What the calculator clients got: {answers} (429: the per-user calculator rate, "
        "`API_THROTTLE_CALCULATOR_USER`; 400: the CPU budget, `API_CALCULATOR_CPU_SECONDS`).\n"
    )
    write_perf_section("Calculator load", report)
    print(report)


if __name__ == "__main__":
    main()
