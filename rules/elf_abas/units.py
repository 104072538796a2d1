"""ELF ABAS units: the six kinds with their figures, move, dice and Shrug; forces; attack dice."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    get_bool,
    get_choice,
    get_int,
    get_str,
    only_fields,
)

__all__ = [
    "UNIT_KINDS",
    "AttackDice",
    "DiceTerm",
    "Force",
    "Kind",
    "Profile",
    "PROFILES",
    "UnitError",
    "attack_dice",
    "force_from_dict",
    "force_to_dict",
    "move_allowance",
    "unit_errors",
]


class UnitError(ValueError):
    """A unit, force or attack that breaks an ELF ABAS rule."""


class Kind(enum.StrEnum):
    LEADER = "leader"
    HERO = "hero"
    FOOT = "foot"
    MISSILE = "missile"
    SCOUT = "scout"
    MOUNTED = "mounted"


# The kinds that are Units (a body of figures); Leader and Hero are single figures that
# stand alone or are attached to a Unit.
UNIT_KINDS = (Kind.FOOT, Kind.MISSILE, Kind.SCOUT, Kind.MOUNTED)


@dataclass(frozen=True, kw_only=True)
class Profile:
    """A kind as "Building Your Force" lists it: full figures, move, dice per figure, Shrug."""

    kind: Kind
    figures: int
    move: int
    dice_per_figure: int
    shrug: int
    note: str


PROFILES: dict[Kind, Profile] = {
    Kind.LEADER: Profile(kind=Kind.LEADER, figures=1, move=1, dice_per_figure=1, shrug=2,
                         note="Cancels every Retreat and Panic of the Unit it is attached to."),
    Kind.HERO: Profile(kind=Kind.HERO, figures=1, move=1, dice_per_figure=2, shrug=4,
                       note="Rolls 2D."),
    Kind.FOOT: Profile(kind=Kind.FOOT, figures=6, move=1, dice_per_figure=1, shrug=0,
                       note="1D per figure."),
    Kind.MISSILE: Profile(kind=Kind.MISSILE, figures=6, move=1, dice_per_figure=1, shrug=0,
                          note="Fires figures minus hexes to the target (target hex included)."),
    Kind.SCOUT: Profile(kind=Kind.SCOUT, figures=4, move=1, dice_per_figure=1, shrug=0,
                        note="Move 1 and attack, or give up the attack to move 2."),
    Kind.MOUNTED: Profile(kind=Kind.MOUNTED, figures=6, move=3, dice_per_figure=1, shrug=0,
                          note="Cannot enter dense or built-up terrain."),
}

SCOUT_MOVE_WITHOUT_ATTACK = 2
SPENT_MOVE = 1


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 six", "2 sixes": a count with its noun."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def unit_errors(kind: Kind, figures: int) -> list[str]:
    """The rules a unit of `kind` with `figures` figures breaks, as sentences."""
    profile = PROFILES[kind]
    if kind in (Kind.LEADER, Kind.HERO):
        if figures != 1:
            return [f"A {kind} is a single figure, not {figures}."]
        return []
    if not 1 <= figures <= profile.figures:
        return [
            f"A {kind} Unit has 1 to {profile.figures} figures ({profile.figures} at full"
            f" strength), not {figures}."
        ]
    return []


@dataclass(frozen=True, kw_only=True)
class Force:
    """What one side has in a hex: at most one Unit, with up to one Leader and one Hero.

    `unit` is None when a Leader and/or Hero stand alone (or when everything is gone).
    Fatigue and Spent belong to the whole force: attached figures share the Unit's state.
    """

    name: str = ""
    unit: Kind | None = None
    figures: int = 0
    leader: bool = False
    hero: bool = False
    fatigue: int = 0
    spent: bool = False

    def __post_init__(self) -> None:
        label = self.label
        if self.unit is None:
            if self.figures != 0:
                raise UnitError(f"{label} has {self.figures} figures but no Unit.")
        else:
            if self.unit not in UNIT_KINDS:
                raise UnitError(
                    f"{label}: a {self.unit} is a figure attached to a Unit, not a Unit;"
                    " use leader/hero instead."
                )
            full = PROFILES[self.unit].figures
            if not 1 <= self.figures <= full:
                raise UnitError(
                    f"{label}: a {self.unit} Unit has 1 to {full} figures, not {self.figures}."
                )
        if self.fatigue < 0:
            raise UnitError(f"{label} has {self.fatigue} Fatigue; Fatigue is 0 or more.")

    @property
    def label(self) -> str:
        return repr(self.name) if self.name else "This force"

    @property
    def eliminated(self) -> bool:
        """Nothing is left: no Unit figure, no Leader, no Hero."""
        return self.unit is None and not self.leader and not self.hero

    @property
    def total_figures(self) -> int:
        return self.figures + int(self.leader) + int(self.hero)


@dataclass(frozen=True, kw_only=True)
class DiceTerm:
    """One term of an attack's dice: what it is for and how many dice (negative: a minus)."""

    label: str
    dice: int


@dataclass(frozen=True, kw_only=True)
class AttackDice:
    """The dice a force rolls against one target, term by term; `total` is never below 0."""

    terms: tuple[DiceTerm, ...]
    total: int

    def explain(self) -> str:
        parts = " ".join(
            f"{'+' if t.dice >= 0 else '−'} {abs(t.dice)}D ({t.label})" for t in self.terms
        ).removeprefix("+ ")
        raw = sum(t.dice for t in self.terms)
        floor = "" if raw == self.total else f" = {raw}D, at least 0D"
        return f"{parts}{floor} = {self.total}D"


