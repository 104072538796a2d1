"""Django admin for the GM: every model searchable; game state read-only; actions call services."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import User
from campaigns import models
from campaigns.errors import CampaignError
from campaigns.games.erfworld import (
    campaign_start,
    chief_warlord_appoint,
    fortification_adjust_hits,
    phase_end,
    phase_revert,
    unit_adjust_hits,
)

# Dice seeds are secret until their reveal: no admin page may filter, search or sort on them
# (a changelist's `?dice_seed__regex=` would let a staff user recover an open phase's seed a
# character at a time), whether on the model itself or through a relation.
SECRET_FIELDS = frozenset({"dice_seed", "setup_dice_seed"})


class NoSecretLookups(admin.ModelAdmin):
    """A ModelAdmin whose changelist refuses (400) any lookup that touches a secret field."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None
                       ) -> bool:
        if SECRET_FIELDS & set(lookup.split("__")):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[arg-type]


def _gm(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # the admin requires a logged-in staff user
    return request.user


def _run(request: HttpRequest, action: Callable[[], Any], done: str) -> None:
    try:
        action()
    except CampaignError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, done)


class GMActionForm(ActionForm):
    """The fields of the GM's overrules, next to the action menu: the services refuse an
    empty reason or hits out of range, and the refusal is shown as an error message."""

    hits = forms.IntegerField(required=False, min_value=0, label="Hits")
    reason = forms.CharField(required=False, max_length=500, label="Reason")


def _overrule(request: HttpRequest) -> tuple[int | None, str]:
    """(hits, reason) as given next to the action; hits None when missing or invalid."""
    form = GMActionForm(request.POST)
    form.is_valid()  # the action's own field has no choices here; only hits and reason count
    return form.cleaned_data.get("hits"), form.cleaned_data.get("reason") or ""


def _require_hits(request: HttpRequest, hits: int | None) -> bool:
    if hits is None:
        messages.error(request, "Give the new hits (and a reason) next to the action.")
        return False
    return True


@admin.register(models.Campaign)
class CampaignAdmin(NoSecretLookups):
    list_display = ("name", "scenario_key", "status", "created_at")
    list_filter = ("status", "ruleset_key")
    search_fields = ("name", "scenario_key", "invite_code")
    readonly_fields = (
        "ruleset_key", "scenario_key", "status", "entry_hex", "pop_hexes", "victory_hex",
        "setup_dice_commitment", "setup_dice_next_number", "setup_dice_revealed_at",
        "revealed_setup_seed", "version", "created_at",
    )
    exclude = ("setup_dice_seed",)
    actions = ["start_campaign", "end_open_phase", "revert_open_phase"]
    action_form = GMActionForm

    @admin.display(description="setup dice seed")
    def revealed_setup_seed(self, obj: models.Campaign) -> str:
        # Secret until the campaign starts (its setup dice are then all rolled).
        return obj.setup_dice_seed if obj.setup_dice_revealed_at else "(secret until the start)"

    @admin.action(description="Start the campaign (as GM)")
    def start_campaign(self, request: HttpRequest, queryset: QuerySet[models.Campaign]) -> None:
        for campaign in queryset:
            _run(request, partial(campaign_start, user=_gm(request), campaign=campaign),
                 f"{campaign.name} started.")

    @admin.action(description="End the open phase (as GM)")
    def end_open_phase(self, request: HttpRequest, queryset: QuerySet[models.Campaign]) -> None:
        for campaign in queryset:
            _run(request, partial(phase_end, user=_gm(request), campaign=campaign),
                 f"{campaign.name}: phase ended.")

    @admin.action(description="Revert to the opening of the open phase (as GM; give a reason)")
    def revert_open_phase(self, request: HttpRequest, queryset: QuerySet[models.Campaign]) -> None:
        _, reason = _overrule(request)
        for campaign in queryset:
            _run(request,
                 partial(phase_revert, user=_gm(request), campaign=campaign, reason=reason),
                 f"{campaign.name}: reverted to the opening of the open phase.")


@admin.register(models.Side)
class SideAdmin(NoSecretLookups):
    list_display = ("name", "kind", "campaign")
    search_fields = ("name", "campaign__name")
    readonly_fields = ("campaign", "kind")


@admin.register(models.Membership)
class MembershipAdmin(NoSecretLookups):
    list_display = ("user", "campaign", "role", "side", "is_chief_warlord", "army_ready_at")
    list_filter = ("role", "is_chief_warlord")
    search_fields = ("user__username", "campaign__name")
    readonly_fields = (
        "campaign", "user", "role", "side", "is_chief_warlord", "chief_warlord_vote",
        "army_ready_at", "joined_at",
    )
    actions = ["appoint_chief_warlord"]

    @admin.action(description="Appoint as Chief Warlord (as GM)")
    def appoint_chief_warlord(
        self, request: HttpRequest, queryset: QuerySet[models.Membership]
    ) -> None:
        for m in queryset.select_related("campaign", "user"):
            _run(request,
                 partial(chief_warlord_appoint, user=_gm(request), campaign=m.campaign,
                         membership=m),
                 f"{m.user} is Chief Warlord of {m.campaign}.")


@admin.register(models.Map)
class MapAdmin(NoSecretLookups):
    list_display = ("campaign", "cols", "rows")
    search_fields = ("campaign__name",)
    readonly_fields = ("campaign", "cols", "rows", "terrain")


