"""Ancient Foes 2 command: who starts, leaders' two orders (the second on 3+) within 20 cm,
and the initiative bands must take without orders."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from rules.ancient_foes.battlefield import (
    COMMAND_RANGE_CM,
    AnyBattlefield,
    BandUnit,
    Battlefield,
    Cm,
    FieldBand,
    check_apart,
    cm_json,
    in_fighting_range,
)
from rules.ancient_foes.combat import DIE, OrderError, can_defeat, fire_modifiers
from rules.ancient_foes.units import derive_stats
from rules.dice import Dice, DiceError, Roll

__all__ = [
    "LEADER_FLEE_TARGET",
    "ORDERS_PER_TURN",
    "SECOND_ORDER_TARGET",
    "Action",
    "FirstPlayer",
    "InitiativeDecision",
    "InitiativeSituation",
    "OrderKind",
    "OrderOutcome",
    "OrderRequest",
    "first_player",
    "give_orders",
    "in_command_range",
    "take_initiative",
]

ORDERS_PER_TURN = 2
SECOND_ORDER_TARGET = 3
LEADER_FLEE_TARGET = 2


class OrderKind(enum.StrEnum):
    FIRE = "fire"
    MOVE = "move"
    FIGHT = "fight"
    CHANGE_FORMATION = "change_formation"
    TURN = "turn"


def _roll(dice: Dice, purpose: str) -> Roll:
    try:
        dice.roll(DIE, purpose)
    except DiceError as exc:
        raise OrderError(f"The D6 for {purpose!r} could not be rolled: {exc}") from exc
    return dice.rolls[-1]


# ---------------------------------------------------------------------------
# Who starts


@dataclass(frozen=True, kw_only=True)
class FirstPlayer:
    """The player who starts the battle, and every D6 rolled to decide it."""

    player: str
    dice: tuple[Roll, ...]

    def as_dict(self) -> dict[str, object]:
        return {"first_player": self.player}


def first_player(players: Sequence[str], *, dice: Dice) -> FirstPlayer:
    """Each player rolls a D6; the highest starts. Players tied for highest roll again."""
    if len(players) < 2 or len(set(players)) != len(players):
        raise OrderError("Deciding who starts needs two or more players with different names.")
    rolling = list(players)
    rolls: list[Roll] = []
    attempt = 1
    while len(rolling) > 1:
        values = {}
        for p in rolling:
            roll = _roll(dice, f"who starts: {p}" + (f" (roll-off {attempt})" if attempt > 1
                                                       else ""))
            rolls.append(roll)
            values[p] = roll.value
        best = max(values.values())
        rolling = [p for p in rolling if values[p] == best]
        attempt += 1
    return FirstPlayer(player=rolling[0], dice=tuple(rolls))


# ---------------------------------------------------------------------------
# Orders


def in_command_range(leader: BandUnit, band: FieldBand, battlefield: AnyBattlefield) -> bool:
    """A band is in a leader's command range when any of its units is within 20 cm of him."""
    return any(
        battlefield.distance_cm(leader.hex, u.hex) <= COMMAND_RANGE_CM for u in band.units
    )


@dataclass(frozen=True, kw_only=True)
class OrderRequest:
    """An order a leader gives to a band."""

    band: FieldBand
    order: OrderKind


@dataclass(frozen=True, kw_only=True)
class OrderOutcome:
    """Whether an order was given: the first always is, the second needs a D6 of 3+."""

    band: str
    order: OrderKind
    number: int
    distance_cm: Cm
    roll: Roll | None
    succeeded: bool

    def explain(self) -> str:
        where = f"{self.band} is {self.distance_cm} cm away (command range {COMMAND_RANGE_CM} cm)"
        if self.roll is None:
            return f"order {self.number} ({self.order.value}) to {self.band}: given; {where}"
        verdict = "given" if self.succeeded else "fails"
        return (
            f"order {self.number} ({self.order.value}) to {self.band}: D6 {self.roll.value}, needs"
            f" {SECOND_ORDER_TARGET}+: {verdict}; {where}"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "band": self.band,
            "order": self.order.value,
            "number": self.number,
            "distance_cm": cm_json(self.distance_cm),
            "roll": None if self.roll is None else self.roll.value,
            "needs": None if self.roll is None else SECOND_ORDER_TARGET,
            "succeeded": self.succeeded,
            "explanation": self.explain(),
        }


