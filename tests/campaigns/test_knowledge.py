"""Knowledge that stays true: what the alliance witnessed corrects its sightings (a combat,
an ambush, a siege, a capture), each piece with the turn it was learned, and the map, the
hex panel's facts and the history say the same thing."""

import pytest

from campaigns.games.erfworld import (
    fortification_besiege,
    phase_end,
    stack_attack,
    stack_move,
    stack_split,
)
from campaigns.games.erfworld.engine import known_board
from campaigns.games.erfworld.fetch import board_for
from campaigns.games.erfworld.gm_tools import phase_revert
from campaigns.games.erfworld.knowledge import Glimpse, alliance_witnesses, observe
from campaigns.models import Fortification, Phase, Sighting, SightingSource, Stack, Unit, UnitType
from campaigns.selectors import map_state
from tests.api.play_setup import scouted_move_phase
from tests.api.test_play_combat import g7_north_wall, ram_in
from tests.campaigns.engine_setup import (
    move_phase_campaign,
    open_phase,
    opposition_stack,
    own_stack,
    put,
    unit,
)

pytestmark = pytest.mark.django_db

D4_UNITS = ["Spearman 1", "Spearman 2", "Spearman 3", "Archer 1", "Archer 2"]


def latest(campaign, hex_label):
    return Sighting.objects.get(campaign=campaign, side__kind="alliance", hex=hex_label,
                                is_latest=True)


def seen_units(sighting):
    return [[(u["name"], u["current_hits"]) for u in s["units"]] for s in sighting.seen["stacks"]]


def scout_alone(member):
    """Scout 2 split off into a stack of its own in D3: too weak to wipe out D4."""
    return put(stack_split(user=member.user, campaign=member.campaign, stack=own_stack(member),
                           units=[unit(member, "Scout 2")]), "D3")


def test_a_combat_shows_the_enemy_stack_as_it_stands_after_the_fight():
    campaign, _, (p1,) = scouted_move_phase()
    d4 = opposition_stack(campaign, "D4")
    scouted = latest(campaign, "D4")
    stack_attack(user=p1.user, campaign=campaign, stack=scout_alone(p1), target=d4)
    after = latest(campaign, "D4")
    standing = [(u.name, u.current_hits) for u in Unit.objects.filter(stack=d4, current_hits__gt=0)
                .order_by("position", "pk")]
    # The scout's picture is kept as history; the combat's is the one the map shows.
    assert len(standing) >= 4
    assert (Sighting.objects.get(pk=scouted.pk).is_latest, after.source, after.turn.number,
            after.stack_ids, seen_units(after), after.seen["whole"]) == (
        False, "combat", 1, [d4.pk], [standing], True)
    [tower] = after.seen["fortifications"]
    assert (tower["hits"], tower["owner"], tower["turn"]) == (20, "opposition", 1)


def test_a_stack_wiped_out_in_a_combat_leaves_the_picture():
    campaign, _, (p1,) = scouted_move_phase()
    d4 = opposition_stack(campaign, "D4")
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"), target=d4)
    after = latest(campaign, "D4")
    # The whole warband (seed "0"*64) wipes out the garrison: nothing of it is left.
    assert (Stack.objects.filter(pk=d4.pk).exists(), after.seen["stacks"], after.stack_ids,
            after.seen["whole"]) == (False, [], [], True)


