"""Every change of a battle campaign: creating it from a scenario, joining a side, the start,
orders, the proxy for a late side, and the phases a battle moves through.

Each service takes the campaign's lock first (`lock_campaign`), like every service of the
campaign's life. A battle's phase is one window of the engine: the sides acting and the step
they act in. Orders are applied at once with the phase's dice (committed when the phase opened,
revealed when it closes); the phase closes and the next opens when the engine's window moves
on; at its deadline the server gives the proxy's orders for the sides still acting
(docs/battles.md, "Deadlines and the proxy")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.access import membership_of, require_gm
from campaigns.deadline_clock import phase_deadline
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.battle.catalogue import battle_scenario
from campaigns.games.battle.systems import SYSTEMS, System, system_of
from campaigns.models import (
    Battle,
    BattleEntry,
    Campaign,
    CampaignStatus,
    DiceRoll,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    Side,
    SideKind,
    Turn,
)
from campaigns.services.common import (
    check_creation_rate,
    lock_campaign,
    members_of,
    new_invite_code,
    notify,
    record_event,
    roll_payload,
    setup_dice,
    store_setup_rolls,
)
from rules.battle import BattleError
from rules.dice import Roll, SeededDice, commitment, new_seed
from rules.jsonio import InputError

# The proxy gives orders until the window moves on; a step never needs more than this.
PROXY_LIMIT = 200
KINDS = (SideKind.ALLIANCE, SideKind.OPPOSITION)


class SplitDice:
    """The phase's dice, except the rolls the system keeps secret until the battle ends (a
    deck's shuffle): those come from the campaign's setup dice. `rolls` is every roll in the
    order made, as the engines read it to name an event's dice."""

    def __init__(self, *, public: SeededDice, secret: SeededDice, system: System) -> None:
        self.public, self.secret, self._system = public, secret, system
        self._rolls: list[Roll] = []

    def roll(self, sides: int, purpose: str) -> int:
        source = self.secret if self._system.is_secret(purpose) else self.public
        value = source.roll(sides, purpose)
        self._rolls.append(source.rolls[-1])
        return value

    @property
    def rolls(self) -> tuple[Roll, ...]:
        return tuple(self._rolls)


def _battle(campaign: Campaign) -> Battle:
    battle = Battle.objects.filter(campaign=campaign).first()
    if battle is None:
        raise WrongStateError(f"{campaign.name!r} is not a battle campaign.", code="not_battle")
    return battle


def _input_error(exc: InputError | BattleError, prefix: str) -> RuleViolationError:
    """The engine's refusal as the campaign's error, naming the field (`orders[1].path[0]`,
    `scenario.sides[0].forces[2].hex`, `settings.max_turns`)."""
    if isinstance(exc, BattleError):
        field = exc.field
        if prefix and not field.startswith(prefix):
            field = f"{prefix}.{field}" if field else prefix
        return RuleViolationError(str(exc), code=exc.rule or "battle_rule",
                                  field=field or prefix or None)
    return RuleViolationError(f"{exc.field}: {exc.message}" if exc.field else exc.message,
                              code="invalid_input", field=exc.field or prefix or None)


def _known_system(system: str) -> System:
    if system not in SYSTEMS:
        raise RuleViolationError(
            f"A battle is played with {', '.join(s.name for s in SYSTEMS.values())}; "
            f"not {system!r}.", code="unknown_system", field="system")
    return system_of(system)


def validate_scenario(system: System, scenario: Any, settings: Any) -> str:
    """The engine starts the battle on throwaway dice: a scenario it refuses is refused here,
    naming the field (`scenario.sides[1].forces[0].hex`). Returns what the engine says it
    deployed ("5 forces deployed on a 9 × 7 map, 1 in reserve")."""
    if not isinstance(scenario, dict):
        raise RuleViolationError("The scenario is a JSON object.", code="invalid_input",
                                 field="scenario")
    if not isinstance(settings, dict):
        raise RuleViolationError("The settings are a JSON object.", code="invalid_input",
                                 field="settings")
    sides = scenario.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        raise RuleViolationError("A battle by forum has exactly two sides (scenario.sides).",
                                 code="two_sides", field="scenario.sides")
    try:
        started = system.engine.start(scenario=scenario, settings=settings,
                                      dice=SeededDice(seed="validation"))
    except InputError as exc:
        raise _input_error(exc, "scenario") from None
    except BattleError as exc:
        raise _input_error(exc, "scenario") from None
    return started.events[0].text.rstrip(".") + "." if started.events else "Ready."


