"""The battle services: creating a battle from a scenario, joining, the start, orders applied
at once with the phase's dice, the phases following the engine's windows, the end; every
refusal names its rule and field and changes nothing; every battle can be re-derived from
its revealed seeds."""

from __future__ import annotations

import copy

import pytest

from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError, WrongStateError
from campaigns.game import game_for
from campaigns.games.battle import services
from campaigns.games.battle.catalogue import battle_scenario, battle_scenarios
from campaigns.games.battle.selectors import battle_view
from campaigns.games.erfworld.game import ErfworldGame
from campaigns.models import (
    Battle,
    BattleEntry,
    Campaign,
    DiceRoll,
    Event,
    EventKind,
    Membership,
    Phase,
    PlayerPhaseStatus,
    Role,
)
from tests.battles.conftest import make_table, replay
from tests.campaigns.conftest import fingerprint
from tests.factories import UserFactory, campaign_factory

pytestmark = pytest.mark.django_db


def refused(campaign: Campaign, call, error=CampaignError) -> CampaignError:
    """The call is refused with `error` and no row of the campaign changed."""
    before = fingerprint(campaign.pk)
    with pytest.raises(error) as caught:
        call()
    assert fingerprint(campaign.pk) == before
    return caught.value


# --- creation and joining ------------------------------------------------------------------


def test_one_demo_scenario_per_system():
    assert [(s.system, s.key, s.name) for s in battle_scenarios()] == [
        ("elf_abas", "elf_abas_ford", "The ford at Epping"),
        ("quad", "quad_hill", "The hill at Redmarch")]


def test_a_battle_is_created_from_a_demo_scenario_with_the_gms_settings():
    gm = UserFactory(username="gm")
    campaign = services.battle_create(gm=gm, system="elf_abas", scenario_key="elf_abas_ford",
                                      settings={"max_turns": 2}, name="  Ford  ",
                                      phase_hours=12)
    assert (campaign.name, campaign.ruleset_key, campaign.scenario_key, campaign.status,
            campaign.phase_hours) == ("Ford", "elf_abas", "elf_abas_ford", "setup", 12)
    assert list(campaign.sides.order_by("kind").values_list("kind", "name")) == [
        ("alliance", "Epping"), ("opposition", "Fremont")]
    assert list(Membership.objects.filter(campaign=campaign).values_list("user", "role")) == [
        (gm.pk, Role.GM)]
    battle = Battle.objects.get(campaign=campaign)
    assert battle.scenario == battle_scenario("elf_abas_ford").scenario
    assert battle.settings == {"max_turns": 2}
    assert battle.state is None
    assert list(Event.objects.filter(campaign=campaign).values_list("kind", "summary")) == [
        (EventKind.CAMPAIGN_CREATED, "gm created the ELF ABAS battle 'Ford' from the scenario "
         "'The ford at Epping'.")]
    assert game_for(campaign).key == "battle"
    assert isinstance(game_for(campaign_factory()), ErfworldGame)


@pytest.mark.parametrize(("kwargs", "code", "field", "message"), [
    ({"system": "grasp", "scenario_key": "x"}, "unknown_system", "system",
     "A battle is played with ELF ABAS, QUAD; not 'grasp'."),
    ({"system": "quad", "scenario_key": "elf_abas_ford"}, "unknown_scenario", "scenario_key",
     "There is no QUAD scenario 'elf_abas_ford'."),
    ({"system": "elf_abas", "scenario_key": "elf_abas_ford", "settings": {"max_turns": 0}},
     "invalid_input", "settings.max_turns", "settings.max_turns: must be at least 1."),
    ({"system": "elf_abas", "scenario_key": "elf_abas_ford", "phase_hours": 400},
     "phase_hours", "phase_hours", "A phase lasts 1 to 336 hours."),
])
def test_a_battle_that_cannot_be_made_is_refused_naming_the_field(kwargs, code, field, message):
    with pytest.raises(RuleViolationError) as caught:
        services.battle_create(gm=UserFactory(), **kwargs)
    assert (caught.value.code, caught.value.field, caught.value.message) == (code, field,
                                                                             message)
    assert Campaign.objects.count() == 0


