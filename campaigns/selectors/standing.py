"""Standing orders as the players and the Chief Warlord read them."""

from __future__ import annotations

from campaigns.models import Membership

__all__ = ["MODES", "describe"]

MODES = {"": "the Chief Warlord decides", "hold": "hold: no moves, no attacks",
         "no_attacks": "no attacks (moves allowed)"}


def describe(member: Membership) -> str:
    """The player's standing orders in one sentence, for the Chief Warlord ("" if none)."""
    parts = []
    if member.standing_orders:
        parts.append(MODES[member.standing_orders].capitalize())
    if member.standing_scout_id and member.standing_directions:
        scout = member.standing_scout
        name = scout.name if scout is not None else "their scout"
        parts.append(f"{name} scouts {' '.join(member.standing_directions)}")
    if member.standing_note:
        parts.append(f"note: {member.standing_note}")
    return "; ".join(parts) + ("." if parts else "")
