"""Play writes of the API in combat: attack, siege, repair."""

import math
from fractions import Fraction

import pytest

from campaigns.games.erfworld import phase_end, stack_split
from campaigns.models import Campaign, Event, Fortification, Membership, Stack, Unit, UnitType
from tests.api.play_setup import scouted_move_phase, url
from tests.campaigns.conftest import fingerprint
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put, unit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def post(client, campaign, tail, body):
    return client.post(url(campaign, tail), body, format="json")


def refused(client, campaign, tail, body):
    before = fingerprint(campaign.pk)
    response = post(client, campaign, tail, body)
    assert fingerprint(campaign.pk) == before
    return response


def warlord_in(campaign, member, hex_label):
    Unit.objects.filter(pk=unit(member, "Warlord 1").pk).update(commander_level=2)
    warlord = stack_split(user=member.user, campaign=campaign, stack=own_stack(member),
                          units=[unit(member, "Warlord 1")])
    return put(warlord, hex_label)


# --- attack --------------------------------------------------------------------------------


def test_an_attack_is_resolved_and_answers_its_event_and_report(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_in(campaign, p1, "D3")
    d4 = opposition_stack(campaign, "D4")
    response = post(client_for(p1.user), campaign, f"stacks/{warlord.pk}/attack/",
                    {"target": d4.pk})
    body = response.json()
    event = Event.objects.get(kind="combat")
    # Rolls #1-#2 = 4 + 6: floor(65/16 × 9/10) = 3 hits on Spearman 1; the garrison's at
    # least 5 hits croak the Warlord, so its stack is gone.
    assert (response.status_code, body["event"], body["report"], body["stack"]) == (
        200, event.pk, event.payload, None)
    assert (body["report"]["result"]["hits_on_defender"],
            Unit.objects.get(stack=d4, name="Spearman 1").current_hits,
            Unit.objects.get(pk=unit(p1, "Warlord 1").pk).current_hits) == (3, 1, 0)


def test_an_attack_on_an_unscouted_stack_is_404_and_changes_nothing(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    warlord = warlord_in(campaign, p1, "D3")
    response = refused(client_for(p1.user), campaign, f"stacks/{warlord.pk}/attack/",
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None})


def test_an_attack_from_afar_is_400_with_the_rule(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    response = refused(client_for(p1.user), campaign, f"stacks/{own_stack(p1).pk}/attack/",
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()) == (400, {
        "code": "not_adjacent", "field": None,
        "detail": "An attack is against an enemy stack in an adjacent hex (§3); D4 is not "
        "adjacent to A1."})


def test_a_directed_attack_without_a_commander_is_400_naming_directed_at(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    spears = put(stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                             units=[unit(p1, "Spearman 1")]), "D3")
    d4 = opposition_stack(campaign, "D4")
    response = refused(client_for(p1.user), campaign, f"stacks/{spears.pk}/attack/",
                       {"target": d4.pk, "directed_at": Unit.objects.filter(stack=d4).first().pk})
    assert (response.status_code, response.json()) == (400, {
        "code": "directed_needs_commander", "field": "directed_at",
        "detail": "Only an attacking stack with a commander may direct its hits at one unit."})


def test_attacking_with_an_allys_stack_is_403(client_for):
    campaign, _, (p1, p2) = scouted_move_phase(players=2)
    stack = put(own_stack(p2), "D3")
    response = refused(client_for(p1.user), campaign, f"stacks/{stack.pk}/attack/",
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")


def test_an_attack_in_the_scout_phase_is_400(client_for):
    from tests.factories import started_campaign_factory

    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    attacker = put(opposition_stack(campaign, "D4"), "B2")
    response = refused(client_for(gm), campaign, f"stacks/{attacker.pk}/attack/",
                       {"target": own_stack(p1).pk})
    assert (response.status_code, response.json()["code"]) == (400, "not_move_phase")


def test_an_attack_is_401_anonymously(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    response = refused(client_for(None), campaign, f"stacks/{own_stack(p1).pk}/attack/",
                       {"target": 1})
    assert response.status_code == 401


# --- siege ---------------------------------------------------------------------------------


def ram_in(member, hex_label):
    """A stack of one siege unit (Attack 6) in `hex_label` (no army design offers one)."""
    kind = UnitType.objects.create(campaign=member.campaign, side=member.side, owner=member,
                                   name="Ram", hits=6, attack=6, defence=2, move=1,
                                   specials=["siege"], cost=0)
    stack = Stack.objects.create(campaign=member.campaign, side=member.side, hex=hex_label)
    Unit.objects.create(campaign=member.campaign, side=member.side, owner=member,
                        unit_type=kind, name="Ram 1", current_hits=6, stack=stack,
                        was_commanded=True)
    return stack


def g7_north_wall(campaign):
    return Fortification.objects.get(campaign=campaign, hex="G7", kind="wall", direction="N")


def test_a_siege_strikes_the_wall_and_answers_its_hits(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    ram = ram_in(p1, "G6")
    wall = g7_north_wall(campaign)
    response = post(client_for(p1.user), campaign, f"stacks/{ram.pk}/siege/",
                    {"fortification": wall.pk})
    body = response.json()
    # damage = floor(siege attack 6 × CB 1 × RN (2d6 + 8)/20).
    damage = math.floor(6 * Fraction(sum(body["report"]["roll"]) + 8, 20))
    assert (response.status_code, body["report"]["damage"], body["fortification"]) == (
        200, damage, {"id": wall.pk, "hex": "G7", "kind": "wall", "direction": "N",
                      "owner": "opposition", "hits": 20 - damage, "starting_hits": 20,
                      "seen_turn": None})
    assert body["event"] == Event.objects.get(kind="siege").pk


def get(client, campaign, tail):
    return client.get(url(campaign, tail))


def test_siege_targets_list_the_wall_across_and_the_exact_damage_odds(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    ram = ram_in(p1, "G6")
    wall = g7_north_wall(campaign)
    response = get(client_for(p1.user), campaign, f"stacks/{ram.pk}/siege/targets/")
    # damage = floor(6 × (2d6 + 8) / 20): sums 2–5 → 3 (10 rolls of 36), 6–8 → 4 (16),
    # 9–11 → 5 (9), 12 → 6 (1); expected (30 + 64 + 45 + 6) / 36 = 145/36. The wall's hits
    # are not seen from G6.
    assert (response.status_code, response.json()) == (200, {
        "stack": ram.pk, "hex": "G6",
        "targets": [{"id": wall.pk, "hex": "G7", "kind": "wall", "direction": "N",
                     "description": "the N wall of G7", "owner": "opposition", "hits": None,
                     "starting_hits": None}],
        "odds": {"siege_attack": 6, "cb": "1", "units": [Unit.objects.get(stack=ram).pk],
                 "damage": [{"damage": 3, "p": "5/18", "chance": 0.2778},
                            {"damage": 4, "p": "4/9", "chance": 0.4444},
                            {"damage": 5, "p": "1/4", "chance": 0.25},
                            {"damage": 6, "p": "1/36", "chance": 0.0278}],
                 "expected_damage": {"p": "145/36", "value": 4.0278}}})


def test_siege_targets_name_the_tower_of_the_stacks_own_hex_with_its_hits(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Stack.objects.filter(campaign=campaign, hex="D4").delete()
    ram = ram_in(p1, "D4")
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    body = get(client_for(p1.user), campaign, f"stacks/{ram.pk}/siege/targets/").json()
    assert body["targets"] == [{"id": tower.pk, "hex": "D4", "kind": "tower", "direction": None,
                                "description": "the tower in D4", "owner": "opposition",
                                "hits": 20, "starting_hits": 20}]


def test_siege_targets_leave_out_breached_walls_and_own_fortifications(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    ram = ram_in(p1, "G6")
    Fortification.objects.filter(pk=g7_north_wall(campaign).pk).update(hits=0)
    body = get(client_for(p1.user), campaign, f"stacks/{ram.pk}/siege/targets/").json()
    assert (body["targets"], body["odds"]) == ([], None)


def test_siege_targets_of_a_stack_without_siege_units_are_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "G6")
    response = get(client_for(p1.user), campaign, f"stacks/{stack.pk}/siege/targets/")
    assert (response.status_code, response.json()["code"]) == (400, "no_siege_units")


def test_siege_targets_after_the_siege_units_struck_are_400_already_attacked(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    ram = ram_in(p1, "G6")
    Unit.objects.filter(stack=ram).update(has_attacked=True)
    response = get(client_for(p1.user), campaign, f"stacks/{ram.pk}/siege/targets/")
    assert (response.status_code, response.json()["code"]) == (400, "already_attacked")


def test_a_siege_without_siege_units_is_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "G6")
    response = refused(client_for(p1.user), campaign, f"stacks/{stack.pk}/siege/",
                       {"fortification": g7_north_wall(campaign).pk})
    assert (response.status_code, response.json()["code"]) == (400, "no_siege_units")


def test_a_siege_of_an_unknown_fortification_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, f"stacks/{ram_in(p1, 'G6').pk}/siege/",
                       {"fortification": 999999})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_a_fortification_unseen_without_known_terrain_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Campaign.objects.filter(pk=campaign.pk).update(terrain_known_to_all=False)
    response = refused(client_for(p1.user), campaign, f"stacks/{ram_in(p1, 'G6').pk}/siege/",
                       {"fortification": g7_north_wall(campaign).pk})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


# --- repair --------------------------------------------------------------------------------


def held_tower(campaign, member, hits=10, points=8):
    """The D4 tower, held by the alliance and damaged to `hits`; `member` has `points`."""
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    Fortification.objects.filter(pk=tower.pk).update(owner=member.side, hits=hits)
    Membership.objects.filter(pk=member.pk).update(pop_points=points)
    return tower


def test_a_repair_restores_hits_for_pop_points(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    tower = held_tower(campaign, p1)
    response = post(client_for(p1.user), campaign, f"fortifications/{tower.pk}/repair/",
                    {"hits": 5})
    assert (response.status_code, response.json()) == (200, {"fortification": {
        "id": tower.pk, "hex": "D4", "kind": "tower", "direction": None, "owner": "alliance",
        "hits": 15, "starting_hits": 20, "seen_turn": None}})
    assert Membership.objects.get(pk=p1.pk).pop_points == 3


def test_a_repair_beyond_the_pop_points_is_400_naming_hits(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    tower = held_tower(campaign, p1, points=2)
    response = refused(client_for(p1.user), campaign, f"fortifications/{tower.pk}/repair/",
                       {"hits": 5})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "not_enough_pop_points", "hits")


def test_a_repair_of_an_enemy_fortification_is_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Membership.objects.filter(pk=p1.pk).update(pop_points=8)
    wall = g7_north_wall(campaign)
    Fortification.objects.filter(pk=wall.pk).update(hits=10)
    response = refused(client_for(p1.user), campaign, f"fortifications/{wall.pk}/repair/",
                       {"hits": 5})
    assert (response.status_code, response.json()["code"]) == (400, "not_holder")


def test_a_repair_in_the_opposition_phase_is_400(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    tower = held_tower(campaign, p1)
    phase_end(user=gm, campaign=campaign)
    response = refused(client_for(p1.user), campaign, f"fortifications/{tower.pk}/repair/",
                       {"hits": 5})
    assert (response.status_code, response.json()["code"]) == (400, "not_alliance_phase")


def test_the_gm_cannot_repair(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    tower = held_tower(campaign, p1)
    response = refused(client_for(gm), campaign, f"fortifications/{tower.pk}/repair/",
                       {"hits": 5})
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")
