"""Reads of the campaign lobby: members, sides, the viewer's army and the unit type preview.

The preview calls the same rules functions as `unit_type_create` (design rules, exact cost,
army limits), so the designer shows exactly what the service will accept or refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from fractions import Fraction
from typing import Any

from django.db.models import Count
from django.utils import timezone

from accounts.models import User
from campaigns.access import membership_of
from campaigns.games.erfworld.fetch import unit_stats
from campaigns.models import (
    Absence,
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Membership,
    Role,
    SideKind,
    Unit,
    UnitType,
    army_units,
)
from campaigns.selectors.absences import local_today
from campaigns.selectors.records import Record, campaign_records
from campaigns.selectors.standing import MODES, describe
from rules.erfworld.types import Special
from rules.erfworld.units import (
    ArmyEntry,
    FieldError,
    army_cost,
    cost_breakdown,
    format_fraction,
    unit_stats_from_dict,
    validate_army,
    validate_unit_type,
)

SPECIAL_CHOICES = tuple(s.value for s in Special)
STAT_FIELDS = ("hits", "attack", "defence", "move")


def _is_alliance_player(m: Membership) -> bool:
    return m.role == Role.PLAYER and m.side is not None and m.side.kind == SideKind.ALLIANCE


def army_entries(membership: Membership) -> dict[int, ArmyEntry]:
    """A player's army as the rules see it, by unit type id."""
    types = UnitType.objects.filter(owner=membership).annotate(n=army_units()).order_by("pk")
    return {t.pk: ArmyEntry(name=t.name, stats=unit_stats(t), count=t.n) for t in types}


