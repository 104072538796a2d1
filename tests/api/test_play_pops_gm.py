"""Play writes of the API for pops and the GM's tools: buy, share, grant, end phase, revert,
unflag, adjust hits."""

from decimal import Decimal

import pytest

from campaigns.games.erfworld import pop_points_grant, stack_move
from campaigns.models import Campaign, Fortification, Membership, Phase, Stack, Unit, UnitType
from tests.api.play_setup import url
from tests.campaigns.conftest import fingerprint
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, unit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def post(client, campaign, tail, body):
    return client.post(url(campaign, tail), body, format="json")


def refused(client, campaign, tail, body):
    before = fingerprint(campaign.pk)
    response = post(client, campaign, tail, body)
    assert fingerprint(campaign.pk) == before
    return response


def phase_body(campaign, reason):
    """A GM phase request: the phase the GM saw (the open one) and the reason."""
    found = Phase.objects.filter(campaign=campaign, status="open").first()
    return {"expected_phase": found.pk if found else 0, "reason": reason}


def spearman_type(member):
    return UnitType.objects.get(owner=member, name="Spearman")


# --- pops ----------------------------------------------------------------------------------


def test_pops_are_bought_at_cost_to_appear_in_a_pop_hex(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Membership.objects.filter(pk=p1.pk).update(pop_points=10)
    response = post(client_for(p1.user), campaign, "pops/buy/",
                    {"unit_type": spearman_type(p1).pk, "count": 1, "hex": "b10"})
    pop = Unit.objects.get(owner=p1, name="Spearman 11")
    # A Spearman (H4 A4 D4 M1) costs 7.5 points.
    assert (response.status_code, response.json()) == (201, {
        "units": [{"id": pop.pk, "name": "Spearman 11", "unit_type": "Spearman",
                   "pop_hex": "B10", "commander_level": None}],
        "pop_points": "2.5"})


def test_pops_beyond_the_pop_points_are_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Membership.objects.filter(pk=p1.pk).update(pop_points=7)
    response = refused(client_for(p1.user), campaign, "pops/buy/",
                       {"unit_type": spearman_type(p1).pk, "count": 1, "hex": "B10"})
    assert (response.status_code, response.json()["code"]) == (400, "not_enough_pop_points")


def test_pops_outside_a_pop_hex_are_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    Membership.objects.filter(pk=p1.pk).update(pop_points=10)
    response = refused(client_for(p1.user), campaign, "pops/buy/",
                       {"unit_type": spearman_type(p1).pk, "count": 1, "hex": "A1"})
    assert (response.status_code, response.json()["code"]) == (400, "not_a_pop_hex")


def test_pops_of_an_opposition_unit_type_are_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    theirs = UnitType.objects.filter(campaign=campaign, side__kind="opposition").first()
    response = refused(client_for(p1.user), campaign, "pops/buy/",
                       {"unit_type": theirs.pk, "count": 1, "hex": "B10"})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_pops_of_an_allys_unit_type_are_400(client_for):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    Membership.objects.filter(pk=p1.pk).update(pop_points=10)
    response = refused(client_for(p1.user), campaign, "pops/buy/",
                       {"unit_type": spearman_type(p2).pk, "count": 1, "hex": "B10"})
    assert (response.status_code, response.json()) == (400, {
        "code": "not_your_unit_type", "field": None,
        "detail": "'Spearman' is another player's unit type, not one of yours; pops can only "
        "be of your existing types (§5)."})


def test_the_chief_warlord_shares_granted_pop_points(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=10)
    response = post(client_for(p1.user), campaign, "pops/share/",
                    {"membership": p2.pk, "points": 3})
    assert (response.status_code, response.json()) == (
        200, {"membership": p2.pk, "pop_points": "3",
              "shares": [{"membership": p2.pk, "pop_points": "3"}], "pool": "7"})


def test_the_chief_warlord_shares_with_several_players_in_one_request(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=60)
    response = post(client_for(p1.user), campaign, "pops/share/",
                    {"shares": [{"membership": p1.pk, "points": 25},
                                {"membership": p2.pk, "points": 30}]})
    assert (response.status_code, response.json()) == (
        200, {"membership": p1.pk, "pop_points": "25",
              "shares": [{"membership": p1.pk, "pop_points": "25"},
                         {"membership": p2.pk, "pop_points": "30"}], "pool": "5"})


def test_several_shares_over_the_pool_change_nothing(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=10)
    response = refused(client_for(p1.user), campaign, "pops/share/",
                       {"shares": [{"membership": p1.pk, "points": 6},
                                   {"membership": p2.pk, "points": 6}]})
    assert (response.status_code, response.json()["code"]) == (400, "over_shared")
    p1.refresh_from_db()
    p2.refresh_from_db()
    campaign.refresh_from_db()
    assert (p1.pop_points, p2.pop_points, campaign.pop_pool) == (0, 0, 10)


def test_a_share_names_either_one_player_or_a_list(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=10)
    response = refused(client_for(p1.user), campaign, "pops/share/",
                       {"membership": p2.pk, "points": 3,
                        "shares": [{"membership": p2.pk, "points": 3}]})
    assert (response.status_code, response.json()["detail"]) == (
        400, "Give either membership and points, or shares.")


def test_sharing_more_than_the_pool_is_400_naming_shares(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=2)
    response = refused(client_for(p1.user), campaign, "pops/share/",
                       {"membership": p2.pk, "points": 3})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "over_shared", "shares")


