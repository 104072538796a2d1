"""The alliance's draw: dice the GM, who plays the opposition, cannot foresee.

With `Campaign.alliance_draw` on, every combat of the opposition phase (its attacks and
sieges; the GM sees every stack, so its moves never run into an ambush) is declared, not
rolled (engine.declare). When the GM ends
the phase with declarations waiting, the phase stays open and asks the alliance to draw
(`Phase.draw_asked_at`, a deadline `alliance_draw_hours` away). The first alliance player
to draw gives any text; the declared combats are then resolved in order with the phase's
seed mixed with that text (rules.dice.mix_draw), and the phase closes as usual. The GM
knew neither the draw when declaring, nor could the alliance know the seed when drawing,
so neither can foresee the dice. If nobody draws in time the server draws an empty text
(docs/campaigns.md "Dice the GM cannot foresee").
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.errors import CampaignError, RuleViolationError, WrongStateError
from campaigns.games.erfworld.engine import RESOLVING_DRAW, require_running
from campaigns.games.erfworld.move_combat import fortification_besiege, stack_attack
from campaigns.models import (
    Campaign,
    Declaration,
    DeclarationKind,
    DeclarationStatus,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    Role,
    SideKind,
    Unit,
)
from campaigns.services.common import (
    lock_campaign,
    members_of,
    notify,
    record_event,
    require_gm,
    side_of,
)
from campaigns.services.phase_state import open_phase_locked

DRAW_MAX_LENGTH = 200


def pending_declarations(phase: Phase) -> list[Declaration]:
    return list(phase.declarations.filter(status=DeclarationStatus.PENDING)
                .select_related("stack", "target", "fortification", "declared_by")
                .order_by("seq"))


def needs_draw(phase: Phase) -> bool:
    """The opposition phase cannot close before the alliance's draw: combats wait for it."""
    return (phase.kind == PhaseKind.OPPOSITION and phase.drawn_at is None
            and phase.declarations.filter(status=DeclarationStatus.PENDING).exists())


def ask_draw(*, campaign: Campaign, phase: Phase, actor: User | None, now: datetime) -> Phase:
    """The GM ended the opposition phase with declared combats: the alliance is asked to draw
    (the phase stays open; its deadline becomes the draw's)."""
    count = phase.declarations.filter(status=DeclarationStatus.PENDING).count()
    phase.draw_asked_at = now
    phase.deadline_at = max(now + timedelta(hours=campaign.alliance_draw_hours),
                            phase.opened_at)
    phase.deadline_processed_at = None
    phase.version += 1
    phase.save(update_fields=["draw_asked_at", "deadline_at", "deadline_processed_at",
                              "version"])
    campaign.version += 1
    campaign.save(update_fields=["version"])
    event = record_event(
        campaign=campaign, kind=EventKind.DRAW_ASKED, actor=actor, phase=phase,
        summary=f"Turn {phase.turn.number}: the opposition's orders are in, with "
        f"{count} combat{'' if count == 1 else 's'} waiting for the alliance's draw. Any "
        f"alliance player may draw until {phase.deadline_at:%Y-%m-%d %H:%M} UTC; then the "
        "server draws.",
        payload={"declared": count, "deadline_at": phase.deadline_at.isoformat()},
    )
    alliance = side_of(campaign, SideKind.ALLIANCE)
    notify(event=event, users=members_of(campaign, side=alliance),
           kind=NotificationKind.GENERAL,
           message=f"{campaign.name}: the opposition has declared its combats; draw the dice "
           "that resolve them.")
    return phase


