"""Dice verification: GET campaigns/<id>/phases/<phase>/dice/ and GET campaigns/<id>/setup-dice/,
and the selectors behind them, with known seeds and exact rolls."""

import pytest

from campaigns.errors import NotAllowedError
from campaigns.games.erfworld import campaign_start, chief_warlord_appoint, phase_end
from campaigns.games.erfworld.move_combat import stack_attack
from campaigns.models import DiceRoll, Event, Fortification, Phase, Side
from campaigns.selectors.dice import phase_dice_verification, setup_dice_verification
from rules.dice import commitment
from tests.campaigns.engine_setup import SEED, move_phase_campaign, opposition_stack, own_stack, put
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

SEED_COMMITMENT = "60e05bd1b195af2f94112fa7197a5c88289058840ce7c6df9693756bc6250f55"
# The combat of p1's stack in D3 against the D4 garrison, from SEED (see combat_closed).
COMBAT_ROLLS = [
    {"number": 1, "purpose": "combat: attacker die 1", "sides": 6, "value": 4, "expected": 4,
     "matches": True},
    {"number": 2, "purpose": "combat: attacker die 2", "sides": 6, "value": 6, "expected": 6,
     "matches": True},
    {"number": 3, "purpose": "combat: defender die 1", "sides": 6, "value": 1, "expected": 1,
     "matches": True},
    {"number": 4, "purpose": "combat: defender die 2", "sides": 6, "value": 2, "expected": 2,
     "matches": True},
]


def dice_url(campaign, phase):
    return f"/api/v1/campaigns/{campaign.pk}/phases/{phase.pk}/dice/"


def setup_url(campaign):
    return f"/api/v1/campaigns/{campaign.pk}/setup-dice/"


def combat_closed():
    """The move/combat phase of turn 1 with seed SEED: one attack, then the GM ends it."""
    campaign, gm, (p1,) = move_phase_campaign()
    phase = Phase.objects.get(campaign=campaign, status="open")
    Phase.objects.filter(pk=phase.pk).update(dice_commitment=SEED_COMMITMENT)
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                 target=opposition_stack(campaign, "D4"))
    phase_end(user=gm, campaign=campaign)
    phase.refresh_from_db()
    return campaign, gm, p1, phase


def setup_with_known_seed(monkeypatch, *, start=True):
    """Broad Way whose setup seed is SEED, with the player "ann" (so every purpose is known)."""
    monkeypatch.setattr("campaigns.games.erfworld.setup.new_seed", lambda: SEED)
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    ann = player_factory(campaign=campaign, user=UserFactory(username="ann"))
    army_factory(membership=ann)
    if start:
        chief_warlord_appoint(user=gm, campaign=campaign, membership=ann)
        campaign_start(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    return campaign, gm, ann


def test_the_seed_constant_is_the_commitment_of_seed():
    assert commitment(SEED) == SEED_COMMITMENT


# --- A phase's dice --------------------------------------------------------------------------


def test_a_closed_phase_shows_its_seed_and_every_roll_re_derived(client_for):
    campaign, _, p1, phase = combat_closed()
    response = client_for(p1.user).get(dice_url(campaign, phase))
    assert (response.status_code, response.json()) == (200, {
        "phase": {"id": phase.pk, "turn": 1, "kind": "move_combat", "status": "closed",
                  "opened_at": phase.opened_at.isoformat().replace("+00:00", "Z"),
                  "closed_at": phase.closed_at.isoformat().replace("+00:00", "Z")},
        "commitment": SEED_COMMITMENT, "seed": SEED, "revealed": True, "commitment_ok": True,
        "rolls": COMBAT_ROLLS, "all_match": True, "draw": None,
    })


def test_an_open_phase_shows_its_commitment_and_never_its_seed(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status="open")
    response = client_for(p1.user).get(dice_url(campaign, phase))
    body = response.json()
    assert (response.status_code, {k: v for k, v in body.items() if k != "phase"}) == (200, {
        "commitment": phase.dice_commitment, "seed": None, "revealed": False,
        "commitment_ok": None, "rolls": [], "all_match": None, "draw": None,
    })
    assert phase.dice_seed not in response.content.decode()


def test_an_open_phase_with_rolls_lists_none_of_them(client_for):
    campaign, _, (p1,) = move_phase_campaign()
    phase = Phase.objects.get(campaign=campaign, status="open")
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                 target=opposition_stack(campaign, "D4"))
    body = client_for(p1.user).get(dice_url(campaign, phase)).json()
    assert (DiceRoll.objects.filter(phase=phase).count(), body["rolls"], body["seed"]) == (
        4, [], None)