def battle_scenario_check(*, system: str, scenario: Any,
                          settings: Any = None) -> dict[str, str]:
    """Whether the engine of `system` would start a battle from this scenario (the scenario
    editor's "Check"): `{"system", "summary"}`, or the refusal naming the rule and the field.
    Nothing is stored."""
    summary = validate_scenario(_known_system(system), scenario,
                                {} if settings is None else settings)
    return {"system": system, "summary": summary}


@transaction.atomic
def battle_create(*, gm: User, system: str, scenario_key: str = "",
                  scenario: dict[str, Any] | None = None, settings: dict[str, Any] | None = None,
                  name: str = "", phase_hours: int | None = None) -> Campaign:
    """A battle campaign in setup: from a demo scenario (`scenario_key`) or a scenario the GM
    wrote (`scenario`), with the system's settings over the scenario's. The two sides of the
    scenario become the campaign's sides (the first the alliance's row, the second the
    opposition's); the creating user is its GM."""
    rules = _known_system(system)
    check_creation_rate(gm)
    demo = None
    if scenario is None:
        demo = battle_scenario(scenario_key)
        if demo is None or demo.system != system:
            raise RuleViolationError(f"There is no {rules.name} scenario {scenario_key!r}.",
                                     code="unknown_scenario", field="scenario_key")
        scenario = demo.scenario
    merged = {**(demo.settings if demo else {}), **(settings or {})}
    validate_scenario(rules, scenario, merged)
    if phase_hours is not None and not 1 <= phase_hours <= 24 * 14:
        raise RuleViolationError("A phase lasts 1 to 336 hours.", code="phase_hours",
                                 field="phase_hours")
    seed = new_seed()
    campaign = Campaign.objects.create(
        name=(name.strip() or (demo.name if demo else f"{rules.name} battle"))[:120],
        ruleset_key=system, scenario_key=demo.key if demo else "", entry_hex="",
        invite_code=new_invite_code(), setup_dice_seed=seed,
        setup_dice_commitment=commitment(seed),
        phase_hours=phase_hours or int(str(django_settings.CAMPAIGN_DEFAULTS["phase_hours"])),
        description=(demo.description if demo else "")[:2000],
    )
    for kind, side in zip(KINDS, scenario["sides"], strict=True):
        Side.objects.create(campaign=campaign, kind=kind, name=str(side["name"])[:64])
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    Battle.objects.create(campaign=campaign, system=system,
                          scenario_key=demo.key if demo else "", scenario=scenario,
                          settings=merged)
    record_event(
        campaign=campaign, kind=EventKind.CAMPAIGN_CREATED, actor=gm,
        summary=f"{gm.public_name} created the {rules.name} battle {campaign.name!r}"
        + (f" from the scenario {demo.name!r}." if demo else " from their own scenario."),
        payload={"system": system, "scenario": demo.key if demo else "",
                 "setup_dice_commitment": campaign.setup_dice_commitment})
    return campaign


