"""What a member sees of a battle: the state as their side may see it (the engine's `view`),
the log with the lines and dice another side may not read left out, the open phase, and
the orders they may give now. The GM sees everything; once the battle is over, everyone does
(the fog lifts, the setup dice that shuffled the decks are revealed)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from campaigns.access import membership_of
from campaigns.errors import WrongStateError
from campaigns.games.battle.services import UNSEEN_LINE, public_text
from campaigns.games.battle.systems import System, system_of
from campaigns.models import (
    Battle,
    Campaign,
    CampaignStatus,
    Membership,
    Phase,
    PhaseStatus,
    Role,
    Side,
)


def _sees_all(membership: Membership, campaign: Campaign) -> bool:
    return membership.role == Role.GM or campaign.status == CampaignStatus.FINISHED


def orders_allowed(system: System, battle: Battle, campaign: Campaign,
                   membership: Membership) -> list[str]:
    """The kinds of order the member may give now: their side's orders at the engine's step
    while it acts, and the orders any side may give at any moment (QUAD's policy)."""
    if (campaign.status != CampaignStatus.RUNNING or membership.role != Role.PLAYER
            or membership.side is None or battle.state is None):
        return []
    step = battle.state.get("step")
    acting = membership.side.name in battle.window.get("acting", [])
    return [f.kind for f in system.forms
            if f.any_time or (acting and step in f.steps)]


def _log(system: System, battle: Battle, *, side: str | None, sees_all: bool,
         sides: list[str], limit: int | None) -> list[dict[str, Any]]:
    entries = battle.entries.select_related("by").order_by("-number")
    rows = list(entries[:limit] if limit else entries)
    out = []
    for entry in reversed(rows):
        texts = ([str(e.get("text", "")) for e in entry.events] if sees_all
                 else public_text(system, entry.events, sides, side))
        # Fog of war: what the viewer's side did not see (a member of no side: what any side
        # did not see) reads "Out of sight.", without its dice.
        unseen: set[int] = set() if sees_all else {
            i for s, indexes in (entry.hidden or {}).items() if side is None or s == side
            for i in indexes}
        events: list[dict[str, Any]] = []
        for i, (e, text) in enumerate(zip(entry.events, texts, strict=True)):
            if i in unseen:
                if not events or events[-1]["text"] != UNSEEN_LINE:
                    events.append({"kind": "unseen", "text": UNSEEN_LINE, "rolls": []})
                continue
            rolls = [r for r in e.get("rolls", [])
                     if sees_all or not system.is_secret(str(r.get("purpose", "")))]
            events.append({"kind": e.get("kind"), "text": text, "rolls": rolls})
        out.append({"number": entry.number, "side": entry.side, "proxy": entry.proxy,
                    "by": entry.by.public_name if entry.by else None,
                    "at": entry.created_at, "events": events})
    return out


def battle_view(*, user: User, campaign: Campaign, log_limit: int | None = None
                ) -> dict[str, Any]:
    """The battle as `user` sees it (NotAllowedError `not_member` for a non-member)."""
    membership = membership_of(user=user, campaign=campaign)
    battle = Battle.objects.filter(campaign=campaign).first()
    if battle is None:
        raise WrongStateError(f"{campaign.name!r} is not a battle campaign.", code="not_battle")
    system = system_of(battle.system)
    sees_all = _sees_all(membership, campaign)
    side = membership.side.name if membership.side is not None else None
    state: dict[str, Any] | None = None
    if battle.state is not None:
        if sees_all or side is None:
            state = dict(battle.state) if sees_all else None
        else:
            engine = system.engine
            state = engine.view(engine.state_from_json(battle.state), side)
    sides = list(Side.objects.filter(campaign=campaign).order_by("kind"))
    players: dict[int, list[str]] = {s.pk: [] for s in sides}
    for m in (Membership.objects.filter(campaign=campaign, role=Role.PLAYER)
              .select_related("user").order_by("pk")):
        if m.side_id in players:
            players[m.side_id].append(m.user.public_name)
    phase = (Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
             .select_related("turn").first())
    acting = list(battle.window.get("acting", [])) if phase is not None else []
    names = [s.name for s in sides]
    return {
        "system": system.key,
        "system_name": system.name,
        "name": campaign.name,
        "status": campaign.status,
        "scenario": battle.scenario_key,
        "viewer": {"role": membership.role, "side": side, "sees_all": sees_all},
        "sides": [{"name": s.name, "players": players[s.pk], "acting": s.name in acting}
                  for s in sides],
        "phase": None if phase is None else {
            "id": phase.pk, "step": phase.turn.number, "opened_at": phase.opened_at,
            "deadline_at": phase.deadline_at, "dice_commitment": phase.dice_commitment,
            "waiting_for": system.describe(battle.state or {}), "acting": acting},
        "your_turn": side is not None and side in acting,
        "orders_allowed": orders_allowed(system, battle, campaign, membership),
        "state": state,
        "log": _log(system, battle, side=side, sees_all=sees_all, sides=names,
                    limit=log_limit),
        "outcome": battle.outcome,
        # Fog of war (the GM's setting): the sight in hexes, or None.
        "fog_sight": (battle.settings or {}).get("sight"),
    }


def gm_battle_scenarios(user: User, *, limit: int = 12) -> list[dict[str, Any]]:
    """The scenarios of the battles `user` runs or ran as GM, newest first (the new battle
    page's "start from one of your battles"): `{"campaign", "name", "system", "system_name",
    "scenario"}`. Nobody else's: a scenario may hold what a GM keeps to themself."""
    battles = (Battle.objects.filter(campaign__memberships__user=user,
                                     campaign__memberships__role=Role.GM)
               .select_related("campaign").order_by("-campaign__created_at", "-pk")[:limit])
    return [{"campaign": b.campaign_id, "name": b.campaign.name, "system": b.system,
             "system_name": system_of(b.system).name, "scenario": b.scenario}
            for b in battles]