def test_a_glimpse_corrects_the_stacks_it_saw_and_keeps_the_rest_as_known():
    campaign, _, (p1,) = scouted_move_phase()
    phase = open_phase(campaign)
    d4 = opposition_stack(campaign, "D4")
    # A second enemy stack comes to D4 after the scouting; the alliance glimpses it in a fight.
    other = Stack.objects.create(campaign=campaign, side=d4.side, hex="D4")
    archer = Unit.objects.filter(stack=d4, name="Archer 2").get()
    Unit.objects.create(campaign=campaign, side=d4.side, owner=archer.owner,
                        unit_type=archer.unit_type, name="Archer 9", current_hits=2, stack=other)
    alliance_witnesses(campaign=campaign, phase=phase, source=SightingSource.COMBAT,
                       glimpses=[Glimpse(hex="D4", stacks=frozenset({other.pk}), forts=False)])
    both = latest(campaign, "D4")
    assert (seen_units(both), both.stack_ids, [s["turn"] for s in both.seen["stacks"]]) == (
        [[("Spearman 1", 4), ("Spearman 2", 4), ("Spearman 3", 4), ("Archer 1", 3),
          ("Archer 2", 3)], [("Archer 9", 2)]], [d4.pk, other.pk], [1, 1])
    # Then the garrison is seen wiped out: it leaves the picture, the newcomer stays.
    Unit.objects.filter(stack=d4).update(current_hits=0)
    alliance_witnesses(campaign=campaign, phase=phase, source=SightingSource.COMBAT,
                       glimpses=[Glimpse(hex="D4", stacks=frozenset({d4.pk}), forts=False)])
    after = latest(campaign, "D4")
    assert (seen_units(after), after.stack_ids, after.pk) == ([[("Archer 9", 2)]], [other.pk],
                                                              both.pk)


def test_a_witnessed_stack_replaces_what_was_known_of_it():
    campaign, _, (p1,) = scouted_move_phase()
    phase = open_phase(campaign)
    d4 = opposition_stack(campaign, "D4")
    alliance_witnesses(campaign=campaign, phase=phase, source=SightingSource.COMBAT,
                       glimpses=[Glimpse(hex="D4", stacks=frozenset({d4.pk}), forts=True)])
    Unit.objects.filter(stack=d4, name="Spearman 1").update(current_hits=1)
    Unit.objects.filter(stack=d4, name="Archer 2").update(current_hits=0)
    alliance_witnesses(campaign=campaign, phase=phase, source=SightingSource.COMBAT,
                       glimpses=[Glimpse(hex="D4", stacks=frozenset({d4.pk}), forts=False)])
    after = latest(campaign, "D4")
    # One row for the phase, corrected in place.
    assert (Sighting.objects.filter(campaign=campaign, hex="D4", phase=phase).count(),
            seen_units(after), after.stack_ids) == (
        1, [[("Spearman 1", 1), ("Spearman 2", 4), ("Spearman 3", 4), ("Archer 1", 3)]], [d4.pk])


def test_an_ambush_shows_the_ambusher_only_and_does_not_count_as_scouted():
    campaign, _, (p1,) = move_phase_campaign()
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=1)
    riders = opposition_stack(campaign, "C6")
    # A second stack hides in C6 too: the ambush does not reveal it.
    hidden = Stack.objects.create(campaign=campaign, side=riders.side, hex="C6")
    Unit.objects.filter(pk=Unit.objects.filter(stack__hex="D4").order_by("created_seq", "pk").first().pk).update(
        stack=hidden)
    stack = put(own_stack(p1), "B5")
    for kind in UnitType.objects.filter(owner=p1):
        kind.specials = [*kind.specials, "woods"]
        kind.save(update_fields=["specials"])
    assert stack_move(user=p1.user, campaign=campaign, stack=stack, path=["C6"]).ambushed
    c6 = latest(campaign, "C6")
    # The ambushing Riders all croaked in the fight (test_move_stack): nothing of them is
    # left, and the hidden stack was never seen; the glimpse is not a whole sighting.
    assert (c6.source, seen_units(c6), c6.seen["whole"]) == ("ambush", [], False)
    phase = open_phase(campaign)
    known = known_board(board_for(campaign), campaign=campaign, side=p1.side, phase=phase)
    from rules.erfworld.types import SideKind
    from rules.hexgrid import parse_label

    # Known this phase only because it ambushed us (§3), as before: not from the sighting.
    assert parse_label("C6") in known.stacks[SideKind.OPPOSITION]
    Sighting.objects.filter(pk=c6.pk).update(source=SightingSource.COMBAT)
    from campaigns.models import Event

    Event.objects.filter(kind="ambush").delete()
    known = known_board(board_for(campaign), campaign=campaign, side=p1.side, phase=phase)
    assert parse_label("C6") not in known.stacks.get(SideKind.OPPOSITION, frozenset())