@transaction.atomic
def battle_join(*, user: User, invite_code: str, side: str) -> Membership:
    """Join the battle of an invite code on the side named (before the start)."""
    found = Campaign.objects.filter(invite_code=invite_code.strip()).first()
    campaign = None if found is None else lock_campaign(found)
    if campaign is None or campaign.invite_code != invite_code.strip():
        raise NotAllowedError("This invite code does not belong to any campaign.",
                              code="invalid_invite", field="invite_code")
    _battle(campaign)
    if Membership.objects.filter(campaign=campaign, user=user).exists():
        raise WrongStateError(f"{user.public_name} is already a member of {campaign.name!r}.",
                              code="already_member")
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("Players can join only before the battle starts.",
                              code="not_setup")
    chosen = Side.objects.filter(campaign=campaign, name=side).first()
    if chosen is None:
        names = " or ".join(Side.objects.filter(campaign=campaign).order_by("kind")
                            .values_list("name", flat=True))
        raise RuleViolationError(f"Choose a side of this battle: {names}.", code="unknown_side",
                                 field="side")
    if campaign.player_cap is not None and Membership.objects.filter(
            campaign=campaign, role=Role.PLAYER).count() >= campaign.player_cap:
        raise WrongStateError(f"The battle is full: at most {campaign.player_cap} players.",
                              code="campaign_full")
    membership = Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER,
                                           side=chosen)
    event = record_event(campaign=campaign, kind=EventKind.PLAYER_JOINED, actor=user,
                         summary=f"{user.public_name} joined {chosen.name}.",
                         payload={"membership": membership.pk, "side": chosen.name})
    notify(event=event, users=members_of(campaign, gm=True))
    return membership