def resolve_draw(
    *, campaign: Campaign, phase: Phase, draw: str, by: Membership | None, actor: User | None
) -> None:
    """Record the draw, then resolve the declared combats in order with the mixed dice; a
    combat that can no longer be made (its stack or target gone) is void, with the reason."""
    declarations = pending_declarations(phase)
    phase.alliance_draw = draw
    phase.drawn_at = timezone.now()
    phase.drawn_by = by
    phase.drawn_from_number = phase.dice_next_number
    phase.version += 1
    phase.save(update_fields=["alliance_draw", "drawn_at", "drawn_by", "drawn_from_number",
                              "version"])
    who = by.user.public_name if by is not None else "The server (no alliance player drew in time)"
    record_event(
        campaign=campaign, kind=EventKind.ALLIANCE_DREW, actor=actor, phase=phase,
        summary=f"{who} drew the opposition's dice"
        + (f": {draw!r}." if draw else " with an empty draw.")
        + f" {len(declarations)} declared combat{'' if len(declarations) == 1 else 's'} "
        "are resolved with the phase's seed mixed with the draw.",
        payload={"draw": draw, "by": by.pk if by else None, "declared": len(declarations),
                 "first_roll": phase.drawn_from_number},
    )
    gm = Membership.objects.filter(campaign=campaign, role=Role.GM).select_related("user").first()
    token = RESOLVING_DRAW.set(True)
    try:
        for declaration in declarations:
            _resolve_one(campaign, phase, declaration, gm.user if gm else None)
    finally:
        RESOLVING_DRAW.reset(token)


def _resolve_one(campaign: Campaign, phase: Phase, declaration: Declaration,
                 gm: User | None) -> None:
    user = gm or declaration.declared_by
    try:
        with transaction.atomic():
            # The services lock and read the campaign afresh (an earlier combat of the draw
            # may have ended it).
            if user is None or declaration.stack is None:
                raise RuleViolationError("The declaring stack is gone.", code="stack_gone")
            if declaration.kind == DeclarationKind.ATTACK:
                if declaration.target is None:
                    raise RuleViolationError("The target stack is gone.", code="target_gone")
                options = declaration.options
                directed = (Unit.objects.filter(pk=options.get("directed_at"), campaign=campaign)
                            .first() if options.get("directed_at") else None)
                event = stack_attack(user=user, campaign=campaign, stack=declaration.stack,
                                     target=declaration.target,
                                     withdraw=bool(options.get("withdraw")),
                                     directed_at=directed, ranged=options.get("ranged"))
            else:
                if declaration.fortification is None:
                    raise RuleViolationError("The fortification is gone.", code="target_gone")
                event = fortification_besiege(user=user, campaign=campaign,
                                              stack=declaration.stack,
                                              fortification=declaration.fortification)
    except CampaignError as exc:
        declaration.status = DeclarationStatus.VOID
        declaration.void_reason = str(exc)
        declaration.save(update_fields=["status", "void_reason"])
        record_event(
            campaign=campaign, kind=EventKind.DECLARATION_VOID, actor=None, phase=phase,
            side=side_of(campaign, SideKind.OPPOSITION),
            summary=f"Declared combat #{declaration.seq} is void: {exc}",
            payload={"declaration": declaration.pk, "seq": declaration.seq,
                     "reason": str(exc)},
        )
        return
    declaration.status = DeclarationStatus.RESOLVED
    declaration.event = event
    declaration.save(update_fields=["status", "event"])


@transaction.atomic
def declaration_withdraw(*, user: User, campaign: Campaign, declaration: Declaration) -> None:
    """The GM takes back a declared combat before the alliance is asked to draw."""
    campaign = lock_campaign(campaign)
    require_running(campaign)
    require_gm(user=user, campaign=campaign)
    phase = open_phase_locked(campaign)
    found = Declaration.objects.select_for_update().filter(
        pk=declaration.pk, phase=phase, status=DeclarationStatus.PENDING).first()
    if found is None:
        raise RuleViolationError("No such declared combat waits in this phase.",
                                 code="not_found", field="declaration")
    if phase.awaiting_draw:
        raise WrongStateError("The opposition's orders are closed: the declared combats wait "
                              "for the alliance's draw.", code="awaiting_draw")
    seq = found.seq
    found.delete()
    # Keep the numbering without gaps: later declarations move up by one.
    for later in Declaration.objects.filter(phase=phase, seq__gt=seq).order_by("seq"):
        later.seq -= 1
        later.save(update_fields=["seq"])
    record_event(
        campaign=campaign, kind=EventKind.DECLARATION_WITHDRAWN, actor=user, phase=phase,
        side=side_of(campaign, SideKind.OPPOSITION),
        summary=f"{user.public_name} withdrew declared combat #{seq}.",
        payload={"seq": seq},
    )
