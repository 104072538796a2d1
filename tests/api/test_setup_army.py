"""Army design: unit types (list, create, change, delete), buying units, the army, readiness."""

import pytest

from campaigns.models import Membership, Unit, UnitType
from tests.campaigns.conftest import fingerprint
from tests.factories import (
    STANDARD_ARMY,
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

SCOUT = {"name": "Scout", "hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}


def url(campaign, tail=""):
    return f"/api/v1/campaigns/{campaign.pk}/{tail}"


def designing():
    """A campaign in setup with two alliance players, the first with a Scout type, no units."""
    campaign = campaign_factory()
    ann = player_factory(campaign=campaign)
    bob = player_factory(campaign=campaign)
    army_factory(membership=ann, army=[("Scout", {k: v for k, v in SCOUT.items()
                                                   if k != "name"}, 0)], ready=False)
    return campaign, ann, bob, UnitType.objects.get(owner=ann)


def type_json(unit_type, **changes):
    return {"id": unit_type.pk, "name": "Scout", "side": "alliance", "owner": unit_type.owner_id,
            "hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"],
            "cost": str(unit_type.cost), "units_bought": 0, **changes}


# --- Unit types ------------------------------------------------------------------------------


def test_a_player_lists_the_unit_types_of_their_side(client_for):
    campaign, _, bob, scout = designing()
    response = client_for(bob.user).get(url(campaign, "unit-types/"))
    assert (response.status_code, response.json()) == (200, [type_json(scout)])


def test_the_gm_lists_every_unit_type_with_the_oppositions(client_for):
    campaign, _, _, _ = designing()
    gm = Membership.objects.get(campaign=campaign, role="gm").user
    names = [(t["side"], t["name"]) for t in client_for(gm).get(url(campaign, "unit-types/"))
             .json()]
    assert names == [("alliance", "Scout"), ("opposition", "Warlord"),
                     ("opposition", "Spearman"), ("opposition", "Archer"),
                     ("opposition", "Rider"), ("opposition", "Gatekeeper")]


def test_a_player_creates_a_unit_type(client_for):
    campaign, _, bob, _ = designing()
    body = {"name": "Warlord", "hits": 5, "attack": 5, "defence": 3, "move": 2,
            "specials": ["commander"]}
    response = client_for(bob.user).post(url(campaign, "unit-types/"), body, format="json")
    created = UnitType.objects.get(owner=bob)
    assert (response.status_code, response.json()) == (201, {
        "id": created.pk, "side": "alliance", "owner": bob.pk, "cost": "32.125",
        "units_bought": 0, **body,
    })


def test_a_second_type_of_the_same_name_is_400_and_changes_nothing(client_for):
    campaign, ann, _, _ = designing()
    before = fingerprint(campaign.pk)
    response = client_for(ann.user).post(url(campaign, "unit-types/"), SCOUT, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "duplicate_name", "detail": "You already have a unit type named 'Scout'.",
        "field": "name",
    })
    assert fingerprint(campaign.pk) == before


def test_a_negative_stat_is_400_naming_the_field(client_for):
    campaign, _, bob, _ = designing()
    response = client_for(bob.user).post(url(campaign, "unit-types/"), {**SCOUT, "hits": -1},
                                         format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "min_value", "detail": "Ensure this value is greater than or equal to 0.",
        "field": "hits",
    })


def test_an_unknown_special_is_400_naming_specials(client_for):
    campaign, _, bob, _ = designing()
    response = client_for(bob.user).post(url(campaign, "unit-types/"),
                                         {**SCOUT, "specials": ["teleport"]}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_choice", "detail": '"teleport" is not a valid choice.',
        "field": "specials.0",
    })


def test_the_gm_cannot_design_a_unit_type(client_for):
    campaign, _, _, _ = designing()
    gm = Membership.objects.get(campaign=campaign, role="gm").user
    response = client_for(gm).post(url(campaign, "unit-types/"), SCOUT, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")


def test_an_outsider_gets_404_for_the_unit_types(client_for):
    campaign, _, _, _ = designing()
    response = client_for(UserFactory()).get(url(campaign, "unit-types/"))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_anonymous_gets_401_for_the_unit_types(client_for):
    campaign, _, _, _ = designing()
    assert client_for().get(url(campaign, "unit-types/")).status_code == 401


def test_a_player_changes_one_field_of_their_unit_type(client_for):
    campaign, ann, _, scout = designing()
    response = client_for(ann.user).patch(url(campaign, f"unit-types/{scout.pk}/"), {"move": 3},
                                          format="json")
    scout.refresh_from_db()
    assert (response.status_code, response.json()) == (200, type_json(scout, move=3))
    assert scout.move == 3


def test_an_ally_cannot_change_my_unit_type(client_for):
    campaign, _, bob, scout = designing()
    before = fingerprint(campaign.pk)
    response = client_for(bob.user).patch(url(campaign, f"unit-types/{scout.pk}/"),
                                          {"move": 3}, format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "not_owner", "detail": "You can change only your own unit types.", "field": None,
    })
    assert fingerprint(campaign.pk) == before


def test_an_opposition_unit_type_is_unknown_to_a_player(client_for):
    campaign, ann, _, _ = designing()
    theirs = UnitType.objects.get(campaign=campaign, side__kind="opposition", name="Rider")
    response = client_for(ann.user).patch(url(campaign, f"unit-types/{theirs.pk}/"),
                                          {"move": 9}, format="json")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_a_player_deletes_their_unit_type(client_for):
    campaign, ann, _, scout = designing()
    response = client_for(ann.user).delete(url(campaign, f"unit-types/{scout.pk}/"))
    assert (response.status_code, UnitType.objects.filter(pk=scout.pk).exists()) == (204, False)