def give_orders(
    *, leader: BandUnit, orders: Sequence[OrderRequest], battlefield: AnyBattlefield,
    dice: Dice
) -> tuple[OrderOutcome, ...]:
    """A leader's orders of one turn, in the order given.

    At most two; every ordered band must have a unit within the leader's 20 cm command range;
    only a band of more than one unit can change formation. The first order is always carried
    out; the second only on a D6 of 3 or more.
    """
    if not leader.unit_type.leader:
        raise OrderError(f"{leader.name} is not a leader; only leaders give orders.")
    if not orders:
        raise OrderError("A leader gives one or two orders; none were given.")
    if len(orders) > ORDERS_PER_TURN:
        raise OrderError(
            f"{leader.name} is given {len(orders)} orders; a leader can give two orders in a turn."
        )
    out: list[OrderOutcome] = []
    for number, request in enumerate(orders, start=1):
        band = request.band
        dist = min(battlefield.distance_cm(leader.hex, u.hex) for u in band.units)
        if dist > COMMAND_RANGE_CM:
            raise OrderError(
                f"{band.name} is {dist} cm from {leader.name}; a leader's command range is"
                f" {COMMAND_RANGE_CM} cm, so it cannot take his orders."
            )
        if request.order is OrderKind.CHANGE_FORMATION and len(band.units) < 2:
            raise OrderError(
                f"{band.name} is a single unit; only a band of more than one unit can change"
                " formation."
            )
        roll = None
        succeeded = True
        if number == ORDERS_PER_TURN:
            roll = _roll(dice, f"second order: {leader.name} to {band.name}")
            succeeded = roll.value >= SECOND_ORDER_TARGET
        out.append(OrderOutcome(band=band.name, order=request.order, number=number,
                                distance_cm=dist, roll=roll, succeeded=succeeded))
    return tuple(out)


# ---------------------------------------------------------------------------
# Initiative


@dataclass(frozen=True, kw_only=True)
class InitiativeSituation:
    """A band at the initiative step, and what it needs to know of the field.

    `leaders`: its own side's leaders on the field. `acted_in_last_two_turns`: it acted in
    either of its player's last two turns. `lost_units`: it lost units in the opposing player's
    turn. `wishes_to_flee`: for a leader in fighting range, the player wants him to flee.
    """

    band: FieldBand
    enemies: tuple[FieldBand, ...]
    leaders: tuple[BandUnit, ...] = ()
    acted_in_last_two_turns: bool = False
    lost_units: bool = False
    wishes_to_flee: bool = False
    battlefield: AnyBattlefield = field(default_factory=Battlefield)

    def __post_init__(self) -> None:
        check_apart([self.band, *self.enemies])


@dataclass(frozen=True, kw_only=True)
class Action:
    """Something the band must do by initiative; `targets` are the bands it may choose among."""

    kind: str
    targets: tuple[str, ...] = ()
    distance_cm: int | None = None
    detail: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"action": self.kind, "targets": list(self.targets),
                "distance_cm": self.distance_cm, "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class InitiativeDecision:
    """Whether the band takes initiative, why, what it must do, and any D6 rolled."""

    band: str
    eligible: bool
    reason: str
    actions: tuple[Action, ...]
    dice: tuple[Roll, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "band": self.band,
            "takes_initiative": self.eligible and bool(self.actions),
            "eligible": self.eligible,
            "reason": self.reason,
            "actions": [a.as_dict() for a in self.actions],
        }