def test_a_scenario_of_the_gms_own_is_checked_by_the_engine():
    own = copy.deepcopy(battle_scenario("elf_abas_ford").scenario)
    own["sides"][0]["forces"][0]["hex"] = "Z9"
    with pytest.raises(RuleViolationError) as caught:
        services.battle_create(gm=UserFactory(), system="elf_abas", scenario=own)
    assert (caught.value.field, caught.value.message) == (
        "scenario.sides[0].forces[0].hex",
        "scenario.sides[0].forces[0].hex: Z9 is not on the 9 × 7 map.")
    own["sides"].append({"name": "Third"})
    with pytest.raises(RuleViolationError) as caught:
        services.battle_create(gm=UserFactory(), system="elf_abas", scenario=own)
    assert (caught.value.code, caught.value.field) == ("two_sides", "scenario.sides")
    own["sides"] = own["sides"][:2]
    own["sides"][0]["forces"][0]["hex"] = "C4"
    campaign = services.battle_create(gm=UserFactory(), system="elf_abas", scenario=own,
                                      name="Mine")
    assert (campaign.name, campaign.scenario_key) == ("Mine", "")


def test_joining_names_the_sides_and_is_refused_after_the_start():
    table = make_table("quad", start=False)
    campaign = table.campaign
    error = refused(campaign, lambda: services.battle_join(
        user=UserFactory(), invite_code=campaign.invite_code, side="Green"))
    assert (error.code, error.field, error.message) == (
        "unknown_side", "side", "Choose a side of this battle: Red or Blue.")
    error = refused(campaign, lambda: services.battle_join(
        user=table.players["Red"], invite_code=campaign.invite_code, side="Blue"))
    assert error.code == "already_member"
    error = refused(campaign, lambda: services.battle_join(
        user=UserFactory(), invite_code="nope", side="Red"), NotAllowedError)
    assert error.code == "invalid_invite"
    services.battle_start(user=table.gm, campaign=campaign)
    error = refused(campaign, lambda: services.battle_join(
        user=UserFactory(), invite_code=campaign.invite_code, side="Red"))
    assert (error.code, error.message) == ("not_setup",
                                           "Players can join only before the battle starts.")


def test_only_the_gm_starts_and_only_with_a_player_a_side():
    gm = UserFactory()
    campaign = services.battle_create(gm=gm, system="quad", scenario_key="quad_hill")
    red = UserFactory()
    services.battle_join(user=red, invite_code=campaign.invite_code, side="Red")
    error = refused(campaign, lambda: services.battle_start(user=red, campaign=campaign),
                    NotAllowedError)
    assert error.code == "gm_only"
    error = refused(campaign, lambda: services.battle_start(user=gm, campaign=campaign))
    assert (error.code, error.message) == ("no_players",
                                           "Each side needs a player to start; none yet for "
                                           "Blue.")


# --- the start, orders and phases ------------------------------------------------------------


def test_the_start_deploys_and_opens_a_phase_for_the_sides_that_act(fixed_seeds):
    table = make_table("elf_abas")
    battle = Battle.objects.get(campaign=table.campaign)
    assert table.campaign.setup_dice_seed == "seed-1"
    phase = Phase.objects.get(campaign=table.campaign)
    assert (phase.kind, phase.status, phase.turn.number, phase.dice_seed) == (
        "battle", "open", 1, "seed-2")
    assert battle.window == {"acting": ["Fremont"], "step": "activation", "turn": 1,
                             "card": 0, "active": None}
    start = BattleEntry.objects.get(battle=battle)
    assert (start.number, start.side, start.proxy, start.orders) == (0, "", False, [])
    assert [e["kind"] for e in start.events] == ["deployed", "turn"]
    assert start.events[0]["text"] == "9 forces deployed on a 9 × 7 map, 1 in reserve."
    assert list(PlayerPhaseStatus.objects.filter(phase=phase).values_list(
        "membership__user__username", flat=True)) == ["fremont_elf_abas"]
    opened = Event.objects.get(campaign=table.campaign, kind=EventKind.PHASE_OPENED)
    assert opened.summary == (f"Turn 1: Fremont holds activation card 1 of 4 (step 1); orders "
                              f"due by {phase.deadline_at:%Y-%m-%d %H:%M} UTC.")
    # The card pile's rolls are the phase's, stored as its dice.
    assert list(DiceRoll.objects.filter(phase=phase).values_list("number", "purpose")) == [
        (r["number"], r["purpose"]) for r in start.events[1]["rolls"]]
    assert replay(battle) == battle.state


