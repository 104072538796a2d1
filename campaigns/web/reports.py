"""Pages: reports (combat, ambush, siege, scout; every factor and die), the dice of each
phase, and the history: the map as it stood at the opening of any phase (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_GET, require_http_methods

from campaigns.archive import export_archive
from campaigns.errors import CampaignError, WrongStateError
from campaigns.models import Campaign, CampaignStatus, Event, EventKind, Phase
from campaigns.selectors import phase_history
from campaigns.selectors.after_action import after_action
from campaigns.selectors.reports import gm_ledger, report_detail, reports_for
from campaigns.services.forum import side_threads_open
from campaigns.web import campaign_page_context, erfworld_only

SIDES = ("attacker", "defender")


def _titled(row: dict[str, Any]) -> dict[str, Any]:
    """The row with the title a person reads: "Combat report", "Scout report"."""
    label = str(EventKind(row["kind"]).label)
    return {**row, "title": label if label.endswith("report") else f"{label} report"}


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id)


def _phases(campaign: Campaign) -> list[dict[str, Any]]:
    """Every phase with its dice commitment; the seed only once the phase has closed."""
    return [
        {
            "id": p.pk,
            "turn": p.turn.number,
            "name": p.get_kind_display(),
            "status": p.status,
            "opened_at": p.opened_at,
            "closed_at": p.closed_at,
            "commitment": p.dice_commitment,
            "seed": p.revealed_seed,
            "has_snapshot": hasattr(p, "snapshot"),
        }
        for p in Phase.objects.filter(campaign=campaign)
        .select_related("turn", "snapshot")
        .order_by("turn__number", "opened_at", "pk")
    ]


@login_required
@require_GET
def reports(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    context.update(
        reports=[_titled(r) for r in reports_for(
            user=request.user, campaign=campaign)],  # type: ignore[arg-type]
        phases=_phases(campaign),
    )
    return render(request, "campaigns/reports.html", context)


def _combat_sides(payload: dict[str, Any]) -> list[dict[str, Any]]:
    result = payload.get("result")
    if not isinstance(result, dict):
        return []
    sides = []
    for name in SIDES:
        side = result.get(name)
        if isinstance(side, dict):
            factors = side.get("factors") or {}
            sides.append({
                "name": name,
                "roll": side.get("roll"),
                "factors": [
                    {"name": k, "exact": v.get("exact"), "decimal": v.get("decimal")}
                    for k, v in factors.items() if isinstance(v, dict)
                ],
                "units": side.get("units") or [],
            })
    return sides


def _explanation(payload: dict[str, Any]) -> list[str]:
    value = payload.get("explanation")
    if isinstance(value, list):
        return [str(line) for line in value]
    return [str(value)] if value else []


@login_required
@require_GET
def report(request: HttpRequest, campaign_id: int, event_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    try:
        row = report_detail(user=request.user,  # type: ignore[arg-type]
                            campaign=campaign, event_id=event_id)
    except Event.DoesNotExist:
        # Another side's report, or no report at all: the same answer, so nothing leaks.
        raise Http404("No such report.") from None
    payload = row["payload"]
    context.update(
        report=_titled(row),
        sides=_combat_sides(payload),
        result=payload.get("result") if isinstance(payload.get("result"), dict) else None,
        explanation=_explanation(payload),
        dice=[d for d in payload.get("dice") or [] if isinstance(d, dict)],
        sightings=[s for s in payload.get("sightings") or [] if isinstance(s, dict)],
        casualties=payload.get("casualties") or [],
        factor_legend=FACTOR_LEGEND,
    )
    return render(request, "campaigns/reports_detail.html", context)


# The abbreviations of a combat report's factors, for people (§3).
FACTOR_LEGEND = [
    ("TA", "total attack: the attack of the first 8 units that fight"),
    ("CB", "command bonus: 1 + 0.1 × the best commander level, + 0.1 with the Chief Warlord "
           "in the hex"),
    ("SB", "special bonus: 1 for the attacker; ½, ¼ … for a defender's 2nd, 3rd … combat "
           "this turn"),
    ("AB", "ambush bonus: the campaign's ambush value for an ambusher, else 1"),
    ("RN", "random number: (2d6 + 8) / 20, from 0.5 to 1"),
    ("DF", "defence factor: (8 − avgD − TB) / 8 of the stack struck"),
    ("avgD", "the average defence of the stack struck"),
    ("TB", "terrain bonus of a defender (hills 1, woods 1, swamp 2), plus 1 per 50 hits of "
           "its fortifications"),
]


@login_required
@require_GET
def ledger(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM ledger: pauses (with durations), extensions, reverts, hit changes, pop points,
    appointments and settings changes, with their reasons, for every member."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    context["ledger"] = gm_ledger(user=request.user,  # type: ignore[arg-type]
                                  campaign=campaign)
    return render(request, "campaigns/ledger.html", context)


@login_required
@require_GET
def history(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    context["phases"] = [p for p in _phases(campaign) if p["has_snapshot"]]
    return render(request, "campaigns/history.html", context)


def _snapshot_for_page(
    state: dict[str, Any], *, campaign: Campaign, is_gm: bool
) -> dict[str, Any]:
    """Only what the page draws: the map, fortifications and the stacks the selector kept
    and the side's sightings of the time (the snapshot's unit type and member lists are not
    shown). When the terrain is not known to all, a player sees, as on the live map, only the
    hexes their side occupied or had sighted."""
    game_map = dict(state["map"])
    forts = state["fortifications"]
    sightings = state.get("sightings", [])
    if not is_gm and not campaign.terrain_known_to_all:
        known = {s["hex"] for s in state["stacks"]} | {s["hex"] for s in sightings}
        game_map["terrain"] = {h: t for h, t in game_map["terrain"].items() if h in known}
        forts = [f for f in forts if f["hits"] is not None or f["hex"] in known]
    return {"phase": state["phase"], "map": game_map, "fortifications": forts,
            "stacks": state["stacks"], "sightings": sightings}


@login_required
@require_GET
def history_phase(request: HttpRequest, campaign_id: int, phase_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    phase = get_object_or_404(
        Phase.objects.select_related("turn", "snapshot", "campaign"),
        pk=phase_id, campaign=campaign,
    )
    if not hasattr(phase, "snapshot"):
        raise Http404("This phase has no snapshot.")
    state = _snapshot_for_page(
        phase_history(user=request.user, phase=phase),  # type: ignore[arg-type]
        campaign=campaign, is_gm=context["is_gm"] or campaign.status == CampaignStatus.FINISHED,
    )
    terrain = state["map"]["terrain"]
    context.update(
        phase=phase,
        snapshot=state,
        terrain_rows=sorted(terrain.items()),
    )
    return render(request, "campaigns/history_phase.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def after_action_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The "fog lifts" report; a side's leader opens its threads here."""
    campaign = _campaign(campaign_id)
    context = campaign_page_context(request, campaign)
    error = None
    if request.method == "POST":
        try:
            side_threads_open(user=request.user,  # type: ignore[arg-type]
                              campaign=campaign, side=request.POST.get("side", ""))
        except CampaignError as exc:
            error = exc.message
        else:
            return redirect("campaigns:after-action", campaign.pk)
    try:
        report = after_action(user=request.user, campaign=campaign)  # type: ignore[arg-type]
    except WrongStateError as exc:
        raise Http404(exc.message) from exc
    context.update(report=report, threads_error=error)
    return render(request, "campaigns/after_action.html", context, status=400 if error else 200)


