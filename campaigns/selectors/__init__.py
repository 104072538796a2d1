"""Reads of campaign state as plain data; `map_state` is the one place that applies fog of war.

Every page and API response that shows game state goes through these. Query counts do
not depend on the size of the map or the number of stacks (bulk `values()` loads).
"""

from __future__ import annotations

from typing import Any

import orjson
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from accounts.models import User
from campaigns.errors import NotAllowedError
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Declaration,
    DeclarationStatus,
    Fortification,
    Map,
    Membership,
    Phase,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    Sighting,
    Stack,
    Unit,
    UnitType,
)

# In the order `_stacks_with_units` unpacks them. The unit type's fields come from a second,
# small query: joining them onto every unit row (and casting their specials to text on each)
# was half the time of the map's unit query.
_UNIT_FIELDS = (
    "stack_id", "id", "name", "owner_id", "unit_type_id", "current_hits", "commander_level",
    "commander_xp", "movement_used", "has_attacked", "was_commanded", "mount_id",
)


def sees_everything(membership: Membership, campaign: Campaign) -> bool:
    """The GM sees everything; once the campaign has ended the fog lifts and every member
    does: both sides' maps, stacks, events and every die's purpose, phase by phase."""
    return membership.role == Role.GM or campaign.status == CampaignStatus.FINISHED


def _membership(*, user: User, campaign: Campaign) -> Membership:
    membership = (
        Membership.objects.select_related("side").filter(campaign=campaign, user=user).first()
    )
    if membership is None:
        raise NotAllowedError(
            f"{user.public_name} is not a member of the campaign {campaign.name!r}.",
            code="not_member",
        )
    return membership


def _stacks_with_units(
    stacks: QuerySet[Stack], *, campaign: Campaign, full_for_side: int | None, everything: bool
) -> list[dict[str, Any]]:
    """Stacks (one query), their units (one query) and the campaign's unit types (one query),
    units in stack order. A unit of a stack of `full_for_side` (of any stack when
    `everything`) has every detail; another side's unit only what a sighting shows (§5):
    name, unit type and current hits.

    The map is the hot read (thousands of units, docs/perf.md): rows come as tuples and
    each unit's dict is built once."""
    rows = list(stacks.order_by("hex", "created_seq", "id")
                .values_list("id", "hex", "side_id", "side__kind"))
    units: dict[int, list[dict[str, Any]]] = {r[0]: [] for r in rows}
    full_stacks = {r[0] for r in rows if everything or r[2] == full_for_side}
    types = {
        t[0]: t[1:] for t in UnitType.objects.filter(campaign=campaign)
        .values_list("id", "name", "hits", "attack", "defence", "move", "specials")
    }
    for (stack_id, unit_id, name, owner_id, type_id, current_hits, commander_level,
         commander_xp, movement_used, has_attacked, was_commanded, mount_id) in (
        Unit.objects.filter(campaign=campaign, stack__in=stacks.values("id"), current_hits__gt=0)
        .order_by("stack_id", "position", "id")
        .values_list(*_UNIT_FIELDS)
    ):
        type_name, hits, attack, defence, move, specials = types[type_id]
        if stack_id not in full_stacks:
            units[stack_id].append(
                {"name": name, "unit_type": type_name, "current_hits": current_hits})
            continue
        units[stack_id].append({
            "id": unit_id,
            "name": name,
            "owner": owner_id,
            "unit_type": type_name,
            "hits": hits,
            "attack": attack,
            "defence": defence,
            "move": move,
            "specials": list(specials),
            "current_hits": current_hits,
            "commander_level": commander_level,
            "commander_xp": commander_xp,
            "movement_used": movement_used,
            "has_attacked": has_attacked,
            "was_commanded": was_commanded,
            "mount": mount_id,
        })
    return [{"id": r[0], "hex": r[1], "side": r[3], "units": units[r[0]]} for r in rows]


def _current_phase(campaign: Campaign) -> dict[str, Any] | None:
    phase = (
        Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
        .values("id", "kind", "turn__number", "opened_at", "deadline_at", "dice_commitment",
                "draw_asked_at", "drawn_at")
        .first()
    )
    if phase is None:
        return None
    return {
        "id": phase["id"],
        "kind": phase["kind"],
        "turn": phase["turn__number"],
        "opened_at": phase["opened_at"].isoformat(),
        "deadline_at": phase["deadline_at"].isoformat(),
        "dice_commitment": phase["dice_commitment"],
        "awaiting_draw": phase["draw_asked_at"] is not None and phase["drawn_at"] is None,
    }


