"""Dice verification as a member may see it: commitments, revealed seeds, every roll re-derived.

A seed is shown only once revealed (a phase's when it closes, the setup dice's when the
campaign starts); before that, the commitment alone. Every roll of a revealed seed is listed
and re-derived with `rules.dice.verify`, but a player sees the purpose of a roll only when it
belongs to an event their side may see and names nothing of another side (a commander rolled
for an opposition unit, a protecting stack of the enemy); otherwise the purpose reads
"hidden" and the number, die, value and match stay, so the check still covers every roll.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from accounts.models import User
from campaigns.errors import CampaignError
from campaigns.models import (
    Campaign,
    CampaignStatus,
    DiceRoll,
    Event,
    Membership,
    Phase,
    PhaseStatus,
    Stack,
)
from campaigns.selectors import _membership, sees_everything
from rules.dice import Roll, mix_draw, verify
from rules.dice import commitment as dice_commitment

HIDDEN = "hidden"

# Purposes that name a unit or a stack, as Erfworld's services write them
# (campaigns/games/erfworld/setup.py `_level_purpose`, turns.py `pops_buy`,
# rules/erfworld/combat.py special retaliation).
_COMMANDER_LEVEL = re.compile(r"commander level of .+ \((?P<whose>[^()]+)\)")
_RETALIATION = re.compile(r"special retaliation: stack (?P<stack>\d+)\b.*")


@dataclass(frozen=True, kw_only=True)
class Viewer:
    """Who is looking: the GM sees everything; anyone else what their side may see (until the
    campaign ends: then `is_gm`, "sees everything", holds for every member)."""

    membership: Membership
    is_gm: bool
    side_id: int | None
    own_usernames: frozenset[str]
    own_stack_ids: frozenset[int]

    def sees_event(self, side_id: int | None) -> bool:
        """Event visibility: no side = everyone in the campaign; a side = it and the GM."""
        return self.is_gm or side_id is None or side_id == self.side_id

    def sees_purpose(self, purpose: str) -> bool:
        if self.is_gm:
            return True
        level = _COMMANDER_LEVEL.fullmatch(purpose)
        if level is not None:
            return level["whose"] in self.own_usernames
        retaliation = _RETALIATION.fullmatch(purpose)
        if retaliation is not None:
            return int(retaliation["stack"]) in self.own_stack_ids
        return True


def viewer_of(*, user: User, campaign: Campaign) -> Viewer:
    """The member `user` as a viewer (NotAllowedError `not_member` for anyone else)."""
    membership = _membership(user=user, campaign=campaign)
    # After the end the fog lifts: every member sees what the GM sees.
    is_gm = sees_everything(membership, campaign)
    side_id = membership.side_id
    usernames: frozenset[str] = frozenset()
    stacks: frozenset[int] = frozenset()
    if not is_gm and side_id is not None:
        usernames = frozenset(
            Membership.objects.filter(campaign=campaign, side_id=side_id)
            .values_list("user__username", flat=True)
        )
        stacks = frozenset(
            Stack.objects.filter(campaign=campaign, side_id=side_id).values_list("id", flat=True)
        )
    return Viewer(membership=membership, is_gm=is_gm, side_id=side_id,
                  own_usernames=usernames, own_stack_ids=stacks)


def event_roll_numbers(payload: Mapping[str, Any]) -> list[int]:
    """The roll numbers an event's payload records (`rolls` or `dice`, as the services write)."""
    numbers = []
    for key in ("rolls", "dice"):
        for record in payload.get(key) or []:
            if isinstance(record, dict) and isinstance(record.get("number"), int):
                numbers.append(record["number"])
    return numbers


def _visible_numbers(viewer: Viewer, events: Iterable[Mapping[str, Any]]) -> set[int]:
    visible: set[int] = set()
    for e in events:
        if viewer.sees_event(e["side_id"]):
            visible.update(event_roll_numbers(e["payload"]))
    return visible


def _checked_rolls(
    viewer: Viewer, *, seed: str, commitment: str, rows: list[DiceRoll],
    visible_numbers: set[int], mixed: tuple[int, str] | None = None,
) -> tuple[bool, list[dict[str, Any]]]:
    """Every roll re-derived: from the seed, or (`mixed`: first roll number, mixed seed)
    from the seed mixed with the alliance's draw from that roll on."""
    rolls = [Roll(number=r.number, purpose=r.purpose, sides=r.sides, value=r.value)
             for r in rows]
    first = mixed[0] if mixed else len(rolls) + 10**9
    checked = verify(seed=seed, commitment=commitment,
                     rolls=[r for r in rolls if r.number < first])
    results = list(checked.results)
    if mixed is not None:
        after = [r for r in rolls if r.number >= first]
        results += verify(seed=mixed[1], commitment=dice_commitment(mixed[1]),
                          rolls=after).results
    out = []
    for result in sorted(results, key=lambda c: c.roll.number):
        roll = result.roll
        shown = viewer.is_gm or (roll.number in visible_numbers
                                 and viewer.sees_purpose(roll.purpose))
        out.append({
            "number": roll.number,
            "purpose": roll.purpose if shown else HIDDEN,
            "sides": roll.sides,
            "value": roll.value,
            "expected": result.expected,
            "matches": result.matches,
        })
    return checked.commitment_ok, out


