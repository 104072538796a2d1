"""The opposition's declared combats (the alliance's draw), as the GM reads them."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from campaigns.errors import NotAllowedError
from campaigns.models import Campaign, Declaration, DeclarationKind, Phase, PhaseStatus, Role
from campaigns.selectors import _membership


def _text(d: Declaration) -> str:
    where = d.stack.hex if d.stack is not None else "?"
    if d.kind == DeclarationKind.ATTACK:
        return (f"The stack in {where} attacks the stack in "
                f"{d.target.hex if d.target is not None else '(gone)'}.")
    fort = d.fortification
    return (f"The stack in {where} besieges the "
            + (f"{fort.get_kind_display().lower()} of {fort.hex}." if fort is not None
               else "fortification (gone)."))


def declaration_rows(campaign: Campaign) -> tuple[Phase | None, list[dict[str, Any]]]:
    """The open phase and its declared combats in order (no permission check: callers show
    them to the GM only, or count them once the draw is asked)."""
    phase = Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    rows = (list(Declaration.objects.filter(phase=phase)
                 .select_related("stack", "target", "fortification").order_by("seq"))
            if phase is not None else [])
    return phase, [
        {"id": d.pk, "seq": d.seq, "kind": d.kind, "status": d.status,
         "stack": d.stack_id, "target": d.target_id, "fortification": d.fortification_id,
         "text": _text(d), "void_reason": d.void_reason}
        for d in rows
    ]


def declarations_of(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """The open phase's declared combats in order (GM only: they are the opposition's plans
    until the draw resolves them)."""
    membership = _membership(user=user, campaign=campaign)
    if membership.role != Role.GM:
        raise NotAllowedError("Only the GM reads the opposition's declared combats.",
                              code="gm_only")
    phase, rows = declaration_rows(campaign)
    return {
        "phase": phase.pk if phase is not None else None,
        "alliance_draw": campaign.alliance_draw,
        "awaiting_draw": bool(phase and phase.awaiting_draw),
        "declarations": rows,
    }