def _fortification_rows(campaign: Campaign) -> list[dict[str, Any]]:
    return [
        dict(row)
        for row in Fortification.objects.filter(campaign=campaign)
        .order_by("hex", "kind", "direction")
        .values("hex", "kind", "direction", "hits", "starting_hits", "owner_id", "owner__kind")
    ]


def _fortification(row: dict[str, Any], *, hits_visible: bool,
                   seen: dict[str, Any] | None = None) -> dict[str, Any]:
    """A fortification as the viewer knows it: its hits now when visible (`seen_turn` None),
    else as last witnessed (`seen`, an entry of a sighting, with the turn it was learned)."""
    if hits_visible:
        hits, starting, turn = row["hits"], row["starting_hits"], None
    elif seen is not None and seen.get("hits") is not None:
        hits, starting, turn = seen["hits"], row["starting_hits"], seen.get("turn")
    else:
        hits, starting, turn = None, None, None
    return {
        "hex": row["hex"],
        "kind": row["kind"],
        "direction": row["direction"] or None,
        "owner": row["owner__kind"],
        "hits": hits,
        "starting_hits": starting,
        "seen_turn": turn,
    }


def _sightings_json(rows: Any) -> list[dict[str, Any]]:
    """Sightings as the map JSON gives them: hex, turn, what was seen. The JSON comes as text,
    decoded by orjson: through the JSONField (the standard library's decoder) it was a third
    of the map's time."""
    return [
        {"hex": hex_label, "turn": turn, "seen": orjson.loads(seen)}
        for hex_label, turn, seen in rows
        .annotate(seen_text=Cast("seen", output_field=TextField()))
        .order_by("hex")
        .values_list("hex", "turn__number", "seen_text")
    ]


def _seen_forts(sightings: list[dict[str, Any]]) -> dict[tuple[str, str, str | None], Any]:
    """Each fortification's entry in the sightings, by (hex, kind, direction), with the turn it
    was witnessed: a fortification out of sight shows the hits the side last witnessed."""
    return {
        (s["hex"], f.get("kind"), f.get("direction") or None):
            {**f, "turn": f.get("turn", s["turn"])}
        for s in sightings for f in s["seen"].get("fortifications", [])
    }