def test_orders_are_applied_at_once_and_a_new_phase_opens_when_the_window_moves(fixed_seeds):
    table = make_table("elf_abas")
    campaign, fremont = table.campaign, table.players["Fremont"]
    first = Phase.objects.get(campaign=campaign)
    services.battle_orders(user=fremont, campaign=campaign, orders=[
        {"kind": "move", "force": "fr-riders", "path": ["G5"]}])
    battle = Battle.objects.get(campaign=campaign)
    assert next(f for f in battle.state["forces"] if f["id"] == "fr-riders")["hex"] == "G5"
    first.refresh_from_db()
    assert first.status == "open"  # Fremont still holds the card
    services.battle_orders(user=fremont, campaign=campaign, orders=[{"kind": "end"}])
    first.refresh_from_db()
    assert (first.status, first.closed_at is not None) == ("closed", True)
    closed = Event.objects.get(campaign=campaign, kind=EventKind.PHASE_CLOSED)
    assert closed.payload["dice_seed"] == "seed-2"
    assert closed.summary == "Step 1 is closed (Fremont acted); its dice seed is revealed."
    battle.refresh_from_db()
    second = Phase.objects.get(campaign=campaign, status="open")
    assert (second.turn.number, second.dice_seed) == (2, "seed-3")
    assert battle.window["card"] == 1
    entries = list(BattleEntry.objects.filter(battle=battle).values_list(
        "number", "side", "by__username", "orders"))
    assert entries == [
        (0, "", "gm_elf_abas", []),
        (1, "Fremont", "fremont_elf_abas",
         [{"kind": "move", "force": "fr-riders", "path": ["G5"], "side": "Fremont"}]),
        (2, "Fremont", "fremont_elf_abas", [{"kind": "end", "side": "Fremont"}])]
    told = Event.objects.filter(campaign=campaign, kind=EventKind.BATTLE_ORDERS).values_list(
        "summary", flat=True)
    assert list(told)[1] == "Fremont: fr-riders moves G6 → G5."
    assert replay(battle) == battle.state


@pytest.mark.parametrize(("orders", "code", "field", "message"), [
    ([{"kind": "move", "force": "ep-foot", "path": ["D4"]}], "activation", "orders[0].force",
     "ep-foot is not a force of Fremont."),
    ([{"kind": "move", "force": "fr-riders", "path": ["A1"]}], "movement", "orders[0].path[0]",
     "A1 is not next to G6: a move goes hex by hex."),
    ([{"kind": "fly"}], "invalid_input", "orders[0].kind",
     "orders[0].kind: must be one of move, attack, end, allocate, follow (got 'fly')."),
    ([{"kind": "move", "force": "fr-riders", "path": ["G5"]}, {"kind": "allocate"}],
     "activation", "orders[1].kind",
     "Fremont holds the activation: it moves, attacks or ends it."),
    ([{"kind": "end", "side": "Epping"}], "wrong_side", "orders[0].side",
     "You give orders for Fremont, not Epping."),
    ([], "invalid_input", "orders", "Give at least one order."),
])
def test_an_order_that_breaks_a_rule_is_refused_naming_it_and_nothing_changes(
        fixed_seeds, orders, code, field, message):
    table = make_table("elf_abas")
    error = refused(table.campaign, lambda: services.battle_orders(
        user=table.players["Fremont"], campaign=table.campaign, orders=orders))
    assert (error.code, error.field, error.message) == (code, field, message)


def test_only_the_acting_sides_players_give_orders(fixed_seeds):
    table = make_table("elf_abas")
    error = refused(table.campaign, lambda: services.battle_orders(
        user=table.players["Epping"], campaign=table.campaign, orders=[{"kind": "end"}]))
    assert (error.code, error.message) == (
        "turn", "Epping does not act now: Turn 1: Fremont holds activation card 1 of 4.")
    error = refused(table.campaign, lambda: services.battle_orders(
        user=table.gm, campaign=table.campaign, orders=[{"kind": "end"}]), NotAllowedError)
    assert error.code == "not_player"
    error = refused(table.campaign, lambda: services.battle_orders(
        user=UserFactory(), campaign=table.campaign, orders=[{"kind": "end"}]),
        NotAllowedError)
    assert error.code == "not_member"


def test_the_quad_draw_waits_for_both_sides_in_one_phase(fixed_seeds):
    table = make_table("quad")
    campaign = table.campaign
    phase = Phase.objects.get(campaign=campaign)
    assert Battle.objects.get(campaign=campaign).window["acting"] == ["Red", "Blue"]
    services.battle_orders(user=table.players["Red"], campaign=campaign,
                           orders=[{"kind": "draw", "take": False}])
    phase.refresh_from_db()
    assert phase.status == "open"
    done = dict(PlayerPhaseStatus.objects.filter(phase=phase).values_list(
        "membership__side__name", "done_at"))
    assert done["Red"] is not None and done["Blue"] is None
    assert Battle.objects.get(campaign=campaign).window["acting"] == ["Blue"]
    # A policy may be changed at any moment, whoever acts.
    services.battle_orders(user=table.players["Red"], campaign=campaign, orders=[
        {"kind": "policy", "policy": {"block": "fall_back_first"}}])
    assert Battle.objects.get(campaign=campaign).state["sides"][0]["policy"] == {
        "block": "fall_back_first", "strike_back": "sixes_first"}
    services.battle_orders(user=table.players["Blue"], campaign=campaign,
                           orders=[{"kind": "draw", "take": True}])
    phase.refresh_from_db()
    assert phase.status == "closed"
    battle = Battle.objects.get(campaign=campaign)
    assert battle.window["step"] == "activation"
    assert replay(battle) == battle.state


