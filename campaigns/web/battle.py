"""Pages of a battle of ELF ABAS or QUAD by forum: creating one from a demo scenario or your
own, joining a side, the battle page (the map, your orders with the system's own controls,
your hand, the forces, the log, the GM's start, proxy, extension and pause).

Every action calls the service the API calls (campaigns/games/battle/services.py); a refused
action shows the service's sentence next to the control that caused it, with status 400, and
has changed nothing."""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from campaigns.errors import CampaignError, NotAllowedError
from campaigns.games.battle import services
from campaigns.games.battle.board import board
from campaigns.games.battle.catalogue import battle_scenarios
from campaigns.games.battle.forms import order_from_form
from campaigns.games.battle.selectors import battle_view, gm_battle_scenarios
from campaigns.games.battle.systems import SYSTEMS, system_of
from campaigns.models import Battle, Campaign, CampaignStatus, Membership, Role, Side
from campaigns.services.deadlines import campaign_pause, campaign_resume, deadline_extend
from campaigns.web import local_time, member_or_404

LOG_SHOWN = 40


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _battle_campaign(campaign_id: int) -> Campaign:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    if not Battle.objects.filter(campaign=campaign).exists():
        raise Http404("No such battle.")
    return campaign


def _control(field: str | None) -> str:
    """The control an error belongs to: `orders[0].targets[0].force` → `target`."""
    name = re.sub(r"^orders(\[\d+\])?\.?", "", field or "").split(".")[0].split("[")[0]
    return {"targets": "target", "policy": "block", "": "kind"}.get(name, name)


def _forms(system_key: str, view: dict[str, Any]) -> list[dict[str, Any]]:
    """The order forms the viewer may use now, their controls with the options to choose."""
    system = system_of(system_key)
    state = view["state"] or {}
    side = view["viewer"]["side"]
    pieces = [p for p in state.get(system.pieces) or [] if isinstance(p, dict)]
    own = [p["id"] for p in pieces if p.get("side") == side]
    enemy = [p["id"] for p in pieces if p.get("side") != side and p.get("hex")]
    hand_units: list[str] = []
    if system.key == "quad":
        for player in (state.get("cards") or {}).get("players", []):
            if player.get("player") == side and isinstance(player.get("hand"), list):
                hand_units = list(dict.fromkeys(c["unit"] for c in player["hand"]
                                                if c.get("kind") == "unit"))
    out = []
    for kind in view["orders_allowed"]:
        form = system.form(kind)
        if form is None:
            continue
        controls = []
        for c in form.controls:
            options: list[tuple[str, str]] = list(c.choices)
            if c.kind == "own":
                ids = hand_units if (system.key == "quad" and kind == "play") else own
                options = ([("", "— none —")] if c.optional else []) + [(i, i) for i in ids]
            elif c.kind == "enemy":
                options = ([("", "— none —")] if c.optional else []) + [(i, i) for i in enemy]
            controls.append({"name": c.name, "label": c.label, "kind": c.kind,
                             "options": options, "optional": c.optional, "help": c.help})
        out.append({"kind": form.kind, "label": form.label, "help": form.help,
                    "controls": controls})
    return out


def _hand(system_key: str, view: dict[str, Any]) -> list[str] | None:
    if system_key != "quad" or view["state"] is None:
        return None
    side = view["viewer"]["side"]
    for player in (view["state"].get("cards") or {}).get("players", []):
        if player.get("player") == side and isinstance(player.get("hand"), list):
            return [("tactics card" if c.get("kind") == "tactics"
                     else f"{c['unit']} ({c.get('copy')}/3)") for c in player["hand"]]
    return None


def _piles(system_key: str, view: dict[str, Any]) -> list[dict[str, Any]]:
    if system_key != "quad" or view["state"] is None:
        return []
    out = []
    for player in (view["state"].get("cards") or {}).get("players", []):
        hand, pile = player.get("hand"), player.get("draw_pile")
        out.append({"side": player.get("player"),
                    "hand": len(hand) if isinstance(hand, list) else hand,
                    "draw_pile": len(pile) if isinstance(pile, list) else pile,
                    "discard": len(player.get("discard") or [])})
    return out


