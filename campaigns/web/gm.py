"""Pages: the GM's dashboard, one campaign's GM controls, and the scenario editor.

Every action calls one service; a refused action (a domain error) is shown as its sentence
next to the control that caused it with HTTP 422, which the GM pages tell htmx to swap in.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User, selectable_time_zones
from campaigns.deadline_clock import WEEKDAYS
from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError
from campaigns.games.battle.catalogue import battle_scenarios
from campaigns.games.battle.systems import SYSTEMS
from campaigns.games.erfworld import (
    campaign_create_from_scenario,
    fortification_adjust_hits,
    phase_end,
    phase_revert,
    pop_points_grant,
    unit_adjust_hits,
)
from campaigns.games.erfworld.gm_selectors import (
    blank_scenario,
    gm_campaign_panel,
    gm_dashboard,
    scenario_choices,
    scenario_for_editing,
)
from campaigns.games.erfworld.rules import Special, Terrain
from campaigns.games.erfworld.saved_scenarios import (
    MAX_MAP_SIDE,
    scenario_save,
    scenario_share,
    scenario_validate,
)
from campaigns.models import Campaign, CampaignStatus, Fortification, Phase, Role, Unit
from campaigns.services.deadlines import (
    campaign_pause,
    campaign_resume,
    deadline_extend,
    phase_processing_unflag,
)
from campaigns.services.settings import (
    MODES,
    SETTINGS,
    campaign_settings_update,
    fairness_rows,
    gm_handover,
)
from campaigns.web import campaign_page_context, erfworld_only

UNPROCESSABLE = 422


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _url_or(name: str, args: list[Any], fallback: str) -> str:
    """A page of another module by name, or its known path while that module has no route."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return fallback


def invite_url(request: HttpRequest, code: str) -> str:
    return request.build_absolute_uri(
        _url_or("campaigns:join", [code], f"/campaigns/join/{code}/")
    )


# ---------------------------------------------------------------------------------------
# Dashboard


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "campaigns/gm/dashboard.html", _dashboard_context(request))


def _dashboard_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    user = _user(request)
    rows = gm_dashboard(user=user)
    for row in rows:
        # A battle's GM tools are on its battle page.
        page = ("campaigns:gm-campaign" if row["campaign"].ruleset_key == "erfworld"
                else "campaigns:battle")
        row["gm_url"] = reverse(page, args=[row["campaign"].pk])
        if row["invite_code"]:
            row["invite_url"] = invite_url(request, row["invite_code"])
    return {
        "rows": rows,
        "scenarios": scenario_choices(user=_user(request)),
        "battle_scenarios": battle_scenarios(), "battle_systems": SYSTEMS.values(),
        "values": {},
        **extra,
    }


@login_required
@require_POST
def campaign_create(request: HttpRequest) -> HttpResponse:
    """A new campaign from a file or saved scenario; the answer shows its invite link."""
    user = _user(request)
    values = {"scenario": request.POST.get("scenario", ""), "name": request.POST.get("name", ""),
              "vary_opposition": request.POST.get("vary_opposition", "0")}
    try:
        if not values["scenario"]:
            raise RuleViolationError("Choose a scenario.", code="invalid_field", field="scenario")
        campaign = campaign_create_from_scenario(
            gm=user, scenario_key=values["scenario"], name=values["name"][:120],
            vary_opposition=values["vary_opposition"] == "1",
        )
    except CampaignError as exc:
        ctx = {"create_error": exc.message, "values": values,
               "scenarios": scenario_choices(user=user)}
        if _is_htmx(request):
            return render(request, "campaigns/gm/_create.html", ctx, status=UNPROCESSABLE)
        return render(request, "campaigns/gm/dashboard.html",
                      _dashboard_context(request, **ctx), status=UNPROCESSABLE)
    if not _is_htmx(request):
        return HttpResponseRedirect(reverse("campaigns:gm-campaign", args=[campaign.pk]))
    return render(request, "campaigns/gm/_create.html", {
        # The table of campaigns is swapped in out of band: the new one is listed at once.
        "rows": _dashboard_context(request)["rows"],
        "created": campaign,
        "created_invite_url": invite_url(request, campaign.invite_code),
        "created_gm_url": reverse("campaigns:gm-campaign", args=[campaign.pk]),
        "values": {},
        "scenarios": scenario_choices(user=_user(request)),
    })


