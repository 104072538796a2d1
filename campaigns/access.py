"""Who a user is in a campaign: their membership, or a refusal naming the role an action
needs. Below the services and the selectors: both ask here."""

from __future__ import annotations

from accounts.models import User
from campaigns.errors import NotAllowedError
from campaigns.models import Campaign, Membership, Role, SideKind

__all__ = ["is_open_seat", "membership_of", "require_alliance_player", "require_gm"]


def membership_of(*, user: User, campaign: Campaign) -> Membership:
    membership = (
        Membership.objects.select_related("side", "user")
        .filter(campaign=campaign, user=user)
        .first()
    )
    if membership is None:
        raise NotAllowedError(
            f"{user.public_name} is not a member of the campaign {campaign.name!r}.",
            code="not_member",
        )
    return membership


def require_gm(*, user: User, campaign: Campaign) -> Membership:
    membership = membership_of(user=user, campaign=campaign)
    if membership.role != Role.GM:
        raise NotAllowedError("Only the Game Master may do this.", code="gm_only")
    return membership


def require_alliance_player(*, user: User, campaign: Campaign) -> Membership:
    membership = membership_of(user=user, campaign=campaign)
    if membership.role != Role.PLAYER or membership.side is None:
        raise NotAllowedError(
            "Only alliance players may do this; the Game Master plays the opposition.",
            code="wrong_side",
        )
    if membership.side.kind != SideKind.ALLIANCE:
        raise NotAllowedError("Only players of the alliance may do this.", code="wrong_side")
    return membership


def is_open_seat(member: Membership) -> bool:
    """A former player's seat that nobody has taken yet."""
    return member.role == Role.FORMER and member.successor_id is None and member.left_at is not None
