"""The GM's overrules: revert the campaign to the opening of the current phase, adjust a
unit's or a fortification's hits. Each is recorded with its reason."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from accounts.models import User
from campaigns.errors import RuleViolationError, WrongStateError
from campaigns.games.erfworld.engine import check_victory, require_running
from campaigns.games.erfworld.knowledge import restore_latest
from campaigns.models import (
    Campaign,
    Declaration,
    EventKind,
    Fortification,
    Membership,
    Phase,
    PhaseSnapshot,
    Sighting,
    Stack,
    Unit,
)
from campaigns.services.common import lock_campaign, members_of, notify, record_event, require_gm
from campaigns.services.phase_state import open_phase_locked


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise RuleViolationError("The GM gives a reason for every overrule; it is recorded.",
                                 code="reason_required", field="reason")
    return reason


@transaction.atomic
def phase_revert(
    *, user: User, campaign: Campaign, reason: str, expected_phase: Phase | None = None
) -> Phase:
    """Put the game back exactly as it was when the open phase opened (its snapshot): units,
    stacks, fortifications, pop points. Events and dice rolls stay as the record, and the
    phase's dice numbering goes on (rolls are never re-used); the revert is an event."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    require_running(campaign)
    reason = _reason(reason)
    phase = open_phase_locked(campaign)
    if expected_phase is not None and expected_phase.pk != phase.pk:
        # The GM saw another phase: a repeated click must not revert the one that opened since.
        raise WrongStateError("That phase has already been closed; the revert would put back "
                              "another phase.", code="phase_already_closed")
    state = PhaseSnapshot.objects.get(phase=phase).state
    saved = state["restore"]
    units = {u["id"]: u for u in saved["units"]}
    stacks = {s["id"]: s for s in saved["stacks"]}
    # Units made in the phase (pops) go; then stacks are put back, then units.
    Unit.objects.filter(campaign=campaign).exclude(pk__in=list(units)).delete()
    Unit.objects.filter(campaign=campaign).update(stack=None, mount=None)
    Stack.objects.filter(campaign=campaign).exclude(pk__in=list(stacks)).delete()
    existing = {s.pk: s for s in Stack.objects.filter(campaign=campaign)}
    fields = ["side_id", "hex", "fought", "moved_after_fighting", "times_attacked",
              "defender_combats", "retaliation_used"]
    missing = []
    for pk, row in stacks.items():
        stack = existing.get(pk) or Stack(pk=pk, campaign=campaign)
        for f in fields:
            setattr(stack, f, row[f])
        if pk in existing:
            continue
        missing.append(stack)
    Stack.objects.bulk_create(missing)
    Stack.objects.bulk_update(list(existing.values()), fields)
    rows = list(Unit.objects.filter(campaign=campaign))
    unit_fields = ["stack_id", "position", "current_hits", "commander_level", "commander_xp",
                   "movement_used", "has_attacked", "was_commanded", "all_on_road", "pop_hex",
                   "name"]
    for u in rows:
        for f in unit_fields:
            setattr(u, f, units[u.pk][f])
    Unit.objects.bulk_update(rows, unit_fields)
    for u in rows:
        u.mount_id = units[u.pk]["mount_id"]
    Unit.objects.bulk_update(rows, ["mount_id"])
    forts = list(Fortification.objects.filter(campaign=campaign))
    saved_forts = {f["id"]: f for f in saved["fortifications"]}
    for fort in forts:
        fort.hits = saved_forts[fort.pk]["hits"]
        fort.owner_id = saved_forts[fort.pk]["owner_id"]
    Fortification.objects.bulk_update(forts, ["hits", "owner_id"])
    points = {m["id"]: Decimal(str(m["pop_points"])) for m in state["memberships"]}
    members = list(Membership.objects.filter(campaign=campaign, pk__in=list(points)))
    for m in members:
        m.pop_points = points[m.pk]
    Membership.objects.bulk_update(members, ["pop_points"])
    campaign.pop_pool = Decimal(saved["pop_pool"])
    campaign.version += 1
    campaign.save(update_fields=["pop_pool", "version"])
    Sighting.objects.filter(phase=phase).delete()
    restore_latest(campaign)
    # The opposition's declared combats were orders of the phase: they go with it, and the
    # GM gives orders again (the alliance's draw is asked anew when the phase ends).
    dropped = Declaration.objects.filter(phase=phase).delete()[0]
    phase.draw_asked_at = None
    phase.version += 1
    phase.save(update_fields=["version", "draw_asked_at"])
    event = record_event(
        campaign=campaign, kind=EventKind.PHASE_REVERTED, actor=user, phase=phase,
        summary=f"The GM reverted the campaign to the opening of turn {phase.turn.number}'s "
        f"{phase.get_kind_display().lower()}: {reason}",
        payload={"reason": reason, "phase": phase.pk,
                 **({"declarations_dropped": dropped} if dropped else {})},
    )
    notify(event=event, users=[m.user for m in Membership.objects.filter(campaign=campaign)
                               .select_related("user")])
    return phase


@transaction.atomic
def unit_adjust_hits(*, user: User, unit: Unit, hits: int, reason: str) -> Unit:
    """The GM sets a unit's current hits (0 croaks it: it leaves the map), with a reason."""
    campaign = lock_campaign(unit.campaign)
    require_gm(user=user, campaign=campaign)
    require_running(campaign)
    reason = _reason(reason)
    unit = Unit.objects.select_for_update(of=("self",)).select_related("unit_type", "stack").get(
        pk=unit.pk)
    if not 0 <= hits <= unit.unit_type.hits:
        raise RuleViolationError(
            f"{unit.name} has {unit.unit_type.hits} hits; its current hits are between 0 and "
            f"{unit.unit_type.hits}.", code="invalid_field", field="hits")
    before = unit.current_hits
    stack = unit.stack
    unit.current_hits = hits
    if hits == 0:
        unit.stack = None
        unit.mount = None
        Unit.objects.filter(mount=unit).update(mount=None)
    unit.save(update_fields=["current_hits", "stack", "mount"])
    if stack is not None and not Unit.objects.filter(stack=stack).exists():
        stack.delete()
    event = record_event(
        campaign=campaign, kind=EventKind.HITS_ADJUSTED, actor=user,
        summary=f"The GM set {unit.name}'s hits from {before} to {hits}: {reason}",
        payload={"unit": unit.pk, "before": before, "after": hits, "reason": reason},
    )
    notify(event=event, users=[unit.owner.user] if unit.owner else members_of(campaign, gm=True))
    check_victory(campaign=campaign, phase=None, actor=user)
    return unit


@transaction.atomic
def fortification_adjust_hits(
    *, user: User, fortification: Fortification, hits: int, reason: str
) -> Fortification:
    """The GM sets a tower's or wall hexside's hits (0 to its starting hits), with a reason."""
    campaign = lock_campaign(fortification.campaign)
    require_gm(user=user, campaign=campaign)
    require_running(campaign)
    reason = _reason(reason)
    fort = Fortification.objects.select_for_update().get(pk=fortification.pk)
    if not 0 <= hits <= fort.starting_hits:
        raise RuleViolationError(
            f"This fortification's hits are between 0 and its starting hits "
            f"({fort.starting_hits}).", code="invalid_field", field="hits")
    before = fort.hits
    fort.hits = hits
    fort.save(update_fields=["hits"])
    record_event(
        campaign=campaign, kind=EventKind.HITS_ADJUSTED, actor=user,
        summary=f"The GM set the hits of {fort} from {before} to {hits}: {reason}",
        payload={"fortification": fort.pk, "before": before, "after": hits, "reason": reason},
    )
    return fort
