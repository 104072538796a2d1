"""Play reads of the API: reachable hexes, paths, attack targets and the attack preview."""

import pytest

from campaigns.games.erfworld import stack_split
from campaigns.models import Unit
from tests.api.play_setup import scouted_move_phase, url
from tests.campaigns.conftest import fingerprint
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put, unit
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def warlord_next_to_d4(campaign, member, level=2):
    """Warlord 1 alone in D3, commander level 2 (CB 1 + 0.2 + 0.1 Chief Warlord = 13/10)."""
    Unit.objects.filter(pk=unit(member, "Warlord 1").pk).update(commander_level=level)
    warlord = stack_split(user=member.user, campaign=campaign, stack=own_stack(member),
                          units=[unit(member, "Warlord 1")])
    return put(warlord, "D3")


def preview(client, campaign, stack, body):
    return client.post(url(campaign, f"stacks/{stack.pk}/attack/preview/"), body, format="json")


# --- reachable -----------------------------------------------------------------------------


def test_reachable_lists_the_hexes_of_the_next_move_with_their_cost(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = client_for(p1.user).get(url(campaign, f"stacks/{stack.pk}/reachable/"))
    # Spearmen (Move 1) set the pace; on road A1 → B1 → B2 the road bonus gives 2.
    assert (response.status_code, response.json()) == (200, {
        "stack": stack.pk, "move_left": 1, "road_move_left": 2,
        "hexes": [{"hex": "A2", "cost": 1}, {"hex": "B1", "cost": 1}, {"hex": "B2", "cost": 2}],
    })


def test_reachable_ignores_an_unscouted_enemy_stack_like_the_move_service(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    warlord = warlord_next_to_d4(campaign, p1)
    hexes = client_for(p1.user).get(
        url(campaign, f"stacks/{warlord.pk}/reachable/")).json()["hexes"]
    # D4's garrison was not scouted: D4 is a hex it may try to enter (and be ambushed).
    assert {"hex": "D4", "cost": 2} in hexes


def test_reachable_leaves_out_a_scouted_enemy_hex(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    hexes = client_for(p1.user).get(
        url(campaign, f"stacks/{warlord.pk}/reachable/")).json()["hexes"]
    assert "D4" not in {h["hex"] for h in hexes}


def test_reachable_in_the_scout_phase_is_400_naming_the_phase(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    response = client_for(p1.user).get(url(campaign, f"stacks/{own_stack(p1).pk}/reachable/"))
    assert (response.status_code, response.json()) == (400, {
        "code": "not_move_phase",
        "detail": "Stacks move and fight in the move/combat and opposition phases; this is the "
        "alliance scout phase.", "field": None})


def test_reachable_of_an_allys_stack_is_403(client_for):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    response = client_for(p1.user).get(url(campaign, f"stacks/{own_stack(p2).pk}/reachable/"))
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")


def test_the_chief_warlord_reads_a_late_players_reachable_by_proxy_and_records_nothing(
    client_for,
):
    from tests.api.test_orders import make_late

    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    make_late(campaign)
    before = fingerprint(campaign.pk)
    response = client_for(p1.user).get(
        url(campaign, f"stacks/{own_stack(p2).pk}/reachable/?on_behalf_of={p2.pk}"))
    assert (response.status_code, response.json()["move_left"]) == (200, 1)
    assert fingerprint(campaign.pk) == before


def test_reachable_of_a_hidden_opposition_stack_is_404_like_an_unknown_id(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    client = client_for(p1.user)
    hidden = client.get(url(campaign, f"stacks/{opposition_stack(campaign, 'D4').pk}/reachable/"))
    unknown = client.get(url(campaign, "stacks/999999/reachable/"))
    assert (hidden.status_code, hidden.json()) == (unknown.status_code, unknown.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None})


def test_reachable_is_404_to_a_user_outside_the_campaign(client_for):
    from tests.factories import UserFactory

    campaign, _, (p1,) = move_phase_campaign()
    response = client_for(UserFactory()).get(
        url(campaign, f"stacks/{own_stack(p1).pk}/reachable/"))
    assert response.status_code == 404


def test_reachable_is_401_anonymously(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = client_for(None).get(url(campaign, f"stacks/{own_stack(p1).pk}/reachable/"))
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


# --- path ----------------------------------------------------------------------------------


def test_path_gives_the_hexes_entered_and_the_cost(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = client_for(p1.user).get(url(campaign, f"stacks/{stack.pk}/path/?to=b2"))
    assert (response.status_code, response.json()) == (
        200, {"path": ["B1", "B2"], "cost": 2, "all_on_road": True})


def test_path_out_of_reach_is_400_with_the_rules_sentence(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = client_for(p1.user).get(url(campaign, f"stacks/{own_stack(p1).pk}/path/?to=C3"))
    assert (response.status_code, response.json()) == (400, {
        "code": "out_of_reach",
        "detail": "C3 is out of reach: getting there needs 3 movement points, but the stack has "
        "only 1 left (a stack moves at the smallest remaining allowance among its units; the "
        "road bonus of 1 applies only to a move wholly on road, §2).", "field": None})


def test_path_to_a_bad_label_is_400_naming_to(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = client_for(p1.user).get(url(campaign, f"stacks/{own_stack(p1).pk}/path/?to=ZZ"))
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "invalid_hex", "to")


def test_path_without_to_is_400_naming_to(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = client_for(p1.user).get(url(campaign, f"stacks/{own_stack(p1).pk}/path/"))
    assert (response.status_code, response.json()) == (
        400, {"code": "required", "detail": "This field is required.", "field": "to"})


# --- targets -------------------------------------------------------------------------------


def test_targets_are_the_adjacent_scouted_enemy_stacks_with_their_unit_ids(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    d4 = opposition_stack(campaign, "D4")
    response = client_for(p1.user).get(url(campaign, f"stacks/{warlord.pk}/targets/"))
    ids = list(Unit.objects.filter(stack=d4).order_by("position", "pk").values_list("pk",
                                                                                     flat=True))
    assert (response.status_code, response.json()) == (200, [{
        "id": d4.pk, "hex": "D4", "side": "opposition",
        "units": [{"name": name, "unit_type": kind, "current_hits": hits, "id": pk}
                  for pk, (name, kind, hits) in zip(ids, [
                      ("Spearman 1", "Spearman", 4), ("Spearman 2", "Spearman", 4),
                      ("Spearman 3", "Spearman", 4), ("Archer 1", "Archer", 3),
                      ("Archer 2", "Archer", 3)], strict=True)]}])


def test_targets_leave_out_an_unscouted_adjacent_enemy_stack(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    warlord = warlord_next_to_d4(campaign, p1)
    response = client_for(p1.user).get(url(campaign, f"stacks/{warlord.pk}/targets/"))
    assert (response.status_code, response.json()) == (200, [])


# --- attack preview ------------------------------------------------------------------------


def test_the_preview_gives_the_exact_odds_of_the_attack(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    d4 = opposition_stack(campaign, "D4")
    defenders = list(Unit.objects.filter(stack=d4).order_by("position", "pk"))
    body = preview(client_for(p1.user), campaign, warlord, {"target": d4.pk}).json()
    # Attacker: TA 5 × CB 13/10 × RN (2d6 + 8)/20 × DF (8 − avgD 13/5 − TB 20/50)/8 = 5/8,
    # i.e. floor(65/16 × RN): 2 hits for 2d6 ≤ 6 (15/36), 3 for 7..11 (20/36), 4 for 12.
    assert body["odds"]["hits_on_defender"] == [
        {"hits": 2, "p": "5/12", "chance": 0.4167},
        {"hits": 3, "p": "5/9", "chance": 0.5556},
        {"hits": 4, "p": "1/36", "chance": 0.0278},
    ]
    assert body["odds"]["expected_hits_on_defender"] == {"p": "47/18", "value": 2.6111}
    # Defender: TA 3 × 4 + 2 × 3 = 18 × RN × DF (8 − 3)/8: floor(45/4 × RN), 5 (2d6 = 2) to 11.
    assert body["odds"]["hits_on_attacker"] == [
        {"hits": 5, "p": "1/36", "chance": 0.0278},
        {"hits": 6, "p": "5/36", "chance": 0.1389},
        {"hits": 7, "p": "1/4", "chance": 0.25},
        {"hits": 8, "p": "1/6", "chance": 0.1667},
        {"hits": 9, "p": "1/4", "chance": 0.25},
        {"hits": 10, "p": "5/36", "chance": 0.1389},
        {"hits": 11, "p": "1/36", "chance": 0.0278},
    ]
    assert body["odds"]["expected_hits_on_attacker"] == {"p": "8", "value": 8.0}
    # Spearman 1 takes every hit first and croaks only at 4 (2d6 = 12); the Warlord (5 hits)
    # always croaks.
    assert [(u["id"], u["side"], u["croak"], u["croak_chance"]) for u in body["odds"]["units"]] \
        == [(unit(p1, "Warlord 1").pk, "attacker", "1", 1.0),
            (defenders[0].pk, "defender", "1/36", 0.0278)] + [
            (d.pk, "defender", "0", 0.0) for d in defenders[1:]]
    assert (body["attacker"], body["defender"], body["odds"]["order"]) == (
        {"stack": warlord.pk, "hex": "D3", "ranged": False,
         "units": [unit(p1, "Warlord 1").pk], "left_out": []},
        {"stack": d4.pk, "hex": "D4", "units": [d.pk for d in defenders],
         "fortification_hits": 20, "fortified": True, "protectors": []},
        "simultaneous",
    )


def test_the_preview_rolls_no_die_and_changes_nothing(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    before = fingerprint(campaign.pk)
    response = preview(client_for(p1.user), campaign, warlord,
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, fingerprint(campaign.pk) == before) == (200, True)


def test_the_preview_of_a_directed_attack_spends_the_hits_on_the_target_first(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    d4 = opposition_stack(campaign, "D4")
    archer = Unit.objects.get(stack=d4, name="Archer 2")
    body = preview(client_for(p1.user), campaign, warlord,
                   {"target": d4.pk, "directed_at": archer.pk}).json()
    # Archer 2 (3 hits) needs 2 × 3 = 6: 2 or 3 hits cost it 1, 4 hits cost it 2; never croaks.
    row = next(u for u in body["odds"]["units"] if u["id"] == archer.pk)
    assert (row["croak"], row["expected_hits_after"]) == (
        "0", {"p": "71/36", "value": 1.9722})


def test_the_preview_of_a_stack_that_is_not_adjacent_is_400_with_the_rule(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    stack = own_stack(p1)
    response = preview(client_for(p1.user), campaign, stack,
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()) == (400, {
        "code": "not_adjacent",
        "detail": "An attack is against an enemy stack in an adjacent hex (§3); D4 is not "
        "adjacent to A1.", "field": None})


def test_the_preview_of_a_stack_whose_units_all_attacked_is_400(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    Unit.objects.filter(stack=warlord).update(has_attacked=True)
    response = preview(client_for(p1.user), campaign, warlord,
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()["code"]) == (400, "already_attacked")


def test_the_preview_against_an_unscouted_stack_is_404_like_an_unknown_id(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    warlord = warlord_next_to_d4(campaign, p1)
    client = client_for(p1.user)
    hidden = preview(client, campaign, warlord, {"target": opposition_stack(campaign, "D4").pk})
    unknown = preview(client, campaign, warlord, {"target": 999999})
    assert (hidden.status_code, hidden.json()) == (unknown.status_code, unknown.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None})


def test_the_preview_directed_at_a_hidden_unit_is_404(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    warlord = warlord_next_to_d4(campaign, p1)
    hidden = Unit.objects.filter(stack=opposition_stack(campaign, "I9")).first()
    response = preview(client_for(p1.user), campaign, warlord,
                       {"target": opposition_stack(campaign, "D4").pk, "directed_at": hidden.pk})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_the_preview_with_an_allys_stack_is_403(client_for):
    campaign, _, (p1, p2) = scouted_move_phase(players=2)
    stack = put(own_stack(p2), "D3")
    response = preview(client_for(p1.user), campaign, stack,
                       {"target": opposition_stack(campaign, "D4").pk})
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")


def test_the_preview_in_the_scout_phase_is_400_naming_the_phase(client_for):
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    attacker = put(opposition_stack(campaign, "D4"), "B2")
    response = preview(client_for(gm), campaign, attacker, {"target": own_stack(p1).pk})
    assert (response.status_code, response.json()["code"]) == (400, "not_move_phase")


def test_the_preview_needs_a_target(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    response = preview(client_for(p1.user), campaign, own_stack(p1), {})
    assert (response.status_code, response.json()) == (
        400, {"code": "required", "detail": "This field is required.", "field": "target"})


def test_the_preview_is_401_anonymously(client_for):
    campaign, _, (p1,) = scouted_move_phase()
    response = preview(client_for(None), campaign, own_stack(p1), {"target": 1})
    assert response.status_code == 401