# ---------------------------------------------------------------------------------------
# One campaign's controls


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # every view here is login_required
    return user


def _gm_context(request: HttpRequest, campaign_id: int) -> dict[str, Any]:
    """The campaign page context for its GM: a non-member gets 404 (as in the API), a
    member who is not the GM 403."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    ctx = campaign_page_context(request, campaign)
    if ctx["membership"].role != Role.GM:
        raise PermissionDenied("Only the Game Master may do this.")
    return ctx


def _panel_context(request: HttpRequest, ctx: dict[str, Any], **extra: Any) -> dict[str, Any]:
    campaign = ctx["campaign"]
    panel = gm_campaign_panel(user=_user(request), campaign=campaign)
    return {
        **ctx,
        "panel": panel,
        "map_url": _url_or("campaigns:map", [campaign.pk], f"/campaigns/{campaign.pk}/map/"),
        "invite_url": invite_url(request, panel["invite_code"]) if panel["invite_code"] else "",
        "errors": {},
        "values": {},
        **extra,
    }


@login_required
@require_GET
def campaign_gm(request: HttpRequest, campaign_id: int) -> HttpResponse:
    ctx = _gm_context(request, campaign_id)
    return render(request, "campaigns/gm/campaign.html", _panel_context(request, ctx))


def _settings_changes(post: Any, campaign: Campaign) -> dict[str, Any]:
    """The settings form's fields as the service takes them: numbers as whole numbers (an
    optional one empty as None), checkboxes as booleans; a number that is no number is refused
    naming its field."""
    changes: dict[str, Any] = {}
    started = campaign.status != CampaignStatus.SETUP
    for name, spec in SETTINGS.items():
        if started and spec.when == "setup":
            continue  # shown disabled (a disabled field is not sent): fixed since the start
        if spec.kind == "bool":
            changes[name] = post.get(name) == "1"
        elif spec.kind == "days":
            changes[name] = [int(d) for d in post.getlist(name) if str(d).isdigit()]
        elif spec.kind in ("mode", "clock", "zone"):
            if name in post:  # a select or time field not sent keeps its value
                changes[name] = str(post.get(name, ""))
        elif spec.kind == "text":
            changes[name] = str(post.get(name, ""))
        elif name in post:  # a number field not in the form keeps its value
            raw = str(post.get(name, "")).strip()
            if raw == "" and spec.kind == "optional_int":
                changes[name] = None
            else:
                changes[name] = _int(post, name, spec.label)
    return changes


@login_required
@require_POST
def gm_handover_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    ctx = _gm_context(request, campaign_id)
    campaign = ctx["campaign"]
    username = str(request.POST.get("username", ""))
    try:
        membership = gm_handover(user=_user(request), campaign=campaign, username=username)
    except CampaignError as exc:
        return render(request, "campaigns/gm/settings.html", {
            **ctx, **_settings_form(campaign, {}, {}), "handover_error": exc.message,
            "handover_username": username, "reason": ""}, status=400)
    messages.success(request, f"{membership.user.public_name} is now the GM of "
                     f"{campaign.name}; you have left it.")
    # The old GM is no member any more: home, not the campaign's pages (a 404 for them now).
    return HttpResponseRedirect(reverse("home"))


def _settings_form(campaign: Campaign, values: dict[str, Any],
                   errors: dict[str, str]) -> dict[str, Any]:
    values = {n: values.get(n, campaign.pending_settings.get(n, getattr(campaign, n)))
              for n in SETTINGS}
    fields = {n: {"name": n, "spec": s, "value": values[n], "error": errors.get(n, ""),
                  "locked": campaign.status != CampaignStatus.SETUP and s.when == "setup",
                  "pending": n in campaign.pending_settings}
              for n, s in SETTINGS.items()}
    return {"groups": [(title, [fields[n] for n in names]) for title, names in SETTINGS_GROUPS],
            "errors": errors, "started": campaign.status != CampaignStatus.SETUP,
            "modes": MODES.items(), "zones": selectable_time_zones(),
            "weekdays": list(enumerate(WEEKDAYS)), "fairness": fairness_rows(campaign)}


@login_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's settings page: every setting, next to its control any refusal."""
    ctx = _gm_context(request, campaign_id)
    campaign = ctx["campaign"]
    errors: dict[str, str] = {}
    values: dict[str, Any] = {}
    reason = ""
    if request.method == "POST":
        reason = str(request.POST.get("reason", ""))
        try:
            changes = _settings_changes(request.POST, campaign)
            values.update(changes)
            campaign_settings_update(user=_user(request), campaign=campaign, changes=changes,
                                     reason=reason)
        except CampaignError as exc:
            errors[exc.field or "page"] = exc.message
            values.update({n: request.POST.get(n, "") for n in SETTINGS
                           if SETTINGS[n].kind in ("int", "optional_int") and n == exc.field})
        else:
            messages.success(request, "Settings saved." if campaign.status == CampaignStatus.SETUP
                             else "Settings saved; changes of pace apply from the next phase "
                             "and were posted to the public thread.")
            return HttpResponseRedirect(reverse("campaigns:gm-settings", args=[campaign.pk]))
    return render(request, "campaigns/gm/settings.html", {
        **ctx, **_settings_form(campaign, values, errors), "reason": reason,
    }, status=400 if errors else 200)