@transaction.atomic
def battle_start(*, user: User, campaign: Campaign) -> Campaign:
    """The GM starts the battle once each side has a player: the engine deploys the forces
    (a deck's shuffle with the setup dice, revealed when the battle ends; the rest with the
    first phase's dice) and the first phase opens for the sides that act first."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    battle = _battle(campaign)
    if campaign.status != CampaignStatus.SETUP:
        raise WrongStateError("The battle has already started.", code="not_setup")
    empty = [s.name for s in Side.objects.filter(campaign=campaign).order_by("kind")
             if not Membership.objects.filter(side=s, role=Role.PLAYER).exists()]
    if empty:
        raise WrongStateError(f"Each side needs a player to start; none yet for "
                              f"{' and '.join(empty)}.", code="no_players")
    system = system_of(battle.system)
    now = timezone.now()
    campaign.status = CampaignStatus.RUNNING
    campaign.version += 1
    campaign.save(update_fields=["status", "version"])
    record_event(campaign=campaign, kind=EventKind.CAMPAIGN_STARTED, actor=user,
                 summary=f"The battle {campaign.name!r} has started. The dice that shuffle a "
                 "deck are revealed when it ends; every other die when its phase closes.",
                 payload={"setup_dice_commitment": campaign.setup_dice_commitment})
    phase = _new_phase(campaign, now)
    dice = _dice(campaign, phase, system)
    result = system.engine.start(scenario=battle.scenario, settings=battle.settings, dice=dice)
    battle.state = system.engine.state_to_json(result.state)
    _record(campaign, battle, system, phase, dice, side="", by=user, proxy=False, orders=[],
            events=[e.to_json() for e in result.events], now=now)
    _open(campaign, battle, system, phase, result.state, now, actor=user)
    return campaign


def _new_phase(campaign: Campaign, now: datetime) -> Phase:
    number = (Turn.objects.filter(campaign=campaign).order_by("-number")
              .values_list("number", flat=True).first() or 0) + 1
    turn = Turn.objects.create(campaign=campaign, number=number)
    seed = new_seed()
    return Phase.objects.create(
        campaign=campaign, turn=turn, kind=PhaseKind.BATTLE, status=PhaseStatus.OPEN,
        opened_at=now, deadline_at=phase_deadline(campaign, PhaseKind.BATTLE, now),
        dice_seed=seed, dice_commitment=commitment(seed))


def _dice(campaign: Campaign, phase: Phase, system: System) -> SplitDice:
    return SplitDice(public=SeededDice(seed=phase.dice_seed, first_number=phase.dice_next_number),
                     secret=setup_dice(campaign), system=system)


def _players(campaign: Campaign, sides: Sequence[str]) -> list[Membership]:
    return list(Membership.objects.filter(campaign=campaign, role=Role.PLAYER,
                                          side__name__in=list(sides))
                .select_related("user", "side").order_by("pk"))


def _open(campaign: Campaign, battle: Battle, system: System, phase: Phase, state: Any,
          now: datetime, *, actor: User | None) -> None:
    """The phase just created waits for the engine's window (`state`: the engine's state):
    status rows for the acting sides' players, the event, the notifications."""
    battle.window = system.window(state, battle.state or {})
    battle.save(update_fields=["state", "window"])
    acting = list(battle.window["acting"])
    players = _players(campaign, acting)
    PlayerPhaseStatus.objects.bulk_create([PlayerPhaseStatus(phase=phase, membership=p)
                                           for p in players])
    what = system.describe(battle.state or {})
    event = record_event(
        campaign=campaign, kind=EventKind.PHASE_OPENED, actor=actor, phase=phase,
        summary=f"{what} (step {phase.turn.number}); orders due by "
        f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC.",
        payload={"turn": phase.turn.number, "kind": phase.kind, "acting": acting,
                 "deadline_at": phase.deadline_at.isoformat(),
                 "dice_commitment": phase.dice_commitment})
    notify(event=event, users=[p.user for p in players] + members_of(campaign, gm=True),
           kind=NotificationKind.PHASE_OPENED,
           message=f"{campaign.name}: {what} — your orders are due by "
           f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC.")


# What the dice page says a roll was for when some side did not see what it was rolled for
# (its value stays, to check against the revealed seed; the log tells all when the battle ends).
UNSEEN_PURPOSE = "out of sight (the battle's log tells it when the battle ends)"


def _store_rolls(campaign: Campaign, phase: Phase, dice: SplitDice,
                 unseen: frozenset[int] = frozenset()) -> None:
    rolls = list(dice.public.rolls)
    DiceRoll.objects.bulk_create([
        DiceRoll(campaign=campaign, phase=phase, number=r.number,
                 purpose=UNSEEN_PURPOSE if r.number in unseen else r.purpose,
                 sides=r.sides, value=r.value) for r in rolls])
    if rolls:
        phase.dice_next_number = dice.public.next_number
        phase.save(update_fields=["dice_next_number"])
    if dice.secret.rolls:
        store_setup_rolls(campaign, dice.secret)


def public_text(system: System, events: Sequence[dict[str, Any]], sides: Sequence[str],
                viewer: str | None) -> list[str]:
    """The events' sentences as `viewer` may read them (None: everyone; the GM reads the
    engine's own words): lines about another side's hidden cards are reworded."""
    out = []
    for e in events:
        text = str(e.get("text", ""))
        if system.hidden_lines is not None:
            for other in sides:
                if other != viewer:
                    text = system.hidden_lines(text, other)
        out.append(text)
    return out


def fog_hidden(system: System, before: Any, after: Any, before_json: dict[str, Any],
               after_json: dict[str, Any], events: Sequence[dict[str, Any]]
               ) -> dict[str, list[int]]:
    """Under fog of war, the events each side did not see: `{side: [index, …]}`. An event is
    hidden from a side when it names an enemy piece that side did not see before the orders,
    or does not see after them (a piece gone from the field, eliminated, was seen going). The
    engine says who sees what (`Engine.sees`); nothing is hidden without fog."""
    engine = system.engine
    owners = {str(p["id"]): str(p["side"]) for p in before_json.get(system.pieces) or []}
    still = {str(p["id"]) for p in after_json.get(system.pieces) or []}
    out: dict[str, list[int]] = {}
    for side in [str(s["name"]) for s in before_json.get("sides") or []]:
        seen_before, seen_after = engine.sees(before, side), engine.sees(after, side)
        if seen_before is None or seen_after is None:
            continue
        unseen = sorted((p for p, owner in owners.items() if owner != side and (
            p not in seen_before or (p in still and p not in seen_after))),
            key=len, reverse=True)
        if not unseen:
            continue
        names = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, unseen)) + r")(?![\w-])")
        hidden = [i for i, e in enumerate(events) if names.search(str(e.get("text", "")))]
        if hidden:
            out[side] = hidden
    return out


