"""The home page's read: each of my campaigns with its open phase and what I must do now."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from campaigns.game import game_for
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    SideKind,
    UnitType,
)

ALLIANCE_PHASES = (PhaseKind.SCOUT, PhaseKind.MOVE_COMBAT)
# Events whose summary is written for the GM's eyes (the reader's view of them differs).
_NOT_SUMMARISED = (EventKind.HEALING, EventKind.HITS_ADJUSTED)
CHANGES_SHOWN = 3
CHANGES_READ = 500


def _seen_at(m: Membership) -> Any:
    visit = getattr(m, "visit", None) if hasattr(m, "visit") else None
    return None if visit is None else visit.seen_at


def _changes(memberships: list[Membership]) -> dict[int, list[str]]:
    """Per campaign, the summaries (newest first) of the events the member may see since
    their last visit (or since they joined): one query, whatever the number of campaigns."""
    wanted = Q(pk__in=[])
    for m in memberships:
        since = _seen_at(m) or m.joined_at
        if m.role == Role.GM:
            visible = Q()
        elif m.side_id is not None:
            visible = Q(side__isnull=True) | Q(side_id=m.side_id)
        else:
            visible = Q(side__isnull=True)
        wanted |= Q(campaign_id=m.campaign_id, created_at__gt=since) & visible
    out: dict[int, list[str]] = {m.campaign_id: [] for m in memberships}
    for campaign_id, summary in (
        Event.objects.filter(wanted).exclude(kind__in=_NOT_SUMMARISED)
        .order_by("-created_at", "-id").values_list("campaign_id", "summary")[:CHANGES_READ]
    ):
        out[campaign_id].append(summary)
    return out


def _is_alliance_player(m: Membership) -> bool:
    return m.role == Role.PLAYER and m.side is not None and m.side.kind == SideKind.ALLIANCE


def _setup_todo(m: Membership, players: list[Membership], has_types: bool) -> list[str]:
    chief = next((p for p in players if p.is_chief_warlord), None)
    voted = sum(1 for p in players if p.chief_warlord_vote_id is not None)
    if m.role == Role.GM:
        if not players:
            return ["Invite players: nobody has joined yet."]
        todo = []
        counts = Counter(p.chief_warlord_vote_id for p in players
                         if p.chief_warlord_vote_id is not None)
        top = counts.most_common(2)
        if chief is None and voted == len(players) and len(top) == 2 and top[0][1] == top[1][1]:
            todo.append("The Chief Warlord vote is tied: appoint one, or a setup die decides "
                        "when you close the election or start.")
        not_ready = [p.user.public_name for p in players if p.army_ready_at is None]
        if not_ready:
            todo.append(f"Waiting for armies: {', '.join(not_ready)}.")
        elif chief is not None or voted:
            # Starting closes the election: the most votes win.
            todo.append("Every army is ready: start the campaign.")
        else:
            todo.append("Waiting for the Chief Warlord vote.")
        return todo
    if not _is_alliance_player(m):
        return ["Nothing to do: the campaign has not started."]
    todo = []
    if m.army_ready_at is None:
        todo.append("Design your army and mark it ready." if has_types
                    else "Design your army: no unit type yet.")
    if chief is None and m.chief_warlord_vote_id is None:
        todo.append("Vote for the Chief Warlord.")
    if not todo:
        todo.append("Nothing to do: waiting for the GM to start the campaign.")
    return todo


ERFWORLD = "erfworld"


def _battle_todo(m: Membership, campaign: Campaign, phase: Phase | None) -> list[str]:
    """What to do now in a battle of another rule system (campaigns.game asks the game)."""
    if campaign.status == CampaignStatus.SETUP:
        if m.role == Role.GM:
            return ["Invite a player for each side, then start the battle."]
        return ["Waiting for the GM to start the battle."]
    if campaign.status == CampaignStatus.PAUSED:
        return ["The battle is paused by the GM."]
    if campaign.status == CampaignStatus.FINISHED or phase is None:
        return ["The battle is over: see how it ended."]
    game = game_for(campaign)
    acting = game.acting_sides(campaign, phase)
    if m.role == Role.PLAYER and m.side is not None and m.side.name in acting:
        return [f"Your orders: {game.waiting_for(campaign, phase)}."]
    if m.role == Role.GM:
        return [f"Nothing to do: {' and '.join(acting)} act now."]
    return [f"Nothing to do: waiting for {' and '.join(acting)}."]


def _phase_todo(
    m: Membership, phase: Phase, statuses: list[PlayerPhaseStatus], now: Any
) -> list[str]:
    def late(s: PlayerPhaseStatus) -> bool:
        if s.late:
            return True
        return s.done_at > phase.deadline_at if s.done_at else now >= phase.deadline_at

    if phase.kind not in ALLIANCE_PHASES:
        if m.role == Role.GM:
            return ["Play the opposition's phase, then end it."]
        return ["Nothing to do: waiting for the GM to play the opposition."]
    if m.role == Role.GM:
        if phase.processing_flagged_at is not None:
            return ["Processing this phase's deadline failed: see the GM dashboard."]
        return ["Nothing to do: the alliance is playing its phase."]
    if not _is_alliance_player(m):
        return ["Nothing to do: the alliance is playing its phase."]
    mine = next((s for s in statuses if s.membership_id == m.pk), None)
    others = [s for s in statuses if s.membership_id != m.pk]
    orders = ("Give your scout orders and mark them done." if phase.kind == PhaseKind.SCOUT
              else "Move and fight, then mark your orders done.")
    todo: list[str] = []
    if mine is not None and mine.done_at is None:
        if late(mine):
            todo.append("You are late: " + orders[0].lower() + orders[1:]
                        + " The Chief Warlord may now act for you.")
        elif others and all(s.done_at is not None for s in others):
            todo.append("The Chief Warlord is waiting for you: " + orders[0].lower() + orders[1:])
        else:
            todo.append(orders)
    if m.is_chief_warlord:
        late_players = [s.membership.user.public_name for s in others
                        if s.done_at is None and late(s)]
        waiting = [s for s in statuses if s.done_at is None and not late(s)]
        if late_players:
            todo.append(f"Late: {', '.join(late_players)}; you may give orders for them.")
        if not waiting:
            todo.append("Every player is done or late: end the phase.")
    if not todo:
        todo.append("Nothing to do: waiting for the Chief Warlord to end the phase.")
    return todo


def home_campaigns(*, user: User) -> list[dict[str, Any]]:
    """Every campaign `user` belongs to, newest first: status, role, the open phase with its
    deadline, and "what you must do now" as sentences."""
    memberships = list(
        Membership.objects.filter(user=user)
        .select_related("campaign", "side", "visit")
        .order_by("-campaign__created_at", "-campaign_id")
    )
    if not memberships:
        return []
    campaign_ids = [m.campaign_id for m in memberships]
    phases = {
        p.campaign_id: p
        for p in Phase.objects.filter(campaign_id__in=campaign_ids, status=PhaseStatus.OPEN)
        .select_related("turn")
    }
    statuses: dict[int, list[PlayerPhaseStatus]] = {p.pk: [] for p in phases.values()}
    for s in (
        PlayerPhaseStatus.objects.filter(phase__in=list(phases.values()))
        .select_related("membership__user")
        .order_by("membership_id")
    ):
        statuses[s.phase_id].append(s)
    setup_ids = [m.campaign_id for m in memberships
                 if m.campaign.status == CampaignStatus.SETUP]
    players: dict[int, list[Membership]] = {cid: [] for cid in setup_ids}
    for p in (
        Membership.objects.filter(campaign_id__in=setup_ids, role=Role.PLAYER,
                                  side__kind=SideKind.ALLIANCE)
        .select_related("user").order_by("pk")
    ):
        players[p.campaign_id].append(p)
    with_types = set(
        UnitType.objects.filter(owner__user=user, campaign_id__in=setup_ids)
        .values_list("campaign_id", flat=True)
    )
    now = timezone.now()
    changes = _changes(memberships)
    rows = []
    for m in memberships:
        campaign = m.campaign
        phase = phases.get(campaign.pk)
        battle = campaign.ruleset_key != ERFWORLD
        if battle:
            todo = _battle_todo(m, campaign, phase)
        elif campaign.status == CampaignStatus.SETUP:
            todo = _setup_todo(m, players[campaign.pk], campaign.pk in with_types)
        elif campaign.status == CampaignStatus.PAUSED:
            todo = ["The campaign is paused by the GM."]
        elif campaign.status == CampaignStatus.FINISHED:
            won = f": the {campaign.winner} won" if campaign.winner else ""
            todo = [f"The campaign is over{won}."]
        elif phase is not None:
            todo = _phase_todo(m, phase, statuses[phase.pk], now)
        else:
            todo = []
        rows.append({
            "id": campaign.pk,
            "name": campaign.name,
            "status": campaign.get_status_display(),
            "role": m.get_role_display(),
            "side": m.side.name if m.side else "",
            "is_chief_warlord": m.is_chief_warlord,
            "phase": None if phase is None else {
                "turn": phase.turn.number,
                "step": battle,
                "name": (game_for(campaign).waiting_for(campaign, phase) if battle
                         else phase.get_kind_display()),
                "deadline_at": phase.deadline_at,
            },
            "todo": todo,
            "changes": {"count": len(changes[campaign.pk]),
                        "latest": changes[campaign.pk][:CHANGES_SHOWN],
                        "since_visit": _seen_at(m) is not None},
            "processing_flagged": m.role == Role.GM and phase is not None
            and phase.processing_flagged_at is not None,
        })
    return rows