SETTINGS_GROUPS = [
    ("The campaign", ["name", "description", "player_cap", "absence_days",
                      "absence_extends", "missed_phases_limit"]),
    ("Pace", ["scout_hours", "phase_hours", "opposition_hours", "deadline_mode",
              "deadline_clock", "deadline_zone", "deadline_days_off", "hard_deadline",
              "early_close", "max_extension_hours", "max_pause_hours"]),
    ("Forum", ["diplomacy", "gm_reads_conversations"]),
    ("Dice", ["alliance_draw", "alliance_draw_hours"]),
    ("Armies and map (fixed at the start)", ["points_budget", "max_unit_types", "ambush_value",
                                             "terrain_known_to_all"]),
]


def _int(post: Any, name: str, label: str) -> int:
    raw = str(post.get(name, "")).strip()
    try:
        return int(raw)
    except ValueError:
        raise RuleViolationError(f"{label} must be a whole number, not {raw!r}.",
                                 code="invalid_field", field=name) from None


def _reason(post: Any) -> str:
    return str(post.get("reason", ""))


def _extend(user: User, campaign: Campaign, post: Any) -> str:
    phase = deadline_extend(user=user, campaign=campaign,
                            hours=_int(post, "hours", "The extension in hours"),
                            reason=_reason(post))
    return f"Deadline extended; {phase.extended_hours} hours of extensions so far this phase."


def _pause(user: User, campaign: Campaign, post: Any) -> str:
    campaign_pause(user=user, campaign=campaign, reason=_reason(post))
    return "The campaign is paused; the deadline clock is stopped."


def _resume(user: User, campaign: Campaign, post: Any) -> str:
    campaign_resume(user=user, campaign=campaign, reason=_reason(post))
    return "The campaign is running again."


def _expected_phase(campaign: Campaign, post: Any) -> Phase:
    # The phase the GM saw: a click must never act on the phase that opened after it.
    expected = Phase.objects.filter(
        campaign=campaign, pk=_int(post, "phase", "The phase")
    ).first()
    if expected is None:
        raise RuleViolationError("That phase is not a phase of this campaign.",
                                 code="invalid_field", field="phase")
    return expected


def _end_phase(user: User, campaign: Campaign, post: Any) -> str:
    expected = _expected_phase(campaign, post)
    phase = phase_end(user=user, campaign=campaign, reason=_reason(post), expected_phase=expected)
    if phase.pk == expected.pk and phase.awaiting_draw:
        return ("The opposition's orders are in; its declared combats wait for the alliance's "
                "draw.")
    return f"Phase ended; now turn {phase.turn.number}: {phase.get_kind_display()}."


