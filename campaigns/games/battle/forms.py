"""An order form of the battle page into the engine's order JSON (the same the API takes):
each control read as its kind says, a missing or malformed value refused next to its control
(the error's `field` is the control's name)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaigns.errors import RuleViolationError
from campaigns.games.battle.systems import System


def order_from_form(system: System, kind: str, data: Mapping[str, str]) -> dict[str, Any]:
    form = system.form(kind)
    if form is None:
        raise RuleViolationError(f"{system.name} has no order {kind!r}.", code="invalid_input",
                                 field="kind")
    order: dict[str, Any] = {"kind": kind}
    for control in form.controls:
        raw = str(data.get(control.name, "")).strip()
        if not raw:
            if control.kind == "choice" and control.name == "take":
                order["take"] = True
            elif not control.optional and control.kind != "choice":
                raise RuleViolationError(f"{control.label}: choose or write one.",
                                         code="invalid_input", field=control.name)
            continue
        if control.kind == "hexes":
            order[control.name] = [p.upper() for p in raw.replace(",", " ").split()]
        elif control.kind == "hex":
            order[control.name] = raw.upper()
        elif control.kind == "number":
            if not raw.isdigit():
                raise RuleViolationError(f"{control.label}: a whole number, or blank.",
                                         code="invalid_input", field=control.name)
            order[control.name] = int(raw)
        elif control.kind == "choice":
            allowed = {value for value, _ in control.choices}
            if raw not in allowed:
                raise RuleViolationError(f"{control.label}: choose one of the list.",
                                         code="invalid_input", field=control.name)
            if control.name == "take":
                order["take"] = raw == "yes"
            elif control.name == "ranged":
                order["ranged"] = raw == "yes"
            else:
                order[control.name] = raw
        else:
            order[control.name] = raw
    return form.pack(order) if form.pack is not None else order
