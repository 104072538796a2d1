"""The browser: server-rendered pages over the same services and selectors as the API.

Every campaign page view calls `campaign_page_context(request, campaign)` once: it checks
membership (a non-member gets a 404, as in the API) and returns what
templates/campaigns/base.html needs: `campaign`, `is_gm`, `membership` and `phase_bar`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounts.models import User
from accounts.timefmt import format_local
from campaigns.models import Campaign, Membership, PhaseKind, Role, SideKind
from campaigns.selectors import phase_status_board

ALLIANCE_PHASES = (PhaseKind.SCOUT, PhaseKind.MOVE_COMBAT)


def member_or_404(request: HttpRequest, campaign: Campaign) -> Membership:
    """The viewer's membership; anyone else (or an anonymous visitor) gets a 404."""
    user = request.user
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    membership = (
        Membership.objects.select_related("side", "user")
        .filter(campaign=campaign, user=user)
        .first()
    )
    if membership is None:
        raise Http404("No such campaign.")
    return membership


def erfworld_only(view: Callable[..., Any], *, page: bool = True) -> Callable[..., Any]:
    """A page of Erfworld's campaign engine (map tools, reports, history, the GM's page…): for
    a battle of another rule system a member is sent to the battle page (`page`), or gets a
    404 (a picture, a JSON endpoint); anyone else a 404 either way."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, campaign_id: int, *args: Any, **kwargs: Any) -> Any:
        ruleset = (Campaign.objects.filter(pk=campaign_id)
                   .values_list("ruleset_key", flat=True).first())
        if ruleset is not None and ruleset != "erfworld":
            if not page:
                raise Http404("A battle has no such page.")
            member_or_404(request, Campaign.objects.get(pk=campaign_id))
            response: HttpResponse = redirect("campaigns:battle", campaign_id)
            return response
        return view(request, campaign_id, *args, **kwargs)

    return wrapped


def local_time(moment: Any, user: Any) -> str:
    """A moment in the viewer's own zone, with its offset."""
    return format_local(moment, getattr(user, "time_zone", None) or "UTC")


def phase_bar_context(*, user: User, campaign: Campaign, membership: Membership) -> dict[str, Any]:
    """What the phase bar shows: the open phase from `phase_status_board`, and which of
    "I'm done", "End phase" and "act for a late player" this viewer may use."""
    if campaign.ruleset_key != "erfworld":
        return _battle_bar(campaign)
    board = phase_status_board(user=user, campaign=campaign)
    if board is None:
        return {"open": False, "campaign_status": campaign.get_status_display()}
    is_gm = membership.role == Role.GM
    alliance_phase = board["phase"] in ALLIANCE_PHASES
    is_alliance_player = (
        membership.role == Role.PLAYER
        and membership.side is not None
        and membership.side.kind == SideKind.ALLIANCE
    )
    from campaigns.games.erfworld.phases import commands_alliance
    from campaigns.selectors.absences import standing_down

    mine = next((p for p in board["players"] if p["membership"] == membership.pk), None)
    is_chief = is_alliance_player and alliance_phase and commands_alliance(campaign, membership)
    # A player away (declared absence) or gone quiet (phases missed in a row) is acted for
    # as a late one and does not hold the phase up.
    down = standing_down(campaign, Membership.objects.filter(
        pk__in=[p["membership"] for p in board["players"] if not p["done"]])
        .select_related("user"))
    for p in board["players"]:
        p["stands_down"] = p["membership"] in down
    waiting = [p for p in board["players"]
               if not p["done"] and not p["late"] and not p["stands_down"]]
    late = [p for p in board["players"] if not p["done"] and (p["late"] or p["stands_down"])]
    if is_chief and late:
        from campaigns.selectors.standing import describe

        filed = {m.pk: describe(m) for m in Membership.objects.select_related(
            "standing_scout").filter(pk__in=[p["membership"] for p in late])}
        for p in late:
            p["standing"] = filed.get(p["membership"], "")
    draw = _draw_context(campaign, board, is_gm=is_gm,
                         is_alliance_player=is_alliance_player)
    return {
        "open": True,
        "draw": draw,
        "board": board,
        "phase_id": _open_phase_id(campaign),
        "deadline_iso": board["deadline_at"].isoformat(),
        "deadline_local": local_time(board["deadline_at"], user),
        "players": board["players"],
        "mine": mine,
        "can_mark_done": bool(is_alliance_player and mine is not None and not mine["done"]),
        "can_take_back": bool(is_alliance_player and mine is not None and mine["done"]
                              and not mine["proxied_by"]),
        "paused": _paused(campaign),
        "waiting_for_gm": board["phase"] == PhaseKind.OPPOSITION and not is_gm,
        "is_chief_warlord": is_chief,
        # The Chief Warlord may end an alliance phase once nobody is still within their
        # time; the GM may end any phase at any time (games/erfworld/phases.py phase_end).
        "can_end_phase": (is_gm or (is_chief and not waiting)) and not board["awaiting_draw"],
        "end_phase_waiting": [p["name"] for p in waiting] if is_chief else [],
        "act_for": ([p for p in late if p["membership"] != membership.pk]
                    + _open_seat_rows(campaign)) if is_chief else [],
        "is_scout_phase": board["phase"] == PhaseKind.SCOUT,
        "nobody_done": bool(board["players"]) and not any(p["done"] for p in board["players"]),
    }