UNSEEN_LINE = "Out of sight."


def _record(campaign: Campaign, battle: Battle, system: System, phase: Phase, dice: SplitDice,
            *, side: str, by: User | None, proxy: bool, orders: list[dict[str, Any]],
            events: list[dict[str, Any]], now: datetime,
            hidden: dict[str, list[int]] | None = None) -> BattleEntry:
    hidden = hidden or {}
    # What any side did not see is left out of what every member reads (the event, the
    # forum's system post, the dice page); each side reads its own in the battle's log.
    unseen = {i for indexes in hidden.values() for i in indexes}
    unseen_rolls = frozenset(int(r["number"]) for i in unseen for r in events[i].get("rolls", []))
    _store_rolls(campaign, phase, dice, unseen_rolls)
    number = (BattleEntry.objects.filter(battle=battle).order_by("-number")
              .values_list("number", flat=True).first())
    entry = BattleEntry.objects.create(
        battle=battle, number=0 if number is None else number + 1, phase=phase, side=side,
        by=by, proxy=proxy, orders=orders, events=events, hidden=hidden, created_at=now)
    sides = list(Side.objects.filter(campaign=campaign).values_list("name", flat=True))
    lines = [UNSEEN_LINE if i in unseen else line
             for i, line in enumerate(public_text(system, events, sides, None))]
    lines = [line for i, line in enumerate(lines)
             if not (line == UNSEEN_LINE and i and lines[i - 1] == UNSEEN_LINE)]
    who = ("The battle begins" if not side else
           f"{side} (the server as proxy, late)" if proxy else side)
    public = [r for r in dice.public.rolls if r.number not in unseen_rolls]
    record_event(
        campaign=campaign, kind=EventKind.BATTLE_ORDERS, actor=by, phase=phase,
        summary=f"{who}: " + " ".join(line if line.endswith(".") else f"{line}." for line in lines),
        payload={"entry": entry.number, "side": side, "proxy": proxy,
                 "rolls": roll_payload(public)})
    return entry


def _late_sides(battle: Battle) -> list[str]:
    return list(battle.window.get("acting") or [])


def _move_on(campaign: Campaign, battle: Battle, system: System, phase: Phase, state: Any,
             now: datetime, *, actor: User | None, reason: str) -> Phase | None:
    """After orders (`state`: the engine's state they left): the battle's end, the same phase
    going on (the sides done are marked), or the phase closing and the next opening. Returns
    the open phase (None once over)."""
    verdict = system.engine.outcome(state)
    if verdict is not None:
        _close(campaign, phase, now, actor=actor, reason="the battle is over")
        _finish(campaign, battle, verdict.winner, verdict.reason, dict(verdict.scores), now,
                actor=actor)
        return None
    new = system.window(state, battle.state or {})
    old = battle.window
    done = [s for s in old.get("acting", []) if s not in new["acting"]]
    same = ({k: v for k, v in new.items() if k != "acting"}
            == {k: v for k, v in old.items() if k != "acting"}
            and new["acting"] and set(new["acting"]) <= set(old.get("acting", [])))
    if same:
        if done:
            PlayerPhaseStatus.objects.filter(phase=phase, membership__side__name__in=done,
                                             done_at__isnull=True).update(done_at=now)
            battle.window = new
            battle.save(update_fields=["window"])
        return phase
    _close(campaign, phase, now, actor=actor, reason=reason)
    nxt = _new_phase(campaign, now)
    _open(campaign, battle, system, nxt, state, now, actor=actor)
    return nxt


