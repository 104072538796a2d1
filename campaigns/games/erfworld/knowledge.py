"""What a side knows of the hexes it does not occupy: its sightings, kept true.

Scouting sees whole hexes. Everything else the alliance witnesses corrects its picture too:
the enemy stack it fought (its units and hits after the fight, or gone when wiped out), the
stack that ambushed it or attacked it, the fortification it besieged, the fortified hex that
changed hands. Each witnessed piece (a stack, a fortification) carries the turn it was learned;
what was not witnessed stays as it was known, with its older turn.

The opposition is played by the GM, who sees everything: only the alliance keeps sightings.
Whether a hex was *scouted* this turn (which decides ambushes, §3) is the sightings whose
source is scouting, not the ones a fight left (`engine.known_board`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Max

from campaigns.errors import RuleViolationError, WrongStateError
from campaigns.games.erfworld.fetch import board_for, unit_stats
from campaigns.models import (
    Campaign,
    Fortification,
    Phase,
    Side,
    SideKind,
    Sighting,
    SightingSource,
    Stack,
    Unit,
)
from campaigns.services.common import side_of
from rules.erfworld.scouting import (
    ObservedStack,
    ObservedUnit,
    ScoutOrderError,
    sighting,
    validate_scout_order,
)
from rules.erfworld.scouting import Sighting as RulesSighting
from rules.erfworld.types import SideKind as RulesSideKind
from rules.erfworld.types import Special
from rules.hexgrid import format_label, parse_label


@dataclass(frozen=True)
class Glimpse:
    """What was witnessed of one hex: every stack in it (`stacks` None), or only the stacks
    with these ids (an id whose stack is gone is a stack seen wiped out); its fortifications
    when `forts`."""

    hex: str
    stacks: frozenset[int] | None
    forts: bool


Observed = dict[str, tuple[dict[str, Any], list[int]]]


def observe(campaign: Campaign, hexes: Sequence[str]) -> Observed:
    """Each hex as it is now, in the sighting's JSON (terrain, road, every stack with its
    living units, the fortifications with hits and holder), with the stacks' ids."""
    board = board_for(campaign)
    forts = list(Fortification.objects.filter(campaign=campaign, hex__in=hexes)
                 .select_related("owner"))
    fortified = {f.hex for f in forts}
    stacks = list(Stack.objects.filter(campaign=campaign, hex__in=hexes)
                  .select_related("side").order_by("created_seq", "pk"))
    units_by_stack: dict[int, list[ObservedUnit]] = {}
    for u in (Unit.objects.filter(stack__in=stacks, current_hits__gt=0)
              .select_related("unit_type").order_by("stack_id", "position")):
        assert u.stack_id is not None
        units_by_stack.setdefault(u.stack_id, []).append(
            ObservedUnit(name=u.name, unit_type=u.unit_type.name, current_hits=u.current_hits))
    out: dict[str, tuple[dict[str, Any], list[int]]] = {}
    for h in hexes:
        seen_stacks = [s for s in stacks if s.hex == h and units_by_stack.get(s.pk)]
        observed = [
            ObservedStack(side=RulesSideKind(s.side.kind), units=tuple(units_by_stack[s.pk]),
                          fortification=h if h in fortified else None)
            for s in seen_stacks
        ]
        report = sighting_json(sighting(hex=parse_label(h), board=board, stacks=observed))
        owners = {(f.kind, f.direction or None): f.owner.kind for f in forts if f.hex == h}
        for f in report["fortifications"]:
            f["owner"] = owners.get((f["kind"], f["direction"]))
        out[h] = (report, [s.pk for s in seen_stacks])
    return out


def _stamp(report: dict[str, Any], turn: int) -> dict[str, Any]:
    """Each stack and fortification seen now carries the turn it was learned."""
    for s in report["stacks"]:
        s["turn"] = turn
    for f in report["fortifications"]:
        f["turn"] = turn
    return report