def test_only_the_chief_warlord_shares(client_for):
    campaign, gm, (p1, p2) = move_phase_campaign(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=10)
    response = refused(client_for(p2.user), campaign, "pops/share/",
                       {"membership": p1.pk, "points": 3})
    assert (response.status_code, response.json()["code"]) == (403, "chief_warlord_only")


def test_sharing_with_a_membership_of_another_campaign_is_404(client_for):
    campaign, gm, (p1, _p2) = move_phase_campaign(players=2)
    _other, _, (stranger, *_rest) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, "pops/share/",
                       {"membership": stranger.pk, "points": 3})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


# --- GM tools ------------------------------------------------------------------------------


def test_the_gm_ends_the_move_phase_and_gets_the_opposition_phase(client_for):
    campaign, gm, _members = move_phase_campaign()
    response = post(client_for(gm), campaign, "gm/end-phase/", phase_body(campaign, "All done."))
    phase = Phase.objects.get(campaign=campaign, status="open")
    assert (response.status_code, response.json()["id"], response.json()["kind"],
            response.json()["turn"]) == (200, phase.pk, "opposition", 1)


def test_a_player_cannot_end_the_phase_at_the_gm_path(client_for):
    campaign, _, (_p1, p2) = move_phase_campaign(players=2)
    response = refused(client_for(p2.user), campaign, "gm/end-phase/", phase_body(campaign, "Me."))
    assert (response.status_code, response.json()["code"]) == (403, "chief_warlord_only")