def _close(campaign: Campaign, phase: Phase, now: datetime, *, actor: User | None,
           reason: str) -> None:
    PlayerPhaseStatus.objects.filter(phase=phase, done_at__isnull=True).update(done_at=now)
    phase.status = PhaseStatus.CLOSED
    phase.closed_at = now
    phase.version += 1
    phase.save(update_fields=["status", "closed_at", "version"])
    record_event(
        campaign=campaign, kind=EventKind.PHASE_CLOSED, actor=actor, phase=phase,
        summary=f"Step {phase.turn.number} is closed ({reason}); its dice seed is revealed.",
        payload={"dice_seed": phase.dice_seed, "dice_commitment": phase.dice_commitment,
                 "reason": reason})


def _finish(campaign: Campaign, battle: Battle, winner: str | None, reason: str,
            scores: dict[str, int], now: datetime, *, actor: User | None) -> None:
    side = Side.objects.filter(campaign=campaign, name=winner).first() if winner else None
    campaign.status = CampaignStatus.FINISHED
    campaign.winner = side.kind if side else ""
    campaign.finished_at = now
    campaign.setup_dice_revealed_at = now
    campaign.version += 1
    campaign.save(update_fields=["status", "winner", "finished_at", "setup_dice_revealed_at",
                                 "version"])
    battle.outcome = {"winner": winner, "reason": reason, "scores": scores}
    battle.window = {}
    battle.save(update_fields=["outcome", "window"])
    score = ", ".join(f"{k} {v}" for k, v in scores.items())
    event = record_event(
        campaign=campaign, kind=EventKind.CAMPAIGN_FINISHED, actor=actor,
        summary=(f"{winner} wins the battle" if winner else "The battle is a draw")
        + f": {reason}" + (f" (score: {score})" if score else "") + ". The setup dice, "
        "which shuffled the decks, are revealed.",
        payload={"winner": winner, "reason": reason, "scores": scores})
    notify(event=event, users=[m.user for m in Membership.objects.filter(campaign=campaign)
                               .select_related("user")])


def _apply(campaign: Campaign, battle: Battle, system: System, phase: Phase, side: str,
           raw: Sequence[Any], *, by: User | None, proxy: bool, now: datetime) -> Any:
    """Apply one side's orders with the phase's dice, or refuse them all (nothing changes);
    returns the engine's state they leave."""
    engine = system.engine
    orders_json = []
    for i, order in enumerate(raw):
        if not isinstance(order, dict):
            raise RuleViolationError("An order is a JSON object.", code="invalid_input",
                                     field=f"orders[{i}]")
        given = order.get("side")
        if given not in (None, "", side):
            raise NotAllowedError(f"You give orders for {side}, not {given}.",
                                  code="wrong_side", field=f"orders[{i}].side")
        orders_json.append({**order, "side": side})
    before_json = battle.state or {}
    try:
        orders = engine.orders_from_json(orders_json)
        dice = _dice(campaign, phase, system)
        before = engine.state_from_json(before_json)
        result = engine.step(state=before, orders=orders, dice=dice)
    except (InputError, BattleError) as exc:
        raise _input_error(exc, "") from None
    battle.state = engine.state_to_json(result.state)
    battle.save(update_fields=["state"])
    events = [e.to_json() for e in result.events]
    _record(campaign, battle, system, phase, dice, side=side, by=by, proxy=proxy,
            orders=orders_json, events=events, now=now,
            hidden=fog_hidden(system, before, result.state, before_json, battle.state, events))
    return result.state


def _running(campaign: Campaign) -> tuple[Battle, System, Phase]:
    battle = _battle(campaign)
    if campaign.status != CampaignStatus.RUNNING:
        raise WrongStateError(
            "The battle is over." if campaign.status == CampaignStatus.FINISHED else
            "The battle is not running (not started yet, or paused by the GM).",
            code="not_running")
    phase = Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).select_related(
        "turn").first()
    if phase is None:
        raise WrongStateError("No phase is open.", code="no_open_phase")
    return battle, system_of(battle.system), phase


