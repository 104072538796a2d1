"""The turn cycle after the scout phase: healing, the opposition phase, the next turn with its
pops, and the pop point services (§3 healing, §5 pops)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from django.db import transaction

from accounts.models import NotificationKind, User
from campaigns.errors import NotAllowedError, RuleViolationError
from campaigns.games.erfworld.engine import phase_dice, require_running, store_phase_rolls
from campaigns.games.erfworld.fetch import unit_stats
from campaigns.models import (
    Campaign,
    Event,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    SideKind,
    Stack,
    Turn,
    Unit,
    UnitType,
)
from campaigns.services.common import (
    lock_campaign,
    members_of,
    notify,
    record_event,
    require_alliance_player,
    require_gm,
    roll_payload,
    side_of,
)
from campaigns.services.phase_state import is_late, open_phase, open_phase_locked
from rules.erfworld.healing import UnitHealth, heal_units
from rules.erfworld.movement import commanded_hexes
from rules.erfworld.pops import PopError, PopOrder, buy_pops, share_pop_points
from rules.erfworld.types import Special
from rules.erfworld.units import format_fraction, roll_commander_level
from rules.hexgrid import format_label, parse_label


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def reset_acting_state(campaign: Campaign, side_kind: str) -> None:
    """A side's phase of action opens: its units' movement, road and attack state start
    afresh, units in a hex with a commander of their side may move (§2 command), and every
    stack's combat counts for the phase start at 0."""
    side = side_of(campaign, side_kind)
    Unit.objects.filter(campaign=campaign, side=side).update(
        movement_used=0, all_on_road=True, has_attacked=False, was_commanded=False
    )
    starts = {
        parse_label(h)
        for h in Unit.objects.filter(
            campaign=campaign, side=side, current_hits__gt=0, stack__isnull=False,
            commander_level__isnull=False,
        ).values_list("stack__hex", flat=True)
    }
    hexes = commanded_hexes(commander_starts=starts, commander_paths=[])
    if hexes:
        Unit.objects.filter(
            campaign=campaign, side=side, stack__hex__in=[format_label(h) for h in hexes]
        ).update(was_commanded=True)
    Stack.objects.filter(campaign=campaign).update(
        fought=False, moved_after_fighting=False, times_attacked=0, defender_combats=0,
        retaliation_used=False,
    )


def heal_both_sides(*, campaign: Campaign, phase: Phase, actor: User | None) -> Event:
    """§3 healing: when the move/combat phase closes, every unit with partial hits is full."""
    units = list(
        Unit.objects.filter(campaign=campaign, current_hits__gt=0, stack__isnull=False)
        .select_related("unit_type").order_by("created_seq", "pk")
    )
    result = heal_units([
        UnitHealth(name=str(u.pk), hits=u.unit_type.hits, current_hits=u.current_hits)
        for u in units
    ])
    healed = {int(h.name): h.restored for h in result.healed}
    changed = []
    for u in units:
        if u.pk in healed:
            u.current_hits = u.unit_type.hits
            changed.append(u)
    Unit.objects.bulk_update(changed, ["current_hits"])
    names = {u.pk: u.name for u in units}
    return record_event(
        campaign=campaign, kind=EventKind.HEALING, actor=actor, phase=phase,
        summary=(f"Healing: {len(changed)} unit{'' if len(changed) == 1 else 's'} with partial "
                 f"hits {'is' if len(changed) == 1 else 'are'} restored to full.")
        if changed else "Healing: no unit had partial hits.",
        payload={"healed": [{"unit": pk, "name": names[pk], "restored": n}
                            for pk, n in healed.items()]},
    )


