"""Load on loopback: 50 players of one campaign reading the map and giving orders through the
REST API of a gunicorn server, with locust; then the same load on /healthz.

Run: `python tests/bench/bench_api_load.py` (or `./dev bench`) with PostgreSQL reachable
(DATABASE_URL, default postgres://postgres@127.0.0.1:5432/warcamp). It creates and drops its
own database `<name>_bench_load`, starts gunicorn on 127.0.0.1 with the production settings,
runs locust headless (tests/bench/locustfile.py) for BENCH_SECONDS (default 60) per stage, and
writes the "API load" section of docs/perf.md.

Stages, each with 50 closed-loop users (no think time), one player each:
- scout phase: read the map, give a scout order (now and then cancel it), mark done once;
- move/combat phase (the GM ends the scout phase in between): read the map, move the stack
  once to a hex from the reachable endpoint, mark done once, then reorder the stack's units;
- /healthz, the trivial JSON view, under the same load.
No lost update: afterwards every player's events and final state in the database must be
exactly what that player's accepted requests imply.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/warcamp")
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402

from tests.bench.common import free_port, start_gunicorn, write_perf_section  # noqa: E402

PLAYERS = 50
SECONDS = int(os.environ.get("BENCH_SECONDS", "60"))
# Two cores run gunicorn, PostgreSQL and locust together: three sync workers (as in
# docker-compose.yml) keep both cores busy while one worker waits on the database.
WORKERS = 3
SEED = 20240610
BIN = Path(sys.executable).parent
CANDIDATE_PATHS = [["SE"], ["S"], ["SE", "S"], ["S", "SE"], ["SE", "SE"], ["S", "S"],
                   ["SE", "S", "SE"], ["S", "SE", "S", "SE"]]


def seed() -> tuple[Any, dict[str, Any]]:
    """A started Broad Way campaign with PLAYERS players, each with a token."""
    from accounts.services import api_token_create
    from campaigns.games.erfworld.fetch import board_for, unit_stats
    from campaigns.models import Membership, Stack, Unit
    from campaigns.simulation import setup_campaign
    from rules.erfworld.scouting import ScoutOrderError, validate_scout_order
    from rules.hexgrid import parse_label

    campaign = setup_campaign(seed=SEED, players=PLAYERS)
    board = board_for(campaign)
    players = []
    for m in Membership.objects.filter(campaign=campaign, role="player").order_by("pk"):
        stack = Stack.objects.filter(units__owner=m).distinct().get()
        units = list(Unit.objects.filter(stack=stack).order_by("position")
                     .select_related("unit_type"))
        scout = next(u for u in units if "scout" in u.unit_type.specials)
        paths = []
        for p in CANDIDATE_PATHS:
            try:
                validate_scout_order(scout=unit_stats(scout.unit_type),
                                     scout_hex=parse_label(stack.hex), commander_in_hex=True,
                                     directions=p, board=board)
            except ScoutOrderError:
                continue
            paths.append(p)
        players.append({"membership": m.pk, "user": m.user_id,
                        "token": api_token_create(user=m.user),
                        "stack": stack.pk, "scout": scout.pk, "units": [u.pk for u in units],
                        "paths": paths})
    return campaign, {"campaign": campaign.pk, "players": players}


def run_locust(user_class: str, *, port: int, tmp: Path, players: Path, stage: str = "") -> dict[str, Any]:
    out = tmp / f"locust-{user_class}-{stage or 'health'}.json"
    env = {**os.environ, "BENCH_PLAYERS": str(players), "BENCH_OUT": str(out),
           "BENCH_STAGE": stage, "BENCH_SECONDS": str(SECONDS)}
    subprocess.run(
        [str(BIN / "locust"), "-f", str(Path(__file__).with_name("locustfile.py")),
         "--headless", "-u", str(PLAYERS), "-r", str(PLAYERS),
         # The users stop themselves after SECONDS (locustfile.py): -t is only a safety net.
         "-t", f"{SECONDS + 300}s", "--host", f"http://127.0.0.1:{port}", "--only-summary",
         "--loglevel", "WARNING", user_class],
        cwd=ROOT, env=env, check=False)  # locust exits 1 when a request failed: reported below
    result = json.loads(out.read_text())
    # The 1-minute load average at the end of the stage: the machine may be shared.
    result["load"] = os.getloadavg()[0]
    return result


def lost_updates_scout(seeded: dict[str, Any], accepted: dict[str, Any], phase: Any) -> list[str]:
    from campaigns.models import Event, ScoutOrder

    wrong = []
    for p in seeded["players"]:
        log = accepted[str(p["membership"])]
        events = Event.objects.filter(phase=phase, actor_id=p["user"])
        counts = (events.filter(kind="scout_order_given").count(),
                  events.filter(kind="scout_order_cancelled").count(),
                  events.filter(kind="orders_done").count())
        order = ScoutOrder.objects.filter(phase=phase, scout_id=p["scout"]).first()
        final = order.directions if order else None
        if counts != (log["give"], log["cancel"], log["done"]) or final != log["order"]:
            wrong.append(f"player {p['membership']}: database {counts} {final}, "
                         f"accepted {(log['give'], log['cancel'], log['done'])} {log['order']}")
    return wrong


def lost_updates_move(seeded: dict[str, Any], accepted: dict[str, Any], phase: Any) -> list[str]:
    from campaigns.models import Event, Stack, Unit

    wrong = []
    for p in seeded["players"]:
        log = accepted[str(p["membership"])]
        events = Event.objects.filter(phase=phase, actor_id=p["user"])
        # Consecutive reorders of one stack are one event that counts them ("reorders").
        counts = (events.filter(kind="stack_moved").count(),
                  sum(int(e.payload.get("reorders", 1))
                      for e in events.filter(kind="stack_reordered")),
                  events.filter(kind="orders_done").count())
        stack = Stack.objects.filter(pk=p["stack"]).first()
        hex_ = stack.hex if stack else None
        order = list(Unit.objects.filter(stack_id=p["stack"]).order_by("position")
                     .values_list("pk", flat=True)) or None
        expect_hex = log["hex"] if log["move"] else hex_
        if (counts != (log["move"], log["reorder"], log["done"])
                or (not log["ambushed"] and hex_ != expect_hex)
                or (log["unit_order"] is not None and order != log["unit_order"])):
            wrong.append(f"player {p['membership']}: database {counts} {hex_} {order}, accepted "
                         f"{(log['move'], log['reorder'], log['done'])} {log['hex']} "
                         f"{log['unit_order']}")
    return wrong


def has_move_endpoints() -> bool:
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("api:stack-move", kwargs={"campaign_id": 1, "stack_id": 1})
        reverse("api:stack-reorder", kwargs={"campaign_id": 1, "stack_id": 1})
        reverse("api:stack-reachable", kwargs={"campaign_id": 1, "stack_id": 1})
    except NoReverseMatch:
        return False
    return True


def main() -> None:
    from campaigns.games.erfworld import phase_end
    from campaigns.models import Membership, Phase

    creation = connection.creation
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"{old_name}_bench_load"
    creation.create_test_db(verbosity=0, autoclobber=True)
    runs: list[tuple[str, dict[str, Any], list[str] | None]] = []
    try:
        campaign, seeded = seed()
        gm = Membership.objects.get(campaign=campaign, role="gm").user
        with tempfile.TemporaryDirectory(prefix="bench_api_load") as tmp_name:
            tmp = Path(tmp_name)
            players = tmp / "players.json"
            players.write_text(json.dumps(seeded))
            connection.close()
            port = free_port()
            server = start_gunicorn(port, tmp, workers=WORKERS)
            try:
                phase = Phase.objects.get(campaign=campaign, status="open")
                result = run_locust("Player", port=port, tmp=tmp, players=players,
                                    stage="scout")
                runs.append(("players, scout phase", result,
                             lost_updates_scout(seeded, result["accepted"], phase)))
                if has_move_endpoints():
                    phase_end(user=gm, campaign=campaign)
                    phase = Phase.objects.get(campaign=campaign, status="open")
                    assert phase.kind == "move_combat", phase.kind
                    connection.close()
                    result = run_locust("Player", port=port, tmp=tmp, players=players,
                                        stage="move")
                    runs.append(("players, move/combat phase", result,
                                 lost_updates_move(seeded, result["accepted"], phase)))
                connection.close()
                runs.append(("/healthz", run_locust("Health", port=port, tmp=tmp,
                                                    players=players), None))
            finally:
                server.terminate()
                server.wait(timeout=60)
        pg_version = connection.pg_version // 10000
    finally:
        connection.close()
        creation.destroy_test_db(old_name, verbosity=0)
    report(runs, pg_version)


def report(runs: list[tuple[str, dict[str, Any], list[str] | None]], pg_version: int) -> None:
    rows = []
    for label, result, wrong in runs:
        t = result["total"]
        rows.append(f"| {label} | all | {t['requests']:,} | {t['failures']} | {t['p50']:.0f} | "
                    f"{t['p99']:.0f} | {t['rps']:.1f} | "
                    f"{'' if wrong is None else len(wrong)} | {result['load']:.1f} |")
        if wrong is not None:
            for name, e in sorted(result["endpoints"].items()):
                rows.append(f"| | {name} | {e['requests']:,} | {e['failures']} | {e['p50']:.0f} | "
                            f"{e['p99']:.0f} | {e['rps']:.1f} | | |")
    health = runs[-1][1]["total"]["rps"]
    play = [r for r in runs if r[2] is not None]
    errors = sum(r[1]["total"]["failures"] for r in runs)
    lost = sum(len(r[2]) for r in play if r[2] is not None)
    ratios = ", ".join(f"{label} {r['total']['rps'] / health:.2f}" for label, r, _ in play)
    text = f"""## API load

