"""The "fog lifts" after-action report: once the campaign has ended, every member reads how
it went for both sides, and what each side never saw while it was played."""

from __future__ import annotations

from collections import Counter
from typing import Any

from accounts.models import User
from campaigns.errors import WrongStateError
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Membership,
    Phase,
    Role,
    Side,
    SideKind,
    Unit,
)
from campaigns.selectors import _membership

# What each side did, counted per side (the event's side; fights by the actor's side).
_COUNTED = {
    EventKind.STACK_MOVED: "moves",
    EventKind.COMBAT: "attacks",
    EventKind.SCOUT_REPORT: "scout reports",
    EventKind.SIEGE: "sieges",
    EventKind.FORTIFICATION_CAPTURED: "fortified hexes captured",
}


def after_action(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """Both sides' record (units, losses, moves, attacks, captures), the hidden actions of
    each turn that the other side never saw, and the finish; WrongStateError before the end."""
    membership = _membership(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.FINISHED:
        raise WrongStateError("The after-action report is written when the campaign ends.",
                              code="not_finished")
    sides = {s.pk: s for s in Side.objects.filter(campaign=campaign).order_by("kind")}
    units = Unit.objects.filter(campaign=campaign)
    croaked_by_side: Counter[int] = Counter()
    lost_names: dict[int, list[str]] = {pk: [] for pk in sides}
    unit_side = dict(units.values_list("id", "side_id"))
    events = list(Event.objects.filter(campaign=campaign).select_related("phase__turn", "side")
                  .order_by("created_at", "id"))
    counts: dict[int, Counter[str]] = {pk: Counter() for pk in sides}
    # Whose side an event without one (a fight both sides saw) counts for: its actor's; the
    # GM plays the opposition.
    opposition = next((pk for pk, s in sides.items() if s.kind == SideKind.OPPOSITION), None)
    actor_side = {m.user_id: (opposition if m.role == Role.GM else m.side_id)
                  for m in Membership.objects.filter(campaign=campaign)}
    unseen: dict[tuple[int, int], Counter[str]] = {}
    for event in events:
        if event.kind in (EventKind.COMBAT, EventKind.AMBUSH):
            for c in event.payload.get("casualties") or []:
                if isinstance(c, dict) and c.get("croaked") and c.get("unit") in unit_side:
                    owner = unit_side[c["unit"]]
                    croaked_by_side[owner] += 1
                    lost_names[owner].append(str(c.get("name")))
        acting = event.side_id or actor_side.get(event.actor_id or 0)
        if acting is not None and event.kind in _COUNTED:
            counts[acting][_COUNTED[EventKind(event.kind)]] += 1
        if event.side_id is not None and event.phase is not None:
            # An event with a side: the other side did not see it as it happened.
            key = (event.phase.turn.number, event.side_id)
            unseen.setdefault(key, Counter())[EventKind(event.kind).label.lower()] += 1
    finish = next((e for e in reversed(events) if e.kind == EventKind.CAMPAIGN_FINISHED), None)
    rows = []
    for pk, side in sides.items():
        total = units.filter(side_id=pk).count()
        rows.append({
            "kind": side.kind, "name": side.name, "units": total,
            "left": units.filter(side_id=pk, current_hits__gt=0).count(),
            "croaked": croaked_by_side[pk], "lost": lost_names[pk],
            "counts": [(label, counts[pk][label]) for label in _COUNTED.values()],
            "threads_open": side.threads_opened_at is not None,
        })
    hidden = [
        {"turn": turn, "side": sides[side_id].name,
         "what": ", ".join(f"{n} × {label}" for label, n in sorted(c.items()))}
        for (turn, side_id), c in sorted(unseen.items(), key=lambda kv: (
            kv[0][0], sides[kv[0][1]].kind != SideKind.OPPOSITION))
    ]
    return {
        "winner": finish.payload.get("winner") if finish else campaign.winner,
        "summary": finish.summary if finish else "",
        "turns": Phase.objects.filter(campaign=campaign).values("turn").distinct().count(),
        "sides": rows,
        "hidden": hidden,
        "viewer_side": membership.side.kind if membership.side is not None else None,
    }