def test_a_roll_whose_recorded_value_was_changed_does_not_match(client_for):
    campaign, _, p1, phase = combat_closed()
    DiceRoll.objects.filter(phase=phase, number=2).update(value=5)
    body = client_for(p1.user).get(dice_url(campaign, phase)).json()
    assert (body["rolls"][1], body["commitment_ok"], body["all_match"]) == (
        {"number": 2, "purpose": "combat: attacker die 2", "sides": 6, "value": 5,
         "expected": 6, "matches": False}, True, False)


def test_a_seed_that_does_not_hash_to_the_commitment_fails(client_for):
    campaign, _, p1, phase = combat_closed()
    Phase.objects.filter(pk=phase.pk).update(dice_commitment="0" * 64)
    body = client_for(p1.user).get(dice_url(campaign, phase)).json()
    assert (body["commitment_ok"], [r["matches"] for r in body["rolls"]], body["all_match"]) == (
        False, [True, True, True, True], False)


def test_a_roll_of_an_event_of_the_other_side_is_hidden_but_still_checked(client_for):
    campaign, gm, p1, phase = combat_closed()
    opposition = campaign.sides.get(kind="opposition")
    DiceRoll.objects.create(campaign=campaign, phase=phase, number=5, sides=10, value=3,
                            purpose="commander level of Zorblax 1 (opposition)")
    Event.objects.create(campaign=campaign, phase=phase, side=opposition, kind="pops_bought",
                         summary="Zorblax pops.", payload={"rolls": [
                             {"number": 5, "purpose": "commander level of Zorblax 1 "
                              "(opposition)", "sides": 10, "value": 3}]})
    player = client_for(p1.user).get(dice_url(campaign, phase))
    assert player.json()["rolls"][4] == {"number": 5, "purpose": "hidden", "sides": 10,
                                         "value": 3, "expected": 3, "matches": True}
    assert "Zorblax" not in player.content.decode()
    gm_rolls = client_for(gm).get(dice_url(campaign, phase)).json()["rolls"]
    assert gm_rolls[4]["purpose"] == "commander level of Zorblax 1 (opposition)"


def test_a_roll_no_event_accounts_for_is_hidden_from_players(client_for):
    campaign, _, p1, phase = combat_closed()
    DiceRoll.objects.create(campaign=campaign, phase=phase, number=5, sides=6, value=3,
                            purpose="combat: attacker die 1")
    rolls = client_for(p1.user).get(dice_url(campaign, phase)).json()["rolls"]
    assert [r["purpose"] for r in rolls] == [
        "combat: attacker die 1", "combat: attacker die 2", "combat: defender die 1",
        "combat: defender die 2", "hidden"]


def test_a_special_retaliation_roll_naming_an_enemy_stack_is_hidden(client_for):
    campaign, gm, p1, phase = combat_closed()
    enemy = opposition_stack(campaign, "J10")
    purpose = f"special retaliation: stack {enemy.pk} die 1"
    DiceRoll.objects.create(campaign=campaign, phase=phase, number=5, sides=6, value=3,
                            purpose=purpose)
    Event.objects.filter(phase=phase, kind="combat").update(payload={"dice": [
        *[{"number": n, "purpose": r["purpose"]} for n, r in enumerate(COMBAT_ROLLS, 1)],
        {"number": 5, "purpose": purpose}]})
    player_rolls = client_for(p1.user).get(dice_url(campaign, phase)).json()["rolls"]
    gm_rolls = client_for(gm).get(dice_url(campaign, phase)).json()["rolls"]
    assert (player_rolls[4]["purpose"], gm_rolls[4]["purpose"]) == ("hidden", purpose)