def _unrevealed(commitment: str) -> dict[str, Any]:
    return {"commitment": commitment, "seed": None, "revealed": False, "commitment_ok": None,
            "rolls": [], "all_match": None}


def _revealed(
    viewer: Viewer, *, seed: str, commitment: str, rows: list[DiceRoll],
    events: Iterable[Mapping[str, Any]], mixed: tuple[int, str] | None = None,
) -> dict[str, Any]:
    commitment_ok, rolls = _checked_rolls(
        viewer, seed=seed, commitment=commitment, rows=rows,
        visible_numbers=_visible_numbers(viewer, events), mixed=mixed,
    )
    return {"commitment": commitment, "seed": seed, "revealed": True,
            "commitment_ok": commitment_ok, "rolls": rolls,
            "all_match": commitment_ok and all(r["matches"] for r in rolls)}


def phase_dice_verification(*, user: User, campaign: Campaign, phase: Phase) -> dict[str, Any]:
    """A phase's dice: its commitment; once it has closed, its seed and every roll re-derived
    (`matches` each, `all_match` for the seed's commitment and every roll together)."""
    viewer = viewer_of(user=user, campaign=campaign)
    if phase.campaign_id != campaign.pk:
        raise CampaignError("There is no such phase in this campaign.", code="unknown_phase",
                            field="phase")
    info = {"id": phase.pk, "turn": phase.turn.number, "kind": phase.kind,
            "status": phase.status, "opened_at": phase.opened_at, "closed_at": phase.closed_at}
    draw = _draw_info(phase)
    # The seed is secret until the phase closes: read it only then (Phase.revealed_seed).
    seed = phase.revealed_seed
    if seed is None or phase.status != PhaseStatus.CLOSED:
        return {"phase": info, "draw": draw, **_unrevealed(phase.dice_commitment)}
    rows = list(DiceRoll.objects.filter(phase=phase).order_by("number"))
    events = Event.objects.filter(phase=phase, payload__has_any_keys=["rolls", "dice"]).values(
        "side_id", "payload")
    mixed = None
    if draw is not None and draw["first_roll"] is not None:
        draw["mixed_seed"] = mix_draw(seed, draw["text"])
        mixed = (draw["first_roll"], draw["mixed_seed"])
    return {"phase": info, "draw": draw,
            **_revealed(viewer, seed=seed, commitment=phase.dice_commitment, rows=rows,
                        events=events, mixed=mixed)}


def _draw_info(phase: Phase) -> dict[str, Any] | None:
    """The alliance's draw of an opposition phase (None where none was asked): the text (the
    server's empty draw when nobody drew in time), who drew, when, and the first roll made
    with the seed mixed with it (its mixed seed is added once the seed is revealed)."""
    if phase.draw_asked_at is None:
        return None
    by = phase.drawn_by.user.public_name if phase.drawn_by is not None else None
    return {"asked_at": phase.draw_asked_at, "drawn_at": phase.drawn_at,
            "text": phase.alliance_draw if phase.drawn_at else None,
            "by": by, "by_server": phase.drawn_at is not None and phase.drawn_by_id is None,
            "first_roll": phase.drawn_from_number, "mixed_seed": None}


def setup_dice_verification(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """The campaign's setup dice (commander levels rolled before the first phase, the
    opposition's among them): the commitment published at creation; the seed and every roll
    re-derived for the GM once the campaign has started, for everyone once it has ended
    (before that the seed would tell the alliance the opposition's commander levels)."""
    viewer = viewer_of(user=user, campaign=campaign)
    info = {"revealed_at": campaign.setup_dice_revealed_at}
    started = campaign.status != CampaignStatus.SETUP
    if campaign.setup_dice_revealed_at is None and not (viewer.is_gm and started):
        return {"setup": info, **_unrevealed(campaign.setup_dice_commitment)}
    rows = list(DiceRoll.objects.filter(campaign=campaign, phase__isnull=True).order_by("number"))
    events = Event.objects.filter(campaign=campaign, phase__isnull=True,
                                  payload__has_any_keys=["rolls", "dice"]).values(
        "side_id", "payload")
    if campaign.status == CampaignStatus.FINISHED:
        # The game is over: every roll is named for everyone, as for the GM.
        viewer = replace(viewer, is_gm=True)
    return {"setup": info, **_revealed(viewer, seed=campaign.setup_dice_seed,
                                       commitment=campaign.setup_dice_commitment, rows=rows,
                                       events=events)}
