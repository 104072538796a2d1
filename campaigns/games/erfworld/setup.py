"""Services before the first turn: create from a scenario, join, army design, election, start."""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld.army import army_entries
from campaigns.games.erfworld.fetch import is_commander
from campaigns.games.erfworld.phases import open_phase
from campaigns.games.erfworld.scenarios import ScenarioStack, load_scenario, load_usable_scenario
from campaigns.models import (
    Campaign,
    CampaignStatus,
    EventKind,
    Fortification,
    FortificationKind,
    Map,
    Membership,
    PhaseKind,
    Role,
    Side,
    SideKind,
    Stack,
    Turn,
    Unit,
    UnitType,
)
from campaigns.services.common import (
    check_creation_rate,
    lock_campaign,
    members_of,
    membership_of,
    new_invite_code,
    notify,
    record_event,
    require_alliance_player,
    require_gm,
    roll_payload,
    setup_dice,
    side_of,
    store_setup_rolls,
)
from rules.dice import commitment, new_seed
from rules.erfworld.types import Special, UnitStats
from rules.erfworld.units import (
    ArmyEntry,
    army_cost,
    format_fraction,
    roll_commander_level,
    unit_cost,
    unit_stats_from_dict,
    validate_army,
    validate_unit_type,
)

# ---------------------------------------------------------------------------
# Creation and joining


@transaction.atomic
def campaign_create_from_scenario(*, gm: User, scenario_key: str, name: str = "",
                                  vary_opposition: bool = False) -> Campaign:
    """A campaign in setup from a scenario file: sides, map, fortifications, the opposition.

    The creating user becomes its GM. Opposition commanders' levels are rolled with the
    campaign's setup dice, like every commander's. With `vary_opposition`, each opposition
    stack that names candidate hexes starts in one drawn at random (varied_start_hexes), so
    a player who read the scenario does not know where its forces stand.
    """
    check_creation_rate(gm)
    scenario = load_usable_scenario(scenario_key, gm.pk)
    defaults: dict[str, Any] = dict(settings.CAMPAIGN_DEFAULTS)
    defaults.update(scenario.settings)
    seed = new_seed()
    campaign = Campaign.objects.create(
        name=name.strip() or scenario.name,
        ruleset_key=scenario.ruleset,
        scenario_key=scenario.key,
        entry_hex=scenario.entry_hex,
        pop_hexes=list(scenario.pop_hexes),
        victory_hex=scenario.victory_hex,
        invite_code=new_invite_code(),
        setup_dice_seed=seed,
        setup_dice_commitment=commitment(seed),
        **defaults,
    )
    sides: dict[str, Side] = {
        kind: Side.objects.create(campaign=campaign, kind=kind, name=scenario.side_names[kind])
        for kind in (SideKind.ALLIANCE, SideKind.OPPOSITION)
    }
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    Map.objects.create(
        campaign=campaign, cols=scenario.cols, rows=scenario.rows, terrain=dict(scenario.terrain)
    )
    forts: list[Fortification] = []
    for f in scenario.fortifications:
        owner = sides[f.owner]
        if f.tower is not None:
            forts.append(Fortification(campaign=campaign, hex=f.hex, kind=FortificationKind.TOWER,
                                       hits=f.tower, starting_hits=f.tower, owner=owner))
        for direction, hits in f.walls.items():
            forts.append(Fortification(campaign=campaign, hex=f.hex, kind=FortificationKind.WALL,
                                       direction=direction, hits=hits, starting_hits=hits,
                                       owner=owner))
    Fortification.objects.bulk_create(forts)

    opposition = sides[SideKind.OPPOSITION]
    types = {
        t.name: UnitType.objects.create(
            campaign=campaign, side=opposition, owner=None, name=t.name,
            hits=t.stats.hits, attack=t.stats.attack, defence=t.stats.defence,
            move=t.stats.move, specials=sorted(s.value for s in t.stats.specials),
            cost=_decimal(unit_cost(t.stats)),
        )
        for t in scenario.unit_types
    }
    dice = setup_dice(campaign)
    counters: dict[str, int] = {}
    units: list[Unit] = []
    hexes = (varied_start_hexes(scenario.stacks, _PLACEMENT_RANDOM) if vary_opposition
             else [s.hex for s in scenario.stacks])
    for s, start in zip(scenario.stacks, hexes, strict=True):
        stack = Stack.objects.create(campaign=campaign, side=opposition, hex=start)
        position = 0
        for type_name, count in s.units:
            unit_type = types[type_name]
            for _ in range(count):
                counters[type_name] = counters.get(type_name, 0) + 1
                unit_name = f"{type_name} {counters[type_name]}"
                units.append(_new_unit(unit_type, unit_name, dice, stack=stack, position=position))
                position += 1
    Unit.objects.bulk_create(units)
    rolls = store_setup_rolls(campaign, dice)
    record_event(
        campaign=campaign,
        kind=EventKind.CAMPAIGN_CREATED,
        actor=gm,
        summary=f"{gm.public_name} created the campaign {campaign.name!r} from the scenario "
        f"{scenario.name!r}.",
        payload={
            "scenario": scenario.key,
            "setup_dice_commitment": campaign.setup_dice_commitment,
            "rolls": roll_payload(rolls),
        },
    )
    return campaign