def test_a_phase_of_another_campaign_is_404(client_for):
    campaign, _, p1, _phase = combat_closed()
    other, _, _ = started_campaign_factory(players=1)
    elsewhere = Phase.objects.get(campaign=other, status="open")
    response = client_for(p1.user).get(dice_url(campaign, elsewhere))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_an_outsider_gets_404_for_a_phase(client_for):
    campaign, _, _, phase = combat_closed()
    response = client_for(UserFactory()).get(dice_url(campaign, phase))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_anonymous_gets_401_for_a_phase(client_for):
    campaign, _, _, phase = combat_closed()
    response = client_for().get(dice_url(campaign, phase))
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_the_phase_selector_refuses_a_non_member():
    campaign, _, _, phase = combat_closed()
    with pytest.raises(NotAllowedError) as info:
        phase_dice_verification(user=UserFactory(), campaign=campaign, phase=phase)
    assert info.value.code == "not_member"


# --- The setup dice --------------------------------------------------------------------------


def test_after_the_start_a_player_sees_only_the_setup_commitment(client_for, monkeypatch):
    # The setup seed would tell the opposition's commander levels: it waits for the end.
    campaign, _, ann = setup_with_known_seed(monkeypatch)
    response = client_for(ann.user).get(setup_url(campaign))
    assert (response.status_code, response.json()) == (200, {
        "setup": {"revealed_at": None}, "commitment": SEED_COMMITMENT, "seed": None,
        "revealed": False, "commitment_ok": None, "rolls": [], "all_match": None})


def test_when_the_campaign_ends_everyone_verifies_every_setup_roll(client_for, monkeypatch):
    from campaigns.games.erfworld.engine import check_victory

    campaign, _, ann = setup_with_known_seed(monkeypatch)
    Fortification.objects.filter(campaign=campaign, hex="J10").update(
        owner=Side.objects.get(campaign=campaign, kind="alliance"))
    check_victory(campaign=campaign, phase=None, actor=None)
    campaign.refresh_from_db()
    response = client_for(ann.user).get(setup_url(campaign))
    assert (response.status_code, response.json()) == (200, {
        "setup": {"revealed_at": campaign.setup_dice_revealed_at.isoformat()
                  .replace("+00:00", "Z")},
        "commitment": SEED_COMMITMENT, "seed": SEED, "revealed": True, "commitment_ok": True,
        "rolls": [
            {"number": 1, "purpose": "commander level of Warlord 1 (opposition)", "sides": 10,
             "value": 2, "expected": 2, "matches": True},
            {"number": 2, "purpose": "commander level of Warlord 2 (opposition)", "sides": 10,
             "value": 10, "expected": 10, "matches": True},
            {"number": 3, "purpose": "commander level of Warlord 1 (ann)", "sides": 10,
             "value": 3, "expected": 3, "matches": True},
        ],
        "all_match": True,
    })
    finished = Event.objects.get(campaign=campaign, kind="campaign_finished")
    assert finished.payload["setup_dice_seed"] == SEED


def test_the_gm_sees_the_opposition_commanders_setup_rolls(monkeypatch):
    campaign, gm, _ = setup_with_known_seed(monkeypatch)
    body = setup_dice_verification(user=gm, campaign=campaign)
    assert [r["purpose"] for r in body["rolls"]] == [
        "commander level of Warlord 1 (opposition)", "commander level of Warlord 2 (opposition)",
        "commander level of Warlord 1 (ann)"]


def test_before_the_start_the_setup_dice_show_only_their_commitment(client_for, monkeypatch):
    campaign, _, ann = setup_with_known_seed(monkeypatch, start=False)
    response = client_for(ann.user).get(setup_url(campaign))
    assert (response.status_code, response.json()) == (200, {
        "setup": {"revealed_at": None}, "commitment": SEED_COMMITMENT, "seed": None,
        "revealed": False, "commitment_ok": None, "rolls": [], "all_match": None,
    })


def test_an_outsider_gets_404_for_the_setup_dice(client_for):
    campaign = campaign_factory()
    response = client_for(UserFactory()).get(setup_url(campaign))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_anonymous_gets_401_for_the_setup_dice(client_for):
    campaign = campaign_factory()
    assert client_for().get(setup_url(campaign)).status_code == 401
