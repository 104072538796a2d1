"""Erfworld's relational campaign engine behind the `campaigns.game.Game` interface.

Erfworld keeps its state in tables (stacks, units, fortifications, sightings) changed by its
services in this package (phases, move_combat, turns, engine, deadlines); this adapter answers the
campaign's life's questions with them, and gives the orders of the generic game API in
Erfworld's terms (docs/api.md, "One API for every game"):

- `{"kind": "scout", "scout": <unit id>, "directions": ["N", "NE", …]}` (scout phase);
- `{"kind": "move", "stack": <stack id>, "path": ["C4", "D4"]}` (move/combat, opposition);
- `{"kind": "attack", "stack": <stack id>, "target": <stack id>, "ranged": true|false|null}`;
- `{"kind": "done"}` (the player's orders for the phase are done).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import User
from campaigns.access import membership_of
from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError
from campaigns.game import register
from campaigns.games.erfworld.deadlines import erfworld_deadline
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.games.erfworld.phases import orders_mark_done, phase_end, scout_order_give
from campaigns.models import (
    Campaign,
    Membership,
    Phase,
    PhaseKind,
    Role,
    Side,
    SideKind,
    Stack,
    Unit,
)
from campaigns.selectors import map_state
from campaigns.selectors.map_json import map_response
from campaigns.services.phase_state import ALLIANCE_PHASES

_ORDERS: dict[str, tuple[str, ...]] = {
    PhaseKind.SCOUT: ("scout", "done"),
    PhaseKind.MOVE_COMBAT: ("move", "attack", "done"),
    PhaseKind.OPPOSITION: ("move", "attack"),
}


def _field(order: dict[str, Any], name: str, where: str) -> Any:
    if name not in order:
        raise RuleViolationError(f"The order needs its {name!r}.", code="invalid_input",
                                 field=f"{where}.{name}")
    return order[name]


def _row(model: type[Stack] | type[Unit], campaign: Campaign, value: Any, where: str) -> Any:
    row = (model.objects.filter(campaign=campaign, pk=value).first()
           if isinstance(value, int) else None)
    if row is None:
        # The same words for a row that does not exist and one of the other side.
        raise RuleViolationError(f"There is no such {model.__name__.lower()} of yours.",
                                 code="unknown", field=where)
    return row


class ErfworldGame:
    key = "erfworld"
    name = "Erfworld"

    def acting_sides(self, campaign: Campaign, phase: Phase) -> list[str]:
        kind = SideKind.ALLIANCE if phase.kind in ALLIANCE_PHASES else SideKind.OPPOSITION
        return list(Side.objects.filter(campaign=campaign, kind=kind)
                    .values_list("name", flat=True))

    def waiting_for(self, campaign: Campaign, phase: Phase) -> str:
        return (f"Turn {phase.turn.number}: the {phase.get_kind_display().lower()} "
                f"({', '.join(self.acting_sides(campaign, phase))} acts)")

    def orders_allowed(self, *, membership: Membership) -> list[str]:
        phase = Phase.objects.filter(campaign_id=membership.campaign_id,
                                     status="open").first()
        if phase is None:
            return []
        gm_phase = phase.kind == PhaseKind.OPPOSITION
        if gm_phase != (membership.role == Role.GM):
            return []
        return list(_ORDERS.get(phase.kind, ()))

    @transaction.atomic
    def give_orders(self, *, user: User, campaign: Campaign, orders: Sequence[Any]) -> None:
        if not isinstance(orders, list | tuple) or not orders:
            raise RuleViolationError("Give at least one order.", code="invalid_input",
                                     field="orders")
        membership = membership_of(user=user, campaign=campaign)
        phase = Phase.objects.filter(campaign=campaign, status="open").first()
        if phase is not None and (phase.kind == PhaseKind.OPPOSITION) != (
                membership.role == Role.GM):
            raise NotAllowedError(
                "The opposition phase belongs to the GM, who plays the opposition (§5)."
                if phase.kind == PhaseKind.OPPOSITION else
                "The alliance's phases belong to its players; the GM plays the opposition.",
                code="wrong_side")
        allowed = self.orders_allowed(membership=membership)
        for i, order in enumerate(orders):
            where = f"orders[{i}]"
            if not isinstance(order, dict):
                raise RuleViolationError("An order is a JSON object.", code="invalid_input",
                                         field=where)
            kind = order.get("kind")
            if kind not in allowed:
                raise RuleViolationError(
                    f"You may give {', '.join(allowed) or 'no order'} now, not {kind!r}.",
                    code="not_now", field=f"{where}.kind")
            try:
                self._one(user, campaign, order, where, kind)
            except CampaignError as exc:
                if exc.field is None or not exc.field.startswith(where):
                    exc.field = f"{where}.{exc.field}" if exc.field else where
                raise

    def _one(self, user: User, campaign: Campaign, order: dict[str, Any], where: str,
             kind: str) -> None:
        if kind == "scout":
            directions = _field(order, "directions", where)
            if not isinstance(directions, list):
                raise RuleViolationError("Directions are a list such as [\"N\", \"NE\"].",
                                         code="invalid_input", field=f"{where}.directions")
            scout_order_give(user=user, campaign=campaign,
                             scout=_row(Unit, campaign, _field(order, "scout", where),
                                        f"{where}.scout"),
                             directions=[str(d) for d in directions])
        elif kind == "move":
            path = _field(order, "path", where)
            if not isinstance(path, list):
                raise RuleViolationError("A path is a list of hexes such as [\"C4\", \"D4\"].",
                                         code="invalid_input", field=f"{where}.path")
            stack_move(user=user, campaign=campaign,
                       stack=_row(Stack, campaign, _field(order, "stack", where),
                                  f"{where}.stack"),
                       path=[str(h) for h in path])
        elif kind == "attack":
            ranged = order.get("ranged")
            stack_attack(user=user, campaign=campaign,
                         stack=_row(Stack, campaign, _field(order, "stack", where),
                                    f"{where}.stack"),
                         target=_row(Stack, campaign, _field(order, "target", where),
                                     f"{where}.target"),
                         ranged=ranged if isinstance(ranged, bool) else None)
        else:
            orders_mark_done(user=user, campaign=campaign)

    def close_phase(self, *, user: User, campaign: Campaign, reason: str) -> Phase | None:
        return phase_end(user=user, campaign=campaign, reason=reason)

    def deadline_passed(self, *, campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
        return erfworld_deadline(campaign, phase, now)

    def view(self, *, user: User, campaign: Campaign) -> dict[str, Any]:
        return map_response(map_state(user=user, campaign=campaign))

    def page(self, campaign: Campaign) -> str:
        return "campaigns:map"


GAME = ErfworldGame()
register(GAME)