@admin.register(models.Fortification)
class FortificationAdmin(NoSecretLookups):
    list_display = ("hex", "kind", "direction", "hits", "starting_hits", "owner", "campaign")
    list_filter = ("kind",)
    search_fields = ("hex", "campaign__name")
    readonly_fields = ("campaign", "hex", "kind", "direction", "hits", "starting_hits", "owner")
    actions = ["adjust_hits"]
    action_form = GMActionForm

    @admin.action(description="Set the hits (as GM; give hits and a reason)")
    def adjust_hits(
        self, request: HttpRequest, queryset: QuerySet[models.Fortification]
    ) -> None:
        hits, reason = _overrule(request)
        if not _require_hits(request, hits):
            return
        assert hits is not None
        for fort in queryset:
            _run(request,
                 partial(fortification_adjust_hits, user=_gm(request), fortification=fort,
                         hits=hits, reason=reason),
                 f"{fort}: hits set to {hits}.")


@admin.register(models.UnitType)
class UnitTypeAdmin(NoSecretLookups):
    list_display = ("name", "side", "owner", "hits", "attack", "defence", "move", "cost")
    search_fields = ("name", "campaign__name", "owner__user__username")
    readonly_fields = (
        "campaign", "side", "owner", "hits", "attack", "defence", "move", "specials", "cost",
    )


@admin.register(models.Stack)
class StackAdmin(NoSecretLookups):
    list_display = ("id", "hex", "side", "campaign")
    search_fields = ("hex", "campaign__name")
    readonly_fields = ("campaign", "side", "hex", "created_at")


@admin.register(models.Unit)
class UnitAdmin(NoSecretLookups):
    list_display = ("name", "unit_type", "side", "owner", "stack", "current_hits",
                    "commander_level")
    search_fields = ("name", "unit_type__name", "campaign__name", "owner__user__username")
    readonly_fields = (
        "campaign", "side", "owner", "unit_type", "current_hits", "commander_level",
        "commander_xp", "movement_used", "has_attacked", "was_commanded", "mount", "stack",
        "position",
    )
    actions = ["adjust_hits"]
    action_form = GMActionForm

    @admin.action(description="Set the current hits (as GM; give hits and a reason)")
    def adjust_hits(self, request: HttpRequest, queryset: QuerySet[models.Unit]) -> None:
        hits, reason = _overrule(request)
        if not _require_hits(request, hits):
            return
        assert hits is not None
        for unit in queryset:
            _run(request,
                 partial(unit_adjust_hits, user=_gm(request), unit=unit, hits=hits,
                         reason=reason),
                 f"{unit.name}: hits set to {hits}.")


@admin.register(models.Turn)
class TurnAdmin(NoSecretLookups):
    list_display = ("campaign", "number", "started_at")
    search_fields = ("campaign__name",)
    readonly_fields = ("campaign", "number", "started_at")


@admin.register(models.Phase)
class PhaseAdmin(NoSecretLookups):
    list_display = ("campaign", "turn", "kind", "status", "opened_at", "deadline_at", "closed_at")
    list_filter = ("kind", "status")
    search_fields = ("campaign__name",)
    # The seed is excluded: it must not be shown anywhere before the phase closes.
    exclude = ("dice_seed",)
    readonly_fields = (
        "campaign", "turn", "kind", "status", "opened_at", "deadline_at", "closed_at",
        "dice_commitment", "revealed_seed", "dice_next_number", "version",
        "deadline_processed_at", "reminders_sent",
    )


@admin.register(models.PlayerPhaseStatus)
class PlayerPhaseStatusAdmin(NoSecretLookups):
    list_display = ("phase", "membership", "done_at", "late", "proxied_by")
    list_filter = ("late",)
    search_fields = ("membership__user__username", "phase__campaign__name")
    readonly_fields = ("phase", "membership", "done_at", "late", "proxied_by")


@admin.register(models.ScoutOrder)
class ScoutOrderAdmin(NoSecretLookups):
    list_display = ("scout", "phase", "given_by", "proxied_by", "updated_at")
    search_fields = ("scout__name", "phase__campaign__name")
    readonly_fields = ("phase", "scout", "given_by", "proxied_by", "directions",
                       "inspected_hexes", "updated_at")


@admin.register(models.Sighting)
class SightingAdmin(NoSecretLookups):
    list_display = ("hex", "side", "turn", "is_latest", "campaign")
    list_filter = ("is_latest",)
    search_fields = ("hex", "campaign__name")
    readonly_fields = ("campaign", "side", "hex", "turn", "phase", "seen", "is_latest",
                       "created_at")


@admin.register(models.DiceRoll)
class DiceRollAdmin(NoSecretLookups):
    list_display = ("campaign", "phase", "number", "purpose", "sides", "value")
    search_fields = ("purpose", "campaign__name")
    readonly_fields = ("campaign", "phase", "number", "purpose", "sides", "value", "created_at")


@admin.register(models.Event)
class EventAdmin(NoSecretLookups):
    list_display = ("created_at", "campaign", "kind", "summary")
    list_filter = ("kind",)
    search_fields = ("summary", "campaign__name")
    readonly_fields = ("campaign", "phase", "actor", "side", "kind", "summary", "payload",
                       "created_at")


@admin.register(models.PhaseSnapshot)
class PhaseSnapshotAdmin(NoSecretLookups):
    list_display = ("phase", "created_at")
    search_fields = ("phase__campaign__name",)
    readonly_fields = ("phase", "state", "created_at")


@admin.register(models.Notification)
class NotificationAdmin(NoSecretLookups):
    list_display = ("user", "campaign", "message", "created_at", "read_at")
    search_fields = ("user__username", "message", "campaign__name")
    readonly_fields = ("user", "campaign", "event", "message", "created_at")