def close_acting_phase(
    *, campaign: Campaign, phase: Phase, actor: User | None, now: datetime
) -> Phase:
    """Close the move/combat phase (healing both sides; the opposition phase opens) or the
    opposition phase (the next turn opens with pops placed, its scout phase and snapshot)."""
    healing = None
    if phase.kind == PhaseKind.MOVE_COMBAT:
        healing = heal_both_sides(campaign=campaign, phase=phase, actor=actor)
    statuses = list(phase.player_statuses.filter(done_at__isnull=True, late=False))
    for s in statuses:
        s.late = is_late(s, phase, now)
    PlayerPhaseStatus.objects.bulk_update(statuses, ["late"])
    phase.status = PhaseStatus.CLOSED
    phase.closed_at = now
    phase.version += 1
    phase.save(update_fields=["status", "closed_at", "version"])
    closed = record_event(
        campaign=campaign, kind=EventKind.PHASE_CLOSED, actor=actor, phase=phase,
        summary=f"Turn {phase.turn.number}: the {phase.get_kind_display().lower()} is closed; "
        "its dice seed is revealed.",
        payload={"dice_seed": phase.dice_seed, "dice_commitment": phase.dice_commitment},
    )
    if healing is not None:
        # The move/combat phase's closing report (healing) goes to the alliance and the GM,
        # each told only of what they may know: the alliance counts its own units (a healed
        # opposition unit may be one it has never seen).
        alliance = side_of(campaign, SideKind.ALLIANCE)
        healed_ids = [h["unit"] for h in healing.payload["healed"]]
        ours = Unit.objects.filter(pk__in=healed_ids, side=alliance).count()
        own_summary = (f"Healing: {ours} of your side's units with partial hits "
                       f"{'is' if ours == 1 else 'are'} restored to full." if ours
                       else "Healing: no unit of your side had partial hits.")
        notify(event=closed, users=members_of(campaign, side=alliance),
               message=f"{closed.summary} {own_summary}", kind=NotificationKind.PHASE_CLOSED)
        notify(event=closed, users=members_of(campaign, gm=True),
               message=f"{closed.summary} {healing.summary}", kind=NotificationKind.PHASE_CLOSED)
    campaign.version += 1
    campaign.save(update_fields=["version"])
    if phase.kind == PhaseKind.MOVE_COMBAT:
        reset_acting_state(campaign, SideKind.OPPOSITION)
        return open_phase(campaign=campaign, turn=phase.turn, kind=PhaseKind.OPPOSITION,
                          now=now, actor=actor)
    turn = Turn.objects.create(campaign=campaign, number=phase.turn.number + 1)
    place_pops(campaign=campaign, turn=turn, actor=actor)
    return open_phase(campaign=campaign, turn=turn, kind=PhaseKind.SCOUT, now=now, actor=actor)


def place_pops(*, campaign: Campaign, turn: Turn, actor: User | None) -> list[Stack]:
    """Pops bought since the last scout phase appear now in their pop hex, one stack per
    player and hex (§5). A pop hex held by an enemy stack keeps its pops waiting."""
    waiting = list(
        Unit.objects.filter(campaign=campaign, stack__isnull=True, current_hits__gt=0)
        .exclude(pop_hex="").select_related("owner__user").order_by("owner_id", "pop_hex", "pk")
    )
    if not waiting:
        return []
    blocked = set(
        Stack.objects.filter(campaign=campaign, side__kind=SideKind.OPPOSITION,
                             hex__in={u.pop_hex for u in waiting}).values_list("hex", flat=True)
    )
    groups: dict[tuple[int | None, str], list[Unit]] = {}
    for u in waiting:
        if u.pop_hex not in blocked:
            groups.setdefault((u.owner_id, u.pop_hex), []).append(u)
    stacks = []
    placed: list[Unit] = []
    for (_owner, hex_label), units in groups.items():
        stack = Stack.objects.create(campaign=campaign, side_id=units[0].side_id, hex=hex_label)
        for i, u in enumerate(units):
            u.stack, u.position, u.pop_hex = stack, i, ""
        placed.extend(units)
        stacks.append(stack)
    Unit.objects.bulk_update(placed, ["stack", "position", "pop_hex"])
    alliance = side_of(campaign, SideKind.ALLIANCE)
    event = record_event(
        campaign=campaign, kind=EventKind.POPS_PLACED, actor=actor, side=alliance,
        summary=f"Turn {turn.number}: {len(placed)} popped units appear"
        + (f" in {', '.join(sorted({s.hex for s in stacks}))}." if stacks else ".")
        + (f" Pops for {', '.join(sorted(blocked))} wait: an enemy stack holds the hex."
           if blocked else ""),
        payload={"turn": turn.number, "units": [u.pk for u in placed],
                 "stacks": [s.pk for s in stacks], "waiting_in": sorted(blocked)},
    )
    notify(event=event, users=members_of(campaign, side=alliance))
    return stacks


# ---------------------------------------------------------------------------
# Pop points (§5)


def _running_phase(campaign: Campaign) -> Phase:
    require_running(campaign)
    return open_phase_locked(campaign)


