"""Campaign settings the GM changes (the settings page, PATCH /api/v1/campaigns/<id>/).

Before the start every setting is changed at once. After it, what shapes the army or the map
(points budget, unit types, ambush value, terrain known to all) is fixed; the pace (phase
lengths, hard deadline, early close, the extension cap) may change with a reason, posted to
the public thread and applied when the next phase opens, so no running phase changes under
the players' feet. Name, description and the player cap change at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.models import User, available_time_zones
from campaigns.deadline_clock import WEEKDAYS, parse_clock, phase_deadline
from campaigns.errors import RuleViolationError, WrongStateError
from campaigns.models import Campaign, CampaignStatus, EventKind, Membership, Role
from campaigns.services.common import lock_campaign, notify, record_event, require_gm

MAX_HOURS = 30 * 24


@dataclass(frozen=True)
class Setting:
    label: str
    kind: str  # "int", "optional_int", "bool", "text", "mode", "clock", "zone", "days"
    low: int = 0
    high: int = 0
    max_length: int = 0
    when: str = "now"  # "now", "next_phase" (after the start), "setup" (fixed at the start)
    unit: str = ""
    empty: str = ""  # what an empty optional number means


SETTINGS: dict[str, Setting] = {
    "name": Setting("Name", "text", max_length=120),
    "description": Setting("Description", "text", max_length=2000),
    "player_cap": Setting("Player cap", "optional_int", 1, 50, empty="no cap"),
    "scout_hours": Setting("Scout phase length", "optional_int", 1, MAX_HOURS,
                           when="next_phase", unit="hours", empty="as the move/combat phase"),
    "phase_hours": Setting("Move/combat phase length", "int", 1, MAX_HOURS,
                           when="next_phase", unit="hours"),
    "opposition_hours": Setting("Opposition phase length", "optional_int", 1, MAX_HOURS,
                                when="next_phase", unit="hours",
                                empty="as the move/combat phase"),
    "deadline_mode": Setting("Deadline mode", "mode", when="next_phase"),
    "deadline_clock": Setting("Deadline time of day", "clock", when="next_phase"),
    "deadline_zone": Setting("Deadline time zone", "zone", when="next_phase"),
    "deadline_days_off": Setting("Days the clock does not run", "days", when="next_phase"),
    "hard_deadline": Setting("Hard deadline", "bool", when="next_phase"),
    "early_close": Setting("Early close when every player is done", "bool", when="next_phase"),
    "max_extension_hours": Setting("Extension cap per phase", "int", 0, MAX_HOURS,
                                   when="next_phase", unit="hours"),
    "max_pause_hours": Setting("Pause cap for the whole campaign", "optional_int", 0,
                               24 * 365, unit="hours", empty="no cap"),
    "absence_days": Setting("Days of absence per player", "int", 0, 365, unit="days"),
    "absence_extends": Setting("An absence extends the phase (instead of the Chief Warlord "
                               "giving the absent player's orders)", "bool",
                               when="next_phase"),
    "missed_phases_limit": Setting("Phases missed in a row before the Chief Warlord takes "
                                   "over", "optional_int", 1, 20, unit="phases",
                                   empty="never"),
    "diplomacy": Setting("Diplomacy: players may talk privately with players of another "
                         "side", "bool"),
    "gm_reads_conversations": Setting("The GM may read players' private conversations (those "
                                      "opened while this is on; every member sees it)",
                                      "bool"),
    "alliance_draw": Setting("The alliance draws the opposition's dice (the GM cannot "
                             "foresee them; the opposition's combats wait for the draw)",
                             "bool", when="next_phase"),
    "alliance_draw_hours": Setting("Time the alliance has to draw", "int", 1, MAX_HOURS,
                                   unit="hours"),
    "points_budget": Setting("Points budget", "int", 1, 100_000, when="setup"),
    "max_unit_types": Setting("Unit types per player", "int", 1, 20, when="setup"),
    "ambush_value": Setting("Ambush value", "int", 0, 6, when="setup"),
    "terrain_known_to_all": Setting("Terrain known to all", "bool", when="setup"),
}


MODES = {"rolling": "rolling (each phase's length after it opens)",
         "clock": "clock time (at the time of day, at least the phase's length after it opens)"}


def _shown(name: str, value: Any) -> str:
    spec = SETTINGS[name]
    if spec.kind == "mode":
        return str(value)
    if spec.kind == "days":
        return ", ".join(WEEKDAYS[d] for d in sorted(value)) or "none"
    if spec.kind in ("clock", "zone"):
        return str(value)
    if value is None:
        return spec.empty
    if spec.kind == "bool":
        return "on" if value else "off"
    if spec.kind == "text":
        return repr(value) if name == "name" else "changed"
    return f"{value} {spec.unit}".strip()


def _clean(name: str, value: Any) -> Any:
    """The value in its stored type, or RuleViolationError naming the field and the bound."""
    if name not in SETTINGS:
        raise RuleViolationError(f"{name}: not a campaign setting (settings: "
                                 f"{', '.join(SETTINGS)}).", code="invalid_field", field=name)
    spec = SETTINGS[name]
    if spec.kind == "mode":
        if value not in MODES:
            raise RuleViolationError(f"{spec.label}: rolling or clock, not {value!r}.",
                                     code="invalid_field", field=name)
        return value
    if spec.kind == "clock":
        try:
            clock = parse_clock(str(value))
        except ValueError as exc:
            raise RuleViolationError(f"{spec.label}: {exc}", code="invalid_field",
                                     field=name) from None
        return f"{clock:%H:%M}"
    if spec.kind == "zone":
        if value not in available_time_zones():
            raise RuleViolationError(f"{spec.label}: {value!r} is not a known time zone "
                                     "(e.g. Europe/Paris).", code="invalid_field", field=name)
        return value
    if spec.kind == "days":
        if (not isinstance(value, list)
                or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6
                           for d in value)):
            raise RuleViolationError(f"{spec.label}: a list of weekdays, 0 (Monday) to 6 "
                                     "(Sunday).", code="invalid_field", field=name)
        days = sorted(set(value))
        if len(days) == 7:
            raise RuleViolationError(f"{spec.label}: the clock must run on at least one day "
                                     "of the week.", code="invalid_field", field=name)
        return days
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise RuleViolationError(f"{spec.label}: true or false.", code="invalid_field",
                                     field=name)
        return value
    if spec.kind == "text":
        if not isinstance(value, str):
            raise RuleViolationError(f"{spec.label}: text.", code="invalid_field", field=name)
        value = value.strip()
        if name == "name" and not value:
            raise RuleViolationError("Name: a campaign needs a name.", code="invalid_field",
                                     field=name)
        if len(value) > spec.max_length:
            raise RuleViolationError(f"{spec.label}: at most {spec.max_length} characters, not "
                                     f"{len(value)}.", code="invalid_field", field=name)
        return value
    if value is None and spec.kind == "optional_int":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not spec.low <= value <= spec.high:
        unit = f" {spec.unit}" if spec.unit else ""
        empty = " (or empty)" if spec.kind == "optional_int" else ""
        raise RuleViolationError(f"{spec.label}: a whole number from {spec.low} to "
                                 f"{spec.high}{unit}{empty}, not {value!r}.",
                                 code="invalid_field", field=name)
    return value


@transaction.atomic
def campaign_settings_update(*, user: User, campaign: Campaign, changes: dict[str, Any],
                             reason: str = "") -> Campaign:
    """Change settings (GM only): at once before the start; after it, see the module's doc.
    Refused as a whole (nothing changed) when any one change is refused."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign has ended: its settings no longer change.",
                              code="finished")
    started = campaign.status != CampaignStatus.SETUP
    reason = reason.strip()
    if len(reason) > 500:
        raise RuleViolationError("Reason: at most 500 characters.", code="invalid_field",
                                 field="reason")
    cleaned = {name: _clean(name, value) for name, value in changes.items()}
    now: dict[str, Any] = {}
    later: dict[str, Any] = {}
    for name, value in cleaned.items():
        spec = SETTINGS[name]
        current = campaign.pending_settings.get(name, getattr(campaign, name))
        if value == current:
            continue
        if started and spec.when == "setup":
            raise WrongStateError(f"{spec.label}: fixed when the campaign started (it shapes "
                                  "the armies and the map).", code="setup_only", field=name)
        (later if started and spec.when == "next_phase" else now)[name] = value
    if not now and not later:
        return campaign
    cap = now.get("player_cap")
    if cap is not None:
        players = Membership.objects.filter(campaign=campaign, role=Role.PLAYER).count()
        if cap < players:
            raise RuleViolationError(f"Player cap: {players} players have joined already; the "
                                     f"cap cannot be below {players}.", code="invalid_field",
                                     field="player_cap")
    if started and later and not reason:
        raise RuleViolationError("Reason: say why the pace changes; it is posted to every "
                                 "player with the change.", code="reason_required",
                                 field="reason")
    before = {name: getattr(campaign, name) for name in now}
    for name, value in now.items():
        setattr(campaign, name, value)
    if later:
        campaign.pending_settings = {**campaign.pending_settings, **later}
    campaign.version += 1
    campaign.save(update_fields=[*now, "pending_settings", "version"])
    parts = [f"{SETTINGS[n].label}: {_shown(n, before[n])} → {_shown(n, v)}"
             if SETTINGS[n].kind != "text" or n == "name" else f"{SETTINGS[n].label} changed"
             for n, v in now.items()]
    parts += [f"{SETTINGS[n].label}: {_shown(n, getattr(campaign, n))} → {_shown(n, v)} "
              "(from the next phase)" for n, v in later.items()]
    summary = "The GM changed the settings. " + "; ".join(parts) + "."
    if reason:
        summary += f" Reason: {reason}"
    record_event(campaign=campaign, kind=EventKind.SETTINGS_CHANGED, actor=user,
                 summary=summary, payload={"now": now, "next_phase": later, "reason": reason})
    return campaign


