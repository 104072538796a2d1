"""Setup shared by the benchmark scripts: their own PostgreSQL database, the 100 × 100
campaign with 2,000 stacks, a gunicorn server with the production settings, and rewriting
one section of docs/perf.md.

Import it after `django.setup()` (the scripts set DJANGO_SETTINGS_MODULE and DATABASE_URL
first). Not a test module: pytest collects only test_*.py.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PERF = ROOT / "docs" / "perf.md"

# The large campaign of the map benchmarks (bench_api_map, bench_map_page).
SIZE = (100, 100)
STACKS = 2000
UNITS = 10_000
SIGHTINGS = 1000
SEED = 20240609

# The gunicorn server's secret key: a session made in the script under this key is valid there.
SERVER_SECRET_KEY = "bench-only-not-secret-" + "z" * 30


@contextmanager
def own_database(suffix: str) -> Iterator[None]:
    """Create the database `<DATABASE_URL's name>_<suffix>`, migrated, and drop it afterwards."""
    creation = connection.creation
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"{old_name}_{suffix}"
    creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.close()
        creation.destroy_test_db(old_name, verbosity=0)


def build(*, large: bool) -> Any:
    """A started Broad Way campaign with four players; `large`: grown to SIZE with exactly
    STACKS stacks (half of them the alliance's, spread over the players), UNITS units and
    the alliance's latest sighting of (up to SIGHTINGS) opposition hexes."""
    from campaigns.models import Membership, Phase, Side, Sighting, Stack, Turn, Unit, UnitType
    from campaigns.simulation import setup_campaign
    from rules.hexgrid import format_label, offset_to_hex

    campaign = setup_campaign(seed=SEED if large else SEED + 1, players=4,
                              size=SIZE if large else None, stacks=0)
    if not large:
        return campaign
    rng = random.Random(SEED)
    sides = {s.kind: s for s in Side.objects.filter(campaign=campaign)}
    players = list(Membership.objects.filter(campaign=campaign, role="player").order_by("pk"))
    own_types = {p.pk: list(UnitType.objects.filter(owner=p).order_by("pk")) for p in players}
    foe_types = list(UnitType.objects.filter(side=sides["opposition"], owner=None).order_by("pk"))
    taken = set(Stack.objects.filter(campaign=campaign).values_list("hex", flat=True))
    free = [format_label(offset_to_hex(col=c, row=r))
            for c in range(SIZE[0]) for r in range(1, SIZE[1] + 1)]
    free = [h for h in free if h not in taken]
    rng.shuffle(free)
    have_stacks = Stack.objects.filter(campaign=campaign).count()
    have_units = Unit.objects.filter(campaign=campaign).count()
    new_stacks = STACKS - have_stacks
    alliance_new = STACKS // 2 - Stack.objects.filter(campaign=campaign,
                                                      side=sides["alliance"]).count()
    stacks = Stack.objects.bulk_create(
        [Stack(campaign=campaign, side=sides["alliance" if i < alliance_new else "opposition"],
               hex=free[i]) for i in range(new_stacks)], batch_size=1000)
    to_place = UNITS - have_units
    units = []
    for i in range(to_place):
        stack = stacks[i % len(stacks)]
        if stack.side_id == sides["alliance"].pk:
            owner = players[i % len(players)]
            unit_type = own_types[owner.pk][i % len(own_types[owner.pk])]
        else:
            owner, unit_type = None, foe_types[i % len(foe_types)]
        units.append(Unit(campaign=campaign, side_id=stack.side_id, owner=owner,
                          unit_type=unit_type, name=f"{unit_type.name} {i + 1}",
                          current_hits=unit_type.hits, stack=stack,
                          position=i // len(stacks)))
    Unit.objects.bulk_create(units, batch_size=2000)
    turn, phase = Turn.objects.get(campaign=campaign), Phase.objects.get(campaign=campaign)
    terrain = campaign.map.terrain
    seen_units: dict[int, list[dict[str, Any]]] = {}
    for stack_id, name, type_name, hits in (
            Unit.objects.filter(campaign=campaign, side=sides["opposition"], stack__isnull=False)
            .order_by("stack_id", "position").values_list("stack_id", "name", "unit_type__name",
                                                          "current_hits")):
        seen_units.setdefault(stack_id, []).append(
            {"name": name, "unit_type": type_name, "current_hits": hits})
    foes: dict[str, list[int]] = {}
    for stack_id, hex_label in (Stack.objects.filter(campaign=campaign, side=sides["opposition"])
                                .order_by("created_seq", "pk").values_list("pk", "hex")):
        foes.setdefault(hex_label, []).append(stack_id)
    Sighting.objects.bulk_create([
        Sighting(campaign=campaign, side=sides["alliance"], hex=h, turn=turn, phase=phase,
                 seen={"hex": h, "terrain": terrain.get(h, "open"), "road": False,
                       "stacks": [{"side": "opposition", "fortification": None,
                                   "units": seen_units.get(s, [])} for s in stacks],
                       "fortifications": []})
        for h, stacks in list(foes.items())[:SIGHTINGS]], batch_size=1000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return campaign


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(tmp: Path) -> dict[str, str]:
    """The environment of a production-settings process on the benchmark's database: static
    files collected into tmp/static, the filesystem broker in tmp/celery."""
    s = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DATABASE_URL": f"postgres://{s['USER']}{':' + s['PASSWORD'] if s['PASSWORD'] else ''}"
                        f"@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}",
        "DJANGO_SECRET_KEY": SERVER_SECRET_KEY,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_HSTS_SECONDS": "0",
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "CELERY_FS_DIR": str(tmp / "celery"),
        "REDIS_URL": "",
        "DJANGO_LOG_LEVEL": "WARNING",
    }


def start_gunicorn(port: int, tmp: Path, *, workers: int,
                   env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """gunicorn with the production settings on 127.0.0.1:port (`env` over `server_env`),
    once /healthz answers."""
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--log-level", "warning"],
        cwd=ROOT, env={**server_env(tmp), **(env or {})})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                if r.status == 200:
                    return server
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def write_perf_section(title: str, report: str) -> None:
    """Replace the section `## <title>` of docs/perf.md with `report` (appended if new)."""
    text = PERF.read_text() if PERF.exists() else "# Performance\n"
    start = text.find(f"## {title}\n")
    if start != -1:
        end = text.find("\n## ", start + 1)
        text = text[:start] + (text[end + 1:] if end != -1 else "")
    PERF.write_text(text.rstrip() + "\n\n" + report)
