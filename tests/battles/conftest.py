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


def make_table(system: str, *, start: bool = True, settings: dict | None = None,
               scenario: dict | None = None) -> Table:
    """A battle of the system's demo scenario (or `scenario`), one player a side."""
    key, first, second = DEMOS[system]
    gm = UserFactory(username=f"gm_{system}")
    campaign = services.battle_create(gm=gm, system=system, scenario_key=key,
                                      scenario=scenario, settings=settings or {})
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


@pytest.fixture
def fixed_seeds(monkeypatch):
    """Every seed the battle services draw is "seed-1", "seed-2", … in order (the campaign's
    setup dice first, then each phase's), so a test knows who acts first and every roll."""
    from campaigns.games.battle import services

    counter = iter(range(1, 10_000))
    monkeypatch.setattr(services, "new_seed", lambda: f"seed-{next(counter)}")


def replay(battle) -> dict:
    """The battle re-derived from its revealed seeds: the start and every entry's orders
    stepped again by the engine with the dice each phase's seed (and, for a deck's shuffle,
    the campaign's setup seed) gives, numbering on as the server did. The state it ends with
    must be the stored one: anyone can check the referee once the seeds are out."""
    from campaigns.games.battle.services import SplitDice
    from campaigns.games.battle.systems import system_of
    from rules.dice import SeededDice

    system = system_of(battle.system)
    engine = system.engine
    setup = SeededDice(seed=battle.campaign.setup_dice_seed)
    numbers: dict[int, int] = {}
    state = None
    for entry in battle.entries.select_related("phase").order_by("number"):
        phase = entry.phase
        public = SeededDice(seed=phase.dice_seed, first_number=numbers.get(phase.pk, 1))
        secret = SeededDice(seed=battle.campaign.setup_dice_seed,
                            first_number=setup.next_number)
        dice = SplitDice(public=public, secret=secret, system=system)
        if entry.number == 0:
            result = engine.start(scenario=battle.scenario, settings=battle.settings, dice=dice)
        else:
            result = engine.step(state=state, orders=engine.orders_from_json(entry.orders),
                                 dice=dice)
        assert [e.to_json() for e in result.events] == entry.events, entry.number
        numbers[phase.pk] = public.next_number
        setup = secret
        state = result.state
    return engine.state_to_json(state)