def _page(request: HttpRequest, campaign: Campaign, *, errors: dict[str, Any] | None = None,
          values: dict[str, Any] | None = None, status: int = 200) -> HttpResponse:
    membership = member_or_404(request, campaign)
    user = _user(request)
    view = battle_view(user=user, campaign=campaign, log_limit=LOG_SHOWN)
    system = system_of(view["system"])
    sides = [s["name"] for s in view["sides"]]
    state = view["state"]
    pieces = [p for p in (state or {}).get(system.pieces) or [] if isinstance(p, dict)]
    phase = view["phase"]
    forms = _forms(view["system"], view)
    errors = dict(errors or {})
    if errors.get("message"):
        shown = {f["kind"]: {c["name"] for c in f["controls"]} | {"kind"} for f in forms}
        form = errors.get("form")
        if form in shown:
            # At its form: next to its control, or under the form's title.
            if errors.get("control") not in shown[form]:
                errors["control"] = "kind"
            errors["unplaced"] = False
        else:
            # An order the page does not offer now: above the orders (the GM's forms and the
            # start show their own).
            errors["unplaced"] = form not in ("start", "proxy", "extend", "pause")
    context = {
        "campaign": campaign, "membership": membership, "is_gm": membership.role == Role.GM,
        "battle": view, "system": system,
        "board": board(system, state, sides, view["viewer"]["side"]) if state else None,
        "forms": forms,
        "hand": _hand(view["system"], view),
        "piles": _piles(view["system"], view),
        "pieces": sorted(pieces, key=lambda p: (sides.index(p["side"])
                                                if p.get("side") in sides else 9, p["id"])),
        "log": list(reversed(view["log"])),
        "deadline_local": local_time(phase["deadline_at"], user) if phase else "",
        "errors": errors, "values": values or {},
        "invite_url": request.build_absolute_uri(
            reverse("campaigns:join", args=[campaign.invite_code]))
        if membership.role == Role.GM and campaign.status == CampaignStatus.SETUP else "",
        "paused": campaign.status == CampaignStatus.PAUSED,
        "acting_names": " and ".join(s["name"] for s in view["sides"] if s["acting"]),
    }
    return render(request, "campaigns/battle.html", context, status=status)


@login_required
@require_GET
def battle_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _page(request, _battle_campaign(campaign_id))


@login_required
@require_POST
def battle_orders_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _battle_campaign(campaign_id)
    member_or_404(request, campaign)
    kind = request.POST.get("kind", "")
    battle = Battle.objects.get(campaign=campaign)
    try:
        order = order_from_form(system_of(battle.system), kind, request.POST)
        services.battle_orders(user=_user(request), campaign=campaign, orders=[order])
    except CampaignError as exc:
        return _page(request, campaign, status=400,
                     errors={"form": kind, "control": _control(exc.field),
                             "message": exc.message},
                     values={kind: request.POST.dict()})
    messages.success(request, "Your order is given: see what it did in the log.")
    return redirect("campaigns:battle", campaign.pk)


def _gm_action(request: HttpRequest, campaign_id: int, key: str, action: Any,
               done: str) -> HttpResponse:
    campaign = _battle_campaign(campaign_id)
    member_or_404(request, campaign)
    try:
        action(campaign)
    except CampaignError as exc:
        return _page(request, campaign, status=403 if isinstance(exc, NotAllowedError) else 400,
                     errors={"form": key, "control": _control(exc.field),
                             "message": exc.message},
                     values={key: request.POST.dict()})
    messages.success(request, done)
    return redirect("campaigns:battle", campaign.pk)


@login_required
@require_POST
def battle_start_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _gm_action(request, campaign_id, "start",
                      lambda c: services.battle_start(user=_user(request), campaign=c),
                      "The battle has started.")


@login_required
@require_POST
def battle_proxy_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _gm_action(request, campaign_id, "proxy",
                      lambda c: services.battle_proxy(user=_user(request), campaign=c,
                                                      reason=request.POST.get("reason", "")),
                      "The proxy has acted for the sides that were to act.")


