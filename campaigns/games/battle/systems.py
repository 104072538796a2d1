"""What the campaign server needs to know of each battle system beyond the `rules.battle`
contract: its order forms (the system's own controls), what the proxy orders for a late side,
which dice stay secret until the battle ends, which event lines another side may not read,
and how the moment a phase waits for is named.

The only module of the battle game that imports a rule system (`rules.elf_abas`,
`rules.quad`); the rest reaches the engines through `SYSTEMS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.battle import Engine
from rules.elf_abas.battle import ENGINE as ELF_ABAS_ENGINE
from rules.elf_abas.battle import MAX_MAP_SIDE as ELF_ABAS_MAX_SIDE
from rules.elf_abas.units import PROFILES as ELF_ABAS_PROFILES
from rules.elf_abas.units import UNIT_KINDS as ELF_ABAS_UNIT_KINDS
from rules.quad.battle import ENGINE as QUAD_ENGINE
from rules.quad.battle import MAX_MAP_SIDE as QUAD_MAX_SIDE
from rules.quad.units import MAX_QUALITY as QUAD_MAX_QUALITY
from rules.quad.units import MIN_QUALITY as QUAD_MIN_QUALITY
from rules.quad.units import Special as QuadSpecial

State = Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class Control:
    """One control of an order form, for the order's JSON field `name`. Kinds: `own` (one of
    the side's forces or units), `enemy` (a force or unit of another side), `hexes` (a path:
    hex labels, clicked on the map or typed), `hex`, `choice` (`choices`), `number`."""

    name: str
    label: str
    kind: str
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    help: str = ""


@dataclass(frozen=True, kw_only=True)
class OrderForm:
    """One kind of order as the page offers it: given while the battle is at one of `steps`
    (an empty tuple: at any moment, by any side, as QUAD's standing policy)."""

    kind: str
    label: str
    help: str
    steps: tuple[str, ...]
    controls: tuple[Control, ...] = ()
    # Not only when the side acts: QUAD's policy may be changed whoever acts.
    any_time: bool = False
    # The controls' values (as the form gives them) into the engine's order JSON.
    pack: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True, kw_only=True)
class System:
    key: str
    name: str
    engine: Engine[Any, Any]
    forms: tuple[OrderForm, ...]
    # The orders the server gives as proxy for a late side at this step (docs/battles.md).
    proxy: Callable[[State, str], list[dict[str, Any]]]
    describe: Callable[[State], str]
    # The state's field listing the pieces on the map ("forces" or "units").
    pieces: str
    terrain_colours: Mapping[str, str]
    # Dice whose values would tell another side hidden things (the order of a deck): rolled
    # with the campaign's setup dice, revealed when the battle ends, not the phase's.
    secret_purposes: tuple[str, ...] = ()
    # A line of an event that another side may not read, and what it reads instead.
    hidden_lines: Callable[[str, str], str] | None = None
    steps_named: Mapping[str, str] = field(default_factory=dict)
    # What the scenario editor offers for this system's pieces and sides (docs/battles.md,
    # "Drawing a scenario"): the map's largest side and the engine's own choices and limits.
    editor: Mapping[str, Any] = field(default_factory=dict)

    def form(self, kind: str) -> OrderForm | None:
        return next((f for f in self.forms if f.kind == kind), None)

    def is_secret(self, purpose: str) -> bool:
        """A roll for this purpose comes from the setup dice, hidden until the battle ends."""
        return purpose.startswith(self.secret_purposes) if self.secret_purposes else False

    def window(self, battle: Any, state: State) -> dict[str, Any]:
        """The moment the open phase waits for: who acts and the engine's step, turn and card
        (a phase stays open while the same step goes on and only sides that already acted in
        it, or fewer of them, act). `battle` is the engine's state, `state` its JSON form."""
        acting = list(self.engine.acting_sides(battle))
        cards = state.get("cards") if isinstance(state.get("cards"), Mapping) else {}
        return {"acting": acting, "step": state.get("step"),
                "turn": state.get("turn", cards.get("turn") if cards else None),
                "card": state.get("card"),
                "active": cards.get("active") if cards else None}


# --- ELF ABAS -------------------------------------------------------------------------------