def _revert(user: User, campaign: Campaign, post: Any) -> str:
    phase = phase_revert(user=user, campaign=campaign, reason=_reason(post),
                         expected_phase=_expected_phase(campaign, post))
    return (f"The campaign is back as it was when turn {phase.turn.number}'s "
            f"{phase.get_kind_display().lower()} opened.")


def _grant_pop(user: User, campaign: Campaign, post: Any) -> str:
    points = _int(post, "points", "Pop points")
    campaign = pop_points_grant(user=user, campaign=campaign, points=points)
    return f"Granted {points} pop points to the Chief Warlord."


def _unit_hits(user: User, campaign: Campaign, post: Any) -> str:
    unit = Unit.objects.filter(campaign=campaign, stack__isnull=False,
                               pk=_int(post, "unit", "The unit")).first()
    if unit is None:
        raise RuleViolationError("Choose a unit on this campaign's map.", code="invalid_field",
                                 field="unit")
    hits = _int(post, "hits", "Hits")
    unit = unit_adjust_hits(user=user, unit=unit, hits=hits, reason=_reason(post))
    return f"{unit.name} now has {unit.current_hits} hits."


def _fort_hits(user: User, campaign: Campaign, post: Any) -> str:
    fort = Fortification.objects.filter(
        campaign=campaign, pk=_int(post, "fortification", "The fortification")
    ).first()
    if fort is None:
        raise RuleViolationError("Choose a fortification of this campaign.",
                                 code="invalid_field", field="fortification")
    fort = fortification_adjust_hits(user=user, fortification=fort,
                                     hits=_int(post, "hits", "Hits"), reason=_reason(post))
    return f"The {fort} now has {fort.hits} hits."


def _unflag(user: User, campaign: Campaign, post: Any) -> str:
    phase_processing_unflag(user=user, campaign=campaign)
    return "The deadline sweep will process this phase again."


ACTIONS: dict[str, Callable[[User, Campaign, Any], str]] = {
    "extend": _extend,
    "pause": _pause,
    "resume": _resume,
    "end-phase": _end_phase,
    "revert": _revert,
    "grant-pop": _grant_pop,
    "unit-hits": _unit_hits,
    "fortification-hits": _fort_hits,
    "unflag": _unflag,
}


@login_required
@require_POST
def campaign_gm_action(request: HttpRequest, campaign_id: int, action: str) -> HttpResponse:
    handler = ACTIONS.get(action)
    if handler is None:
        raise Http404("No such GM action.")
    ctx = _gm_context(request, campaign_id)
    try:
        message = handler(_user(request), ctx["campaign"], request.POST)
    except NotAllowedError as exc:
        raise PermissionDenied(exc.message) from exc
    except CampaignError as exc:
        # Templates cannot read keys with dashes: "end-phase" is errors.end_phase there.
        key = action.replace("-", "_")
        panel = _panel_context(request, ctx, errors={key: exc.message},
                               values={key: request.POST.dict()})
        template = "campaigns/gm/_panel.html" if _is_htmx(request) else "campaigns/gm/campaign.html"
        return render(request, template, panel, status=UNPROCESSABLE)
    if not _is_htmx(request):
        return HttpResponseRedirect(reverse("campaigns:gm-campaign", args=[campaign_id]))
    # The page's own parts (the phase bar) refresh themselves on this event.
    response = render(request, "campaigns/gm/_panel.html",
                      _panel_context(request, ctx,
                                     success={action.replace("-", "_"): message}))
    response["HX-Trigger"] = "campaign-changed"
    return response


# ---------------------------------------------------------------------------------------
# Scenario editor


def _editor(request: HttpRequest, data: dict[str, Any], *, copy_of: str | None,
            editing: str | None) -> HttpResponse:
    return render(request, "campaigns/gm/scenario_editor.html", {
        "scenario": data,
        "copy_of": copy_of,
        "editing": editing,
        "editor_config": {
            "terrains": [t.value for t in Terrain],
            "specials": [s.value for s in Special],
            "hexsides": ["N", "NE", "SE", "S", "SW", "NW"],
            "max_side": MAX_MAP_SIDE,
            "save_url": reverse("campaigns:scenario-save"),
            "check_url": reverse("campaigns:scenario-check"),
        },
    })