def _battle_bar(campaign: Campaign) -> dict[str, Any]:
    """A battle's bar on its campaign pages (forum, dice): the step, who acts, the deadline;
    its orders are on the battle page."""
    from campaigns.game import game_for
    from campaigns.models import Phase, PhaseStatus

    phase = (Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
             .select_related("turn").first())
    game = game_for(campaign)
    return {"open": phase is not None, "battle": {
        "status": campaign.get_status_display(),
        "step": phase.turn.number if phase else None,
        "waiting_for": game.waiting_for(campaign, phase) if phase else "",
        "deadline_at": phase.deadline_at if phase else None}}


def _draw_context(campaign: Campaign, board: dict[str, Any], *, is_gm: bool,
                  is_alliance_player: bool) -> dict[str, Any] | None:
    """The alliance's draw in the opposition phase: the GM's declared combats (with a
    withdraw button until the draw is asked), and the draw form for alliance players."""
    if board["phase"] != PhaseKind.OPPOSITION or not campaign.alliance_draw:
        return None
    from campaigns.selectors.draw import declaration_rows

    declared = declaration_rows(campaign)[1] if is_gm or board["awaiting_draw"] else []
    return {"awaiting": board["awaiting_draw"], "can_draw": is_alliance_player
            and board["awaiting_draw"], "count": len(declared),
            "declarations": declared if is_gm else []}


def _open_seat_rows(campaign: Campaign) -> list[dict[str, Any]]:
    """Open seats, for the Chief Warlord to give their stacks' orders (never waited for)."""
    from campaigns.services.seats import open_seats

    return [{"membership": m.pk, "name": m.user.public_name, "open_seat": True}
            for m in open_seats(campaign)]


def _paused(campaign: Campaign) -> dict[str, Any] | None:
    """A paused campaign's reason and the time the phase will have left when it resumes."""
    from campaigns.models import CampaignStatus, Event, EventKind, Phase, PhaseStatus

    if campaign.status != CampaignStatus.PAUSED:
        return None
    event = (Event.objects.filter(campaign=campaign, kind=EventKind.CAMPAIGN_PAUSED)
             .order_by("-created_at").first())
    remaining = (Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
                 .values_list("paused_remaining", flat=True).first())
    reason = str(event.payload.get("reason", "")) if event is not None else ""
    # The bar ends the sentence itself.
    return {"reason": reason.strip().rstrip(".!"),
            "remaining": remaining}


def _open_phase_id(campaign: Campaign) -> int | None:
    from campaigns.models import Phase, PhaseStatus

    return (
        Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
        .values_list("pk", flat=True)
        .first()
    )


def _mark_seen(membership: Membership) -> None:
    """The member's visit, for "since your last visit" on the home page: one UPDATE at most a
    minute apart."""
    from datetime import timedelta

    from django.utils import timezone

    from campaigns.models import Visit

    now = timezone.now()
    if not Visit.objects.filter(membership=membership).filter(
        seen_at__lt=now - timedelta(minutes=1)
    ).update(seen_at=now):
        Visit.objects.get_or_create(membership=membership, defaults={"seen_at": now})


def campaign_page_context(request: HttpRequest, campaign: Campaign) -> dict[str, Any]:
    """The context every campaign page starts from; raises Http404 for a non-member."""
    membership = member_or_404(request, campaign)
    _mark_seen(membership)
    return {
        "campaign": campaign,
        "is_gm": membership.role == Role.GM,
        "membership": membership,
        "phase_bar": phase_bar_context(
            user=membership.user, campaign=campaign, membership=membership
        ),
    }