def _commanded(situation: InitiativeSituation) -> bool:
    own = {u.name for u in situation.band.units}
    # A leader does not command himself: only other leaders put a leader's band in range.
    return any(in_command_range(leader, situation.band, situation.battlefield)
               for leader in situation.leaders if leader.name not in own)


def _can_beat(band: FieldBand, enemy: FieldBand) -> bool:
    return any(can_defeat(fighter=u.unit_type, target=e.unit_type, fighting_band=band)
               for u in band.units for e in enemy.units)


def _in_firing_range(band: FieldBand, enemy: FieldBand, battlefield: AnyBattlefield) -> bool:
    for u in band.units:
        stats = derive_stats(u.unit_type)
        if stats.range is None:
            continue
        for e in enemy.units:
            mods = fire_modifiers(firer=u, target=e, target_band_size=len(enemy.units),
                                  firing_band=band, battlefield=battlefield)
            if battlefield.distance_cm(u.hex, e.hex) <= stats.range + sum(
                m.value for m in mods.range
            ):
                return True
    return False


def take_initiative(situation: InitiativeSituation, *, dice: Dice) -> InitiativeDecision:
    """What a band must do by initiative (without an order).

    Only a band out of command range, or that did not act in its player's last two turns, takes
    initiative, and then it must. In this order: a band with gaps from losses closes them first;
    then, in fighting range of an enemy, a leader may try to flee (D6 2+) and otherwise fights;
    a band none of whose units can kill any unit of any enemy band in fighting range even on a 6
    falls back its full move; otherwise it fights one of the bands it can beat; out of fighting
    range, it fires at a band in range of any of its units.
    """
    band, field_ = situation.band, situation.battlefield
    commanded = _commanded(situation)
    if commanded and situation.acted_in_last_two_turns:
        return InitiativeDecision(
            band=band.name, eligible=False, actions=(),
            reason="it is within a leader's command range and acted in its player's last two"
            " turns, so it waits for orders",
        )
    reason = ("it is out of every leader's command range" if not commanded
              else "it did not act in its player's last two turns")
    actions: list[Action] = []
    rolls: list[Roll] = []
    if situation.lost_units and field_.gaps(band.hexes()):
        actions.append(Action(kind="change_formation",
                              detail="it lost units and has gaps: it must close them"))
    in_contact = [e for e in situation.enemies
                  if in_fighting_range(band.units, e.units, field_)]
    if in_contact and band.is_leader:
        fled = False
        detail = "the leader must fight"
        if situation.wishes_to_flee:
            roll = _roll(dice, f"initiative: {band.name} flees")
            rolls.append(roll)
            fled = roll.value >= LEADER_FLEE_TARGET
            if fled:
                actions.append(Action(kind="flee", distance_cm=band.speed,
                                      detail=f"D6 {roll.value} ({LEADER_FLEE_TARGET}+): the"
                                      " leader turns around and moves his full distance"))
            else:
                detail = (f"D6 {roll.value} (needs {LEADER_FLEE_TARGET}+): the flight fails,"
                          " he must fight")
        if not fled:
            actions.append(Action(kind="fight", targets=tuple(e.name for e in in_contact),
                                  detail=detail))
    elif in_contact:
        beatable = [e for e in in_contact if _can_beat(band, e)]
        if not beatable:
            actions.append(Action(
                kind="fall_back", distance_cm=band.speed,
                detail="none of its units can kill any unit of the enemy in fighting range even"
                " on a 6: it moves straight back its full move (movement modifiers apply)",
            ))
        else:
            actions.append(Action(kind="fight", targets=tuple(e.name for e in beatable),
                                  detail="an enemy band is in fighting range: it must fight"))
    else:
        targets = [e for e in situation.enemies if _in_firing_range(band, e, field_)]
        if targets:
            actions.append(Action(kind="fire", targets=tuple(e.name for e in targets),
                                  detail="an enemy band is in firing range: it must fire"))
    if not actions:
        reason += "; nothing obliges it to act"
    return InitiativeDecision(band=band.name, eligible=True, reason=reason,
                              actions=tuple(actions), dice=tuple(rolls))
