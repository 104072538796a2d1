"""The battles of ELF ABAS and QUAD behind the `campaigns.game.Game` interface."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from accounts.models import User
from campaigns.access import membership_of
from campaigns.game import register
from campaigns.games.battle import selectors, services
from campaigns.games.battle.systems import SYSTEMS, system_of
from campaigns.models import Battle, Campaign, Membership, Phase


def _battle(campaign: Campaign) -> Battle:
    return Battle.objects.get(campaign=campaign)


class BattleGame:
    key = "battle"
    name = "Battle"

    def acting_sides(self, campaign: Campaign, phase: Phase) -> list[str]:
        return list(_battle(campaign).window.get("acting", []))

    def waiting_for(self, campaign: Campaign, phase: Phase) -> str:
        battle = _battle(campaign)
        return system_of(battle.system).describe(battle.state or {})

    def orders_allowed(self, *, membership: Membership) -> list[str]:
        campaign = membership.campaign
        battle = _battle(campaign)
        return selectors.orders_allowed(system_of(battle.system), battle, campaign, membership)

    def give_orders(self, *, user: User, campaign: Campaign, orders: Sequence[Any]) -> None:
        services.battle_orders(user=user, campaign=campaign, orders=orders)

    def close_phase(self, *, user: User, campaign: Campaign, reason: str) -> Phase | None:
        return services.battle_proxy(user=user, campaign=campaign, reason=reason)

    def deadline_passed(self, *, campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
        if now < phase.deadline_at or phase.deadline_processed_at is not None:
            return []
        return services.battle_deadline(campaign, phase, now)

    def view(self, *, user: User, campaign: Campaign) -> dict[str, Any]:
        membership_of(user=user, campaign=campaign)
        return selectors.battle_view(user=user, campaign=campaign)

    def page(self, campaign: Campaign) -> str:
        return "campaigns:battle"


GAME = BattleGame()
register(GAME, *SYSTEMS)