def test_a_siege_shows_the_walls_hits_with_their_turn_on_the_map_and_in_the_panel_facts():
    campaign, _, (p1,) = move_phase_campaign()
    wall = g7_north_wall(campaign)
    event = fortification_besiege(user=p1.user, campaign=campaign, stack=ram_in(p1, "G6"),
                                  fortification=wall)
    g7 = latest(campaign, "G7")
    hits = event.payload["hits_after"]
    seen_wall = [f for f in g7.seen["fortifications"] if f["direction"] == "N"]
    assert (g7.source, seen_wall, g7.seen["stacks"], g7.seen["whole"]) == (
        "siege", [{"kind": "wall", "direction": "N", "hits": hits, "owner": "opposition",
                   "turn": 1}], [], False)
    forts = {(f["hex"], f["kind"], f["direction"]): f
             for f in map_state(user=p1.user, campaign=campaign)["fortifications"]}
    assert forts[("G7", "wall", "N")] == {
        "hex": "G7", "kind": "wall", "direction": "N", "owner": "opposition", "hits": hits,
        "starting_hits": 20, "seen_turn": 1}
    # A fortification never witnessed keeps unknown hits.
    assert forts[("J10", "tower", None)]["hits"] is None


def test_a_capture_shows_the_new_holder_and_a_revert_restores_the_earlier_picture():
    campaign, gm, (p1,) = scouted_move_phase()
    scouted = latest(campaign, "D4")
    Stack.objects.filter(campaign=campaign, hex="D4").delete()
    stack = put(own_stack(p1), "D3")
    stack_move(user=p1.user, campaign=campaign, stack=stack, path=["D4"])
    d4 = latest(campaign, "D4")
    assert (d4.source, [(f["owner"], f["turn"]) for f in d4.seen["fortifications"]]) == (
        "capture", [("alliance", 1)])
    phase = open_phase(campaign)
    phase_revert(user=gm, campaign=campaign, reason="misclick", expected_phase=phase)
    assert (latest(campaign, "D4").pk, Sighting.objects.filter(phase=phase).count()) == (
        scouted.pk, 0)


def test_the_history_of_the_next_phase_shows_what_the_fight_taught():
    campaign, gm, (p1,) = scouted_move_phase()
    d4 = opposition_stack(campaign, "D4")
    stack_attack(user=p1.user, campaign=campaign, stack=scout_alone(p1), target=d4)
    standing = [(u.name, u.current_hits) for u in Unit.objects.filter(stack=d4, current_hits__gt=0)
                .order_by("position", "pk")]
    from campaigns.games.erfworld import orders_mark_done

    orders_mark_done(user=p1.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    opposition = Phase.objects.get(campaign=campaign, kind="opposition")
    from campaigns.selectors import phase_history

    history = phase_history(user=p1.user, phase=opposition)
    [d4_then] = [s for s in history["sightings"] if s["hex"] == "D4"]
    assert [[(u["name"], u["current_hits"]) for u in s["units"]]
            for s in d4_then["seen"]["stacks"]] == [standing]


def test_observe_names_every_living_unit_of_every_stack_in_order():
    campaign, _, _ = move_phase_campaign()
    report, ids = observe(campaign, ["D4"])["D4"]
    assert ([u["name"] for u in report["stacks"][0]["units"]], ids) == (
        D4_UNITS, [opposition_stack(campaign, "D4").pk])
    assert Fortification.objects.filter(campaign=campaign, hex="D4").count() == len(
        report["fortifications"])