def _elf_attack(order: dict[str, Any]) -> dict[str, Any]:
    target = {"force": order.pop("target", "")}
    if "dice" in order:
        target["dice"] = order.pop("dice")
    return {**order, "targets": [target]}


def _elf_proxy(state: State, side: str) -> list[dict[str, Any]]:
    step = state.get("step")
    if step == "allocate":
        return [{"side": side, "kind": "allocate"}]
    if step == "pursuit":
        return [{"side": side, "kind": "follow"}]
    return [{"side": side, "kind": "end"}]


def _elf_describe(state: State) -> str:
    step = state.get("step")
    if step == "activation":
        order = list(state.get("order") or [])
        card = int(state.get("card") or 0)
        return (f"Turn {state.get('turn')}: {order[card]} holds activation card {card + 1} of "
                f"{len(order)}")
    if step == "allocate":
        pending = state.get("pending") or {}
        return (f"Turn {state.get('turn')}: the defender chooses who in "
                f"{pending.get('target', 'the defending force')} takes the Casualties")
    if step == "pursuit":
        follows = list(state.get("follows") or [])
        by = follows[0].get("by") if follows else "the attacker"
        return f"Turn {state.get('turn')}: {by} may follow the retreat"
    return "The battle is over"


_FORCE_HELP = "One of your forces on the map (or in reserve, to enter at your entry point)."

ELF_ABAS = System(
    key="elf_abas",
    name="ELF ABAS",
    engine=ELF_ABAS_ENGINE,
    pieces="forces",
    describe=_elf_describe,
    proxy=_elf_proxy,
    terrain_colours={"open": "#e8efd2", "woods": "#9cc08a", "hills": "#d8c08e",
                     "dense_forest": "#5f8f58", "rocky": "#b9b2a4", "village": "#e0b3a0",
                     "deep_water": "#8db8de"},
    editor={"max_side": ELF_ABAS_MAX_SIDE, "camps": True,
            "units": [{"key": k.value, "label": k.value.title(),
                       "figures": ELF_ABAS_PROFILES[k].figures,
                       "move": ELF_ABAS_PROFILES[k].move,
                       "note": ELF_ABAS_PROFILES[k].note} for k in ELF_ABAS_UNIT_KINDS]},
    steps_named={"activation": "activation", "allocate": "the defender's choice",
                 "pursuit": "pursuit", "over": "over"},
    forms=(
        OrderForm(kind="move", label="Move a force", steps=("activation",),
                  help="The force walks the path hex by hex (its move allowance, the terrain's "
                  "costs; a reserve enters at your entry point).",
                  controls=(Control(name="force", label="Force", kind="own", help=_FORCE_HELP),
                            Control(name="path", label="Path", kind="hexes",
                                    help="Hexes in order, e.g. D4 E4: click them on the map."))),
        OrderForm(kind="attack", label="Declare an attack", steps=("activation",),
                  pack=_elf_attack,
                  help="Attacks are resolved when you end the activation: every attack on one "
                  "hex together (simultaneous attacks).",
                  controls=(Control(name="force", label="Attacking force", kind="own"),
                            Control(name="target", label="Target", kind="enemy"),
                            Control(name="dice", label="Dice (blank: all it has)", kind="number",
                                    optional=True))),
        OrderForm(kind="end", label="End the activation", steps=("activation",),
                  help="Your declared attacks are resolved, then the next card is turned."),
        OrderForm(kind="allocate", label="Take the Casualties", steps=("allocate",),
                  help="The defender chooses who in the force takes the Casualties.",
                  controls=(Control(name="to", label="Who takes them", kind="choice",
                                    choices=(("", "the default choice"), ("unit", "the unit"),
                                             ("leader", "the leader"), ("hero", "the hero"))),)),
        OrderForm(kind="follow", label="Pursue or decline", steps=("pursuit",),
                  help="Follow the retreating force into the hex it left, or decline (no force).",
                  controls=(Control(name="force", label="Pursuing force (blank: decline)",
                                    kind="own", optional=True),
                            Control(name="into", label="Into hex", kind="hex", optional=True))),
    ),
)


# --- QUAD -----------------------------------------------------------------------------------


def _quad_policy(order: dict[str, Any]) -> dict[str, Any]:
    policy = {k: order.pop(k) for k in ("block", "strike_back") if k in order}
    return {**order, "policy": policy}