def attack_dice(force: Force, *, hexes: int = 1, partial_sight: bool = False) -> AttackDice:
    """The dice `force` rolls at a target `hexes` away (1 = adjacent; the target hex counts).

    One die per figure (Hero 2, Leader 1); a Missile Unit fires its figures minus the hexes to
    the target, and the attached Leader and Hero add their dice only against an adjacent
    target; −1D for a partly blocked line of sight (Missile fire); −1D per Fatigue; a Spent
    force rolls nothing.
    """
    if force.eliminated:
        raise UnitError(f"{force.label} has no figures left and cannot attack.")
    if hexes < 1:
        raise UnitError(f"The target is {hexes} hexes away; an attack reaches 1 hex or more.")
    if force.spent:
        return AttackDice(terms=(DiceTerm(label="Spent: no attack", dice=0),), total=0)
    missile = force.unit is Kind.MISSILE
    if hexes > 1 and not missile:
        raise UnitError(
            f"{force.label} has no Missile Unit, so it can only attack an adjacent hex,"
            f" not one {hexes} hexes away."
        )
    if partial_sight and not missile:
        raise UnitError(
            "A partly blocked line of sight only matters for Missile fire (−1D);"
            f" {force.label} has no Missile Unit."
        )
    terms: list[DiceTerm] = []
    if force.unit is not None:
        per = PROFILES[force.unit].dice_per_figure
        label = f"{force.figures} {force.unit} figures"
        terms.append(DiceTerm(label=label, dice=force.figures * per))
        if missile:
            terms.append(DiceTerm(label=f"{hexes} hexes to the target", dice=-hexes))
    if hexes == 1:
        if force.leader:
            terms.append(DiceTerm(label="Leader", dice=PROFILES[Kind.LEADER].dice_per_figure))
        if force.hero:
            terms.append(DiceTerm(label="Hero", dice=PROFILES[Kind.HERO].dice_per_figure))
    elif not terms:
        raise UnitError(f"{force.label} cannot attack a hex {hexes} away.")
    if partial_sight:
        terms.append(DiceTerm(label="line of sight partly blocked", dice=-1))
    if force.fatigue:
        terms.append(DiceTerm(label=f"{force.fatigue} Fatigue", dice=-force.fatigue))
    return AttackDice(terms=tuple(terms), total=max(0, sum(t.dice for t in terms)))


def move_allowance(force: Force, *, attacking: bool = True) -> int:
    """Hexes the force may move this activation: its move (a Scout 2 when it does not attack,
    a Spent force 1) minus 1 per Fatigue, never below 0."""
    if force.eliminated:
        raise UnitError(f"{force.label} has no figures left and cannot move.")
    if force.spent:
        base = SPENT_MOVE
    elif force.unit is None:
        base = PROFILES[Kind.LEADER].move
    elif force.unit is Kind.SCOUT and not attacking:
        base = SCOUT_MOVE_WITHOUT_ATTACK
    else:
        base = PROFILES[force.unit].move
    return max(0, base - force.fatigue)


# ---------------------------------------------------------------------------
# JSON

FORCE_FIELDS = ("name", "unit", "figures", "leader", "hero", "fatigue", "spent")


def force_from_dict(raw: object, path: str, *, extra: tuple[str, ...] = ()) -> Force:
    """A Force from {"name", "unit", "figures", "leader", "hero", "fatigue", "spent"}.

    `figures` defaults to the Unit's full strength; a force needs at least one figure.
    """
    obj = as_object(raw, path)
    only_fields(obj, FORCE_FIELDS + extra, path)
    unit: Kind | None = None
    if obj.get("unit") is not None:
        unit = Kind(get_choice(obj, "unit", [k.value for k in UNIT_KINDS], path))
    figures = 0
    if unit is not None:
        full = PROFILES[unit].figures
        figures = get_int(obj, "figures", path, default=full, minimum=1, maximum=full)
    elif obj.get("figures") is not None:
        raise InputError(_child(path, "figures"), "figures need a unit (foot, missile, …).")
    force = Force(
        name=get_str(obj, "name", path, default=""),
        unit=unit,
        figures=figures,
        leader=get_bool(obj, "leader", path),
        hero=get_bool(obj, "hero", path),
        fatigue=get_int(obj, "fatigue", path, default=0, minimum=0),
        spent=get_bool(obj, "spent", path),
    )
    if force.eliminated:
        raise InputError(path or "input", "a force needs a unit, a leader or a hero.")
    return force


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def force_to_dict(force: Force) -> dict[str, object]:
    return {
        "name": force.name,
        "unit": force.unit.value if force.unit is not None else None,
        "figures": force.figures,
        "leader": force.leader,
        "hero": force.hero,
        "fatigue": force.fatigue,
        "spent": force.spent,
        "eliminated": force.eliminated,
    }


def profile_to_dict(profile: Profile) -> dict[str, object]:
    return {
        "kind": profile.kind.value,
        "full_figures": profile.figures,
        "move": profile.move,
        "dice_per_figure": profile.dice_per_figure,
        "shrug": profile.shrug,
        "note": profile.note,
    }


def unit_type_from_dict(data: JSONObject) -> tuple[Kind, int]:
    """(kind, figures) from {"kind", "figures"}; figures default to full strength."""
    only_fields(data, {"kind", "figures"}, "")
    kind = Kind(get_choice(data, "kind", [k.value for k in Kind]))
    figures = get_int(data, "figures", default=PROFILES[kind].figures)
    return kind, figures
