"""Army design as its player sees it: unit types, units, points spent and left, readiness."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.db.models import QuerySet

from accounts.models import User
from campaigns.errors import NotAllowedError
from campaigns.games.erfworld.fetch import unit_stats
from campaigns.models import Campaign, Membership, Role, Unit, UnitType, army_units
from campaigns.selectors import _membership
from rules.erfworld.units import ArmyEntry, army_cost, format_fraction


def army_entries(membership: Membership) -> dict[int, ArmyEntry]:
    """The player's army as the rules see it, by unit type id."""
    types = UnitType.objects.filter(owner=membership).annotate(n=army_units()).order_by("pk")
    return {
        t.pk: ArmyEntry(name=t.name, stats=unit_stats(t), count=t.n)
        for t in types
    }


def army_points_spent(membership: Membership) -> Fraction:
    return army_cost(list(army_entries(membership).values()))


def unit_types_visible(*, user: User, campaign: Campaign) -> QuerySet[UnitType]:
    """The unit types the user may know of: the GM every one; a player their side's (their
    own and their allies' designs); an observer none. Each with `units_bought`."""
    membership = _membership(user=user, campaign=campaign)
    types = UnitType.objects.filter(campaign=campaign)
    if membership.role != Role.GM:
        types = (types.filter(side_id=membership.side_id) if membership.side_id is not None
                 else types.none())
    return types.annotate(units_bought=army_units()).order_by("side_id", "owner_id", "pk")


def army_of(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """The user's own army: types (with cost and count), units with their commander levels
    (rolled at purchase), points spent and remaining against the budget, and readiness."""
    membership = _membership(user=user, campaign=campaign)
    if membership.role != Role.PLAYER:
        raise NotAllowedError("Only players have an army; the Game Master plays the "
                              "opposition.", code="wrong_side")
    spent = army_points_spent(membership)
    types = list(UnitType.objects.filter(owner=membership).annotate(units_bought=army_units())
                 .order_by("pk"))
    units = list(Unit.objects.filter(owner=membership).select_related("unit_type")
                 .order_by("unit_type_id", "created_seq", "pk"))
    return {
        "membership": membership.pk,
        "ready": membership.army_ready_at is not None,
        "ready_at": membership.army_ready_at,
        "points_budget": campaign.points_budget,
        "points_spent": format_fraction(spent),
        "points_remaining": format_fraction(Fraction(campaign.points_budget) - spent),
        "max_unit_types": campaign.max_unit_types,
        "unit_types": types,
        "units": [
            {"id": u.pk, "name": u.name, "unit_type": u.unit_type.name,
             "unit_type_id": u.unit_type_id, "current_hits": u.current_hits,
             "commander_level": u.commander_level}
            for u in units
        ],
    }
