"""Simulated play through the real services: simple bots for the alliance and the GM.

The alliance scouts ahead towards the victory hex, moves towards it one hex at a time and
attacks when an enemy stack is adjacent; the GM's opposition counter-attacks alliance stacks
next to its own. It is the smoke test of the whole turn cycle and the benchmark driver.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import connection

from accounts.models import User
from campaigns.errors import CampaignError
from campaigns.games.erfworld import (
    army_mark_ready,
    campaign_create_from_scenario,
    campaign_join,
    campaign_start,
    chief_warlord_appoint,
    phase_end,
    scout_order_give,
    unit_type_create,
    units_buy,
)
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.models import (
    Campaign,
    Event,
    Map,
    Membership,
    Phase,
    PhaseStatus,
    Side,
    Sighting,
    Stack,
    Unit,
    UnitType,
)
from rules.hexgrid import Direction, HexLabelError, distance, format_label, neighbor, parse_label

ARMY: list[tuple[str, dict[str, Any], int]] = [
    ("Warlord", {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["commander"]}, 1),
    ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}, 2),
    ("Spearman", {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": []}, 10),
    ("Ram", {"hits": 6, "attack": 6, "defence": 2, "move": 1, "specials": ["siege"]}, 2),
]
TERRAINS = ("open", "open", "open", "road", "hills", "woods", "swamp")


@dataclass
class Totals:
    turns: int = 0
    actions: int = 0
    combats: int = 0
    sightings: int = 0
    croaked: int = 0
    winner: str | None = None
    seconds: float = 0.0
    queries: int = 0
    per_turn: list[dict[str, Any]] = field(default_factory=list)


class _QueryCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool,
                 context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


@contextmanager
def counting_queries() -> Iterator[_QueryCounter]:
    counter = _QueryCounter()
    with connection.execute_wrapper(counter):
        yield counter


def _user(name: str) -> User:
    user, _ = User.objects.get_or_create(username=name, defaults={"email": f"{name}@example.com"})
    return user


def setup_campaign(*, seed: int, players: int = 2, size: tuple[int, int] | None = None,
                   stacks: int = 0) -> Campaign:
    """A started Broad Way campaign with bot players; with `size`/`stacks`, a large random
    map with that many opposition stacks (the benchmark's load)."""
    tag = f"sim{seed}-{random.Random(seed).randrange(10**9)}-{time.monotonic_ns()}"
    gm = _user(f"{tag}-gm")
    campaign = campaign_create_from_scenario(gm=gm, scenario_key="broad_way",
                                             name=f"Simulation {seed}")
    members = []
    for i in range(players):
        m = campaign_join(user=_user(f"{tag}-p{i + 1}"), invite_code=campaign.invite_code)
        for name, stats, count in ARMY:
            t = unit_type_create(user=m.user, campaign=campaign, name=name, **stats)
            units_buy(user=m.user, unit_type=t, count=count)
        army_mark_ready(user=m.user, campaign=campaign)
        members.append(m)
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    if size is not None:
        _enlarge(campaign, seed=seed, cols=size[0], rows=size[1], stacks=stacks)
    campaign_start(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    return campaign


def _enlarge(campaign: Campaign, *, seed: int, cols: int, rows: int, stacks: int) -> None:
    rng = random.Random(seed)
    game_map = Map.objects.get(campaign=campaign)
    terrain = dict(game_map.terrain)
    for c in range(12, cols):
        for r in range(1, rows + 1):
            t = rng.choice(TERRAINS)
            if t != "open":
                terrain[format_label(_offset(c, r))] = t
    for c in range(cols):
        for r in range(13 if c < 12 else 1, rows + 1):
            if c < 12:
                t = rng.choice(TERRAINS)
                if t != "open":
                    terrain[format_label(_offset(c, r))] = t
    game_map.cols, game_map.rows, game_map.terrain = cols, rows, terrain
    game_map.save()
    opposition = Side.objects.get(campaign=campaign, kind="opposition")
    spear = UnitType.objects.get(side=opposition, name="Spearman")
    taken = set(Stack.objects.filter(campaign=campaign).values_list("hex", flat=True))
    free = [format_label(_offset(c, r)) for c in range(cols) for r in range(1, rows + 1)]
    free = [h for h in free if h not in taken and h not in {"A1", "B1", "A2", "B2"}]
    chosen = rng.sample(free, min(stacks, len(free)))
    new = Stack.objects.bulk_create(
        [Stack(campaign=campaign, side=opposition, hex=h) for h in chosen])
    Unit.objects.bulk_create([
        Unit(campaign=campaign, side=opposition, unit_type=spear, name=f"Picket {i + 1}",
             current_hits=spear.hits, stack=s, position=0)
        for i, s in enumerate(new)
    ])


def _offset(col: int, row: int) -> Any:
    from rules.hexgrid import offset_to_hex

    return offset_to_hex(col=col, row=row)


_ROADS: set[str] = set()


def _towards(here: str, goal: str) -> list[str]:
    """Neighbours of `here` ordered by distance to `goal` (closest first, road first)."""
    h, g = parse_label(here), parse_label(goal)

    def key(d: Direction) -> tuple[int, int, tuple[int, int]]:
        n = neighbor(h, d)
        try:
            road = format_label(n) in _ROADS
        except HexLabelError:
            road = False
        return distance(n, g), 0 if road else 1, d.value

    options = sorted(Direction, key=key)
    out = []
    for d in options:
        try:
            out.append(format_label(neighbor(h, d)))
        except HexLabelError:  # off the map's top or left edge
            continue
    return out


def _scout_directions(here: str, goal: str, steps: int) -> list[str]:
    h, g = parse_label(here), parse_label(goal)
    out = []
    for _ in range(steps):
        d = min(Direction, key=lambda d: (distance(neighbor(h, d), g), d.value))
        out.append(d.name)
        h = neighbor(h, d)
        if h == g:
            break
    return out


def _gm(campaign: Campaign) -> User:
    return Membership.objects.select_related("user").get(campaign=campaign, role="gm").user


def _open_kind(campaign: Campaign) -> str | None:
    return (Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
            .values_list("kind", flat=True).first())


def _try(totals: Totals, action: Callable[[], Any]) -> Any:
    try:
        result = action()
    except CampaignError:
        return None
    totals.actions += 1
    return result


def _adjacent_enemy(stack: Stack, enemies: dict[str, list[Stack]]) -> Stack | None:
    for h in _towards(stack.hex, stack.hex):
        if h in enemies:
            return enemies[h][0]
    return None


def _enemies_near(campaign: Campaign, side_kind: str, hexes: set[str]) -> dict[str, list[Stack]]:
    near: set[str] = set()
    for h in hexes:
        near.update(_towards(h, h))
    out: dict[str, list[Stack]] = {}
    for s in Stack.objects.filter(campaign=campaign, hex__in=near).exclude(
            side__kind=side_kind).order_by("created_seq", "pk"):
        out.setdefault(s.hex, []).append(s)
    return out


def play_turn(campaign: Campaign, totals: Totals) -> None:
    gm = _gm(campaign)
    goal = campaign.victory_hex
    _ROADS.clear()
    _ROADS.update(h for h, t in Map.objects.get(campaign=campaign).terrain.items() if t == "road")
    # Scout phase: every scout with a commander looks ahead towards the goal.
    if _open_kind(campaign) == "scout":
        for scout in Unit.objects.filter(campaign=campaign, stack__isnull=False,
                                         unit_type__name="Scout", current_hits__gt=0
                                         ).select_related("stack", "owner__user"):
            assert scout.stack is not None and scout.owner is not None
            _try(totals, partial(scout_order_give,
                 user=scout.owner.user, campaign=campaign, scout=scout,
                 directions=_scout_directions(scout.stack.hex, goal, 6)))
        phase_end(user=gm, campaign=campaign)
    # Move/combat: attack an adjacent enemy, else step towards the goal while possible.
    if _open_kind(campaign) == "move_combat":
        for stack in list(Stack.objects.filter(campaign=campaign, side__kind="alliance")
                          .order_by("created_seq", "pk")):
            owner = (Unit.objects.filter(stack=stack, current_hits__gt=0)
                     .select_related("owner__user").first())
            if owner is None or owner.owner is None:
                continue
            user = owner.owner.user
            for _ in range(6):
                if campaign.status != "running" or not Stack.objects.filter(pk=stack.pk).exists():
                    break
                stack.refresh_from_db()
                enemy = _adjacent_enemy(stack, _enemies_near(campaign, "alliance", {stack.hex}))
                if enemy is not None and _try(totals, partial(
                        stack_attack, user=user, campaign=campaign, stack=stack,
                        target=enemy)) is not None:
                    continue
                moved = None
                for h in _towards(stack.hex, goal)[:3]:
                    moved = _try(totals, partial(stack_move, user=user, campaign=campaign,
                                                 stack=stack, path=[h]))
                    if moved is not None:
                        break
                if moved is None or moved.ambushed:
                    break
                campaign.refresh_from_db()
        campaign.refresh_from_db()
        if campaign.status == "running":
            phase_end(user=gm, campaign=campaign)
    # Opposition: stacks next to an alliance stack counter-attack.
    campaign.refresh_from_db()
    if campaign.status == "running" and _open_kind(campaign) == "opposition":
        alliance_hexes = set(Stack.objects.filter(campaign=campaign, side__kind="alliance")
                             .values_list("hex", flat=True))
        attackers = _enemies_near(campaign, "alliance", alliance_hexes)
        for hex_stacks in attackers.values():
            for stack in hex_stacks:
                campaign.refresh_from_db()
                if campaign.status != "running":
                    break
                targets = _enemies_near(campaign, "opposition", {stack.hex})
                target = _adjacent_enemy(stack, targets)
                if target is not None:
                    _try(totals, partial(stack_attack, user=gm, campaign=campaign, stack=stack,
                                         target=target))
        campaign.refresh_from_db()
        if campaign.status == "running":
            phase_end(user=gm, campaign=campaign)


def simulate(*, turns: int, seed: int, size: tuple[int, int] | None = None, stacks: int = 0,
             emit: Callable[[dict[str, Any]], None] | None = None) -> Totals:
    """Play `turns` turns (or until a side wins); `emit` gets one dict per turn."""
    campaign = setup_campaign(seed=seed, size=size, stacks=stacks)
    totals = Totals()
    started = time.perf_counter()
    with counting_queries() as counter:
        for n in range(1, turns + 1):
            t0, q0, a0, c0 = time.perf_counter(), counter.count, totals.actions, totals.combats
            play_turn(campaign, totals)
            campaign.refresh_from_db()
            totals.turns = n
            line = {"turn": n, "actions": totals.actions - a0, "combats": totals.combats - c0,
                    "seconds": round(time.perf_counter() - t0, 3),
                    "queries": counter.count - q0,
                    "stacks": Stack.objects.filter(campaign=campaign).count()}
            totals.per_turn.append(line)
            if emit:
                emit(line)
            if campaign.status == "finished":
                break
        totals.queries = counter.count
    totals.seconds = round(time.perf_counter() - started, 3)
    totals.sightings = Sighting.objects.filter(campaign=campaign).count()
    totals.croaked = Unit.objects.filter(campaign=campaign, current_hits=0).count()
    totals.winner = campaign.winner or None
    # Every combat and ambush is one event: the exact count.
    totals.combats = Event.objects.filter(campaign=campaign,
                                          kind__in=["combat", "ambush"]).count()
    return totals


def final_line(totals: Totals) -> dict[str, Any]:
    return {"turns": totals.turns, "actions": totals.actions, "combats": totals.combats,
            "sightings": totals.sightings, "croaked": totals.croaked, "winner": totals.winner,
            "seconds": totals.seconds, "queries": totals.queries}