def test_the_gm_reverts_a_move(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B1"])
    response = post(client_for(gm), campaign, "gm/revert/", phase_body(campaign, "Misclick."))
    assert (response.status_code, response.json()["kind"], Stack.objects.get(pk=stack.pk).hex) \
        == (200, "move_combat", "A1")


def test_a_revert_without_a_reason_is_400_naming_reason(client_for):
    campaign, gm, _members = move_phase_campaign()
    response = refused(client_for(gm), campaign, "gm/revert/", phase_body(campaign, " "))
    assert (response.status_code, response.json()) == (400, {
        "code": "reason_required", "field": "reason",
        "detail": "The GM gives a reason for every overrule; it is recorded."})


def test_a_player_cannot_revert(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, "gm/revert/", phase_body(campaign, "Please."))
    assert (response.status_code, response.json()["code"]) == (403, "gm_only")


def flagged(campaign):
    """The deadline sweep failed three times on the open phase and flagged it."""
    from django.utils import timezone

    Phase.objects.filter(campaign=campaign, status="open").update(
        processing_failures=3, processing_flagged_at=timezone.now())
    return Phase.objects.get(campaign=campaign, status="open")


def test_the_gm_unflags_a_flagged_phase(client_for):
    campaign, gm, _members = move_phase_campaign()
    phase = flagged(campaign)
    response = post(client_for(gm), campaign, "gm/unflag/", {})
    phase.refresh_from_db()
    assert (response.status_code, response.json()) == (200, {
        "id": phase.pk, "processing_failures": 0, "processing_flagged_at": None})
    assert (phase.processing_failures, phase.processing_flagged_at) == (0, None)


def test_a_player_cannot_unflag(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    phase = flagged(campaign)
    response = post(client_for(p1.user), campaign, "gm/unflag/", {})
    assert (response.status_code, response.json()["code"],
            Phase.objects.get(pk=phase.pk).processing_failures) == (403, "gm_only", 3)


def test_the_gm_grants_pop_points(client_for):
    campaign, gm, _members = move_phase_campaign()
    response = post(client_for(gm), campaign, "gm/pop-points/", {"points": 10})
    assert (response.status_code, response.json(), Campaign.objects.get(pk=campaign.pk)
            .pop_pool) == (200, {"pool": "10"}, Decimal(10))


def test_a_grant_of_zero_is_400_naming_points(client_for):
    campaign, gm, _members = move_phase_campaign()
    response = refused(client_for(gm), campaign, "gm/pop-points/", {"points": 0})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "invalid_field", "points")


def test_the_gm_sets_a_units_hits(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    spear = unit(p1, "Spearman 1")
    response = post(client_for(gm), campaign, f"gm/units/{spear.pk}/hits/",
                    {"hits": 2, "reason": "Ruling."})
    assert (response.status_code, response.json()) == (200, {
        "id": spear.pk, "name": "Spearman 1", "current_hits": 2, "stack": spear.stack_id})


def test_hits_beyond_the_units_are_400_naming_hits(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    response = refused(client_for(gm), campaign, f"gm/units/{unit(p1, 'Spearman 1').pk}/hits/",
                       {"hits": 9, "reason": "Ruling."})
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "field": "hits",
        "detail": "Spearman 1 has 4 hits; its current hits are between 0 and 4."})


def test_a_player_setting_hits_of_their_unit_is_403(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign,
                       f"gm/units/{unit(p1, 'Spearman 1').pk}/hits/",
                       {"hits": 2, "reason": "Mine."})
    assert (response.status_code, response.json()["code"]) == (403, "gm_only")


def test_a_player_naming_a_hidden_unit_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    hidden = Unit.objects.filter(stack=opposition_stack(campaign, "D4")).first()
    response = refused(client_for(p1.user), campaign, f"gm/units/{hidden.pk}/hits/",
                       {"hits": 2, "reason": "Theirs."})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_the_gm_sets_a_fortifications_hits(client_for):
    campaign, gm, _members = move_phase_campaign()
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    response = post(client_for(gm), campaign, f"gm/fortifications/{tower.pk}/hits/",
                    {"hits": 5, "reason": "Forum siege."})
    assert (response.status_code, response.json()) == (200, {"fortification": {
        "id": tower.pk, "hex": "D4", "kind": "tower", "direction": None,
        "owner": "opposition", "hits": 5, "starting_hits": 20, "seen_turn": None}})


def test_a_player_cannot_set_a_fortifications_hits(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    response = refused(client_for(p1.user), campaign, f"gm/fortifications/{tower.pk}/hits/",
                       {"hits": 5, "reason": "Mine."})
    assert (response.status_code, response.json()["code"]) == (403, "gm_only")


def test_gm_tools_are_401_anonymously(client_for):
    campaign, _, _members = move_phase_campaign()
    response = refused(client_for(None), campaign, "gm/revert/", phase_body(campaign, "x"))
    assert response.status_code == 401


def test_a_repeated_gm_end_phase_closes_one_phase_only(client_for):
    campaign, gm, _members = move_phase_campaign()
    body = phase_body(campaign, "Done.")
    first = post(client_for(gm), campaign, "gm/end-phase/", body)
    second = refused(client_for(gm), campaign, "gm/end-phase/", body)
    assert (first.status_code, second.status_code, second.json()["code"],
            Phase.objects.get(campaign=campaign, status="open").kind) == (
        200, 400, "phase_already_closed", "opposition")


def test_a_gm_end_phase_without_naming_the_phase_is_400(client_for):
    campaign, gm, _members = move_phase_campaign()
    response = refused(client_for(gm), campaign, "gm/end-phase/", {"reason": "Go."})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "required", "expected_phase")


def test_a_revert_of_a_phase_closed_since_is_refused(client_for):
    campaign, gm, _members = move_phase_campaign()
    stale = phase_body(campaign, "Misclick.")
    post(client_for(gm), campaign, "gm/end-phase/", phase_body(campaign, "Done."))
    response = refused(client_for(gm), campaign, "gm/revert/", stale)
    assert (response.status_code, response.json()["code"]) == (400, "phase_already_closed")