def _hours(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return 0


@login_required
@require_POST
def battle_extend_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _gm_action(request, campaign_id, "extend",
                      lambda c: deadline_extend(user=_user(request), campaign=c,
                                                hours=_hours(request.POST.get("hours", "")),
                                                reason=request.POST.get("reason", "")),
                      "The deadline is extended.")


@login_required
@require_POST
def battle_pause_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _battle_campaign(campaign_id)
    if campaign.status == CampaignStatus.PAUSED:
        return _gm_action(request, campaign_id, "pause",
                          lambda c: campaign_resume(user=_user(request), campaign=c,
                                                    reason=request.POST.get("reason", "")),
                          "The battle goes on: the clock runs again.")
    return _gm_action(request, campaign_id, "pause",
                      lambda c: campaign_pause(user=_user(request), campaign=c,
                                               reason=request.POST.get("reason", "")),
                      "The battle is paused: the clock is stopped.")


def battle_join_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """The invite link of a battle: choose a side (before the start)."""
    error, chosen = "", request.POST.get("side", "")
    if request.method == "POST":
        try:
            services.battle_join(user=_user(request), invite_code=campaign.invite_code,
                                 side=chosen)
        except CampaignError as exc:
            error = exc.message
        else:
            messages.success(request, f"You joined {chosen} in {campaign.name}.")
            return redirect("campaigns:battle", campaign.pk)
    sides = [{"name": s.name,
              "players": [m.user.public_name for m in Membership.objects.filter(
                  side=s, role=Role.PLAYER).select_related("user")]}
             for s in Side.objects.filter(campaign=campaign).order_by("kind")]
    battle = Battle.objects.get(campaign=campaign)
    return render(request, "campaigns/battle_join.html", {
        "invite_campaign": campaign, "sides": sides, "error": error, "chosen": chosen,
        "system": SYSTEMS[battle.system], "started": campaign.status != CampaignStatus.SETUP,
    }, status=400 if error else 200)


def _new_battle_values(request: HttpRequest) -> dict[str, str]:
    scenarios = battle_scenarios()
    values = {"scenario": request.GET.get("scenario", scenarios[0].key if scenarios else ""),
              "name": "", "phase_hours": "24", "max_turns": "", "custom": "", "system": "",
              "sight": ""}
    if request.method == "POST":
        values.update({k: request.POST.get(k, "").strip() for k in values})
    return values


def _new_battle_request(values: dict[str, str]) -> dict[str, Any]:
    """The new battle form's fields as `battle_create`'s arguments; a field that is not what it
    should be raises the error naming it."""
    settings: dict[str, Any] = {}
    if values["max_turns"]:
        if not values["max_turns"].isdigit():
            raise CampaignError("Turns: a whole number from 1, or blank for the scenario's.",
                                code="invalid_input", field="max_turns")
        settings["max_turns"] = int(values["max_turns"])
    hours = values["phase_hours"]
    if not hours.isdigit():
        raise CampaignError("Hours a phase lasts: a whole number from 1 to 336.",
                            code="invalid_input", field="phase_hours")
    custom = None
    if values["custom"]:
        try:
            custom = json.loads(values["custom"])
        except json.JSONDecodeError as exc:
            raise CampaignError(f"Your scenario is not JSON: {exc.msg} (line {exc.lineno}, "
                                f"column {exc.colno}).", code="invalid_input",
                                field="custom") from None
        system = values["system"]
    else:
        demo = next((s for s in battle_scenarios() if s.key == values["scenario"]), None)
        if demo is None:
            raise CampaignError("Choose a scenario.", code="invalid_input", field="scenario")
        system = demo.system
    if values["sight"]:
        if system != "elf_abas":
            raise CampaignError("Fog of war by sight is a setting of ELF ABAS battles; QUAD "
                                "keeps its own fog (each side's hand and the decks).",
                                code="invalid_input", field="sight")
        if not values["sight"].isdigit():
            raise CampaignError("Fog of war: a whole number of hexes (5 or more), or blank "
                                "for none.", code="invalid_input", field="sight")
        settings["sight"] = int(values["sight"])
    return {"system": system, "scenario_key": values["scenario"], "scenario": custom,
            "settings": settings, "name": values["name"], "phase_hours": int(hours)}


def _new_battle_error(exc: CampaignError, values: dict[str, str]) -> dict[str, str]:
    field = exc.field or "scenario"
    # The form's own control for a setting; the scenario box for a field of the scenario.
    shown = ({"settings.sight": "sight", "settings.max_turns": "max_turns"}.get(field)
             or ("custom" if field.startswith(("scenario.", "settings")) and values["custom"]
                 else field))
    return {"field": shown, "message": exc.message, "path": field}


@login_required
def battle_new(request: HttpRequest) -> HttpResponse:
    """A new battle: a demo scenario of a system, or your own drawn in the scenario editor (or
    written as JSON), the number of turns, the hours a phase lasts."""
    scenarios = battle_scenarios()
    values = _new_battle_values(request)
    own = gm_battle_scenarios(_user(request))
    draw = ""
    if request.method != "POST":
        # (The form posts back to this address: what the GM sent is kept, not a copy.)
        # "Edit a copy": a demo's scenario, or one of the GM's own battles', in the editor.
        copied = next((sc for sc in scenarios if sc.key == request.GET.get("copy")), None)
        if copied is not None:
            values.update(scenario=copied.key, system=copied.system,
                          custom=json.dumps(copied.scenario, indent=2))
        mine = next((b for b in own if str(b["campaign"]) == request.GET.get("from")), None)
        if mine is not None:
            values.update(system=mine["system"], custom=json.dumps(mine["scenario"], indent=2))
        if request.GET.get("draw") in SYSTEMS:
            # "Draw your own": the editor opens on a blank map of that system.
            draw = values["system"] = request.GET["draw"]
    error: dict[str, str] = {}
    if request.method == "POST":
        try:
            campaign = services.battle_create(gm=_user(request),
                                              **_new_battle_request(values))
        except CampaignError as exc:
            error = _new_battle_error(exc, values)
        else:
            messages.success(request, f"{campaign.name} is ready: send each player the invite "
                             "link, then start the battle.")
            return redirect("campaigns:battle", campaign.pk)
    return render(request, "campaigns/battle_new.html", {
        "scenarios": scenarios, "values": values, "error": error, "systems": SYSTEMS.values(),
        "own": own, "draw": draw,
        "editor": {key: {"name": s.name, "pieces": s.pieces, **s.editor,
                         "terrains": [{"key": t, "label": t.replace("_", " "), "fill": c}
                                      for t, c in s.terrain_colours.items()]}
                   for key, s in SYSTEMS.items()},
    }, status=400 if error else 200)


@login_required
@require_POST
def battle_new_check(request: HttpRequest) -> JsonResponse:
    """The scenario editor's "Check": the new battle form as it stands, checked by the
    system's engine without creating anything. `{"ok": true, "summary"}`, or `{"ok": false,
    "field", "path", "message"}` (400): `path` names the scenario's field
    (`scenario.sides[1].forces[0].hex`), `field` the form's control."""
    values = _new_battle_values(request)
    try:
        if not values["custom"]:
            raise CampaignError("Draw a scenario (or fill the box) to check it.",
                                code="invalid_input", field="custom")
        args = _new_battle_request(values)
        checked = services.battle_scenario_check(system=args["system"],
                                                 scenario=args["scenario"],
                                                 settings=args["settings"])
    except CampaignError as exc:
        return JsonResponse({"ok": False, **_new_battle_error(exc, values)}, status=400)
    return JsonResponse({"ok": True, **checked})


urlpatterns = [
    path("battles/new/", battle_new, name="battle-new"),
    path("battles/new/check/", battle_new_check, name="battle-new-check"),
    path("<int:campaign_id>/battle/", battle_page, name="battle"),
    path("<int:campaign_id>/battle/orders/", battle_orders_view, name="battle-orders"),
    path("<int:campaign_id>/battle/start/", battle_start_view, name="battle-start"),
    path("<int:campaign_id>/battle/proxy/", battle_proxy_view, name="battle-proxy"),
    path("<int:campaign_id>/battle/extend/", battle_extend_view, name="battle-extend"),
    path("<int:campaign_id>/battle/pause/", battle_pause_view, name="battle-pause"),
]