def _quad_proxy(state: State, side: str) -> list[dict[str, Any]]:
    step = state.get("step")
    if step == "draw":
        return [{"side": side, "kind": "draw", "take": True}]
    if step == "steal":
        return [{"side": side, "kind": "pass"}]
    return [{"side": side, "kind": "release"}]


def _quad_describe(state: State) -> str:
    cards = state.get("cards") or {}
    step = state.get("step")
    if step == "draw":
        return f"Turn {int(cards.get('turn') or 0) + 1}: each side says whether it draws"
    if step == "steal":
        waiting = ", ".join(state.get("waiting") or [])
        return (f"Turn {cards.get('turn')}: {waiting} may steal {cards.get('active')}'s "
                "activation with a tactics card")
    if step == "activation":
        return f"Turn {cards.get('turn')}: {cards.get('active')} holds the activation"
    return "The battle is over"


def _quad_hidden(line: str, other: str) -> str:
    """`<other> draws <card>` reads `<other> draws a card` (the draw for the turn stays)."""
    return re.sub(re.escape(other) + r" draws (?!for the turn|two cards)[^;]+?(?=;|\.?$)",
                  f"{other} draws a card", line)


QUAD = System(
    key="quad",
    name="QUAD",
    engine=QUAD_ENGINE,
    pieces="units",
    describe=_quad_describe,
    proxy=_quad_proxy,
    terrain_colours={"open": "#e8efd2", "forest": "#7fae72", "slope": "#d8c08e",
                     "fortified": "#b9b2a4", "river": "#8db8de"},
    secret_purposes=("shuffle ", "reshuffle "),
    editor={"max_side": QUAD_MAX_SIDE, "camps": False, "leader_levels": [0, 5],
            "quality": [QUAD_MIN_QUALITY, QUAD_MAX_QUALITY],
            "specials": [s.value for s in QuadSpecial]},
    hidden_lines=_quad_hidden,
    steps_named={"draw": "the draw", "steal": "a steal window", "activation": "activation",
                 "over": "over"},
    forms=(
        OrderForm(kind="draw", label="The draw", steps=("draw",),
                  help="Draw your card for the turn, or not (the draw is optional).",
                  controls=(Control(name="take", label="Draw a card", kind="choice",
                                    choices=(("yes", "yes, draw"), ("no", "no"))),)),
        OrderForm(kind="steal", label="Steal the activation", steps=("steal",),
                  help="Discard a tactics card to take the activation for yourself."),
        OrderForm(kind="pass", label="Let it be", steps=("steal",),
                  help="Do not steal this activation."),
        OrderForm(kind="play", label="Play a unit card", steps=("activation",),
                  help="Play a card of one of your units in hand: it moves, attacks, charges "
                  "or holds.",
                  controls=(Control(name="unit", label="Unit (a card in your hand)", kind="own"),
                            Control(name="action", label="Action", kind="choice",
                                    choices=(("move", "move"), ("attack", "attack"),
                                             ("charge", "charge"), ("hold", "hold"))),
                            Control(name="path", label="Path", kind="hexes", optional=True,
                                    help="For a move or a charge: hexes in order."),
                            Control(name="target", label="Target", kind="enemy", optional=True),
                            Control(name="ranged", label="Ranged attack", kind="choice",
                                    choices=(("", "as the unit can"), ("yes", "ranged"),
                                             ("no", "in contact"))))),
        OrderForm(kind="release", label="Release the activation", steps=("activation",),
                  help="End your activation (with no card played you draw two)."),
        OrderForm(kind="policy", label="Your block and strike-back choices", steps=(),
                  any_time=True, pack=_quad_policy,
                  help="The defender's standing choices, used whenever you are attacked.",
                  controls=(Control(name="block", label="Block", kind="choice",
                                    choices=(("quality_first", "lose quality first"),
                                             ("fall_back_first", "fall back first"))),
                            Control(name="strike_back", label="Strike back", kind="choice",
                                    choices=(("sixes_first", "sixes first"),
                                             ("others_first", "others first"))))),
    ),
)


SYSTEMS: dict[str, System] = {s.key: s for s in (ELF_ABAS, QUAD)}


def system_of(key: str) -> System:
    return SYSTEMS[key]