def remember(*, campaign: Campaign, phase: Phase, side: Side, glimpses: Iterable[Glimpse],
             source: SightingSource) -> list[Sighting]:
    """Fold what `side` witnessed now into its sightings (one per hex and phase, the latest
    marked): whole hexes replace the picture, partial glimpses correct the stacks and
    fortifications witnessed and keep the rest as they were known."""
    glimpses = list(glimpses)
    if not glimpses:
        return []
    turn = phase.turn.number
    now = observe(campaign, [g.hex for g in glimpses])
    latest = {s.hex: s for s in Sighting.objects.filter(
        side=side, hex__in=list(now), is_latest=True)}
    written = []
    for g in glimpses:
        report, ids = now[g.hex]
        _stamp(report, turn)
        before = latest.get(g.hex)
        pairs: list[tuple[dict[str, Any], int | None]] = list(zip(report["stacks"], ids,
                                                                  strict=True))
        if g.stacks is not None:
            # The stacks witnessed now as they are (none when wiped out); the others as they
            # were known before.
            witnessed = g.stacks
            kept = [(entry, pk) for entry, pk in (_stacks_with_ids(before) if before else [])
                    if pk is None or pk not in witnessed]
            pairs = kept + [(entry, pk) for entry, pk in pairs if pk in witnessed]
        report["stacks"] = [entry for entry, _ in pairs]
        # Whether every stack in the hex was seen this turn (scouted, then perhaps corrected by
        # a fight): a glimpse alone says nothing of the stacks it did not witness, so the map
        # claims neither "no stacks" nor a clear hex from it.
        report["whole"] = g.stacks is None or (
            before is not None and before.turn_id == phase.turn_id
            and bool(before.seen.get("whole", True)))
        if not g.forts:
            report["fortifications"] = list(before.seen.get("fortifications", [])) if before else []
        written.append(_store(campaign=campaign, phase=phase, side=side, hex_label=g.hex,
                              seen=report, stack_ids=[pk for _, pk in pairs],
                              before=before, source=source))
    return written


def _stacks_with_ids(s: Sighting) -> list[tuple[dict[str, Any], int | None]]:
    entries = list(s.seen.get("stacks", []))
    ids: list[int | None] = list(s.stack_ids or [])
    ids += [None] * (len(entries) - len(ids))
    for entry in entries:
        entry.setdefault("turn", s.turn.number)
    return list(zip(entries, ids, strict=True))


def _store(*, campaign: Campaign, phase: Phase, side: Side, hex_label: str,
           seen: dict[str, Any], stack_ids: list[int | None], before: Sighting | None,
           source: SightingSource) -> Sighting:
    if before is not None and before.phase_id == phase.pk:
        before.seen = seen
        before.stack_ids = stack_ids
        before.save(update_fields=["seen", "stack_ids"])
        return before
    if before is not None:
        Sighting.objects.filter(pk=before.pk).update(is_latest=False)
    return Sighting.objects.create(
        campaign=campaign, side=side, hex=hex_label, turn=phase.turn, phase=phase, seen=seen,
        stack_ids=stack_ids, source=source, is_latest=True)


def alliance_witnesses(*, campaign: Campaign, phase: Phase, glimpses: Iterable[Glimpse],
                       source: SightingSource) -> None:
    """What the alliance witnessed (the opposition's GM sees everything)."""
    remember(campaign=campaign, phase=phase, side=side_of(campaign, SideKind.ALLIANCE),
             glimpses=glimpses, source=source)


def restore_latest(campaign: Campaign) -> None:
    """After sightings were deleted (a phase reverted): each side's newest sighting of a hex
    becomes the one its map shows again."""
    newest = (Sighting.objects.filter(campaign=campaign).values("side", "hex")
              .annotate(last=Max("pk")).values_list("last", flat=True))
    Sighting.objects.filter(campaign=campaign, pk__in=list(newest), is_latest=False).update(
        is_latest=True)


def sighting_json(seen: RulesSighting) -> dict[str, Any]:
    return {
        "hex": format_label(seen.hex),
        "terrain": seen.terrain.value,
        "road": seen.road,
        "stacks": [
            {"side": s.side.value, "fortification": s.fortification,
             "units": [{"name": u.name, "unit_type": u.unit_type, "current_hits": u.current_hits}
                       for u in s.units]}
            for s in seen.stacks
        ],
        "fortifications": [
            {"kind": f.kind, "hits": f.hits, "direction": f.direction.name if f.direction else None}
            for f in seen.fortifications
        ],
    }


def check_scout_path(campaign: Campaign, unit: Unit, directions: Sequence[str]) -> list[str]:
    """The hexes `unit` would inspect along `directions` from where it stands now (§5), or
    the rule's refusal (not on the map, not a scout, no commander in its hex, a bad path)."""
    if unit.stack is None or unit.current_hits == 0:
        raise WrongStateError(f"{unit.name} is not on the map.", code="not_on_map")
    stats = unit_stats(unit.unit_type)
    scout_hex = parse_label(unit.stack.hex)
    commander_in_hex = any(
        unit_stats(u.unit_type).has(Special.COMMANDER)
        for u in Unit.objects.select_related("unit_type").filter(
            campaign=campaign, side_id=unit.side_id, stack__hex=unit.stack.hex,
            current_hits__gt=0,
        )
    )
    try:
        inspected = validate_scout_order(
            scout=stats, scout_hex=scout_hex, commander_in_hex=commander_in_hex,
            directions=list(directions), board=board_for(campaign),
        )
    except ScoutOrderError as exc:
        if not stats.has(Special.SCOUT):
            code = "not_a_scout"
        elif not commander_in_hex:
            code = "no_commander_in_hex"
        else:
            code = "invalid_scout_path"
        raise RuleViolationError(str(exc), code=code, field="directions") from exc
    return [format_label(h) for h in inspected]
