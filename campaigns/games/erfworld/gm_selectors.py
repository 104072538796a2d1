"""Reads for the Game Master's pages: the dashboard, one campaign's controls, scenarios."""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from campaigns.access import require_gm
from campaigns.errors import NotAllowedError, ScenarioError
from campaigns.games.erfworld.scenarios import SCENARIO_DIR, file_scenario_keys
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Fortification,
    Membership,
    Phase,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    SavedScenario,
    Unit,
)

# What the GM panel lists as the record of overrules and clock changes.
GM_EVENT_KINDS = (
    EventKind.DEADLINE_EXTENDED, EventKind.CAMPAIGN_PAUSED, EventKind.CAMPAIGN_RESUMED,
    EventKind.PHASE_CLOSED, EventKind.PHASE_REVERTED, EventKind.HITS_ADJUSTED,
    EventKind.POP_POINTS_GRANTED, EventKind.PROCESSING_FLAGGED, EventKind.SETTINGS_CHANGED,
)


def _phase_row(phase: Phase, campaign: Campaign, statuses: list[PlayerPhaseStatus],
               now: Any) -> dict[str, Any]:
    # Late players are those still owing orders past the deadline (one who was done late
    # owes nothing). While paused the clock is stopped: only lateness already recorded counts.
    running = campaign.status == CampaignStatus.RUNNING
    late = [
        s.membership.user.public_name for s in statuses
        if s.done_at is None and (s.late or (running and now >= phase.deadline_at))
    ]
    return {
        "id": phase.pk,
        "turn": phase.turn.number,
        "kind": phase.kind,
        "name": phase.get_kind_display(),
        "deadline_at": phase.deadline_at,
        "paused_remaining": phase.paused_remaining,
        "extended_hours": phase.extended_hours,
        "late_players": late,
        "processing_failures": phase.processing_failures,
        "processing_error": phase.processing_error,
        "processing_flagged_at": phase.processing_flagged_at,
        "alert": phase.processing_flagged_at is not None or phase.processing_failures > 0,
    }


def _open_phases(campaigns: list[Campaign]) -> dict[int, dict[str, Any]]:
    phases = list(
        Phase.objects.filter(campaign__in=campaigns, status=PhaseStatus.OPEN)
        .select_related("turn")
    )
    statuses: dict[int, list[PlayerPhaseStatus]] = defaultdict(list)
    for s in (
        PlayerPhaseStatus.objects.filter(phase__in=phases)
        .select_related("membership__user").order_by("membership_id")
    ):
        statuses[s.phase_id].append(s)
    by_campaign = {c.pk: c for c in campaigns}
    now = timezone.now()
    return {
        p.campaign_id: _phase_row(p, by_campaign[p.campaign_id], statuses[p.pk], now)
        for p in phases
    }


def gm_dashboard(*, user: User) -> list[dict[str, Any]]:
    """Every campaign `user` is the GM of, newest first, with its open phase (deadline,
    late players, processing alert); a fixed number of queries whatever their number."""
    campaigns = list(
        Campaign.objects.filter(memberships__user=user, memberships__role=Role.GM)
        .order_by("-created_at", "-pk")
    )
    phases = _open_phases(campaigns)
    players: dict[int, int] = defaultdict(int)
    for campaign_id in Membership.objects.filter(
        campaign__in=campaigns, role=Role.PLAYER
    ).values_list("campaign_id", flat=True):
        players[campaign_id] += 1
    return [
        {
            "campaign": c,
            "status": c.status,
            "status_name": c.get_status_display(),
            "invite_code": c.invite_code if c.status == CampaignStatus.SETUP else None,
            "players": players[c.pk],
            "phase": phases.get(c.pk),
        }
        for c in campaigns
    ]


