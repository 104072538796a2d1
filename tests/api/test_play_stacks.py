"""Play writes of the API on stacks: move, split, merge, reorder, mount."""

import pytest

from campaigns.games.erfworld import stack_split
from campaigns.models import Event, Stack, Unit, UnitType
from tests.api.play_setup import url
from tests.campaigns.conftest import fingerprint
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put, unit
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def post(client, campaign, tail, body):
    return client.post(url(campaign, tail), body, format="json")


def map_stack(client, campaign, stack_id):
    stacks = client.get(url(campaign, "map/")).json()["stacks"]
    return next(s for s in stacks if s["id"] == stack_id)


def spearmen(member, n):
    return [unit(member, f"Spearman {i}") for i in range(1, n + 1)]


def refused(client, campaign, tail, body):
    """The response to a refused order, checking it changed nothing."""
    before = fingerprint(campaign.pk)
    response = post(client, campaign, tail, body)
    assert fingerprint(campaign.pk) == before
    return response


# --- move ----------------------------------------------------------------------------------


def test_a_move_answers_the_stack_as_in_the_map_and_the_route(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    client = client_for(p1.user)
    response = post(client, campaign, f"stacks/{stack.pk}/move/", {"path": ["B1", "B2"]})
    body = response.json()
    event = Event.objects.get(kind="stack_moved")
    assert (response.status_code, body["path"], body["cost"], body["ambushed"], body["event"],
            body["combat_event"]) == (200, ["A1", "B1", "B2"], 2, False, event.pk, None)
    assert body["stack"] == map_stack(client, campaign, stack.pk)
    assert (body["stack"]["hex"], body["stack"]["units"][0]["movement_used"]) == ("B2", 2)


def test_a_move_to_a_destination_takes_the_cheapest_path(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = post(client_for(p1.user), campaign, f"stacks/{stack.pk}/move/",
                    {"destination": "B2"})
    assert (response.status_code, response.json()["path"], response.json()["cost"]) == (
        200, ["A1", "B1", "B2"], 2)


def test_a_move_into_an_unscouted_enemy_is_an_ambush(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    warlord = stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                          units=[unit(p1, "Warlord 1")])
    put(warlord, "D3")
    response = post(client_for(p1.user), campaign, f"stacks/{warlord.pk}/move/",
                    {"path": ["D4"]})
    body = response.json()
    ambush = Event.objects.get(kind="ambush")
    assert (response.status_code, body["path"], body["cost"], body["ambushed"],
            body["combat_event"]) == (200, ["D3"], 0, True, ambush.pk)


def test_a_move_out_of_reach_is_400_with_the_rule_and_changes_nothing(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = refused(client_for(p1.user), campaign, f"stacks/{stack.pk}/move/",
                       {"destination": "C3"})
    assert (response.status_code, response.json()["code"], response.json()["detail"]) == (
        400, "out_of_reach",
        "C3 is out of reach: getting there needs 3 movement points, but the stack has only 1 "
        "left (a stack moves at the smallest remaining allowance among its units; the road "
        "bonus of 1 applies only to a move wholly on road, §2).")


def test_a_move_with_both_path_and_destination_is_400_naming_path(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, f"stacks/{own_stack(p1).pk}/move/",
                       {"path": ["B1"], "destination": "B1"})
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "detail": "Give either a path or a destination.",
        "field": "path"})


def test_a_move_in_the_scout_phase_is_400(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    response = refused(client_for(p1.user), campaign, f"stacks/{own_stack(p1).pk}/move/",
                       {"path": ["B1"]})
    assert (response.status_code, response.json()["code"]) == (400, "not_move_phase")


def test_moving_an_allys_stack_is_403(client_for):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    response = refused(client_for(p1.user), campaign, f"stacks/{own_stack(p2).pk}/move/",
                       {"path": ["B1"]})
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")


def test_moving_a_hidden_opposition_stack_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign,
                       f"stacks/{opposition_stack(campaign, 'D4').pk}/move/", {"path": ["D5"]})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_a_move_is_401_anonymously(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(None), campaign, f"stacks/{own_stack(p1).pk}/move/",
                       {"path": ["B1"]})
    assert response.status_code == 401


def test_the_chief_warlord_moves_a_late_players_stack_by_proxy(client_for):
    from tests.api.test_orders import make_late

    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    make_late(campaign)
    stack = own_stack(p2)
    response = post(client_for(p1.user), campaign, f"stacks/{stack.pk}/move/",
                    {"path": ["B1"], "on_behalf_of": p2.pk})
    assert (response.status_code, Event.objects.get(kind="stack_moved").payload["proxied_by"]) \
        == (200, p1.pk)


# --- split ---------------------------------------------------------------------------------


def test_a_split_answers_the_new_stack_as_in_the_map(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    client = client_for(p1.user)
    leaving = spearmen(p1, 2)
    response = post(client, campaign, f"stacks/{stack.pk}/split/",
                    {"units": [u.pk for u in leaving]})
    new = Stack.objects.exclude(pk=stack.pk).get(units__in=leaving[:1])
    assert (response.status_code, response.json()) == (
        201, {"stack": map_stack(client, campaign, new.pk)})
    assert [u["name"] for u in response.json()["stack"]["units"]] == ["Spearman 1",
                                                                       "Spearman 2"]


def test_splitting_off_every_unit_is_400_naming_units(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = refused(client_for(p1.user), campaign, f"stacks/{stack.pk}/split/",
                       {"units": [u.pk for u in Unit.objects.filter(stack=stack)]})
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "field": "units",
        "detail": "Splitting off every unit leaves an empty stack; move the stack instead."})


def test_splitting_off_a_hidden_unit_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    hidden = Unit.objects.filter(stack=opposition_stack(campaign, "D4")).first()
    response = refused(client_for(p1.user), campaign, f"stacks/{own_stack(p1).pk}/split/",
                       {"units": [hidden.pk]})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


# --- merge ---------------------------------------------------------------------------------


def test_a_merge_answers_the_kept_stack_with_every_unit(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    other = stack_split(user=p1.user, campaign=campaign, stack=stack, units=spearmen(p1, 3))
    client = client_for(p1.user)
    response = post(client, campaign, "stacks/merge/", {"stacks": [other.pk, stack.pk]})
    body = response.json()
    assert (response.status_code, body, len(body["stack"]["units"])) == (
        200, {"stack": map_stack(client, campaign, other.pk)}, 13)
    assert Stack.objects.filter(pk=stack.pk).exists() is False


def test_merging_stacks_of_two_hexes_is_400(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    other = put(stack_split(user=p1.user, campaign=campaign, stack=stack,
                            units=spearmen(p1, 3)), "B1")
    response = refused(client_for(p1.user), campaign, "stacks/merge/",
                       {"stacks": [stack.pk, other.pk]})
    assert (response.status_code, response.json()) == (400, {
        "code": "not_same_hex", "detail": "Only stacks in the same hex can be merged (§2).",
        "field": None})


def test_merging_with_an_allys_stack_is_403(client_for):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    response = refused(client_for(p1.user), campaign, "stacks/merge/",
                       {"stacks": [own_stack(p1).pk, own_stack(p2).pk]})
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")


def test_merging_one_stack_is_400_naming_stacks(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, "stacks/merge/",
                       {"stacks": [own_stack(p1).pk]})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "min_length", "stacks")


# --- reorder -------------------------------------------------------------------------------


def test_a_reorder_answers_the_stack_in_its_new_order(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    units = list(Unit.objects.filter(stack=stack).order_by("position"))
    order = [u.pk for u in reversed(units)]
    client = client_for(p1.user)
    response = post(client, campaign, f"stacks/{stack.pk}/reorder/", {"order": order})
    assert (response.status_code, response.json()) == (
        200, {"stack": map_stack(client, campaign, stack.pk)})
    assert [u["id"] for u in response.json()["stack"]["units"]] == order


def test_a_reorder_missing_a_unit_is_400_naming_order(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    response = refused(client_for(p1.user), campaign, f"stacks/{stack.pk}/reorder/",
                       {"order": [unit(p1, "Warlord 1").pk]})
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "field": "order",
        "detail": "The new order must list every unit of the stack once."})


# --- mount ---------------------------------------------------------------------------------


def horse_for(member, stack):
    """A 12-hit mount in the member's stack (no army design offers one)."""
    kind = UnitType.objects.create(campaign=member.campaign, side=member.side, owner=member,
                                   name="Horse", hits=12, attack=1, defence=1, move=3,
                                   specials=[], cost=0)
    return Unit.objects.create(campaign=member.campaign, side=member.side, owner=member,
                               unit_type=kind, name="Horse 1", current_hits=12, stack=stack,
                               position=99, was_commanded=True)


def test_riders_mount_and_the_answer_shows_their_mount(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    horse = horse_for(p1, stack)
    riders = [unit(p1, "Scout 1"), unit(p1, "Scout 2")]
    client = client_for(p1.user)
    response = post(client, campaign, "mount/",
                    {"riders": [r.pk for r in riders], "mount": horse.pk})
    body = response.json()
    assert (response.status_code, [(u["id"], u["mount"]) for u in body["units"]]) == (
        200, [(riders[0].pk, horse.pk), (riders[1].pk, horse.pk)])
    assert body["stack"] == map_stack(client, campaign, stack.pk)


def test_a_mount_too_weak_is_400_with_the_rule(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    response = refused(client_for(p1.user), campaign, "mount/",
                       {"riders": [unit(p1, "Spearman 1").pk],
                        "mount": unit(p1, "Spearman 2").pk})
    assert (response.status_code, response.json()) == (400, {
        "code": "mount_rule", "field": None,
        "detail": "A mount must have at least twice the riders' starting hits (§2 mounts): "
        "riders with 4 hits need a mount of 8 hits or more, this one has 4."})


def test_mounting_a_hidden_unit_is_404(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    hidden = Unit.objects.filter(stack=opposition_stack(campaign, "D4")).first()
    response = refused(client_for(p1.user), campaign, "mount/",
                       {"riders": [unit(p1, "Scout 1").pk], "mount": hidden.pk})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_mounting_an_allys_unit_is_403(client_for):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    response = refused(client_for(p1.user), campaign, "mount/",
                       {"riders": [unit(p2, "Scout 1").pk], "mount": None})
    assert (response.status_code, response.json()["code"]) == (403, "not_your_unit")
