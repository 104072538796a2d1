"""§2 stacks: fliers may not stack with non-fliers, except non-fliers riding a flying mount.

The army is bought through the services with two flying Griffons, so the campaign starts with
the player's one stack at A1 holding fliers and walkers together (every unit is placed in one
stack at the start). Every refused merge, move, split or dismount changes nothing."""

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld import campaign_start, chief_warlord_appoint, phase_end
from campaigns.games.erfworld.move_combat import stack_move, stack_split, stacks_merge, units_mount
from campaigns.models import Phase, Stack, Unit
from tests.campaigns.engine_setup import SEED, unit
from tests.factories import (
    STANDARD_ARMY,
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

# H 6 ≥ 2 × a Scout's H 3: a Griffon can carry one Scout (§2 mounts); M 3, flying.
GRIFFON = ("Griffon", {"hits": 6, "attack": 4, "defence": 2, "move": 3, "specials": ["flying"]}, 2)


def flier_campaign():
    """Broad Way in its move/combat phase; the player's army has 2 Griffons besides the
    standard army, all in one stack at A1. Returns (campaign, player)."""
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    p1 = player_factory(campaign=campaign)
    army_factory(membership=p1, army=[*STANDARD_ARMY, GRIFFON])
    chief_warlord_appoint(user=gm, campaign=campaign, membership=p1)
    campaign_start(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    Phase.objects.filter(campaign=campaign, status="open").update(dice_seed=SEED)
    campaign.refresh_from_db()
    p1.refresh_from_db()
    return campaign, p1


def start_stack(p1):
    return Stack.objects.get(units__owner=p1, units__name="Warlord 1")


def names(stack):
    return list(Unit.objects.filter(stack=stack).order_by("position").values_list("name", flat=True))


def test_the_starting_stack_of_fliers_and_walkers_cannot_move(unchanged):
    campaign, p1 = flier_campaign()
    stack = start_stack(p1)
    assert names(stack)[-2:] == ["Griffon 1", "Griffon 2"]
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B1"])
    assert info.value.code == "stacking"
    assert "Griffon 1, Griffon 2 fly" in str(info.value)


def test_fliers_split_off_and_cannot_be_merged_back_with_walkers(unchanged):
    campaign, p1 = flier_campaign()
    walkers = start_stack(p1)
    fliers = stack_split(user=p1.user, campaign=campaign, stack=walkers,
                         units=[unit(p1, "Griffon 1"), unit(p1, "Griffon 2")])
    assert (names(fliers), len(names(walkers))) == (["Griffon 1", "Griffon 2"], 13)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stacks_merge(user=p1.user, campaign=campaign, stacks=[walkers, fliers])
    assert info.value.code == "stacking"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stacks_merge(user=p1.user, campaign=campaign, stacks=[fliers, walkers])
    assert info.value.code == "stacking"
    # Fliers with fliers is fine, and the stack of fliers moves: A2, A3, A4 open, 1 each.
    lone = stack_split(user=p1.user, campaign=campaign, stack=fliers, units=[unit(p1, "Griffon 2")])
    merged = stacks_merge(user=p1.user, campaign=campaign, stacks=[fliers, lone])
    assert names(merged) == ["Griffon 1", "Griffon 2"]
    assert stack_move(user=p1.user, campaign=campaign, stack=merged, path=["A2", "A3", "A4"]).cost == 3


def test_a_walker_riding_a_flying_mount_stacks_with_fliers_and_cannot_dismount_there(unchanged):
    campaign, p1 = flier_campaign()
    start = start_stack(p1)
    scout, griffon = unit(p1, "Scout 1"), unit(p1, "Griffon 1")
    # Neither the Scout alone nor the Scout with an unridden Griffon may leave as a stack of
    # fliers and walkers.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_split(user=p1.user, campaign=campaign, stack=start, units=[griffon, scout])
    assert info.value.code == "stacking"
    units_mount(user=p1.user, campaign=campaign, riders=[scout], mount=griffon)
    assert Unit.objects.get(pk=scout.pk).mount_id == griffon.pk
    # The fliers leave together (leaving Griffon 2 among the walkers would be refused).
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_split(user=p1.user, campaign=campaign, stack=start, units=[griffon, scout])
    assert info.value.code == "stacking"
    riders = stack_split(user=p1.user, campaign=campaign, stack=start,
                         units=[griffon, scout, unit(p1, "Griffon 2")])
    assert names(riders) == ["Scout 1", "Griffon 1", "Griffon 2"]  # stack order is kept
    # The rider flies with its mount: the mount and rider make a flier stack of their own,
    # and the other Griffon may merge with it again.
    lone = stack_split(user=p1.user, campaign=campaign, stack=riders, units=[unit(p1, "Griffon 2")])
    assert names(riders) == ["Scout 1", "Griffon 1"]
    merged = stacks_merge(user=p1.user, campaign=campaign, stacks=[riders, lone])
    assert names(merged) == ["Scout 1", "Griffon 1", "Griffon 2"]
    # Dismounting would leave a walker among fliers: refused.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        units_mount(user=p1.user, campaign=campaign, riders=[scout], mount=None)
    assert info.value.code == "stacking"
    # The walkers' stack still refuses the fliers, riders or not.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stacks_merge(user=p1.user, campaign=campaign, stacks=[start, merged])
    assert info.value.code == "stacking"
    # The riders' stack moves with the mount's move (Scout M 4, Griffon M 3): 3 open hexes
    # cost 3, a 4th is out of reach.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=merged, path=["A2", "A3", "A4", "A5"])
    assert info.value.code == "out_of_reach"
    result = stack_move(user=p1.user, campaign=campaign, stack=merged, path=["A2", "A3", "A4"])
    assert (result.path, result.cost) == (["A1", "A2", "A3", "A4"], 3)