def test_a_unit_type_cannot_change_once_the_campaign_has_started(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    warlord = UnitType.objects.get(owner=p1, name="Warlord")
    before = fingerprint(campaign.pk)
    response = client_for(p1.user).delete(url(campaign, f"unit-types/{warlord.pk}/"))
    assert (response.status_code, response.json()) == (400, {
        "code": "not_setup",
        "detail": "Unit types and armies cannot change once the campaign has started.",
        "field": None,
    })
    assert fingerprint(campaign.pk) == before


# --- Buying and the army ---------------------------------------------------------------------


def test_a_player_buys_units_of_their_type(client_for):
    campaign, ann, _, scout = designing()
    response = client_for(ann.user).post(url(campaign, "units/buy/"),
                                         {"unit_type": scout.pk, "count": 2}, format="json")
    units = list(Unit.objects.filter(owner=ann).order_by("created_seq", "pk"))
    assert (response.status_code, response.json()) == (201, [
        {"id": units[0].pk, "name": "Scout 1", "unit_type": scout.pk, "current_hits": 3,
         "commander_level": None},
        {"id": units[1].pk, "name": "Scout 2", "unit_type": scout.pk, "current_hits": 3,
         "commander_level": None},
    ])


def test_buying_over_the_budget_is_400_and_changes_nothing(client_for):
    campaign, ann, _, scout = designing()
    before = fingerprint(campaign.pk)
    response = client_for(ann.user).post(url(campaign, "units/buy/"),
                                         {"unit_type": scout.pk, "count": 1000}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "over_budget")
    assert fingerprint(campaign.pk) == before


def test_buying_none_is_400_naming_count(client_for):
    campaign, ann, _, scout = designing()
    response = client_for(ann.user).post(url(campaign, "units/buy/"),
                                         {"unit_type": scout.pk, "count": 0}, format="json")
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "min_value", "count")


def test_buying_an_allys_type_is_403(client_for):
    campaign, _, bob, scout = designing()
    response = client_for(bob.user).post(url(campaign, "units/buy/"),
                                         {"unit_type": scout.pk, "count": 1}, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "not_owner")


def test_my_army_shows_types_units_points_and_commander_levels(client_for):
    campaign = campaign_factory()
    ann = player_factory(campaign=campaign)
    types = army_factory(membership=ann, ready=False)
    warlord = Unit.objects.get(owner=ann, name="Warlord 1")
    response = client_for(ann.user).get(url(campaign, "army/"))
    body = response.json()
    assert (response.status_code, {k: v for k, v in body.items()
                                   if k not in ("unit_types", "units")}) == (200, {
        "membership": ann.pk, "ready": False, "ready_at": None, "points_budget": 500,
        "points_spent": "149.375", "points_remaining": "350.625", "max_unit_types": 5,
    })
    assert [(t["name"], t["units_bought"]) for t in body["unit_types"]] == [
        (name, count) for name, _, count in STANDARD_ARMY]
    assert body["units"][0] == {"id": warlord.pk, "name": "Warlord 1", "unit_type": "Warlord",
                                "unit_type_id": types["Warlord"].pk, "current_hits": 5,
                                "commander_level": warlord.commander_level}
    assert [u["commander_level"] is None for u in body["units"]] == [False] + [True] * 12


def test_the_gm_has_no_army(client_for):
    campaign = campaign_factory()
    gm = Membership.objects.get(campaign=campaign, role="gm").user
    response = client_for(gm).get(url(campaign, "army/"))
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")


def test_an_outsider_gets_404_for_an_army(client_for):
    campaign = campaign_factory()
    assert client_for(UserFactory()).get(url(campaign, "army/")).status_code == 404


def test_a_player_marks_the_army_ready_and_not_ready(client_for):
    campaign = campaign_factory()
    ann = player_factory(campaign=campaign)
    army_factory(membership=ann, ready=False)
    client = client_for(ann.user)
    ready = client.post(url(campaign, "army/ready/"))
    ann.refresh_from_db()
    assert (ready.status_code, ready.json()) == (200, {
        "membership": ann.pk, "ready": True,
        "ready_at": ann.army_ready_at.isoformat().replace("+00:00", "Z"),
    })
    not_ready = client.post(url(campaign, "army/not-ready/"))
    assert (not_ready.status_code, not_ready.json()) == (200, {
        "membership": ann.pk, "ready": False, "ready_at": None,
    })


def test_an_army_without_a_commander_cannot_be_ready(client_for):
    campaign, ann, _, _ = designing()
    before = fingerprint(campaign.pk)
    response = client_for(ann.user).post(url(campaign, "army/ready/"))
    assert (response.status_code, response.json()["code"]) == (400, "no_commander")
    assert fingerprint(campaign.pk) == before


def test_an_army_that_is_not_ready_cannot_be_unready(client_for):
    campaign, ann, _, _ = designing()
    response = client_for(ann.user).post(url(campaign, "army/not-ready/"))
    assert (response.status_code, response.json()) == (400, {
        "code": "army_not_ready", "detail": "Your army is not marked ready.", "field": None,
    })


def test_the_gm_cannot_mark_an_army_ready(client_for):
    campaign = campaign_factory()
    gm = Membership.objects.get(campaign=campaign, role="gm").user
    response = client_for(gm).post(url(campaign, "army/ready/"))
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")


def test_anonymous_cannot_mark_an_army_ready(client_for):
    campaign = campaign_factory()
    assert client_for().post(url(campaign, "army/ready/")).status_code == 401