@login_required
@require_GET
def archive_download(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A finished campaign's archive for a member: every event, snapshot and roll (the fog has
    lifted), the map pictures, and the threads they may read."""
    campaign = _campaign(campaign_id)
    campaign_page_context(request, campaign)
    if campaign.status != CampaignStatus.FINISHED:
        raise Http404("The archive is made when the campaign ends.")
    response = HttpResponse(export_archive(campaign, reader=request.user),  # type: ignore[arg-type]
                            content_type="application/zip")
    response["Content-Disposition"] = (f'attachment; filename="warcamp-campaign-{campaign.pk}'
                                       '.zip"')
    return response


urlpatterns = [
    path("<int:campaign_id>/archive.zip", archive_download, name="archive"),
    path("<int:campaign_id>/after-action/", erfworld_only(after_action_page), name="after-action"),
    path("<int:campaign_id>/after-action/open-threads/", after_action_page,
         name="open-side-threads"),
    path("<int:campaign_id>/reports/", erfworld_only(reports), name="reports"),
    path("<int:campaign_id>/reports/<int:event_id>/", erfworld_only(report), name="report"),
    path("<int:campaign_id>/history/", erfworld_only(history), name="history"),
    path("<int:campaign_id>/ledger/", erfworld_only(ledger), name="ledger"),
    path("<int:campaign_id>/history/<int:phase_id>/", erfworld_only(history_phase),
         name="history-phase"),
]