# Placements are drawn from the operating system's randomness: no seed, nothing to predict.
_PLACEMENT_RANDOM = random.SystemRandom()


def varied_start_hexes(stacks: Sequence[ScenarioStack], rng: random.Random) -> list[str]:
    """One start hex per stack, in order: a stack without candidates keeps its hex; the others
    draw among (hex, *candidates), never two of them in one hex when that can be avoided.
    Stacks draw in a random order, each uniformly among the hexes still free, so stacks that
    share their options (three fort garrisons that may swap, say) get a uniform permutation."""
    for _ in range(100):
        order = list(range(len(stacks)))
        rng.shuffle(order)
        taken: set[str] = set()
        chosen: dict[int, str] = {}
        for i in order:
            stack = stacks[i]
            if not stack.candidates:
                chosen[i] = stack.hex
                continue
            free = [h for h in (stack.hex, *stack.candidates) if h not in taken]
            if not free:
                break
            chosen[i] = rng.choice(free)
            taken.add(chosen[i])
        else:
            return [chosen[i] for i in range(len(stacks))]
    # More varied stacks than distinct hexes: each draws on its own.
    return [rng.choice((s.hex, *s.candidates)) for s in stacks]


@transaction.atomic
def opposition_shuffle(*, user: User, campaign: Campaign) -> list[str]:
    """The GM draws the opposition's start hexes again (setup only), among the scenario's
    candidates; returns the new hexes, stack by stack."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("The opposition can be shuffled only before the campaign starts.",
                              code="not_setup")
    scenario = load_scenario(campaign.scenario_key)
    stacks = list(Stack.objects.filter(campaign=campaign, side__kind=SideKind.OPPOSITION)
                  .order_by("created_seq", "pk"))
    if len(stacks) != len(scenario.stacks):
        raise RuleViolationError("The scenario has changed since this campaign was made: its "
                                 "stacks no longer match, so they cannot be shuffled.",
                                 code="scenario_changed")
    if not any(s.candidates for s in scenario.stacks):
        raise RuleViolationError("The scenario names no candidate hexes for its opposition "
                                 "stacks: there is nothing to shuffle.", code="no_candidates")
    hexes = varied_start_hexes(scenario.stacks, _PLACEMENT_RANDOM)
    for stack, start in zip(stacks, hexes, strict=True):
        stack.hex = start
    Stack.objects.bulk_update(stacks, ["hex"])
    campaign.version += 1
    campaign.save(update_fields=["version"])
    return hexes


def _level_purpose(unit_name: str, owner: Membership | None) -> str:
    whose = owner.user.username if owner is not None else "opposition"
    return f"commander level of {unit_name} ({whose})"


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def _new_unit(
    unit_type: UnitType,
    name: str,
    dice: Any,
    *,
    stack: Stack | None = None,
    position: int = 0,
    owner: Membership | None = None,
) -> Unit:
    level = None
    if is_commander(unit_type):
        level = roll_commander_level(dice, purpose=_level_purpose(name, owner))
    return Unit(
        campaign_id=unit_type.campaign_id, side_id=unit_type.side_id, owner=owner,
        unit_type=unit_type, name=name, current_hits=unit_type.hits, commander_level=level,
        stack=stack, position=position,
    )


@transaction.atomic
def campaign_join(*, user: User, invite_code: str) -> Membership:
    """Join the campaign of an invite code as an alliance player (before the start)."""
    found = Campaign.objects.filter(invite_code=invite_code.strip()).first()
    campaign = None if found is None else lock_campaign(found)
    if campaign is None or campaign.invite_code != invite_code.strip():
        raise NotAllowedError("This invite code does not belong to any campaign.",
                              code="invalid_invite", field="invite_code")
    if Membership.objects.filter(campaign=campaign, user=user).exists():
        raise WrongStateError(f"{user.public_name} is already a member of {campaign.name!r}.",
                              code="already_member")
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("Players can join only before the campaign starts.",
                              code="not_setup")
    if campaign.player_cap is not None and Membership.objects.filter(
            campaign=campaign, role=Role.PLAYER).count() >= campaign.player_cap:
        raise WrongStateError(f"The campaign is full: at most {campaign.player_cap} players "
                              "(the GM's player cap).", code="campaign_full")
    alliance = side_of(campaign, SideKind.ALLIANCE)
    membership = Membership.objects.create(
        campaign=campaign, user=user, role=Role.PLAYER, side=alliance
    )
    event = record_event(
        campaign=campaign, kind=EventKind.PLAYER_JOINED, actor=user,
        summary=f"{user.public_name} joined the alliance.",
        payload={"membership": membership.pk},
    )
    notify(event=event, users=members_of(campaign, gm=True))
    return membership


# ---------------------------------------------------------------------------
# Army design


def _require_designing(campaign: Campaign, membership: Membership) -> None:
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError(
            "Unit types and armies cannot change once the campaign has started.",
            code="not_setup",
        )
    if membership.army_ready_at is not None:
        raise WrongStateError(
            "Your army is marked ready; mark it not ready before changing it.",
            code="army_ready",
        )


def _stats_from_input(
    *, hits: int, attack: int, defence: int, move: int, specials: list[str], name: str
) -> UnitStats:
    if not name.strip():
        raise RuleViolationError("A unit type needs a name.", code="invalid_field", field="name")
    try:
        stats = unit_stats_from_dict(
            {"hits": hits, "attack": attack, "defence": defence, "move": move,
             "specials": list(specials)}
        )
    except ValueError as exc:
        raise RuleViolationError(str(exc), code="invalid_field",
                                 field=getattr(exc, "field", None)) from exc
    errors = validate_unit_type(stats, name=name)
    if errors:
        raise RuleViolationError(" ".join(errors), code="invalid_unit_type")
    return stats


def _check_army(
    campaign: Campaign, entries: list[ArmyEntry], *, require_commander: bool
) -> None:
    """Raise unless the ruleset accepts the army; before "ready", a commander is not yet needed."""
    budget, max_types = campaign.points_budget, campaign.max_unit_types
    errors = validate_army(entries, budget=budget, max_types=max_types)
    if not require_commander:
        # The errors an empty army has are the "needs a commander" ones: not required yet.
        baseline = set(validate_army([], budget=budget, max_types=max_types))
        errors = [e for e in errors if e not in baseline]
    if not errors:
        return
    if len({e.name for e in entries}) > max_types:
        code = "too_many_unit_types"
    elif army_cost(entries) > budget:
        code = "over_budget"
    elif require_commander and not any(
        e.count > 0 and e.stats.has(Special.COMMANDER) for e in entries
    ):
        code = "no_commander"
    else:
        code = "invalid_army"
    raise RuleViolationError(" ".join(errors), code=code)


@transaction.atomic
def unit_type_create(
    *,
    user: User,
    campaign: Campaign,
    name: str,
    hits: int,
    attack: int,
    defence: int,
    move: int,
    specials: list[str],
) -> UnitType:
    """Design a unit type for the player's army (before the start; at most max_unit_types)."""
    campaign = lock_campaign(campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    _require_designing(campaign, membership)
    name = name.strip()
    stats = _stats_from_input(hits=hits, attack=attack, defence=defence, move=move,
                              specials=specials, name=name)
    entries = army_entries(membership)
    if any(e.name == name for e in entries.values()):
        raise RuleViolationError(f"You already have a unit type named {name!r}.",
                                 code="duplicate_name", field="name")
    _check_army(campaign, [*entries.values(), ArmyEntry(name=name, stats=stats, count=0)],
                require_commander=False)
    assert membership.side is not None  # an alliance player
    unit_type = UnitType.objects.create(
        campaign=campaign, side=membership.side, owner=membership, name=name,
        hits=hits, attack=attack, defence=defence, move=move,
        specials=sorted(s.value for s in stats.specials), cost=_decimal(unit_cost(stats)),
    )
    record_event(
        campaign=campaign, kind=EventKind.UNIT_TYPE_CREATED, actor=user,
        side=membership.side,
        summary=f"{user.public_name} designed the unit type {name!r} "
        f"({format_fraction(unit_cost(stats))} points).",
        payload={"unit_type": unit_type.pk, "stats": _stats_payload(unit_type)},
    )
    return unit_type


def _stats_payload(unit_type: UnitType) -> dict[str, Any]:
    return {
        "name": unit_type.name, "hits": unit_type.hits, "attack": unit_type.attack,
        "defence": unit_type.defence, "move": unit_type.move,
        "specials": list(unit_type.specials), "cost": str(unit_type.cost),
    }


def _own_unit_type(campaign: Campaign, membership: Membership, unit_type: UnitType) -> UnitType:
    locked = UnitType.objects.select_for_update().filter(pk=unit_type.pk, campaign=campaign).first()
    if locked is None or locked.owner_id != membership.pk:
        raise NotAllowedError("You can change only your own unit types.", code="not_owner")
    return locked


@transaction.atomic
def unit_type_update(
    *,
    user: User,
    unit_type: UnitType,
    name: str,
    hits: int,
    attack: int,
    defence: int,
    move: int,
    specials: list[str],
) -> UnitType:
    """Change a unit type's design; its bought units follow (commander levels rolled or cleared)."""
    campaign = lock_campaign(unit_type.campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    unit_type = _own_unit_type(campaign, membership, unit_type)
    _require_designing(campaign, membership)
    name = name.strip()
    stats = _stats_from_input(hits=hits, attack=attack, defence=defence, move=move,
                              specials=specials, name=name)
    entries = army_entries(membership)
    if any(e.name == name for pk, e in entries.items() if pk != unit_type.pk):
        raise RuleViolationError(f"You already have a unit type named {name!r}.",
                                 code="duplicate_name", field="name")
    old = entries[unit_type.pk]
    entries[unit_type.pk] = ArmyEntry(name=name, stats=stats, count=old.count)
    _check_army(campaign, list(entries.values()), require_commander=False)
    was_commander = is_commander(unit_type)
    before = _stats_payload(unit_type)
    unit_type.name, unit_type.hits, unit_type.attack = name, hits, attack
    unit_type.defence, unit_type.move = defence, move
    unit_type.specials = sorted(s.value for s in stats.specials)
    unit_type.cost = _decimal(unit_cost(stats))
    unit_type.save()
    units = list(unit_type.units.order_by("created_seq", "pk"))
    dice = setup_dice(campaign)
    for i, unit in enumerate(units, start=1):
        unit.name = f"{name} {i}"
        unit.current_hits = hits
        if is_commander(unit_type) and not was_commander:
            unit.commander_level = roll_commander_level(
                dice, purpose=_level_purpose(unit.name, membership)
            )
        elif not is_commander(unit_type):
            unit.commander_level = None
    Unit.objects.bulk_update(units, ["name", "current_hits", "commander_level"])
    rolls = store_setup_rolls(campaign, dice)
    record_event(
        campaign=campaign, kind=EventKind.UNIT_TYPE_UPDATED, actor=user, side=membership.side,
        summary=f"{user.public_name} changed the unit type {before['name']!r}"
        + (f" (now {name!r})" if name != before["name"] else "") + ".",
        payload={"unit_type": unit_type.pk, "before": before,
                 "after": _stats_payload(unit_type), "rolls": roll_payload(rolls)},
    )
    return unit_type


@transaction.atomic
def unit_type_delete(*, user: User, unit_type: UnitType) -> None:
    """Delete a unit type with the units bought of it (their points come back)."""
    campaign = lock_campaign(unit_type.campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    unit_type = _own_unit_type(campaign, membership, unit_type)
    _require_designing(campaign, membership)
    stats = _stats_payload(unit_type)
    payload = {"unit_type": unit_type.pk, "stats": stats,
               "units_deleted": unit_type.units.count()}
    unit_type.units.all().delete()
    unit_type.delete()
    record_event(
        campaign=campaign, kind=EventKind.UNIT_TYPE_DELETED, actor=user, side=membership.side,
        summary=f"{user.public_name} deleted the unit type {stats['name']!r}.",
        payload=payload,
    )


@transaction.atomic
def units_buy(*, user: User, unit_type: UnitType, count: int) -> list[Unit]:
    """Buy `count` units of one of the player's types within the budget; commanders get a
    level rolled (d10) with the campaign's setup dice, every roll recorded."""
    campaign = lock_campaign(unit_type.campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    unit_type = _own_unit_type(campaign, membership, unit_type)
    _require_designing(campaign, membership)
    if count < 1:
        raise RuleViolationError(f"Buy at least one unit, not {count}.",
                                 code="invalid_field", field="count")
    entries = army_entries(membership)
    old = entries[unit_type.pk]
    entries[unit_type.pk] = ArmyEntry(name=old.name, stats=old.stats, count=old.count + count)
    _check_army(campaign, list(entries.values()), require_commander=False)
    dice = setup_dice(campaign)
    units = [
        _new_unit(unit_type, f"{unit_type.name} {old.count + i}", dice, owner=membership)
        for i in range(1, count + 1)
    ]
    Unit.objects.bulk_create(units)
    rolls = store_setup_rolls(campaign, dice)
    cost = unit_cost(old.stats) * count
    levels = "".join(
        f" {u.name} rolled commander level {u.commander_level}."
        for u in units if u.commander_level is not None
    )
    record_event(
        campaign=campaign, kind=EventKind.UNITS_BOUGHT, actor=user, side=membership.side,
        summary=f"{user.public_name} bought {count} × {unit_type.name} for "
        f"{format_fraction(cost)} points.{levels}",
        payload={"unit_type": unit_type.pk, "count": count, "units": [u.pk for u in units],
                 "cost": format_fraction(cost), "rolls": roll_payload(rolls)},
    )
    return units


@transaction.atomic
def army_mark_ready(*, user: User, campaign: Campaign) -> Membership:
    """Declare the army finished: the ruleset checks budget, unit types and a commander."""
    campaign = lock_campaign(campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    _require_designing(campaign, membership)
    entries = list(army_entries(membership).values())
    _check_army(campaign, entries, require_commander=True)
    membership.army_ready_at = timezone.now()
    membership.save(update_fields=["army_ready_at"])
    event = record_event(
        campaign=campaign, kind=EventKind.ARMY_READY, actor=user,
        summary=f"{user.public_name}'s army is ready ({format_fraction(army_cost(entries))} "
        f"of {campaign.points_budget} points).",
        payload={"membership": membership.pk, "points": format_fraction(army_cost(entries))},
    )
    notify(event=event, users=members_of(campaign, gm=True))
    return membership


@transaction.atomic
def army_mark_not_ready(*, user: User, campaign: Campaign) -> Membership:
    campaign = lock_campaign(campaign)
    membership = require_alliance_player(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("Armies cannot change once the campaign has started.",
                              code="not_setup")
    if membership.army_ready_at is None:
        raise WrongStateError("Your army is not marked ready.", code="army_not_ready")
    membership.army_ready_at = None
    membership.save(update_fields=["army_ready_at"])
    record_event(campaign=campaign, kind=EventKind.ARMY_NOT_READY, actor=user,
                 summary=f"{user.public_name}'s army is no longer ready.",
                 payload={"membership": membership.pk})
    return membership


# ---------------------------------------------------------------------------
# Chief Warlord


def _alliance_players(campaign: Campaign) -> list[Membership]:
    return list(
        Membership.objects.filter(
            campaign=campaign, role=Role.PLAYER, side__kind=SideKind.ALLIANCE
        ).select_related("user").order_by("pk")
    )


def _make_chief_warlord(campaign: Campaign, membership: Membership) -> None:
    Membership.objects.filter(campaign=campaign, is_chief_warlord=True).update(
        is_chief_warlord=False
    )
    Membership.objects.filter(pk=membership.pk).update(is_chief_warlord=True)
    membership.is_chief_warlord = True


@transaction.atomic
def chief_warlord_vote(*, user: User, campaign: Campaign, candidate: Membership) -> Membership:
    """Vote for an alliance player, or change one's vote. The election stays open, so players
    who join later vote too, until the GM closes it or starts the campaign, or until every
    expected player (the player cap, all seats taken) has voted; then the most votes win
    and a tie is settled by a setup die (election_decide)."""
    campaign = lock_campaign(campaign)
    voter = require_alliance_player(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("The Chief Warlord is elected before the first turn.",
                              code="not_setup")
    if Membership.objects.filter(campaign=campaign, is_chief_warlord=True).exists():
        raise WrongStateError("The alliance already has a Chief Warlord.",
                              code="chief_warlord_exists")
    players = _alliance_players(campaign)
    by_pk = {p.pk: p for p in players}
    if candidate.pk not in by_pk:
        raise NotAllowedError("Only an alliance player of this campaign can be Chief Warlord.",
                              code="invalid_candidate", field="candidate")
    candidate = by_pk[candidate.pk]
    Membership.objects.filter(pk=voter.pk).update(chief_warlord_vote=candidate)
    by_pk[voter.pk].chief_warlord_vote_id = candidate.pk
    record_event(
        campaign=campaign, kind=EventKind.CHIEF_WARLORD_VOTE, actor=user, side=voter.side,
        summary=f"{user.public_name} voted for {candidate.user.public_name} as Chief Warlord.",
        payload={"voter": voter.pk, "candidate": candidate.pk},
    )
    cap = campaign.player_cap
    if cap is not None and len(players) >= cap and all(
            p.chief_warlord_vote_id is not None for p in players):
        election_decide(campaign=campaign, players=players, actor=user,
                        why="every player has voted")
    return by_pk[voter.pk]


def election_decide(*, campaign: Campaign, players: list[Membership], actor: User | None,
                    why: str) -> Membership:
    """Close the election (campaign locked, votes cast): the most votes win; a tie is settled
    by a die of the campaign's setup dice among the tied, recorded and verifiable."""
    tally: dict[int, int] = {}
    for p in players:
        if p.chief_warlord_vote_id is not None:
            tally[p.chief_warlord_vote_id] = tally.get(p.chief_warlord_vote_id, 0) + 1
    by_pk = {p.pk: p for p in players}
    top = max(tally.values())
    tied = sorted((pk for pk, n in tally.items() if n == top), key=lambda pk: by_pk[pk].pk)
    votes = f"{top} of {len(players)} vote{'s' if len(players) != 1 else ''}"
    payload: dict[str, Any] = {"tally": {str(k): v for k, v in tally.items()}, "why": why}
    if len(tied) == 1:
        elected = by_pk[tied[0]]
        summary = (f"The election is closed ({why}): {elected.user.public_name} is elected "
                   f"Chief Warlord with {votes}.")
    else:
        names = [by_pk[pk].user.public_name for pk in tied]
        dice = setup_dice(campaign)
        value = dice.roll(len(tied), f"Chief Warlord tie between {', '.join(names)}")
        rolls = store_setup_rolls(campaign, dice)
        elected = by_pk[tied[value - 1]]
        payload["rolls"] = roll_payload(rolls)
        summary = (f"The election is closed ({why}): {' and '.join(names)} tied with {votes} "
                   f"each; the setup die (d{len(tied)}, roll {rolls[0].number}) came up "
                   f"{value}: {elected.user.public_name} is Chief Warlord.")
    _make_chief_warlord(campaign, elected)
    payload["chief_warlord"] = elected.pk
    event = record_event(campaign=campaign, kind=EventKind.CHIEF_WARLORD_ELECTED, actor=actor,
                         summary=summary, payload=payload)
    notify(event=event, users=[*(p.user for p in players), *members_of(campaign, gm=True)])
    return elected


@transaction.atomic
def deputy_choose(*, user: User, campaign: Campaign, membership: Membership) -> Membership:
    """The Chief Warlord (or the GM) chooses the deputy who stands in while the Chief Warlord
    is away or has gone quiet: another alliance player."""
    campaign = lock_campaign(campaign)
    actor = membership_of(user=user, campaign=campaign)
    if actor.role != Role.GM and not actor.is_chief_warlord:
        raise NotAllowedError("Only the Chief Warlord or the GM chooses the deputy.",
                              code="chief_warlord_only")
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign has ended.", code="finished")
    target = next((p for p in _alliance_players(campaign) if p.pk == membership.pk), None)
    if target is None:
        raise NotAllowedError("Only an alliance player of this campaign can be the deputy.",
                              code="invalid_candidate", field="membership")
    if target.is_chief_warlord:
        raise RuleViolationError("The Chief Warlord cannot be their own deputy.",
                                 code="invalid_candidate", field="membership")
    Membership.objects.filter(campaign=campaign, is_deputy=True).update(is_deputy=False)
    Membership.objects.filter(pk=target.pk).update(is_deputy=True)
    target.is_deputy = True
    record_event(campaign=campaign, kind=EventKind.CHIEF_WARLORD_APPOINTED, actor=user,
                 summary=f"{target.user.public_name} is the Chief Warlord's deputy: they stand "
                 "in while the Chief Warlord is away.", payload={"deputy": target.pk})
    return target


@transaction.atomic
def invite_regenerate(*, user: User, campaign: Campaign) -> Campaign:
    """A new invite link (GM, setup only): the old one stops working at once."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("Players join only before the start: there is no invite link "
                              "to renew.", code="not_setup")
    campaign.invite_code = new_invite_code()
    campaign.save(update_fields=["invite_code"])
    return campaign


@transaction.atomic
def election_close(*, user: User, campaign: Campaign) -> Membership:
    """The GM closes the Chief Warlord election: the most votes win, a tie goes to a die."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("The Chief Warlord is elected before the first turn.",
                              code="not_setup")
    if Membership.objects.filter(campaign=campaign, is_chief_warlord=True).exists():
        raise WrongStateError("The alliance already has a Chief Warlord.",
                              code="chief_warlord_exists")
    players = _alliance_players(campaign)
    if not any(p.chief_warlord_vote_id is not None for p in players):
        raise WrongStateError("Nobody has voted yet: wait for the votes, or appoint the Chief "
                              "Warlord.", code="no_votes")
    return election_decide(campaign=campaign, players=players, actor=user,
                           why="closed by the GM")


@transaction.atomic
def chief_warlord_appoint(*, user: User, campaign: Campaign, membership: Membership) -> Membership:
    """The GM appoints (or replaces) the Chief Warlord: settles a tie or overrules."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    target = (
        Membership.objects.select_related("user", "side")
        .filter(pk=membership.pk, campaign=campaign, role=Role.PLAYER,
                side__kind=SideKind.ALLIANCE)
        .first()
    )
    if target is None:
        raise NotAllowedError("Only an alliance player of this campaign can be Chief Warlord.",
                              code="invalid_candidate", field="membership")
    _make_chief_warlord(campaign, target)
    event = record_event(
        campaign=campaign, kind=EventKind.CHIEF_WARLORD_APPOINTED, actor=user,
        summary=f"The GM appointed {target.user.public_name} Chief Warlord.",
        payload={"chief_warlord": target.pk},
    )
    notify(event=event, users=[p.user for p in _alliance_players(campaign)])
    return target


# ---------------------------------------------------------------------------
# Start


@transaction.atomic
def campaign_start(*, user: User, campaign: Campaign) -> Campaign:
    """Start: every army ready and a Chief Warlord; each player's units form one stack at
    the entry hex; turn 1's scout phase opens with its dice commitment and a snapshot."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("The campaign has already started.", code="not_setup")
    players = _alliance_players(campaign)
    if not players:
        raise WrongStateError("The campaign needs at least one alliance player to start.",
                              code="no_players")
    not_ready = [p.user.public_name for p in players if p.army_ready_at is None]
    if not_ready:
        raise WrongStateError(
            f"Every army must be ready before the start; not ready: {', '.join(not_ready)}.",
            code="army_not_ready",
        )
    if not any(p.is_chief_warlord for p in players):
        if not any(p.chief_warlord_vote_id is not None for p in players):
            raise WrongStateError(
                "The alliance needs a Chief Warlord (elected, or appointed by the GM) to start.",
                code="no_chief_warlord")
        # Starting closes the election: the most votes win, a tie goes to a setup die.
        election_decide(campaign=campaign, players=players, actor=user,
                        why="the campaign starts")
        players = _alliance_players(campaign)
    alliance = side_of(campaign, SideKind.ALLIANCE)
    for player in players:
        units = list(Unit.objects.filter(owner=player)
                     .order_by("unit_type_id", "created_seq", "pk"))
        stack = Stack.objects.create(campaign=campaign, side=alliance, hex=campaign.entry_hex)
        for position, unit in enumerate(units):
            unit.stack, unit.position = stack, position
        Unit.objects.bulk_update(units, ["stack", "position"])
    now = timezone.now()
    campaign.status = CampaignStatus.RUNNING
    campaign.version += 1
    campaign.save(update_fields=["status", "version"])
    # The setup dice rolled the opposition's commander levels too, which the alliance may not
    # know: their seed is revealed to everyone when the campaign ends (engine.check_victory).
    event = record_event(
        campaign=campaign, kind=EventKind.CAMPAIGN_STARTED, actor=user,
        summary=f"The campaign {campaign.name!r} has started; the alliance enters at "
        f"{campaign.entry_hex}. The setup dice are revealed when the campaign ends.",
        payload={"setup_dice_commitment": campaign.setup_dice_commitment},
    )
    notify(event=event, users=[p.user for p in players])
    turn = Turn.objects.create(campaign=campaign, number=1)
    open_phase(campaign=campaign, turn=turn, kind=PhaseKind.SCOUT, now=now, actor=user)
    return campaign