@login_required
@require_GET
def scenario_new(request: HttpRequest) -> HttpResponse:
    return _editor(request, blank_scenario(), copy_of=None, editing=None)


@login_required
@require_GET
def scenario_edit(request: HttpRequest, key: str) -> HttpResponse:
    try:
        found = scenario_for_editing(user=_user(request), key=key)
    except NotAllowedError as exc:
        raise PermissionDenied(exc.message) from exc
    except CampaignError as exc:
        raise Http404(exc.message) from exc
    return _editor(request, found["data"], copy_of=found["copy_of"],
                   editing=None if found["copy_of"] else key)


def _json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"null")
    except ValueError:
        raise RuleViolationError("The scenario must be sent as JSON.", code="invalid_json",
                                 field="scenario") from None
    if not isinstance(body, dict):
        raise RuleViolationError("scenario: must be an object.", code="invalid_field",
                                 field="scenario")
    return body


def _error_json(exc: CampaignError, status: int) -> JsonResponse:
    return JsonResponse({"code": exc.code, "detail": exc.message, "field": exc.field},
                        status=status)


@login_required
@require_POST
def scenario_check(request: HttpRequest) -> JsonResponse:
    """Validate without saving: the editor's "check" button."""
    try:
        body = _json_body(request)
        scenario = scenario_validate(key=str(body.get("key", "")), data=body)
    except CampaignError as exc:
        return _error_json(exc, 400)
    return JsonResponse({"ok": True, "detail": f"{scenario.name} is a valid scenario "
                         f"({scenario.cols} × {scenario.rows})."})


@login_required
@require_http_methods(["POST"])
def scenario_save_view(request: HttpRequest) -> JsonResponse:
    try:
        body = _json_body(request)
        saved = scenario_save(user=_user(request), key=str(body.get("key", "")), data=body)
    except NotAllowedError as exc:
        return _error_json(exc, 403)
    except CampaignError as exc:
        return _error_json(exc, 400)
    return JsonResponse({
        "ok": True, "key": saved.key,
        "detail": f"Saved the scenario {saved.name!r} as {saved.key!r}.",
        "edit_url": reverse("campaigns:scenario-edit", args=[saved.key]),
    })


@login_required
@require_POST
def scenario_share_view(request: HttpRequest, key: str) -> HttpResponse:
    """The dashboard's Share / Stop sharing button of one's own saved scenario."""
    shared = request.POST.get("shared") == "1"
    try:
        saved = scenario_share(user=_user(request), key=key, shared=shared)
    except CampaignError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{saved.name} is shared: every GM may make a campaign from "
                         "it (nobody else may open it)." if shared else
                         f"{saved.name} is yours alone again; campaigns made from it go on.")
    return HttpResponseRedirect(reverse("campaigns:gm-dashboard") + "#scenarios-title")


urlpatterns: list[URLPattern] = [
    path("gm/", dashboard, name="gm-dashboard"),
    path("gm/new/", campaign_create, name="gm-create"),
    path("<int:campaign_id>/gm/", erfworld_only(campaign_gm), name="gm-campaign"),
    path("<int:campaign_id>/gm/settings/", erfworld_only(campaign_settings), name="gm-settings"),
    path("<int:campaign_id>/gm/handover/", gm_handover_view, name="gm-handover"),
    path("<int:campaign_id>/gm/<slug:action>/", erfworld_only(campaign_gm_action),
         name="gm-action"),
    path("scenarios/new/", scenario_new, name="scenario-new"),
    path("scenarios/check/", scenario_check, name="scenario-check"),
    path("scenarios/save/", scenario_save_view, name="scenario-save"),
    path("scenarios/<slug:key>/edit/", scenario_edit, name="scenario-edit"),
    path("scenarios/<slug:key>/share/", scenario_share_view, name="scenario-share"),
]
