"""Fog of war in map_state, its constant query count, and the phase status board."""

from datetime import timedelta

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld import orders_mark_done, phase_end, scout_order_give
from campaigns.models import (
    Map,
    Phase,
    PlayerPhaseStatus,
    Side,
    Sighting,
    Stack,
    Turn,
    Unit,
    UnitType,
)
from campaigns.selectors import map_state, phase_status_board
from tests.factories import UserFactory, started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]


def test_before_scouting_the_alliance_sees_no_opposition_stack():
    campaign, _, (p1, *_rest) = started_campaign_factory()
    state = map_state(user=p1.user, campaign=campaign)
    assert [(s["hex"], s["side"]) for s in state["stacks"]] == [("A1", "alliance")] * 3
    assert state["sightings"] == []
    assert state["viewer"] == {"role": "player", "side": "alliance"}
    own = next(s for s in state["stacks"] if s["units"][0]["owner"] == p1.pk)
    assert own["units"][0] == {
        "id": own["units"][0]["id"], "name": "Warlord 1", "owner": p1.pk,
        "unit_type": "Warlord", "hits": 5, "attack": 5, "defence": 3, "move": 2,
        "specials": ["commander"], "current_hits": 5,
        "commander_level": Unit.objects.get(pk=own["units"][0]["id"]).commander_level,
        "commander_xp": 0, "movement_used": 0, "has_attacked": False, "was_commanded": False,
        "mount": None,
    }


def test_the_terrain_is_known_to_all_but_opposition_fort_hits_are_not():
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    state = map_state(user=p1.user, campaign=campaign)
    assert state["map"]["terrain"] == campaign.map.terrain
    d4 = [f for f in state["fortifications"] if f["hex"] == "D4"]
    assert d4 == [{"hex": "D4", "kind": "tower", "direction": None, "owner": "opposition",
                   "hits": None, "starting_hits": None, "seen_turn": None}]


def test_without_terrain_known_to_all_only_occupied_terrain_is_shown():
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    campaign.terrain_known_to_all = False
    campaign.save()
    state = map_state(user=p1.user, campaign=campaign)
    assert state["map"]["terrain"] == {"A1": "road"}
    assert state["fortifications"] == []


def test_an_opposition_stack_in_an_occupied_hex_is_seen_as_a_sighting_shows_it():
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    Stack.objects.filter(campaign=campaign, hex="C6").update(hex="A1")  # the Riders
    state = map_state(user=p1.user, campaign=campaign)
    riders = [s for s in state["stacks"] if s["side"] == "opposition"]
    assert [s["units"] for s in riders] == [[
        {"name": f"Rider {i}", "unit_type": "Rider", "current_hits": 4} for i in (1, 2, 3)
    ]]


