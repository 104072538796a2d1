"""Objects named in an API URL or body, found only where the user may know of them (else 404).

What a user may not know exists is "not found", never "forbidden": a campaign they are not
in, another side's unit. Permissions for the action itself stay in the services.
"""

from __future__ import annotations

from django.http import Http404

from accounts.models import User
from campaigns.errors import CampaignError
from campaigns.models import Campaign, Membership, Phase, Role, ScoutOrder, Unit


def member_campaign(*, user: User, campaign_id: int) -> Campaign:
    campaign = Campaign.objects.filter(pk=campaign_id, memberships__user=user).first()
    if campaign is None:
        raise Http404
    return campaign


def _viewer(*, user: User, campaign: Campaign) -> Membership:
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is None:
        raise Http404
    return membership


def visible_unit(*, user: User, campaign: Campaign, unit_id: int) -> Unit:
    """A unit of the user's own side (any unit for the GM). Another side's unit is unknown:
    the services name the unit in their refusals, which would tell its name."""
    viewer = _viewer(user=user, campaign=campaign)
    units = Unit.objects.filter(campaign=campaign, pk=unit_id)
    if viewer.role != Role.GM:
        units = units.filter(side_id=viewer.side_id) if viewer.side_id else units.none()
    unit = units.first()
    if unit is None:
        raise Http404
    return unit


def visible_scout_order(*, user: User, campaign: Campaign, order_id: int) -> ScoutOrder:
    viewer = _viewer(user=user, campaign=campaign)
    orders = ScoutOrder.objects.select_related("phase__campaign", "scout").filter(
        phase__campaign=campaign, pk=order_id
    )
    if viewer.role != Role.GM:
        orders = orders.filter(scout__side_id=viewer.side_id) if viewer.side_id else orders.none()
    order = orders.first()
    if order is None:
        raise Http404
    return order


def campaign_membership(*, campaign: Campaign, membership_id: int | None) -> Membership | None:
    """The player named by `on_behalf_of` (the service checks they are an ally)."""
    if membership_id is None:
        return None
    membership = Membership.objects.filter(campaign=campaign, pk=membership_id).first()
    if membership is None:
        raise CampaignError("There is no such player in this campaign.", code="unknown_player",
                            field="on_behalf_of")
    return membership


def campaign_phase(*, campaign: Campaign, phase_id: int | None) -> Phase | None:
    if phase_id is None:
        return None
    phase = Phase.objects.filter(campaign=campaign, pk=phase_id).first()
    if phase is None:
        raise CampaignError("There is no such phase in this campaign.", code="unknown_phase",
                            field="expected_phase")
    return phase


def campaigns_of(*, user: User) -> list[dict[str, object]]:
    """The user's campaigns with their role and side, newest first (one query)."""
    return [
        {"id": m.campaign_id, "name": m.campaign.name, "status": m.campaign.status,
         "ruleset": m.campaign.ruleset_key, "scenario": m.campaign.scenario_key,
         "role": m.role, "side": m.side.kind if m.side else None,
         "is_chief_warlord": m.is_chief_warlord, "membership": m.pk}
        for m in Membership.objects.filter(user=user).select_related("campaign", "side")
        .order_by("-campaign__created_at", "-campaign_id")
    ]