@transaction.atomic
def battle_orders(*, user: User, campaign: Campaign, orders: Sequence[Any]) -> Phase | None:
    """A player's orders for their side, applied at once in order (all or none): each must be
    one the system allows now (the engine's rule is named when it is not). Returns the phase
    open afterwards (None once the battle is over)."""
    campaign = lock_campaign(campaign)
    membership = membership_of(user=user, campaign=campaign)
    battle, system, phase = _running(campaign)
    if membership.role != Role.PLAYER or membership.side is None:
        raise NotAllowedError("Only a side's players give its orders; the GM may act for a "
                              "late side as proxy.", code="not_player")
    if not isinstance(orders, list | tuple) or not orders:
        raise RuleViolationError("Give at least one order.", code="invalid_input",
                                 field="orders")
    side = membership.side.name
    any_time = {f.kind for f in system.forms if f.any_time}
    if side not in battle.window.get("acting", []) and not all(
            isinstance(o, dict) and o.get("kind") in any_time for o in orders):
        raise RuleViolationError(
            f"{side} does not act now: {system.describe(battle.state or {})}.", code="turn",
            field="orders")
    now = timezone.now()
    state = _apply(campaign, battle, system, phase, side, orders, by=user, proxy=False,
                   now=now)
    return _move_on(campaign, battle, system, phase, state, now, actor=user,
                    reason=f"{side} acted")


def proxy_acts(campaign: Campaign, *, now: datetime, actor: User | None,
               reason: str) -> Phase | None:
    """The server gives the proxy's orders (systems.py: end the activation, the default
    choice, decline, draw, pass, release) for every side still acting in the open phase, until
    the window moves on (campaign locked)."""
    battle, system, phase = _running(campaign)
    late = _late_sides(battle)
    for _ in range(PROXY_LIMIT):
        acting = [s for s in battle.window.get("acting", []) if s in late]
        if not acting:
            break
        side = acting[0]
        state = _apply(campaign, battle, system, phase, side,
                       system.proxy(battle.state or {}, side), by=actor, proxy=True, now=now)
        nxt = _move_on(campaign, battle, system, phase, state, now, actor=actor, reason=reason)
        if nxt is None or nxt.pk != phase.pk:
            return nxt
    return phase


@transaction.atomic
def battle_proxy(*, user: User, campaign: Campaign, reason: str) -> Phase | None:
    """The GM has the server act as proxy for the sides still acting now (a player who
    vanished), with a reason everyone reads."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    reason = reason.strip()
    if not reason:
        raise RuleViolationError("Say why the proxy acts (players read it).", code="reason",
                                 field="reason")
    battle, system, phase = _running(campaign)
    record_event(campaign=campaign, kind=EventKind.DEADLINE_REACHED, actor=user, phase=phase,
                 summary=f"Step {phase.turn.number}: the GM has the proxy act for "
                 f"{', '.join(_late_sides(battle))}: {reason}",
                 payload={"reason": reason, "late": _late_sides(battle)})
    return proxy_acts(campaign, now=timezone.now(), actor=user, reason=f"the GM: {reason}")


def battle_deadline(campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
    """The deadline of a battle's phase has come (campaign locked, by the sweep): the sides
    still acting are late and the server acts for them as proxy. Returns what it did."""
    battle = _battle(campaign)
    late = _late_sides(battle)
    PlayerPhaseStatus.objects.filter(phase=phase, done_at__isnull=True).update(late=True)
    phase.deadline_processed_at = now
    phase.version += 1
    phase.save(update_fields=["deadline_processed_at", "version"])
    event = record_event(
        campaign=campaign, kind=EventKind.DEADLINE_REACHED, phase=phase,
        summary=f"Step {phase.turn.number}: the deadline has passed; {', '.join(late)} late: "
        "the server acts as proxy.", payload={"late": late})
    notify(event=event, users=[m.user for m in _players(campaign, late)],
           kind=NotificationKind.DEADLINE_REACHED,
           message=f"{campaign.name}: you were late for step {phase.turn.number}; the server "
           "gave the proxy's orders.")
    proxy_acts(campaign, now=now, actor=None, reason="deadline passed")
    return ["proxy"]