def _play_to_the_end(table) -> Battle:
    """Every side ends (ELF ABAS) or draws and releases (QUAD) until the battle is over."""
    battle = Battle.objects.get(campaign=table.campaign)
    for _ in range(60):
        battle.refresh_from_db()
        if not battle.window:
            return battle
        side = battle.window["acting"][0]
        step = battle.state["step"]
        order = ({"activation": {"kind": "end"}, "allocate": {"kind": "allocate"},
                  "pursuit": {"kind": "follow"}} if battle.system == "elf_abas" else
                 {"draw": {"kind": "draw", "take": True}, "steal": {"kind": "pass"},
                  "activation": {"kind": "release"}})[step]
        services.battle_orders(user=table.players[side], campaign=table.campaign,
                               orders=[order])
    raise AssertionError("the battle did not end")


@pytest.mark.parametrize(("system", "winner", "kind", "summary"), [
    ("elf_abas", "Fremont", "opposition",
     "Fremont wins the battle: Fremont wins at the end of turn 1 with the most figures left "
     "(29). (score: Epping 24, Fremont 29). The setup dice, which shuffled the decks, are "
     "revealed."),
    ("quad", None, "",
     "The battle is a draw: A draw at the end of turn 1: Red and Blue have 10 quality left "
     "each. (score: Red 10, Blue 10). The setup dice, which shuffled the decks, are "
     "revealed."),
])
def test_the_battle_ends_with_the_engines_verdict_and_the_seeds_out(fixed_seeds, system,
                                                                    winner, kind, summary):
    table = make_table(system, settings={"max_turns": 1})
    battle = _play_to_the_end(table)
    campaign = table.reload()
    assert (campaign.status, campaign.winner) == ("finished", kind)
    assert campaign.setup_dice_revealed_at is not None
    assert battle.outcome["winner"] == winner
    assert Event.objects.get(campaign=campaign, kind=EventKind.CAMPAIGN_FINISHED).summary == (
        summary)
    assert not Phase.objects.filter(campaign=campaign, status="open").exists()
    assert replay(battle) == battle.state
    error = refused(campaign, lambda: services.battle_orders(
        user=table.players[next(iter(table.players))], campaign=campaign,
        orders=[{"kind": "end"}]))
    assert (error.code, error.message) == ("not_running", "The battle is over.")


def test_the_gm_has_the_proxy_act_for_a_vanished_side_with_a_reason(fixed_seeds):
    table = make_table("elf_abas")
    campaign = table.campaign
    error = refused(campaign, lambda: services.battle_proxy(
        user=table.players["Epping"], campaign=campaign, reason="x"), NotAllowedError)
    assert error.code == "gm_only"
    error = refused(campaign, lambda: services.battle_proxy(user=table.gm, campaign=campaign,
                                                            reason="  "))
    assert (error.code, error.field) == ("reason", "reason")
    services.battle_proxy(user=table.gm, campaign=campaign, reason="Fremont's player is away")
    entry = BattleEntry.objects.filter(battle__campaign=campaign).order_by("number").last()
    assert (entry.side, entry.proxy, entry.by, entry.orders) == (
        "Fremont", True, table.gm, [{"side": "Fremont", "kind": "end"}])
    assert Event.objects.filter(campaign=campaign, kind=EventKind.DEADLINE_REACHED).values_list(
        "summary", flat=True).get() == ("Step 1: the GM has the proxy act for Fremont: "
                                         "Fremont's player is away")
    battle = Battle.objects.get(campaign=campaign)
    assert battle.window["card"] == 1
    assert replay(battle) == battle.state


def test_a_battle_campaign_is_not_an_erfworld_one_and_back():
    table = make_table("quad", start=False)
    erfworld = campaign_factory()
    gm = Membership.objects.get(campaign=erfworld, role=Role.GM).user
    error = refused(erfworld, lambda: services.battle_start(user=gm, campaign=erfworld),
                    WrongStateError)
    assert (error.code, error.message) == ("not_battle",
                                           "'The Broad Way' is not a battle campaign.")
    view = battle_view(user=table.gm, campaign=table.campaign)
    assert (view["status"], view["state"], view["phase"], view["orders_allowed"]) == (
        "setup", None, None, [])