def gm_campaign_panel(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """What the GM's controls of one campaign need: its open phase, the units on the map and
    the fortifications (every side: the GM sees everything), the alliance's pop points and
    the record of recent overrules. Raises NotAllowedError for anyone but the GM."""
    require_gm(user=user, campaign=campaign)
    campaign.refresh_from_db()
    phase = _open_phases([campaign]).get(campaign.pk)
    units = [
        {
            "id": row["id"],
            "name": row["name"],
            "side": row["side__kind"],
            "hex": row["stack__hex"],
            "current_hits": row["current_hits"],
            "hits": row["unit_type__hits"],
        }
        for row in Unit.objects.filter(campaign=campaign, stack__isnull=False)
        .order_by("side__kind", "stack__hex", "stack__created_seq", "stack_id", "position")
        .values("id", "name", "side__kind", "stack__hex", "current_hits", "unit_type__hits")
    ]
    fortifications = [
        {
            "id": f.pk,
            "label": f"{f.get_kind_display().lower()} {f.hex}"
            + (f" {f.direction}" if f.direction else ""),
            "hex": f.hex,
            "owner": f.owner.kind,
            "hits": f.hits,
            "starting_hits": f.starting_hits,
        }
        for f in Fortification.objects.filter(campaign=campaign).select_related("owner")
        .order_by("hex", "kind", "direction")
    ]
    events = list(
        Event.objects.filter(campaign=campaign, kind__in=GM_EVENT_KINDS)
        .order_by("-created_at", "-pk").values("summary", "created_at", "kind")[:10]
    )
    chief = (
        Membership.objects.filter(campaign=campaign, is_chief_warlord=True)
        .select_related("user").first()
    )
    return {
        "status": campaign.status,
        "status_name": campaign.get_status_display(),
        "running": campaign.status == CampaignStatus.RUNNING,
        "paused": campaign.status == CampaignStatus.PAUSED,
        "invite_code": campaign.invite_code if campaign.status == CampaignStatus.SETUP else None,
        "phase": phase,
        "max_extension_hours": campaign.max_extension_hours,
        "extension_left": (campaign.max_extension_hours - phase["extended_hours"]
                           if phase else 0),
        "pop_pool": campaign.pop_pool,
        "chief_warlord": chief.user.public_name if chief else None,
        "units": units,
        "fortifications": fortifications,
        "events": events,
    }


def scenario_choices(*, user: User) -> list[dict[str, Any]]:
    """Every scenario the user may make a campaign from: the files, then their own saved ones
    and those other authors shared, by name."""
    out: list[dict[str, Any]] = []
    for key in file_scenario_keys():
        data = json.loads((SCENARIO_DIR / f"{key}.json").read_text(encoding="utf-8"))
        out.append({"key": key, "name": str(data.get("name", key)), "source": "file",
                    "author": None})
    saved_rows = (SavedScenario.objects.select_related("author")
                  .filter(Q(shared=True) | Q(author_id=user.pk)).order_by("name", "key"))
    for saved in saved_rows:
        out.append({"key": saved.key, "name": saved.name, "source": "saved",
                    "author": saved.author.public_name if saved.author else None,
                    "author_id": saved.author_id, "shared": saved.shared,
                    "mine": saved.author_id == user.pk})
    return out


def blank_scenario() -> dict[str, Any]:
    """A new scenario as the editor starts it: a 12 × 12 open map, nothing placed."""
    return {
        "key": "",
        "name": "",
        "ruleset": "erfworld",
        "description": "",
        "settings": {},
        "sides": {"alliance": "The Alliance", "opposition": "The Opposition"},
        "map": {"cols": 12, "rows": 12, "terrain": {}},
        "entry_hex": "A1",
        "pop_hexes": [],
        "victory_hex": "L12",
        "fortifications": [],
        "opposition": {"unit_types": [], "stacks": []},
    }


def scenario_for_editing(*, user: User, key: str) -> dict[str, Any]:
    """The data of scenario `key` for the editor: a saved scenario of the user's own as it
    is, a scenario file as a copy under a new key (files are not edited in the browser).
    Another author's saved scenario raises NotAllowedError; an unknown key ScenarioError."""
    saved = SavedScenario.objects.filter(key=key).first()
    if saved is not None and key not in file_scenario_keys():
        if saved.author_id != user.pk:
            raise NotAllowedError("Only its author may edit this scenario.", code="not_author")
        return {"data": copy.deepcopy(saved.data), "copy_of": None}
    if key not in file_scenario_keys():
        raise ScenarioError(f"There is no scenario {key!r}.", field="key")
    data = json.loads((SCENARIO_DIR / f"{key}.json").read_text(encoding="utf-8"))
    data["key"] = f"{key}_copy"
    data["name"] = f"{data.get('name', key)} (copy)"
    return {"data": data, "copy_of": key}
