"""Seed the demo: a GM account, three players, the Broad Way campaign and one demo battle of
each other system run by forum (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from accounts.services import user_ensure_demo

DEMO_PASSWORD = "broadway"  # noqa: S105 - documented demo login
# The site operator's `admin` is the only staff login: the GM plays the opposition and must
# not reach the Django admin, which shows every campaign's rows.
DEMO_USERS = [("admin", True), ("gm", False), ("player1", False), ("player2", False),
              ("player3", False)]
DEMO_CAMPAIGN = "The Broad Way"
# The demo battle of each system (campaigns/games/battle/scenarios/): its players by side.
DEMO_BATTLES = [("elf_abas", "elf_abas_ford", {"Epping": "player1", "Fremont": "player2"}),
                ("quad", "quad_hill", {"Red": "player2", "Blue": "player3"})]

# Each player's designed army: (unit type, stats, how many bought).
COMMANDER = ["commander"]
DEMO_ARMIES: dict[str, list[tuple[str, dict[str, Any], int]]] = {
    "player1": [
        ("Warlord", {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": COMMANDER}, 1),
        ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}, 2),
        ("Spearman", {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": []}, 12),
        ("Archer", {"hits": 3, "attack": 3, "defence": 2, "move": 1, "specials": ["ranged"]}, 8),
    ],
    "player2": [
        ("Captain", {"hits": 4, "attack": 4, "defence": 3, "move": 3, "specials": COMMANDER}, 1),
        ("Outrider", {"hits": 3, "attack": 3, "defence": 1, "move": 4, "specials": ["scout"]}, 1),
        ("Lancer", {"hits": 4, "attack": 5, "defence": 2, "move": 3, "specials": []}, 10),
    ],
    "player3": [
        ("Marshal", {"hits": 6, "attack": 6, "defence": 4, "move": 2, "specials": COMMANDER}, 1),
        ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}, 1),
        ("Sapper", {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": ["siege"]}, 6),
        ("Woodsman", {"hits": 4, "attack": 4, "defence": 3, "move": 2, "specials": ["woods"]}, 8),
    ],
}


class Command(BaseCommand):
    help = (
        "Create the demo logins (admin, the site operator; gm; player1, player2, player3; "
        "password 'broadway') and the "
        "Broad Way campaign (designed armies, player1 Chief Warlord, started in turn 1's scout "
        "phase) and a started demo battle of ELF ABAS (player1 against player2) and of QUAD "
        "(player2 against player3), unless they exist. Safe to run any number of times."
    )

    def handle(self, *args: object, **options: object) -> None:
        users: dict[str, User] = {}
        for username, is_staff in DEMO_USERS:
            users[username], created = user_ensure_demo(
                username=username, password=DEMO_PASSWORD, is_staff=is_staff
            )
            state = "created" if created else "exists"
            self.stdout.write(f"user {username}: {state}")
        created = seed_broad_way(users)
        state = "created and started" if created else "exists"
        self.stdout.write(f"campaign {DEMO_CAMPAIGN}: {state}")
        for system, key, players in DEMO_BATTLES:
            name, created = seed_battle(users, system, key, players)
            state = "created and started" if created else "exists"
            self.stdout.write(f"battle {name}: {state}")


@transaction.atomic
def seed_broad_way(users: dict[str, User]) -> bool:
    """The Broad Way demo campaign, built through the services; False when it exists."""
    from campaigns.games.erfworld import (
        army_mark_ready,
        campaign_create_from_scenario,
        campaign_join,
        campaign_start,
        chief_warlord_vote,
        unit_type_create,
        units_buy,
    )
    from campaigns.models import Campaign

    if Campaign.objects.filter(name=DEMO_CAMPAIGN, memberships__user=users["gm"]).exists():
        return False
    gm = users["gm"]
    campaign = campaign_create_from_scenario(gm=gm, scenario_key="broad_way", name=DEMO_CAMPAIGN)
    members = {}
    for username, army in DEMO_ARMIES.items():
        user = users[username]
        members[username] = campaign_join(user=user, invite_code=campaign.invite_code)
        for name, stats, count in army:
            unit_type = unit_type_create(user=user, campaign=campaign, name=name, **stats)
            units_buy(user=user, unit_type=unit_type, count=count)
        army_mark_ready(user=user, campaign=campaign)
    for voter in ("player1", "player2"):
        chief_warlord_vote(user=users[voter], campaign=campaign, candidate=members["player1"])
    campaign_start(user=gm, campaign=campaign)
    return True


@transaction.atomic
def seed_battle(users: dict[str, User], system: str, key: str,
                players: dict[str, str]) -> tuple[str, bool]:
    """A demo battle run by the demo GM, one demo player a side, started; (its name, False
    when it exists)."""
    from campaigns.games.battle.catalogue import battle_scenario
    from campaigns.games.battle.services import battle_create, battle_join, battle_start
    from campaigns.models import Campaign

    scenario = battle_scenario(key)
    assert scenario is not None
    gm = users["gm"]
    if Campaign.objects.filter(scenario_key=key, memberships__user=gm).exists():
        return scenario.name, False
    campaign = battle_create(gm=gm, system=system, scenario_key=key)
    for side, username in players.items():
        battle_join(user=users[username], invite_code=campaign.invite_code, side=side)
    battle_start(user=gm, campaign=campaign)
    return scenario.name, True
