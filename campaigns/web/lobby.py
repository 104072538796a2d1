"""Pages: the campaign overview (lobby), joining by invite link, the army designer, the
Chief Warlord vote, the GM's appoint and start, and the phase bar's fragment and actions.

Every action calls the service the API calls; a refused action shows the service's
sentence and has changed nothing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from campaigns.errors import CampaignError
from campaigns.games.erfworld import (
    army_mark_not_ready,
    army_mark_ready,
    campaign_join,
    campaign_start,
    chief_warlord_appoint,
    chief_warlord_vote,
    deputy_choose,
    election_close,
    invite_regenerate,
    opposition_shuffle,
    orders_mark_done,
    orders_mark_not_done,
    phase_end,
    unit_type_create,
    unit_type_delete,
    unit_type_update,
    units_buy,
)
from campaigns.games.erfworld.draw import declaration_withdraw
from campaigns.games.erfworld.lobby import SPECIAL_CHOICES, lobby_state, unit_type_preview
from campaigns.games.erfworld.phases import phase_draw
from campaigns.games.erfworld.standing import standing_orders_set
from campaigns.models import (
    Absence,
    Campaign,
    CampaignStatus,
    Declaration,
    Membership,
    Phase,
    PhaseStatus,
    Role,
    Unit,
    UnitType,
)
from campaigns.services.absences import absence_cancel, absence_declare
from campaigns.services.seats import open_seats, player_leave, player_remove, seat_claim
from campaigns.services.settings import settings_rows
from campaigns.web import campaign_page_context, member_or_404

STAT_FIELDS = ("hits", "attack", "defence", "move")


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _campaign(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id)


# --- Phase bar ----------------------------------------------------------------------------


def _phase_bar_response(
    request: HttpRequest, campaign: Campaign, *, error: str = "", message: str = ""
) -> HttpResponse:
    context = campaign_page_context(request, campaign)
    context.update(phase_bar_error=error, phase_bar_message=message)
    # A battle's bar, as campaigns/base.html includes it (its orders are on the battle page).
    template = ("campaigns/_battle_bar.html" if context["phase_bar"].get("battle")
                else "campaigns/_phase_bar.html")
    response = render(request, template, context)
    if message:
        # The page under the bar (map, lobby…) may refresh itself on this.
        response["HX-Trigger"] = phase_changed(campaign.pk)
    return response


def phase_changed(campaign_id: int) -> str:
    """The HX-Trigger header of "phase-changed", naming the phase now open (or null): a part
    of the page that already shows that phase (the GM panel) need not fetch itself again."""
    return json.dumps({"phase-changed": {"phase": _open_phase_pk(campaign_id)}})


def _back(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Where a form posted without HTMX returns: the page it came from, else the lobby."""
    target = request.POST.get("next", "")
    bar_url = reverse("campaigns:phase-bar", args=[campaign.pk])
    if target and target != bar_url and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("campaigns:lobby", campaign.pk)


def _after_phase_action(
    request: HttpRequest, campaign: Campaign, *, error: str = "", message: str = ""
) -> HttpResponse:
    if _is_htmx(request):
        return _phase_bar_response(request, campaign, error=error, message=message)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, message)
    return _back(request, campaign)


@login_required
@require_GET
def phase_bar(request: HttpRequest, campaign_id: int) -> HttpResponse:
    response = _phase_bar_response(request, _campaign(campaign_id))
    if "seen_phase" in request.GET:
        # Someone else (the GM, the deadline sweep) moved the campaign on since the page was
        # drawn: the page under the bar refreshes itself as after the viewer's own action.
        now = _open_phase_pk(campaign_id)
        if request.GET["seen_phase"] != ("" if now is None else str(now)):
            response["HX-Trigger"] = phase_changed(campaign_id)
    return response


def _open_phase_pk(campaign_id: int) -> int | None:
    return (Phase.objects.filter(campaign_id=campaign_id, status=PhaseStatus.OPEN)
            .values_list("pk", flat=True).first())


def _member_from_post(campaign: Campaign, value: str) -> Membership | None:
    try:
        pk = int(value)
    except ValueError:
        return None
    return Membership.objects.filter(pk=pk, campaign=campaign).first()


