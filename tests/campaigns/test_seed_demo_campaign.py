"""`seed_demo` also seeds the Broad Way campaign, started in turn 1's scout phase, once."""

from io import StringIO

import pytest
from django.core.management import call_command

from campaigns.models import Campaign, Membership, Phase, Stack

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def seed() -> list[str]:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue().splitlines()


def test_seed_demo_starts_the_broad_way_campaign_once():
    assert seed()[5:] == ["campaign The Broad Way: created and started",
                          "battle The ford at Epping: created and started",
                          "battle The hill at Redmarch: created and started"]
    assert seed()[5:] == ["campaign The Broad Way: exists", "battle The ford at Epping: exists",
                          "battle The hill at Redmarch: exists"]
    campaign = Campaign.objects.get(ruleset_key="erfworld")
    assert (campaign.name, campaign.status) == ("The Broad Way", "running")
    members = Membership.objects.filter(campaign=campaign).order_by("user__username")
    assert [(m.user.username, m.role, m.is_chief_warlord, m.army_ready_at is not None)
            for m in members] == [
        ("gm", "gm", False, False),
        ("player1", "player", True, True),
        ("player2", "player", False, True),
        ("player3", "player", False, True),
    ]
    phase = Phase.objects.get(campaign=campaign)
    assert (phase.turn.number, phase.kind, phase.status) == (1, "scout", "open")
    assert sorted(
        (s.hex, s.units.count()) for s in Stack.objects.filter(side__kind="alliance")
    ) == [("A1", 12), ("A1", 16), ("A1", 23)]


def test_seed_demo_starts_one_demo_battle_of_each_system():
    seed()
    battles = {c.ruleset_key: c for c in Campaign.objects.exclude(ruleset_key="erfworld")}
    assert sorted(battles) == ["elf_abas", "quad"]
    for system, sides in (("elf_abas", {"Epping": "player1", "Fremont": "player2"}),
                          ("quad", {"Red": "player2", "Blue": "player3"})):
        campaign = battles[system]
        assert campaign.status == "running"
        assert {m.side.name: m.user.username for m in Membership.objects.filter(
            campaign=campaign, role="player")} == sides
        assert Phase.objects.get(campaign=campaign, status="open").kind == "battle"