def map_state(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """What `user` may see of the campaign's map (fog of war, DESIGN.md):

    - terrain: every hex when the campaign's terrain is known to all (else only the hexes
      the side occupies; sightings carry the terrain they saw);
    - the side's own stacks with every unit's details; other sides' stacks only in hexes
      the side occupies ("a side always sees the hexes its own units occupy"), as a
      sighting shows them;
    - fortifications: where they are and who holds them when terrain is known to all; their
      hits only when the side holds them or occupies their hex;
    - for every other hex only the side's latest sighting, with its turn.
    The GM (and only the GM) sees everything.
    """
    membership = _membership(user=user, campaign=campaign)
    game_map = Map.objects.values("cols", "rows", "terrain").get(campaign=campaign)
    is_gm = sees_everything(membership, campaign)
    side_id = membership.side_id
    all_stacks = Stack.objects.filter(campaign=campaign)
    forts = _fortification_rows(campaign)

    if is_gm:
        stacks = _stacks_with_units(all_stacks, campaign=campaign, full_for_side=None,
                                    everything=True)
        phase = _current_phase(campaign)
        # The opposition's combats declared for the alliance's draw: their stacks wait.
        if campaign.alliance_draw and phase is not None and phase["kind"] == "opposition":
            declared = dict(Declaration.objects.filter(
                phase_id=phase["id"], status=DeclarationStatus.PENDING,
            ).values_list("stack_id", "seq"))
            for s in stacks:
                if s.get("id") in declared:
                    s["declared"] = declared[s["id"]]
        return {
            "campaign": {"id": campaign.pk, "name": campaign.name, "status": campaign.status},
            "viewer": {"role": membership.role,
                       "side": membership.side.kind if membership.role != Role.GM
                       and membership.side is not None else None},
            "phase": phase,
            "map": {"cols": game_map["cols"], "rows": game_map["rows"], "default_terrain": "open",
                    "terrain": game_map["terrain"]},
            "fortifications": [_fortification(f, hits_visible=True) for f in forts],
            "stacks": stacks,
            "sightings": [],
        }

    # An observer without a side sees no stack and has no sightings.
    own = Q(side_id=side_id) if side_id is not None else Q(pk__in=[])
    own_hexes = all_stacks.filter(own).values("hex")
    visible = all_stacks.filter(own | Q(hex__in=own_hexes))
    stacks = _stacks_with_units(visible, campaign=campaign, full_for_side=side_id,
                                everything=False)
    side_kind = membership.side.kind if membership.side is not None else None
    occupied = {s["hex"] for s in stacks if s["side"] == side_kind}
    terrain: dict[str, str] = game_map["terrain"]
    if not campaign.terrain_known_to_all:
        terrain = {h: t for h, t in terrain.items() if h in occupied}
    sightings = _sightings_json(Sighting.objects.filter(own, campaign=campaign, is_latest=True))
    seen_forts = _seen_forts(sightings)
    sighted = {s["hex"] for s in sightings}
    fortifications = [
        _fortification(f, hits_visible=f["owner_id"] == side_id or f["hex"] in occupied,
                       seen=seen_forts.get((f["hex"], f["kind"], f["direction"] or None)))
        for f in forts
        if campaign.terrain_known_to_all or f["owner_id"] == side_id or f["hex"] in occupied
        or f["hex"] in sighted
    ]
    return {
        "campaign": {"id": campaign.pk, "name": campaign.name, "status": campaign.status},
        "viewer": {"role": membership.role, "side": side_kind},
        "phase": _current_phase(campaign),
        "map": {"cols": game_map["cols"], "rows": game_map["rows"], "default_terrain": "open",
                "terrain": terrain},
        "fortifications": fortifications,
        "stacks": stacks,
        "sightings": sightings,
    }


def phase_status_board(*, user: User, campaign: Campaign) -> dict[str, Any] | None:
    """The open phase: deadline, and for each acting player whether they are done or late."""
    _membership(user=user, campaign=campaign)
    phase = (
        Phase.objects.select_related("turn")
        .filter(campaign=campaign, status=PhaseStatus.OPEN)
        .first()
    )
    if phase is None:
        return None
    now = timezone.now()
    players = []
    for s in (
        PlayerPhaseStatus.objects.filter(phase=phase)
        .select_related("membership__user", "proxied_by__user")
        .order_by("membership_id")
    ):
        late = s.late or (s.done_at > phase.deadline_at if s.done_at else now >= phase.deadline_at)
        players.append({
            "membership": s.membership_id,
            "name": s.membership.user.public_name,
            "is_chief_warlord": s.membership.is_chief_warlord,
            "done": s.done_at is not None,
            "done_at": s.done_at,
            "late": late,
            "proxied_by": s.proxied_by.user.public_name if s.proxied_by else None,
        })
    return {
        "turn": phase.turn.number,
        "phase": phase.kind,
        "phase_name": phase.get_kind_display(),
        "opened_at": phase.opened_at,
        "deadline_at": phase.deadline_at,
        "dice_commitment": phase.dice_commitment,
        "awaiting_draw": phase.awaiting_draw,
        "players": players,
    }


def campaign_game_state(*, campaign: Campaign) -> dict[str, Any]:
    """The whole game state as JSON-ready data (phase snapshots); no secrets in it."""
    game_map = Map.objects.values("cols", "rows", "terrain").get(campaign=campaign)
    memberships = [
        {"id": m["id"], "user": m["user__username"], "role": m["role"],
         "side": m["side__kind"], "is_chief_warlord": m["is_chief_warlord"],
         "pop_points": str(m["pop_points"])}
        for m in Membership.objects.filter(campaign=campaign).order_by("id").values(
            "id", "user__username", "role", "side__kind", "is_chief_warlord", "pop_points"
        )
    ]
    unit_types = [
        {**t, "cost": str(t["cost"])}
        for t in UnitType.objects.filter(campaign=campaign).order_by("id").values(
            "id", "name", "side__kind", "owner_id", "hits", "attack", "defence", "move",
            "specials", "cost",
        )
    ]
    return {
        "campaign": {"status": campaign.status, "version": campaign.version,
                     "phase_hours": campaign.phase_hours,
                     "points_budget": campaign.points_budget,
                     "max_unit_types": campaign.max_unit_types,
                     "ambush_value": campaign.ambush_value,
                     "terrain_known_to_all": campaign.terrain_known_to_all},
        "map": {"cols": game_map["cols"], "rows": game_map["rows"],
                "terrain": game_map["terrain"]},
        "memberships": memberships,
        "unit_types": unit_types,
        "fortifications": [_fortification(f, hits_visible=True)
                           for f in _fortification_rows(campaign)],
        "stacks": _stacks_with_units(Stack.objects.filter(campaign=campaign), campaign=campaign,
                                     full_for_side=None, everything=True),
        "restore": _restore_state(campaign),
    }


_RESTORE_UNIT_FIELDS = (
    "id", "stack_id", "position", "current_hits", "commander_level", "commander_xp",
    "movement_used", "has_attacked", "was_commanded", "all_on_road", "mount_id", "pop_hex",
    "name",
)
_RESTORE_STACK_FIELDS = (
    "id", "side_id", "hex", "fought", "moved_after_fighting", "times_attacked",
    "defender_combats", "retaliation_used",
)


def _restore_state(campaign: Campaign) -> dict[str, Any]:
    """Every mutable field of the game, for the GM's revert to a phase opening (engine II)."""
    return {
        "pop_pool": str(campaign.pop_pool),
        "units": [dict(u) for u in Unit.objects.filter(campaign=campaign).order_by("id")
                  .values(*_RESTORE_UNIT_FIELDS)],
        "stacks": [dict(s) for s in Stack.objects.filter(campaign=campaign).order_by("id")
                   .values(*_RESTORE_STACK_FIELDS)],
        "fortifications": [dict(f) for f in Fortification.objects.filter(campaign=campaign)
                           .order_by("id").values("id", "hits", "owner_id")],
    }


def phase_history(*, user: User, phase: Phase) -> dict[str, Any]:
    """The game state at the opening of `phase`, read back from its snapshot. The GM sees it
    all; a player sees what their side knew then: terrain, its own stacks, its sightings as
    they stood when the phase opened (other sides' stacks only as sighted), fortifications
    with the hits held, occupied or last witnessed. An observer sees only the terrain and the
    fortifications."""
    membership = _membership(user=user, campaign=phase.campaign)
    state = dict(phase.snapshot.state)
    state.pop("restore", None)
    info = {"id": phase.pk, "turn": phase.turn.number, "kind": phase.kind,
            "opened_at": phase.opened_at.isoformat(), "status": phase.status}
    if sees_everything(membership, phase.campaign):
        return {"phase": info, **state}
    side_kind = membership.side.kind if membership.side is not None else None
    state["stacks"] = [s for s in state["stacks"] if s["side"] == side_kind]
    occupied = {s["hex"] for s in state["stacks"]}
    # What the side knew then: its sightings as they stood when the phase opened.
    newest: dict[str, int] = {}
    if membership.side_id is not None:
        for hex_label, pk in (
            Sighting.objects.filter(side_id=membership.side_id,
                                    phase__opened_at__lt=phase.opened_at)
            .order_by("-phase__opened_at", "-pk").values_list("hex", "pk")
        ):
            newest.setdefault(hex_label, pk)
    sightings = _sightings_json(Sighting.objects.filter(pk__in=list(newest.values())))
    seen = _seen_forts(sightings)
    state["fortifications"] = [
        {**f, "seen_turn": None} if f["owner"] == side_kind or f["hex"] in occupied
        else _fortification({**f, "owner__kind": f["owner"]}, hits_visible=False,
                            seen=seen.get((f["hex"], f["kind"], f["direction"] or None)))
        for f in state["fortifications"]
    ]
    state["sightings"] = sightings
    return {"phase": info, **state}


def notifications_unread_count(*, user: Any) -> int:
    """How many in-app notifications the user has not read (served by a partial index)."""
    from campaigns.models import Notification

    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notifications_for(*, user: Any, limit: int = 50) -> list[Any]:
    """The user's latest notifications, newest first."""
    from campaigns.models import Notification

    return list(
        Notification.objects.filter(user=user).select_related("campaign")
        .order_by("-created_at", "-pk")[:limit]
    )