def _army(membership: Membership, campaign: Campaign) -> dict[str, Any]:
    types = list(
        UnitType.objects.filter(owner=membership).annotate(n=army_units()).order_by("pk")
    )
    units: dict[int, list[dict[str, Any]]] = {t.pk: [] for t in types}
    for u in (Unit.objects.filter(owner=membership).order_by("unit_type_id", "created_seq", "pk")
              .values("id", "name", "unit_type_id", "commander_level", "popped")):
        units[u["unit_type_id"]].append(dict(u))
    spent = army_cost([ArmyEntry(name=t.name, stats=unit_stats(t), count=t.n) for t in types])
    remaining = Fraction(campaign.points_budget) - spent
    rows: list[dict[str, Any]] = []
    for t in types:
        stats = unit_stats(t)
        cost = cost_breakdown(stats).total
        rows.append({
            "id": t.pk, "name": t.name, "hits": t.hits, "attack": t.attack,
            "defence": t.defence, "move": t.move, "specials": list(t.specials),
            "movement_class": stats.movement_class.value,
            "cost": format_fraction(cost), "count": t.n,
            "subtotal": format_fraction(cost * t.n),
            "affordable": int(remaining // cost) if cost > 0 and remaining > 0 else 0,
            "units": units[t.pk],
        })
    return {
        "unit_types": rows,
        "spent": format_fraction(spent),
        "budget": campaign.points_budget,
        "remaining": format_fraction(remaining),
        "max_unit_types": campaign.max_unit_types,
        "ready": membership.army_ready_at is not None,
        "has_commander": any(
            t["count"] > 0 and Special.COMMANDER.value in t["specials"] for t in rows
        ),
    }


def lobby_state(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """Members and sides, the Chief Warlord vote, and the viewer's own army (a player's army
    is shown to that player and the GM only; the opposition's forces to the GM only)."""
    viewer = membership_of(user=user, campaign=campaign)
    is_gm = viewer.role == Role.GM
    members = list(
        Membership.objects.filter(campaign=campaign)
        .select_related("user", "side")
        .annotate(votes=Count("votes_received"))
        .order_by("role", "pk")
    )
    spent: dict[int, Fraction] = {}
    if is_gm or _is_alliance_player(viewer):
        for m in members:
            if _is_alliance_player(m):
                spent[m.pk] = army_cost(list(army_entries(m).values()))
    players = [m for m in members if _is_alliance_player(m)]
    voted = sum(1 for m in players if m.chief_warlord_vote_id is not None)
    records = campaign_records(campaign)
    away: dict[int, list[Absence]] = {}
    for a in Absence.objects.filter(membership__campaign=campaign,
                                    ends_on__gte=timezone.now().date() - timedelta(days=1)):
        away.setdefault(a.membership_id, []).append(a)
    names = {m.pk: m.user.public_name for m in members}
    rows = []
    for m in members:
        rows.append({
            "id": m.pk,
            "name": m.user.public_name,
            "role": m.get_role_display(),
            "side": m.side.name if m.side else "",
            "is_chief_warlord": m.is_chief_warlord,
            "is_deputy": m.is_deputy,
            "is_alliance_player": _is_alliance_player(m),
            "army_ready": m.army_ready_at is not None,
            "points_spent": format_fraction(spent[m.pk]) if m.pk in spent else None,
            "votes": m.votes if _is_alliance_player(m) else None,
            "record": str(records.get(m.pk, Record()))
            if _is_alliance_player(m) or m.role == Role.FORMER else "",
            "left": _left(m, names),
            "away": [f"{a.starts_on:%a %d %b}–{a.ends_on:%a %d %b}" for a in away.get(m.pk, [])
                     if a.ends_on >= local_today(m)],
            "is_viewer": m.pk == viewer.pk,
        })
    chief = next((m for m in players if m.is_chief_warlord), None)
    my_vote = next((m for m in players if m.pk == viewer.chief_warlord_vote_id), None)
    return {
        "viewer": viewer,
        "is_gm": is_gm,
        "is_alliance_player": _is_alliance_player(viewer),
        "members": rows,
        "my_absences": [a for a in away.get(viewer.pk, []) if a.ends_on >= local_today(viewer)],
        "absence_allowance": campaign.absence_days,
        "sides": [
            {"kind": s.kind, "name": s.name}
            for s in campaign.sides.order_by("kind")
        ],
        "candidates": [{"id": m.pk, "name": m.user.public_name} for m in players],
        "chief_warlord": chief.user.public_name if chief else None,
        "deputy": next((m.user.public_name for m in players if m.is_deputy), None),
        "my_vote": my_vote.user.public_name if my_vote else None,
        "votes_cast": voted,
        "vote_tied": chief is None and bool(players) and voted == len(players),
        "all_ready": bool(players) and all(m.army_ready_at is not None for m in players),
        "not_ready": [m.user.public_name for m in players if m.army_ready_at is None],
        "army": _army(viewer, campaign) if _is_alliance_player(viewer) else None,
        "victory": victory_condition(campaign),
        "open_seats": [{"id": m.pk, "name": m.user.public_name} for m in members
                       if m.role == Role.FORMER and m.successor_id is None],
        "removable": [{"id": m.pk, "name": m.user.public_name} for m in players],
        "standing": _standing(viewer) if _is_alliance_player(viewer) else None,
    }


def _standing(viewer: Membership) -> dict[str, Any]:
    """The viewer's standing orders as the overview's form shows them, with their scouts."""
    # (Filtered here: SQLite, the embedded default, has no JSON "contains" lookup.)
    scouts = [{"id": u.pk, "name": u.name} for u in Unit.objects.filter(
        owner=viewer, current_hits__gt=0).select_related("unit_type").order_by("created_seq", "pk")
        if "scout" in u.unit_type.specials]
    return {"mode": viewer.standing_orders, "modes": list(MODES.items()),
            "scout": viewer.standing_scout_id, "scouts": scouts,
            "directions": " ".join(viewer.standing_directions), "note": viewer.standing_note,
            "summary": describe(viewer)}


def _left(m: Membership, names: dict[int, str]) -> str:
    """A former player's line: when they left (or were removed, and why) and their seat."""
    if m.role != Role.FORMER or m.left_at is None:
        return ""
    how = (f"removed by the GM {m.left_at:%d %b}: {m.left_reason}" if m.removed_by_gm
           else f"left {m.left_at:%d %b}")
    seat = (f"seat taken by {names.get(m.successor_id, 'a new player')}"
            if m.successor_id else "seat open (the Chief Warlord commands it)")
    return f"{how}; {seat}"


def _wins(name: str) -> str:
    # "The Alliance wins", "The Knights win" (as the engine's own victory event says it).
    return "win" if name.endswith("s") else "wins"


def victory_condition(campaign: Campaign) -> dict[str, Any]:
    """How the campaign is won, in the players' words, and once it is over who won and why
    (from the campaign's finishing event)."""
    alliance = campaign.sides.filter(kind=SideKind.ALLIANCE).first()
    opposition = campaign.sides.filter(kind=SideKind.OPPOSITION).first()
    a = alliance.name if alliance else "The alliance"
    o = opposition.name if opposition else "The opposition"
    if campaign.victory_hex:
        condition = (f"{a} {_wins(a)} by capturing the fortification of {campaign.victory_hex}: "
                     f"a stack of theirs in {campaign.victory_hex} with no enemy stack "
                     f"left in it. {o} {_wins(o)} when no alliance unit is left, on the map or "
                     "waiting to pop.")
    else:
        condition = (f"This scenario names no victory hex: {o} {_wins(o)} when no alliance unit is "
                     "left; otherwise the GM decides when the campaign ends.")
    finished = None
    if campaign.status == CampaignStatus.FINISHED:
        event = (Event.objects.filter(campaign=campaign, kind=EventKind.CAMPAIGN_FINISHED)
                 .order_by("-created_at", "-pk").first())
        finished = {
            "winner": campaign.winner,
            "summary": event.summary if event else f"The campaign is finished "
            f"({campaign.winner} victory).",
            "at": campaign.finished_at,
        }
    return {"hex": campaign.victory_hex or None, "condition": condition, "finished": finished}


def unit_type_preview(
    *, user: User, campaign: Campaign, data: Mapping[str, Any], unit_type_id: int | None = None
) -> dict[str, Any]:
    """Cost, class and every rule the design breaks, for the designer as the player types.

    `data` holds the form's strings. Errors come from the rules (`validate_unit_type`, and
    `validate_army` for the type limit and budget, as `unit_type_create`/`_update` check)."""
    membership = membership_of(user=user, campaign=campaign)
    name = str(data.get("name", "")).strip()
    errors: list[str] = []
    raw: dict[str, Any] = {}
    for field in STAT_FIELDS:
        value = str(data.get(field, "")).strip()
        try:
            raw[field] = int(value)
        except ValueError:
            errors.append(f"{field.capitalize()} must be a whole number"
                          + (f", not {value!r}." if value else "."))
    specials = [str(s) for s in data.get("specials", [])]
    if errors:
        return {"valid": False, "errors": errors, "cost": None}
    try:
        stats = unit_stats_from_dict({**raw, "specials": specials})
    except FieldError as exc:
        return {"valid": False, "errors": [str(exc)], "cost": None}
    errors = validate_unit_type(stats, name=name or None)
    if not name:
        errors.insert(0, "A unit type needs a name.")
    breakdown = cost_breakdown(stats)
    if not errors and _is_alliance_player(membership):
        entries = army_entries(membership)
        count = entries[unit_type_id].count if unit_type_id in entries else 0
        entries.pop(unit_type_id, None)  # type: ignore[arg-type]
        army = [*entries.values(), ArmyEntry(name=name, stats=stats, count=count)]
        budget, max_types = campaign.points_budget, campaign.max_unit_types
        # Before "ready" an army needs no commander yet (as in the service).
        baseline = set(validate_army([], budget=budget, max_types=max_types))
        errors = [e for e in validate_army(army, budget=budget, max_types=max_types)
                  if e not in baseline]
    return {
        "valid": not errors,
        "errors": errors,
        "cost": format_fraction(breakdown.total),
        "cost_lines": breakdown.explain()[:-1],
        "movement_class": stats.movement_class.value,
    }
