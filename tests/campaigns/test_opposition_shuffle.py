"""Varying the opposition: a scenario names, per opposition stack, other hexes it may start in;
a campaign made with "shuffle" (the page's default), or the GM's "shuffle again" before the
start, draws them so that reading the scenario does not tell a player where its forces are.
The Broad Way's three forward garrisons (D4, G7, I9) may swap forts and its riders lie in one
of four woods hexes; the J10 garrison never moves."""

import random
from collections import Counter

import pytest
from django.test import Client
from django.utils.html import escape
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld import (
    campaign_create_from_scenario,
    campaign_join,
    opposition_shuffle,
)
from campaigns.games.erfworld.saved_scenarios import scenario_save
from campaigns.games.erfworld.scenarios import load_scenario
from campaigns.games.erfworld.setup import varied_start_hexes
from campaigns.models import Membership, Stack
from tests.factories import UserFactory, campaign_factory, started_campaign_factory
from tests.web.test_gm_scenarios import small_scenario

pytestmark = pytest.mark.django_db

FORTS = {"D4", "G7", "I9"}
WOODS = {"C6", "B6", "C7", "D7"}


def opposition_hexes(campaign):
    return list(Stack.objects.filter(campaign=campaign, side__kind="opposition")
                .order_by("created_seq", "pk").values_list("hex", flat=True))


def test_the_broad_way_names_its_candidates():
    assert [s.candidates for s in load_scenario("broad_way").stacks] == [
        ("G7", "I9"), ("D4", "I9"), ("B6", "C7", "D7"), ("D4", "G7"), (), ()]


def test_every_permutation_of_the_garrisons_and_every_woods_hex_is_drawn():
    stacks = load_scenario("broad_way").stacks
    rng = random.Random(7)
    draws = [tuple(varied_start_hexes(stacks, rng)) for _ in range(1200)]
    garrisons = Counter((d[0], d[1], d[3]) for d in draws)
    assert (sorted(garrisons), {d[2] for d in draws}, {d[4:] for d in draws},
            all(len({d[0], d[1], d[3]}) == 3 for d in draws),
            min(garrisons.values()) > 150) == (
        sorted([("D4", "G7", "I9"), ("D4", "I9", "G7"), ("G7", "D4", "I9"),
                ("G7", "I9", "D4"), ("I9", "D4", "G7"), ("I9", "G7", "D4")]),
        WOODS, {("J10", "J10")}, True, True)


def test_a_campaign_made_without_shuffling_stands_as_the_scenario_says():
    campaign = campaign_factory()
    assert opposition_hexes(campaign) == ["D4", "G7", "C6", "I9", "J10", "J10"]


def test_a_shuffled_campaign_keeps_each_stack_among_its_own_hexes():
    seen = set()
    for _ in range(8):  # eight GMs: each may make at most 10 campaigns an hour
        campaign = campaign_create_from_scenario(gm=UserFactory(), scenario_key="broad_way",
                                                 vary_opposition=True)
        hexes = opposition_hexes(campaign)
        seen.add(tuple(hexes))
        assert ({hexes[0], hexes[1], hexes[3]}, hexes[2] in WOODS, hexes[4:]) == (
            FORTS, True, ["J10", "J10"])
    assert len(seen) > 1  # 24 placements, all eight alike: odds below 24^-7 (1 in 4.6e9)


def test_the_gm_shuffles_again_before_the_start():
    campaign = campaign_factory()
    gm = campaign.memberships.get(role="gm").user
    version = campaign.version
    hexes = opposition_shuffle(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    assert (opposition_hexes(campaign), {hexes[0], hexes[1], hexes[3]}, hexes[2] in WOODS,
            campaign.version) == (hexes, FORTS, True, version + 1)


def test_only_the_gm_shuffles_and_only_before_the_start():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    with pytest.raises(NotAllowedError):
        opposition_shuffle(user=p1.user, campaign=campaign)
    with pytest.raises(WrongStateError, match="only before the campaign starts"):
        opposition_shuffle(user=gm, campaign=campaign)
    assert opposition_hexes(campaign) == ["D4", "G7", "C6", "I9", "J10", "J10"]


def test_a_scenario_without_candidates_has_nothing_to_shuffle():
    author = UserFactory()
    scenario_save(user=author, key="little_hill", data=small_scenario())
    campaign = campaign_create_from_scenario(gm=author, scenario_key="little_hill")
    with pytest.raises(RuleViolationError) as caught:
        opposition_shuffle(user=author, campaign=campaign)
    assert (caught.value.code, opposition_hexes(campaign)) == ("no_candidates", ["B2"])


def test_a_scenario_changed_since_is_refused():
    author = UserFactory()
    data = small_scenario()
    data["opposition"]["stacks"][0]["candidates"] = ["A2"]
    scenario_save(user=author, key="little_hill", data=data)
    campaign = campaign_create_from_scenario(gm=author, scenario_key="little_hill")
    data["opposition"]["stacks"].append({"hex": "A3", "units": [{"type": "Guard", "count": 1}]})
    scenario_save(user=author, key="little_hill", data=data)
    with pytest.raises(RuleViolationError) as caught:
        opposition_shuffle(user=author, campaign=campaign)
    assert (caught.value.code, opposition_hexes(campaign)) == ("scenario_changed", ["B2"])


def test_the_create_form_shuffles_by_default_and_can_be_told_not_to(client):
    gm = UserFactory()
    client.force_login(gm)
    page = client.get("/campaigns/gm/").content.decode()
    client.post("/campaigns/gm/new/", {"scenario": "broad_way", "name": "Fixed"})
    fixed = Membership.objects.get(user=gm, campaign__name="Fixed").campaign
    assert ('<input type="checkbox" name="vary_opposition" value="1" checked>' in page,
            opposition_hexes(fixed)) == (True, ["D4", "G7", "C6", "I9", "J10", "J10"])


def test_the_lobby_button_shuffles_for_the_gm_and_refuses_a_player(client):
    campaign = campaign_factory()
    gm = campaign.memberships.get(role="gm").user
    client.force_login(gm)
    lobby = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    player = UserFactory()
    campaign_join(user=player, invite_code=campaign.invite_code)
    as_player = Client()
    as_player.force_login(player)
    refused = as_player.post(f"/campaigns/{campaign.pk}/shuffle-opposition/")
    unmoved = opposition_hexes(campaign)
    done = client.post(f"/campaigns/{campaign.pk}/shuffle-opposition/", follow=True)
    hexes = opposition_hexes(campaign)
    assert (refused.status_code, "Only the Game Master may do this." in refused.content.decode(),
            unmoved == ["D4", "G7", "C6", "I9", "J10", "J10"],
            'data-key="shuffle-opposition"' in lobby, done.redirect_chain[-1][0],
            escape("The opposition's start hexes were drawn again; its stacks now stand in "
                   f"{', '.join(hexes)} (only you see this).") in done.content.decode()) == (
        400, True, True, True, f"/campaigns/{campaign.pk}/", True)


def test_the_api_creates_shuffled_and_shuffles_again():
    gm = UserFactory()
    api = APIClient()
    api.force_authenticate(gm)
    made = api.post("/api/v1/campaigns/", {"scenario": "broad_way", "vary_opposition": True},
                    format="json")
    campaign_id = made.json()["id"]
    again = api.post(f"/api/v1/campaigns/{campaign_id}/gm/shuffle-opposition/")
    hexes = again.json()["hexes"]
    assert (made.status_code, again.status_code, {hexes[0], hexes[1], hexes[3]}, hexes[4:]) == (
        201, 200, FORTS, ["J10", "J10"])