`python tests/bench/bench_api_load.py`: gunicorn ({WORKERS} sync workers, production settings,
`DATABASE_CONN_MAX_AGE` at its default 0 as in docker-compose.yml) on 127.0.0.1 against a fresh
PostgreSQL {pg_version} database holding one started Broad Way campaign with {PLAYERS} players
(each a token; the {PLAYERS} stacks at the entry hex with 15 units each, all visible to every
player). Locust (headless, FastHttpUser, one process on the same machine) runs {PLAYERS}
closed-loop users (no think time: the server is the bottleneck), one player each, for
{SECONDS} s per stage:

- scout phase: `GET …/map/`, then give a scout order (`POST …/scout-orders/`) or, three times
  in ten, cancel the open one (`POST …/scout-orders/<id>/cancel/`); `POST …/done/` once;
- move/combat phase (the GM ends the scout phase between the stages; run when the move
  endpoints exist): `GET …/map/`, once `GET …/stacks/<id>/reachable/` and `POST …/move/` to
  one of those hexes, `POST …/done/` once, then `POST …/stacks/<id>/reorder/` with a random
  order;
- `/healthz` (a trivial JSON view that checks the database and broker) under the same load.

Errors are every answer other than 2xx (target 0). Lost updates: after each stage every
player's events in the database (scout orders given and cancelled, moves, reorders, done)
must equal that player's accepted requests, and the final state must be the last accepted
one (the open scout order and its path, the stack's hex, the units' order).

- Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared by
  the server, PostgreSQL and locust), Python {platform.python_version()}; "load avg" is the
  machine's 1-minute load average at the end of each stage
- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}

| load | request | requests | errors | p50 (ms) | p99 (ms) | req/s | lost updates | load avg |
|---|---|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + f"""

Errors: {errors} (target 0). Lost updates: {lost}. Throughput as a share of /healthz's
({health:.1f} req/s): {ratios}.

With closed-loop users and no think time the server is saturated, so latencies are mostly
queueing: p50 ≈ {PLAYERS} users / throughput (Little's law), for /healthz too. Throughput is the
figure to compare. Every order locks the campaign's row (DESIGN.md: one transaction, row
locks), so one campaign's orders are applied one at a time, and a sync worker waiting for
that lock is not serving map reads meanwhile.
"""
    for label, result, wrong in runs:
        for e in result["errors"][:10]:
            text += f"\n- {label}, {e['name']}: {e['occurrences']} × {e['error'][:160]}"
        for w in (wrong or [])[:10]:
            text += f"\n- {label}, lost update: {w}"
    text += "\n"
    write_perf_section("API load", text)
    print(text)


if __name__ == "__main__":
    main()