@transaction.atomic
def pop_points_grant(*, user: User, campaign: Campaign, points: int) -> Campaign:
    """The GM grants the Chief Warlord pop points to share among the alliance players."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    phase = _running_phase(campaign)
    if points < 1:
        raise RuleViolationError("Grant at least 1 pop point.", code="invalid_field",
                                 field="points")
    campaign.pop_pool += points
    campaign.save(update_fields=["pop_pool"])
    chief = Membership.objects.filter(campaign=campaign, is_chief_warlord=True).select_related(
        "user")
    event = record_event(
        campaign=campaign, kind=EventKind.POP_POINTS_GRANTED, actor=user, phase=phase,
        summary=f"The GM granted the Chief Warlord {points} pop points "
        f"({format_fraction(Fraction(campaign.pop_pool))} to share).",
        payload={"points": points, "pool": str(campaign.pop_pool)},
    )
    notify(event=event, users=[m.user for m in chief])
    return campaign


@transaction.atomic
def pop_points_share(
    *, user: User, campaign: Campaign, shares: dict[int, int]
) -> dict[int, Decimal]:
    """The Chief Warlord shares the granted pop points: {membership id: points}; what is not
    shared stays with the Chief Warlord for later (§5)."""
    campaign = lock_campaign(campaign)
    chief = require_alliance_player(user=user, campaign=campaign)
    phase = _running_phase(campaign)
    if not chief.is_chief_warlord:
        raise NotAllowedError("Only the Chief Warlord shares the pop points (§5).",
                              code="chief_warlord_only")
    players = {
        m.pk: m for m in Membership.objects.select_for_update().filter(
            campaign=campaign, role=Role.PLAYER, side__kind=SideKind.ALLIANCE,
            pk__in=list(shares))
    }
    unknown = [pk for pk in shares if pk not in players]
    if unknown:
        raise NotAllowedError("Pop points go only to alliance players of this campaign.",
                              code="wrong_side", field="shares")
    try:
        share = share_pop_points(
            granted=Fraction(campaign.pop_pool),
            shares={str(pk): Fraction(v) for pk, v in shares.items()},
        )
    except PopError as exc:
        raise RuleViolationError(str(exc), code="over_shared", field="shares") from exc
    for key, amount in share.shares.items():
        m = players[int(key)]
        m.pop_points += _decimal(amount)
        m.save(update_fields=["pop_points"])
    campaign.pop_pool = _decimal(share.kept)
    campaign.save(update_fields=["pop_pool"])
    record_event(
        campaign=campaign, kind=EventKind.POP_POINTS_SHARED, actor=user, phase=phase,
        side=chief.side,
        summary=f"{user.public_name} shared pop points: "
        + ", ".join(f"{players[int(k)].user.public_name} {format_fraction(v)}"
                    for k, v in share.shares.items())
        + f"; {format_fraction(share.kept)} kept.",
        payload={"shares": {k: format_fraction(v) for k, v in share.shares.items()},
                 "kept": format_fraction(share.kept)},
    )
    return {pk: players[pk].pop_points for pk in players}


@transaction.atomic
def pops_buy(
    *, user: User, campaign: Campaign, unit_type: UnitType, count: int, hex: str
) -> list[Unit]:
    """A player buys pops of one of their unit types at cost, to appear in a pop hex at the
    start of the next scout phase (§5). Commanders get their level rolled now."""
    campaign = lock_campaign(campaign)
    player = require_alliance_player(user=user, campaign=campaign)
    phase = _running_phase(campaign)
    player = Membership.objects.select_for_update().select_related("user").get(pk=player.pk)
    own = {t.name: t for t in UnitType.objects.filter(owner=player)}
    chosen = next((t for t in own.values() if t.pk == unit_type.pk), None)
    if chosen is None and unit_type.name in own:
        # An ally's design named like one of the player's: the rules look types up by name.
        raise RuleViolationError(
            f"{unit_type.name!r} is another player's unit type, not one of yours; pops can "
            "only be of your existing types (§5).",
            code="not_your_unit_type")
    try:
        purchase = buy_pops(
            orders=[PopOrder(unit_type=chosen.name if chosen else unit_type.name, count=count,
                             hex=parse_label(hex.strip().upper()))],
            unit_types={name: unit_stats(t) for name, t in own.items()},
            pop_points=Fraction(player.pop_points),
            pop_hexes=[parse_label(h) for h in campaign.pop_hexes],
        )
    except (PopError, ValueError) as exc:
        text = str(exc)
        code = ("not_your_unit_type" if "not one of your" in text else "not_a_pop_hex"
                if "pop hexes" in text else "not_enough_pop_points" if "you have" in text
                else "invalid_field")
        raise RuleViolationError(text, code=code) from exc
    assert chosen is not None
    line = purchase.lines[0]
    dice = phase_dice(phase)
    existing = Unit.objects.filter(unit_type=chosen).count()
    is_commander = unit_stats(chosen).has(Special.COMMANDER)
    units = []
    for i in range(1, count + 1):
        name = f"{chosen.name} {existing + i}"
        level = (roll_commander_level(dice, purpose=f"commander level of {name} "
                                      f"({player.user.username})") if is_commander else None)
        units.append(Unit(campaign=campaign, side_id=chosen.side_id, owner=player,
                          unit_type=chosen, name=name, current_hits=chosen.hits,
                          commander_level=level, pop_hex=format_label(line.hex),
                          popped=True))
    Unit.objects.bulk_create(units)
    rolls = store_phase_rolls(phase, dice)
    player.pop_points = _decimal(purchase.points_left)
    player.save(update_fields=["pop_points"])
    record_event(
        campaign=campaign, kind=EventKind.POPS_BOUGHT, actor=user, phase=phase,
        side=player.side,
        summary=f"{user.public_name} bought {count} × {chosen.name} for "
        f"{format_fraction(purchase.total)} pop points; they appear in "
        f"{format_label(line.hex)} at the next scout phase.",
        payload={"unit_type": chosen.pk, "count": count, "hex": format_label(line.hex),
                 "cost": format_fraction(purchase.total), "units": [u.pk for u in units],
                 "points_left": format_fraction(purchase.points_left),
                 "rolls": roll_payload(rolls)},
    )
    return units

