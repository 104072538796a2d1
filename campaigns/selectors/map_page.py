"""Reads for the map page beyond `map_state`: the viewer's scout orders, pops and unit types."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q

from accounts.models import User
from campaigns.models import (
    Campaign,
    Fortification,
    Membership,
    PhaseKind,
    PhaseStatus,
    Role,
    ScoutOrder,
    SideKind,
    Unit,
    UnitType,
)
from campaigns.selectors.standing import describe


def acting_for(*, viewer: Membership, on_behalf_of: str | None) -> dict[str, Any] | None:
    """The ally a Chief Warlord gives orders for (`?on_behalf_of=<membership id>`, the phase
    bar's link to a late player); None for anyone else or anything else. Whether that player
    is late is the services' decision, made on every order."""
    if not on_behalf_of or not viewer.is_chief_warlord or viewer.side_id is None:
        return None
    try:
        pk = int(on_behalf_of)
    except ValueError:
        return None
    ally = (
        Membership.objects.select_related("user")
        .filter(Q(role=Role.PLAYER, side_id=viewer.side_id)
                | Q(role=Role.FORMER, successor__isnull=True, left_at__isnull=False,
                    units__side_id=viewer.side_id),
                pk=pk, campaign_id=viewer.campaign_id)
        .exclude(pk=viewer.pk)
        .first()
    )
    if ally is None:
        return None
    return {"membership": ally.pk, "name": ally.user.public_name,
            "open_seat": ally.role == Role.FORMER, "standing": describe(ally)}


def map_page_tools(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """What the map's tools need to know about the viewer, all of it their own side's data:

    - their membership (id, role, Chief Warlord flag) and pop points;
    - the scout orders of their side in the open scout phase (to show, edit and cancel);
    - their own unit types (what pops they may buy) and the scenario's pop hexes;
    - pops their side bought that wait to appear (count per pop hex);
    - for an alliance member: the Chief Warlord's pool of granted pop points still to share,
      and for the Chief Warlord the alliance players to share it with (their points);
    - the fortifications their side holds below their starting hits (what pop points repair).
    A non-member is refused by the caller (the page is a 404 for them).
    """
    membership = (
        Membership.objects.select_related("side").filter(campaign=campaign, user=user).get()
    )
    side_id = membership.side_id
    orders: list[dict[str, Any]] = []
    if side_id is not None:
        orders = [
            {"id": o.pk, "scout": o.scout_id, "scout_name": o.scout.name,
             "directions": list(o.directions), "inspected_hexes": list(o.inspected_hexes)}
            for o in ScoutOrder.objects.select_related("scout")
            .filter(phase__campaign=campaign, phase__status=PhaseStatus.OPEN,
                    phase__kind=PhaseKind.SCOUT, scout__side_id=side_id)
            .order_by("pk")
        ]
    unit_types = [
        {"id": t["id"], "name": t["name"], "cost": format(t["cost"].normalize(), "f")}
        for t in UnitType.objects.filter(owner=membership).order_by("name")
        .values("id", "name", "cost")
    ]
    waiting: dict[str, int] = {}
    if side_id is not None:
        for hex_label in (
            Unit.objects.filter(campaign=campaign, side_id=side_id, stack__isnull=True,
                                current_hits__gt=0)
            .exclude(pop_hex="").values_list("pop_hex", flat=True)
        ):
            waiting[hex_label] = waiting.get(hex_label, 0) + 1
    alliance = membership.side is not None and membership.side.kind == SideKind.ALLIANCE
    players = []
    if alliance and membership.is_chief_warlord:
        players = [
            {"membership": m.pk, "name": m.user.public_name,
             "pop_points": format(m.pop_points.normalize(), "f")}
            for m in Membership.objects.select_related("user")
            .filter(campaign=campaign, role=Role.PLAYER, side=membership.side).order_by("pk")
        ]
    repairable = []
    if side_id is not None:
        repairable = [
            {"id": f.pk, "hex": f.hex, "kind": f.kind, "direction": f.direction or None,
             "hits": f.hits, "starting_hits": f.starting_hits}
            for f in Fortification.objects.filter(campaign=campaign, owner_id=side_id,
                                                  hits__lt=F("starting_hits"))
            .order_by("hex", "kind", "direction")
        ]
    # Who owns the stacks the viewer sees in full: their side's (the GM: every) unit owner,
    # open seats included, for "rowan's stack" and the counters' initials.
    owned = Unit.objects.filter(campaign=campaign, owner__isnull=False, current_hits__gt=0)
    if membership.role != Role.GM:
        owned = owned.filter(side_id=side_id) if side_id is not None else owned.none()
    owners = [
        {"membership": m.pk, "name": m.user.public_name}
        for m in Membership.objects.select_related("user")
        .filter(pk__in=owned.values("owner_id")).order_by("pk")
    ]
    return {
        "membership": membership.pk,
        "owners": owners,
        "role": membership.role,
        "side": membership.side.kind if membership.side is not None else None,
        "is_chief_warlord": membership.is_chief_warlord,
        "pop_points": (format(membership.pop_points.normalize(), "f")
                       if membership.role == Role.PLAYER else None),
        "pop_hexes": list(campaign.pop_hexes),
        "unit_types": unit_types,
        "scout_orders": orders,
        "pops_waiting": [{"hex": h, "count": n} for h, n in sorted(waiting.items())],
        "pop_pool": (format(campaign.pop_pool.normalize(), "f") if alliance else None),
        "alliance_players": players,
        "repairable": repairable,
    }