def test_after_the_scout_phase_the_map_holds_exactly_the_inspected_hexes_with_their_turn():
    campaign, gm, (p1, *_rest) = started_campaign_factory()
    scout_order_give(user=p1.user, campaign=campaign, scout=Unit.objects.get(
        owner=p1, name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    state = map_state(user=p1.user, campaign=campaign)
    assert [(s["hex"], s["turn"]) for s in state["sightings"]] == [
        ("B1", 1), ("B2", 1), ("C3", 1), ("D3", 1), ("D4", 1),
    ]
    d4 = next(s for s in state["sightings"] if s["hex"] == "D4")
    assert d4["seen"] == Sighting.objects.get(hex="D4").seen
    assert {s["side"] for s in state["stacks"]} == {"alliance"}


def test_the_gm_sees_everything():
    campaign, gm, _ = started_campaign_factory()
    state = map_state(user=gm, campaign=campaign)
    assert sorted((s["hex"], s["side"], len(s["units"])) for s in state["stacks"]) == [
        ("A1", "alliance", 13), ("A1", "alliance", 13), ("A1", "alliance", 13),
        ("C6", "opposition", 3), ("D4", "opposition", 5), ("G7", "opposition", 8),
        ("I9", "opposition", 3), ("J10", "opposition", 6), ("J10", "opposition", 11),
    ]
    assert len(state["fortifications"]) == 14
    assert all(f["hits"] is not None for f in state["fortifications"])


def test_a_non_member_gets_no_map():
    campaign, _, _ = started_campaign_factory(players=1)
    with pytest.raises(CampaignError) as info:
        map_state(user=UserFactory(), campaign=campaign)
    assert info.value.code == "not_member"


def test_no_seed_in_the_map_state():
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    seed = Phase.objects.get(campaign=campaign).dice_seed
    assert seed not in str(map_state(user=gm, campaign=campaign))
    assert seed not in str(phase_status_board(user=p1.user, campaign=campaign))


# --- query count ---------------------------------------------------------------------------


def grow(campaign, *, size: int, stacks: int) -> None:
    """Make the campaign's map size × size with terrain everywhere, and add `stacks` stacks
    (half alliance, half opposition, one unit each) and a latest sighting per opposition one."""
    from rules.hexgrid import column_letters

    labels = [f"{column_letters(c)}{r}" for c in range(size) for r in range(1, size + 1)]
    Map.objects.filter(campaign=campaign).update(
        cols=size, rows=size, terrain=dict.fromkeys(labels, "woods")
    )
    sides = {s.kind: s for s in Side.objects.filter(campaign=campaign)}
    unit_type = UnitType.objects.filter(campaign=campaign, owner=None).first()
    turn = Turn.objects.get(campaign=campaign)
    phase = Phase.objects.get(campaign=campaign)
    new = Stack.objects.bulk_create([
        Stack(campaign=campaign, side=sides["alliance" if i % 2 else "opposition"],
              hex=labels[(i * 7) % len(labels)])
        for i in range(stacks)
    ])
    Unit.objects.bulk_create([
        Unit(campaign=campaign, side=s.side, unit_type=unit_type, name=f"U{s.pk}",
             current_hits=4, stack=s)
        for s in new
    ])
    Sighting.objects.bulk_create([
        Sighting(campaign=campaign, side=sides["alliance"], hex=hex_label, turn=turn, phase=phase,
                 seen={"hex": hex_label})
        for hex_label in {s.hex for s in new if s.side.kind == "opposition"}
    ])


@pytest.mark.parametrize(("size", "stacks"), [(12, 0), (100, 2000)])
def test_map_state_query_count_does_not_grow_with_the_map(
    django_assert_num_queries, size, stacks,
):
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    if stacks:
        grow(campaign, size=size, stacks=stacks)
    player = p1.user
    with django_assert_num_queries(8):
        player_state = map_state(user=player, campaign=campaign)
    with django_assert_num_queries(7):
        gm_state = map_state(user=gm, campaign=campaign)
    assert (player_state["map"]["cols"], len(gm_state["stacks"])) == (size, 7 + stacks)


# --- phase status board --------------------------------------------------------------------


def test_the_status_board_shows_who_is_done_and_who_is_late():
    campaign, _, (cw, p2, p3) = started_campaign_factory()
    done = orders_mark_done(user=cw.user, campaign=campaign)
    phase = Phase.objects.get(campaign=campaign)
    # 73 hours pass: the Chief Warlord was done in time, p2 and p3 were not.
    PlayerPhaseStatus.objects.filter(pk=done.pk).update(done_at=done.done_at - timedelta(hours=73))
    Phase.objects.filter(pk=phase.pk).update(
        opened_at=phase.opened_at - timedelta(hours=73),
        deadline_at=phase.deadline_at - timedelta(hours=73),
    )
    orders_mark_done(user=cw.user, campaign=campaign, on_behalf_of=p2)
    board = phase_status_board(user=p3.user, campaign=campaign)
    assert (board["turn"], board["phase"], board["phase_name"]) == (
        1, "scout", "Alliance scout phase",
    )
    assert board["deadline_at"] == phase.deadline_at - timedelta(hours=73)
    assert [(p["name"], p["is_chief_warlord"], p["done"], p["late"], p["proxied_by"])
            for p in board["players"]] == [
        (cw.user.username, True, True, False, None),
        (p2.user.username, False, True, True, cw.user.username),
        (p3.user.username, False, False, True, None),
    ]