def apply_pending_settings(campaign: Campaign) -> None:
    """The changes waiting for the next phase take effect (campaign locked; open_phase)."""
    if not campaign.pending_settings:
        return
    names = [n for n in campaign.pending_settings if n in SETTINGS]
    for name in names:
        setattr(campaign, name, campaign.pending_settings[name])
    campaign.pending_settings = {}
    campaign.save(update_fields=[*names, "pending_settings"])


def settings_rows(campaign: Campaign) -> list[dict[str, Any]]:
    """Every setting as players read it on the overview: its value and any change waiting
    for the next phase."""
    rows = []
    for name, spec in SETTINGS.items():
        if name in ("name", "description"):
            continue
        row: dict[str, Any] = {"name": name, "label": spec.label,
                               "value": _shown(name, getattr(campaign, name)),
                               "when": spec.when}
        if name in campaign.pending_settings:
            row["pending"] = _shown(name, campaign.pending_settings[name])
        rows.append(row)
    return rows


@transaction.atomic
def gm_handover(*, user: User, campaign: Campaign, username: str) -> Membership:
    """The GM hands the GM role to another user, who is not a player of this campaign (a
    player would see the enemy): the GM membership passes to them, the old GM leaves."""
    campaign = lock_campaign(campaign)
    membership = require_gm(user=user, campaign=campaign)
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign has ended: it needs no GM any more.",
                              code="finished")
    target = User.objects.filter(username__iexact=username.strip()).first()
    if target is None:
        raise RuleViolationError(f"Username: nobody is called {username.strip()!r}.",
                                 code="unknown_user", field="username")
    if target.pk == user.pk:
        raise RuleViolationError("Username: you are the GM already.", code="invalid_field",
                                 field="username")
    if Membership.objects.filter(campaign=campaign, user=target).exists():
        raise RuleViolationError(f"Username: {target.public_name} plays in this campaign; a "
                                 "player cannot become its GM (they would see the enemy).",
                                 code="is_player", field="username")
    Membership.objects.filter(pk=membership.pk).update(user=target)
    membership.refresh_from_db()
    event = record_event(
        campaign=campaign, kind=EventKind.SETTINGS_CHANGED, actor=user,
        summary=f"{user.public_name} handed the GM role to {target.public_name}.",
        payload={"gm_from": user.pk, "gm_to": target.pk})
    notify(event=event, users=[target],
           message=f"{user.public_name} made you the GM of {campaign.name!r}.")
    return membership


def fairness_rows(campaign: Campaign) -> list[dict[str, Any]]:
    """Where a move/combat phase opened now would end for each member, in their own zone, and
    whether that falls between 00:00 and 07:00 for them (the settings page's fairness hint).
    Uses the settings as they will be for the next phase."""
    from django.utils import timezone

    from accounts.timefmt import format_local
    upcoming = Campaign(**{f.attname: getattr(campaign, f.attname)
                           for f in Campaign._meta.concrete_fields})
    for name, value in campaign.pending_settings.items():
        setattr(upcoming, name, value)
    deadline = phase_deadline(upcoming, "move_combat", timezone.now())
    rows = []
    for m in (Membership.objects.filter(campaign=campaign).select_related("user")
              .order_by("role", "pk")):
        zone = m.user.time_zone or "UTC"
        local = deadline.astimezone(m.user.zone)
        rows.append({"name": m.user.public_name, "zone": zone,
                     "deadline": format_local(deadline, zone), "night": local.hour < 7})
    return rows
