"""Battles by forum: a GM, one player a side, the demo scenario of each system."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from accounts.models import User
from campaigns.games.battle import services
from campaigns.models import Campaign
from tests.factories import UserFactory

DEMOS = {"elf_abas": ("elf_abas_ford", "Epping", "Fremont"),
         "quad": ("quad_hill", "Red", "Blue")}


@dataclass
class Table:
    campaign: Campaign
    gm: User
    players: dict[str, User]  # side name → its player

    def reload(self) -> Campaign:
        self.campaign.refresh_from_db()
        return self.campaign


def make_table(system: str, *, start: bool = True, settings: dict | None = None) -> Table:
    key, first, second = DEMOS[system]
    gm = UserFactory(username=f"gm_{system}")
    campaign = services.battle_create(gm=gm, system=system, scenario_key=key,
                                      settings=settings or {})
    players = {}
    for side in (first, second):
        user = UserFactory(username=f"{side.lower()}_{system}")
        services.battle_join(user=user, invite_code=campaign.invite_code, side=side)
        players[side] = user
    if start:
        services.battle_start(user=gm, campaign=campaign)
        campaign.refresh_from_db()
    return Table(campaign=campaign, gm=gm, players=players)


@pytest.fixture
def table():
    return make_table