@login_required
@require_POST
def phase_done(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    on_behalf_of = None
    if request.POST.get("on_behalf_of"):
        on_behalf_of = _member_from_post(campaign, request.POST["on_behalf_of"])
        if on_behalf_of is None:
            return _after_phase_action(request, campaign,
                                       error="That player is not in the alliance.")
    try:
        status = orders_mark_done(user=request.user,  # type: ignore[arg-type]
                                  campaign=campaign, on_behalf_of=on_behalf_of)
    except CampaignError as exc:
        return _after_phase_action(request, campaign, error=str(exc))
    who = "Your" if on_behalf_of is None else f"{status.membership.user.public_name}'s"
    return _after_phase_action(request, campaign, message=f"{who} orders are marked done.")


@login_required
@require_POST
def phase_undone(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    try:
        orders_mark_not_done(user=request.user,  # type: ignore[arg-type]
                             campaign=campaign)
    except CampaignError as exc:
        return _after_phase_action(request, campaign, error=str(exc))
    return _after_phase_action(request, campaign,
                               message="Your orders are open again: not done yet.")


def _posted_phase(request: HttpRequest, campaign: Campaign) -> Phase | None:
    """The phase the form was drawn for (its "phase" field), if it is one of the campaign's."""
    with contextlib.suppress(ValueError):
        return Phase.objects.filter(pk=int(request.POST.get("phase", "")),
                                    campaign=campaign).first()
    return None


@login_required
@require_POST
def phase_end_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    expected = _posted_phase(request, campaign)
    if expected is None:
        return _after_phase_action(request, campaign,
                                   error="That phase has already been closed.")
    try:
        new_phase = phase_end(user=request.user,  # type: ignore[arg-type]
                              campaign=campaign, expected_phase=expected)
    except CampaignError as exc:
        return _after_phase_action(request, campaign, error=str(exc))
    if new_phase.pk == expected.pk and new_phase.awaiting_draw:
        return _after_phase_action(
            request, campaign,
            message="The opposition's orders are in; its declared combats wait for the "
            "alliance's draw.")
    return _after_phase_action(
        request, campaign,
        message=f"The phase is closed; turn {new_phase.turn.number}: "
        f"the {new_phase.get_kind_display().lower()} is open.",
    )


@login_required
@require_POST
def phase_draw_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """An alliance player draws the opposition's dice (games/erfworld/draw.py)."""
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    expected = _posted_phase(request, campaign)
    try:
        new_phase = phase_draw(user=request.user,  # type: ignore[arg-type]
                               campaign=campaign, draw=request.POST.get("draw", ""),
                               expected_phase=expected)
    except CampaignError as exc:
        return _after_phase_action(request, campaign, error=str(exc))
    if new_phase.status != PhaseStatus.OPEN:
        return _after_phase_action(request, campaign,
                                   message="You drew; the campaign ended in the combats.")
    return _after_phase_action(
        request, campaign,
        message=f"You drew: the opposition's combats are resolved (see the reports); turn "
        f"{new_phase.turn.number}: the {new_phase.get_kind_display().lower()} is open.")


@login_required
@require_POST
def declaration_withdraw_view(
    request: HttpRequest, campaign_id: int, declaration_id: int
) -> HttpResponse:
    """The GM withdraws a declared combat before the alliance is asked to draw."""
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    declaration = Declaration.objects.filter(campaign=campaign, pk=declaration_id).first()
    if declaration is None:
        return _after_phase_action(request, campaign, error="No such declared combat.")
    try:
        declaration_withdraw(user=request.user,  # type: ignore[arg-type]
                             campaign=campaign, declaration=declaration)
    except CampaignError as exc:
        return _after_phase_action(request, campaign, error=str(exc))
    return _after_phase_action(request, campaign,
                               message=f"Declared combat #{declaration.seq} is withdrawn.")


# --- Join ----------------------------------------------------------------------------------


@login_required
def join(request: HttpRequest, invite_code: str) -> HttpResponse:
    """Before the start: join the alliance. After it: take an open seat, if there is one (a
    former player may take back their own)."""
    campaign = Campaign.objects.filter(invite_code=invite_code).first()
    if campaign is None:
        raise Http404("This invite link does not belong to any campaign.")
    if campaign.ruleset_key != "erfworld":
        if Membership.objects.filter(campaign=campaign, user=request.user).exists():  # type: ignore[misc]
            return redirect("campaigns:battle", campaign.pk)
        from campaigns.web.battle import battle_join_page

        return battle_join_page(request, campaign)
    member = Membership.objects.filter(
        campaign=campaign, user=request.user  # type: ignore[misc]
    ).first()
    if member is not None and member.role != Role.FORMER:
        return redirect("campaigns:lobby", campaign.pk)
    error = ""
    if request.method == "POST":
        try:
            if campaign.status == CampaignStatus.SETUP or not request.POST.get("seat"):
                campaign_join(user=request.user, invite_code=invite_code)  # type: ignore[arg-type]
                done = f"You joined the alliance of {campaign.name}."
            else:
                seat = seat_claim(user=request.user,  # type: ignore[arg-type]
                                  invite_code=invite_code, seat=_int(request.POST.get("seat")))
                done = (f"You took over a seat in {campaign.name}: its army is yours."
                        if seat.pk != getattr(member, "pk", None)
                        else f"Welcome back: your seat in {campaign.name} is yours again.")
        except CampaignError as exc:
            error = str(exc)
        else:
            messages.success(request, done)
            return redirect("campaigns:lobby", campaign.pk)
    players = Membership.objects.filter(campaign=campaign, role="player").count()
    seats = [{"id": m.pk, "name": m.user.public_name,
              "units": m.living_units,  # type: ignore[attr-defined]
              "own": member is not None and m.pk == member.pk}
             for m in open_seats(campaign)] if campaign.status != CampaignStatus.SETUP else []
    return render(
        request, "campaigns/lobby_join.html",
        {"invite_campaign": campaign, "players": players, "error": error, "seats": seats,
         "started": campaign.status != CampaignStatus.SETUP},
        status=400 if error else 200,
    )


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return 0


# --- Lobby ---------------------------------------------------------------------------------


def _form_data(post: QueryDict) -> dict[str, Any]:
    return {
        "name": post.get("name", ""),
        **{f: post.get(f, "") for f in STAT_FIELDS},
        "specials": post.getlist("specials"),
    }


def _design_input(data: dict[str, Any]) -> dict[str, Any]:
    """The service's keyword arguments from the form; a field that is not a number gets a
    sentence naming it (the rules check the rest)."""
    values: dict[str, Any] = {"name": data["name"], "specials": list(data["specials"])}
    for f in STAT_FIELDS:
        try:
            values[f] = int(str(data[f]).strip())
        except ValueError:
            raise CampaignError(f"{f.capitalize()} must be a whole number.", field=f) from None
    return values


def _lobby_page(
    request: HttpRequest,
    campaign: Campaign,
    *,
    form: dict[str, Any] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = campaign_page_context(request, campaign)
    state = lobby_state(user=request.user, campaign=campaign)  # type: ignore[arg-type]
    form = form or {"name": "", "hits": "", "attack": "", "defence": "", "move": "",
                    "specials": []}
    errors = dict(errors or {})
    shown_here: set[str] = ({"absence", "leave", "standing"} if state["is_alliance_player"]
                             else set())
    if state["is_gm"]:
        shown_here |= {"remove", "invite"}
    if state["is_gm"] or state["viewer"].is_chief_warlord:
        shown_here.add("deputy")
    if campaign.status == CampaignStatus.SETUP:
        shown_here |= {"vote", "appoint"} | (
            {"start", "shuffle", "close_election", "invite"} if state["is_gm"] else set())
        if state["army"] is not None:
            shown_here |= {"army", "ready"} | (set() if state["army"]["ready"] else {"design"})
    # A refusal whose form this viewer does not see is shown at the top of the page.
    for key in [k for k in errors if k not in shown_here]:
        errors["page"] = errors.pop(key)
    context.update(
        lobby=state,
        form=form,
        errors=errors,
        special_choices=SPECIAL_CHOICES,
        invite_url=request.build_absolute_uri(
            reverse("campaigns:join", args=[campaign.invite_code])
        ) if context["is_gm"] else "",
        preview=None,
        campaign_settings=settings_rows(campaign),
    )
    return render(request, "campaigns/lobby.html", context, status=status)


@login_required
@require_GET
def lobby(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    if campaign.ruleset_key != "erfworld":
        member_or_404(request, campaign)
        return redirect("campaigns:battle", campaign.pk)
    return _lobby_page(request, campaign)


def _refused(
    request: HttpRequest, campaign: Campaign, key: str, exc: CampaignError, **kw: Any
) -> HttpResponse:
    return _lobby_page(request, campaign, errors={key: str(exc)}, status=400, **kw)


@login_required
@require_POST
def unit_type_preview_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    data = _form_data(request.POST)
    unit_type_id = None
    if request.POST.get("unit_type"):
        try:
            unit_type_id = int(request.POST["unit_type"])
        except ValueError:
            unit_type_id = None
    preview = unit_type_preview(user=request.user,  # type: ignore[arg-type]
                                campaign=campaign, data=data, unit_type_id=unit_type_id)
    return render(request, "campaigns/lobby_preview.html", {"preview": preview})


@login_required
@require_POST
def unit_type_create_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    data = _form_data(request.POST)
    try:
        unit_type = unit_type_create(user=request.user,  # type: ignore[arg-type]
                                     campaign=campaign, **_design_input(data))
    except CampaignError as exc:
        return _refused(request, campaign, "design", exc, form=data)
    messages.success(request, f"Unit type {unit_type.name!r} designed "
                              f"({unit_type.cost.normalize():f} points each).")
    return redirect("campaigns:lobby", campaign.pk)


def _own_type(request: HttpRequest, campaign: Campaign, type_id: int) -> UnitType:
    membership = member_or_404(request, campaign)
    # Another player's (or the opposition's) unit type is simply not found.
    return get_object_or_404(UnitType, pk=type_id, campaign=campaign, owner=membership)


@login_required
def unit_type_edit(request: HttpRequest, campaign_id: int, type_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    unit_type = _own_type(request, campaign, type_id)
    error = ""
    if request.method == "POST":
        data = _form_data(request.POST)
        try:
            unit_type_update(user=request.user,  # type: ignore[arg-type]
                             unit_type=unit_type, **_design_input(data))
        except CampaignError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Unit type {data['name'].strip()!r} saved.")
            return redirect("campaigns:lobby", campaign.pk)
    else:
        data = {"name": unit_type.name, "hits": unit_type.hits, "attack": unit_type.attack,
                "defence": unit_type.defence, "move": unit_type.move,
                "specials": list(unit_type.specials)}
    context = campaign_page_context(request, campaign)
    context.update(unit_type=unit_type, form=data, error=error,
                   special_choices=SPECIAL_CHOICES,
                   preview=unit_type_preview(user=request.user,  # type: ignore[arg-type]
                                             campaign=campaign, data=data,
                                             unit_type_id=unit_type.pk))
    return render(request, "campaigns/lobby_unit_type.html", context,
                  status=400 if error else 200)


@login_required
@require_POST
def unit_type_delete_view(request: HttpRequest, campaign_id: int, type_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    unit_type = _own_type(request, campaign, type_id)
    name = unit_type.name
    try:
        unit_type_delete(user=request.user, unit_type=unit_type)  # type: ignore[arg-type]
    except CampaignError as exc:
        return _refused(request, campaign, "army", exc)
    messages.success(request, f"Unit type {name!r} deleted with its units.")
    return redirect("campaigns:lobby", campaign.pk)


@login_required
@require_POST
def units_buy_view(request: HttpRequest, campaign_id: int, type_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    unit_type = _own_type(request, campaign, type_id)
    try:
        count = int(request.POST.get("count", "").strip())
    except ValueError:
        return _refused(request, campaign, "army",
                        CampaignError("Say how many units to buy, as a whole number."))
    try:
        units = units_buy(user=request.user,  # type: ignore[arg-type]
                          unit_type=unit_type, count=count)
    except CampaignError as exc:
        return _refused(request, campaign, "army", exc)
    levels = "".join(f" {u.name} rolled commander level {u.commander_level}."
                     for u in units if u.commander_level is not None)
    messages.success(request, f"Bought {count} × {unit_type.name}.{levels}")
    return redirect("campaigns:lobby", campaign.pk)


@login_required
@require_POST
def army_ready_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    ready = request.POST.get("ready") == "yes"
    try:
        if ready:
            army_mark_ready(user=request.user, campaign=campaign)  # type: ignore[arg-type]
        else:
            army_mark_not_ready(user=request.user, campaign=campaign)  # type: ignore[arg-type]
    except CampaignError as exc:
        return _refused(request, campaign, "ready", exc)
    messages.success(request, "Your army is ready." if ready else "Your army is no longer ready.")
    return redirect("campaigns:lobby", campaign.pk)


def _candidate(request: HttpRequest, campaign: Campaign, name: str) -> Membership:
    try:
        pk = int(request.POST.get(name, ""))
    except ValueError:
        raise CampaignError("Choose an alliance player.", field=name) from None
    candidate = Membership.objects.filter(pk=pk, campaign=campaign).first()
    if candidate is None:
        raise CampaignError("Only an alliance player of this campaign can be Chief Warlord.",
                            field=name)
    return candidate


@login_required
@require_POST
def vote_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    try:
        candidate = _candidate(request, campaign, "candidate")
        chief_warlord_vote(user=request.user,  # type: ignore[arg-type]
                           campaign=campaign, candidate=candidate)
    except CampaignError as exc:
        return _refused(request, campaign, "vote", exc)
    messages.success(request, f"You voted for {candidate.user.public_name} as Chief Warlord.")
    return redirect("campaigns:lobby", campaign.pk)


@login_required
@require_POST
def appoint_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    try:
        candidate = _candidate(request, campaign, "membership")
        chief = chief_warlord_appoint(user=request.user,  # type: ignore[arg-type]
                                      campaign=campaign, membership=candidate)
    except CampaignError as exc:
        return _refused(request, campaign, "appoint", exc)
    messages.success(request, f"{chief.user.public_name} is the Chief Warlord.")
    return redirect("campaigns:lobby", campaign.pk)


def _lobby_action(request: HttpRequest, campaign_id: int, key: str,
                  act: Callable[[User, Campaign], str], anchor: str = "") -> HttpResponse:
    """One of the overview's one-button actions: the service's refusal next to its button
    (400), or its sentence as a message and back to the overview."""
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    try:
        done = act(request.user, campaign)  # type: ignore[arg-type]
    except CampaignError as exc:
        return _refused(request, campaign, key, exc)
    messages.success(request, done)
    return redirect(reverse("campaigns:lobby", args=[campaign.pk]) + anchor)


@login_required
@require_POST
def start_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        campaign_start(user=user, campaign=campaign)
        return "The campaign has started: turn 1's scout phase is open."

    return _lobby_action(request, campaign_id, "start", act)


@login_required
@require_POST
def invite_regenerate_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        invite_regenerate(user=user, campaign=campaign)
        return "A new invite link is ready; the old one no longer works."

    return _lobby_action(request, campaign_id, "invite", act, "#invite-title")


@login_required
@require_POST
def close_election_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        chief = election_close(user=user, campaign=campaign)
        return f"The election is closed: {chief.user.public_name} is the Chief Warlord."

    return _lobby_action(request, campaign_id, "close_election", act)


@login_required
@require_POST
def deputy_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        deputy = deputy_choose(user=user, campaign=campaign,
                               membership=_candidate(request, campaign, "membership"))
        return f"{deputy.user.public_name} is the deputy: they stand in while the Chief " \
            "Warlord is away."

    return _lobby_action(request, campaign_id, "deputy", act)


@login_required
@require_POST
def shuffle_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        hexes = opposition_shuffle(user=user, campaign=campaign)
        return ("The opposition's start hexes were drawn again; its stacks now stand in "
                f"{', '.join(hexes)} (only you see this).")

    return _lobby_action(request, campaign_id, "shuffle", act)


@login_required
@require_POST
def absence_declare_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        absence = absence_declare(user=user, campaign=campaign,
                                  starts_on=request.POST.get("starts_on", ""),
                                  ends_on=request.POST.get("ends_on", ""),
                                  note=request.POST.get("note", ""))
        return (f"You are away from {absence.starts_on:%a %d %b} to {absence.ends_on:%a %d %b}: "
                "the Chief Warlord may give your orders meanwhile.")

    return _lobby_action(request, campaign_id, "absence", act, "#away-title")


@login_required
@require_POST
def absence_cancel_view(request: HttpRequest, campaign_id: int, absence_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        absence = get_object_or_404(Absence, pk=absence_id, membership__campaign=campaign,
                                    membership__user=user)
        absence_cancel(user=user, absence=absence)
        return "Absence cancelled: welcome back."

    return _lobby_action(request, campaign_id, "absence", act, "#away-title")


@login_required
@require_POST
def leave_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A player leaves: before the start they are gone (back home), after it their seat opens
    and they stay a former member who sees what everyone sees."""
    campaign = _campaign(campaign_id)
    member_or_404(request, campaign)
    if request.POST.get("confirm") != "yes":
        return _refused(request, campaign, "leave", CampaignError(
            "Tick the box to confirm that you leave the campaign.", code="confirm_required"))
    try:
        left = player_leave(user=request.user, campaign=campaign)  # type: ignore[arg-type]
    except CampaignError as exc:
        return _refused(request, campaign, "leave", exc)
    if left is None:
        messages.success(request, f"You left {campaign.name}.")
        return redirect("home")
    messages.success(request, f"You left {campaign.name}. Your seat is open: the Chief Warlord "
                     "commands your stacks until someone takes it.")
    return redirect("campaigns:lobby", campaign.pk)


@login_required
@require_POST
def remove_player_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        target = Membership.objects.filter(campaign=campaign,
                                           pk=_int(request.POST.get("membership"))).first()
        if target is None:
            raise CampaignError("Choose the player to remove.", code="invalid_field")
        player_remove(user=user, campaign=campaign, membership=target,
                      reason=request.POST.get("reason", ""))
        return (f"{target.user.public_name} was removed."
                + (" Their seat is open: share the invite link to fill it."
                   if campaign.status != CampaignStatus.SETUP else ""))

    return _lobby_action(request, campaign_id, "remove", act, "#remove-title")


@login_required
@require_POST
def standing_orders_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    def act(user: User, campaign: Campaign) -> str:
        scout_id = _int(request.POST.get("scout"))
        scout = Unit.objects.filter(campaign=campaign, pk=scout_id).first() if scout_id else None
        directions = request.POST.get("directions", "").replace(",", " ").split()
        if scout_id and scout is None:
            raise CampaignError("Choose one of your scouts.", code="invalid_field")
        player = standing_orders_set(user=user, campaign=campaign,
                                     mode=request.POST.get("mode", ""),
                                     note=request.POST.get("note", ""), scout=scout,
                                     directions=directions)
        return "Standing orders saved." if (player.standing_orders or player.standing_note
                                             or player.standing_directions) else (
            "Standing orders cleared: the Chief Warlord decides.")

    return _lobby_action(request, campaign_id, "standing", act, "#standing-title")


urlpatterns = [
    path("join/<str:invite_code>/", join, name="join"),
    path("<int:campaign_id>/", lobby, name="lobby"),
    path("<int:campaign_id>/phase-bar/", phase_bar, name="phase-bar"),
    path("<int:campaign_id>/phase/done/", phase_done, name="phase-done"),
    path("<int:campaign_id>/phase/undone/", phase_undone, name="phase-undone"),
    path("<int:campaign_id>/phase/end/", phase_end_view, name="phase-end"),
    path("<int:campaign_id>/phase/draw/", phase_draw_view, name="phase-draw"),
    path("<int:campaign_id>/declarations/<int:declaration_id>/withdraw/",
         declaration_withdraw_view, name="declaration-withdraw"),
    path("<int:campaign_id>/unit-types/preview/", unit_type_preview_view,
         name="unit-type-preview"),
    path("<int:campaign_id>/unit-types/", unit_type_create_view, name="unit-type-create"),
    path("<int:campaign_id>/unit-types/<int:type_id>/", unit_type_edit, name="unit-type-edit"),
    path("<int:campaign_id>/unit-types/<int:type_id>/delete/", unit_type_delete_view,
         name="unit-type-delete"),
    path("<int:campaign_id>/unit-types/<int:type_id>/buy/", units_buy_view, name="units-buy"),
    path("<int:campaign_id>/army/ready/", army_ready_view, name="army-ready"),
    path("<int:campaign_id>/vote/", vote_view, name="vote"),
    path("<int:campaign_id>/appoint/", appoint_view, name="appoint"),
    path("<int:campaign_id>/start/", start_view, name="start"),
    path("<int:campaign_id>/close-election/", close_election_view, name="close-election"),
    path("<int:campaign_id>/invite/", invite_regenerate_view, name="invite-regenerate"),
    path("<int:campaign_id>/deputy/", deputy_view, name="deputy"),
    path("<int:campaign_id>/absences/", absence_declare_view, name="absence-declare"),
    path("<int:campaign_id>/absences/<int:absence_id>/cancel/", absence_cancel_view,
         name="absence-cancel"),
    path("<int:campaign_id>/shuffle-opposition/", shuffle_view, name="shuffle-opposition"),
    path("<int:campaign_id>/leave/", leave_view, name="leave"),
    path("<int:campaign_id>/standing-orders/", standing_orders_view, name="standing-orders"),
    path("<int:campaign_id>/remove-player/", remove_player_view, name="remove-player"),
]
