"""The alliance's draw: with it on, the opposition's combats are declared in its phase and
rolled only after an alliance player has drawn, with the phase's seed mixed with the draw."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.errors import CampaignError
from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.games.erfworld.draw import declaration_withdraw
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.games.erfworld.phases import phase_draw
from campaigns.models import (
    Campaign,
    Declaration,
    DiceRoll,
    Event,
    Phase,
    Stack,
    Unit,
)
from campaigns.services.deadlines import sweep
from rules.dice import commitment, derive, mix_draw, verify
from tests.campaigns.engine_setup import SEED, move_phase_campaign, open_phase, own_stack, put

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

DRAW = "the alliance's own words"


def opposition_phase(*, draw=True, players=1):
    """The move/combat phase ended; the opposition phase open with the fixed seed and the
    player's whole stack in D3, next to the opposition's stack in D4."""
    campaign, gm, members = move_phase_campaign(players=players)
    Campaign.objects.filter(pk=campaign.pk).update(alliance_draw=draw)
    for m in members:
        orders_mark_done(user=m.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    Phase.objects.filter(campaign=campaign, status="open").update(
        dice_seed=SEED, dice_commitment=commitment(SEED))
    campaign.refresh_from_db()
    assert open_phase(campaign).kind == "opposition"
    mine = put(own_stack(members[0]), "D3")
    theirs = Stack.objects.filter(campaign=campaign, hex="D4", side__kind="opposition") \
        .order_by("created_seq", "pk").first()
    return campaign, gm, members, mine, theirs


def test_an_opposition_attack_is_declared_not_rolled_and_the_stack_waits(unchanged):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    hits = sorted(Unit.objects.filter(campaign=campaign).values_list("pk", "current_hits"))
    event = stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    assert event.kind == "combat_declared"
    assert event.side.kind == "opposition"  # only the GM's side reads it
    assert event.summary == ("Declared for the alliance's draw (#1): the stack in D4 attacks "
                             "the stack in D3.")
    assert not DiceRoll.objects.filter(phase=open_phase(campaign)).exists()
    assert sorted(Unit.objects.filter(campaign=campaign)
                  .values_list("pk", "current_hits")) == hits
    (declared,) = Declaration.objects.filter(phase=open_phase(campaign))
    assert (declared.seq, declared.kind, declared.stack_id, declared.target_id,
            declared.status) == (1, "attack", theirs.pk, mine.pk, "pending")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=gm, campaign=campaign, stack=theirs, path=["D5"])
    assert info.value.code == "declared"
    assert "declared for the alliance's draw" in str(info.value)


def test_the_gm_ending_the_phase_asks_the_alliance_to_draw(unchanged):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    before = timezone.now()
    phase = phase_end(user=gm, campaign=campaign)
    assert phase.pk == open_phase(campaign).pk and phase.kind == "opposition"
    assert phase.awaiting_draw
    assert phase.deadline_at >= before + timedelta(hours=24)
    asked = Event.objects.get(kind="draw_asked")
    assert asked.side is None and asked.payload["declared"] == 1
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_end(user=gm, campaign=campaign)
    assert info.value.code == "awaiting_draw"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=gm, campaign=campaign, stack=theirs, path=["D5"])
    assert info.value.code == "awaiting_draw"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_draw(user=gm, campaign=campaign, draw=DRAW, expected_phase=phase)
    assert info.value.code == "alliance_only"
    for bad in ("", "   ", "x" * 201):
        with unchanged(campaign), pytest.raises(CampaignError) as info:
            phase_draw(user=p1.user, campaign=campaign, draw=bad, expected_phase=phase)
        assert (info.value.code, info.value.field) == ("invalid_field", "draw")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_draw(user=p1.user, campaign=campaign, draw=DRAW, expected_phase=None)
    assert info.value.field == "expected_phase"


def test_the_draw_resolves_the_declared_combats_with_the_mixed_seed_and_closes_the_phase():
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    phase = phase_end(user=gm, campaign=campaign)
    nxt = phase_draw(user=p1.user, campaign=campaign, draw=f"  {DRAW} ", expected_phase=phase)
    assert (nxt.kind, nxt.turn.number) == ("scout", 2)
    phase.refresh_from_db()
    assert (phase.status, phase.alliance_draw, phase.drawn_by_id, phase.drawn_from_number) == (
        "closed", DRAW, p1.pk, 1)
    combat = Event.objects.get(kind="combat", phase=phase)
    assert combat.payload["attacker"] == theirs.pk and combat.payload["defender"] == mine.pk
    assert Declaration.objects.get(phase=phase).status == "resolved"
    assert Declaration.objects.get(phase=phase).event_id == combat.pk
    rolls = list(DiceRoll.objects.filter(phase=phase).order_by("number"))
    assert rolls and rolls[0].number == 1
    mixed = mix_draw(SEED, DRAW)
    assert [r.value for r in rolls] == [derive(mixed, r.number, r.purpose, r.sides)
                                       for r in rolls]
    # The seed alone would have given other dice: the draw changed them.
    assert [r.value for r in rolls] != [derive(SEED, r.number, r.purpose, r.sides)
                                       for r in rolls]
    assert verify(commitment=phase.dice_commitment, seed=phase.dice_seed, rolls=[]).commitment_ok
    drew = Event.objects.get(kind="alliance_drew")
    assert drew.side is None and drew.payload["draw"] == DRAW
    with pytest.raises(CampaignError) as info:
        phase_draw(user=p1.user, campaign=campaign, draw=DRAW, expected_phase=phase)
    assert info.value.code == "no_draw_waiting"


def test_a_declaration_whose_target_is_gone_is_void_and_the_others_resolve():
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    lone = Stack.objects.create(campaign=campaign, side=mine.side, hex="D3")
    Unit.objects.filter(pk=Unit.objects.filter(stack=mine).order_by("position")
                        .values_list("pk", flat=True)[0]).update(stack=lone)
    second = Stack.objects.create(campaign=campaign, side=theirs.side, hex="E3")
    Unit.objects.filter(pk=Unit.objects.filter(stack=theirs).order_by("position")
                        .values_list("pk", flat=True)[0]).update(stack=second)
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=lone)
    stack_attack(user=gm, campaign=campaign, stack=second, target=mine)
    phase = phase_end(user=gm, campaign=campaign)
    # The lone stack is gone before the draw (its unit croaked, as a GM's hit adjustment does).
    Unit.objects.filter(stack=lone).update(current_hits=0, stack=None)
    lone.delete()
    phase_draw(user=p1.user, campaign=campaign, draw=DRAW, expected_phase=phase)
    first, later = Declaration.objects.filter(phase=phase).order_by("seq")
    assert (first.status, first.void_reason, first.target_id) == (
        "void", "The target stack is gone.", None)
    assert later.status == "resolved"
    assert Event.objects.get(pk=later.event_id).payload["attacker"] == second.pk
    void = Event.objects.get(kind="declaration_void")
    assert void.side.kind == "opposition"
    assert void.summary == "Declared combat #1 is void: The target stack is gone."
    # The resolved combat rolled from number 1 on with the mixed seed.
    rolls = list(DiceRoll.objects.filter(phase=phase).order_by("number"))
    assert rolls[0].number == 1
    assert all(r.value == derive(mix_draw(SEED, DRAW), r.number, r.purpose, r.sides)
               for r in rolls)


def test_the_gm_withdraws_a_declaration_before_the_draw_is_asked(unchanged):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    declared = Declaration.objects.get(phase=open_phase(campaign))
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        declaration_withdraw(user=p1.user, campaign=campaign, declaration=declared)
    assert info.value.code == "gm_only"
    declaration_withdraw(user=gm, campaign=campaign, declaration=declared)
    assert not Declaration.objects.filter(phase=open_phase(campaign)).exists()
    # With nothing declared the phase closes at once, as without the draw.
    nxt = phase_end(user=gm, campaign=campaign)
    assert (nxt.kind, nxt.turn.number) == ("scout", 2)
    assert not Event.objects.filter(kind="draw_asked").exists()


def test_the_server_draws_an_empty_draw_when_the_alliance_does_not_draw_in_time():
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    phase = phase_end(user=gm, campaign=campaign)
    assert sweep(now=phase.deadline_at - timedelta(minutes=1)) == []
    actions = sweep(now=phase.deadline_at + timedelta(minutes=1))
    assert [a.event for a in actions] == ["drawn_by_server"]
    phase.refresh_from_db()
    assert (phase.status, phase.alliance_draw, phase.drawn_by_id) == ("closed", "", None)
    rolls = list(DiceRoll.objects.filter(phase=phase).order_by("number"))
    assert [r.value for r in rolls] == [derive(mix_draw(SEED, ""), r.number, r.purpose,
                                               r.sides) for r in rolls]
    assert open_phase(campaign).kind == "scout"


def test_without_the_draw_the_opposition_rolls_at_once():
    campaign, gm, (p1,), mine, theirs = opposition_phase(draw=False)
    event = stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    assert event.kind == "combat"
    rolls = list(DiceRoll.objects.filter(phase=open_phase(campaign)).order_by("number"))
    assert [r.value for r in rolls] == [derive(SEED, r.number, r.purpose, r.sides)
                                       for r in rolls]


def test_a_hard_deadline_closes_the_opposition_s_orders_and_asks_the_draw():
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    Campaign.objects.filter(pk=campaign.pk).update(hard_deadline=True)
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    phase = open_phase(campaign)
    actions = sweep(now=phase.deadline_at + timedelta(minutes=1))
    assert [a.event for a in actions] == ["deadline_reached", "draw_asked"]
    phase.refresh_from_db()
    assert (phase.status, phase.awaiting_draw) == ("open", True)
    assert phase.deadline_at >= phase.draw_asked_at + timedelta(hours=24)
    nxt = phase_draw(user=p1.user, campaign=campaign, draw=DRAW, expected_phase=phase)
    assert (nxt.kind, nxt.turn.number) == ("scout", 2)


def test_a_revert_drops_the_declarations_and_reopens_the_gm_s_orders():
    from campaigns.games.erfworld.gm_tools import phase_revert

    campaign, gm, (p1,), mine, theirs = opposition_phase()
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    phase = phase_end(user=gm, campaign=campaign)
    phase_revert(user=gm, campaign=campaign, reason="wrong target", expected_phase=phase)
    phase.refresh_from_db()
    assert (phase.awaiting_draw, Declaration.objects.filter(phase=phase).count()) == (False, 0)
    assert Event.objects.get(kind="phase_reverted").payload["declarations_dropped"] == 1
    # The GM gives orders again; with nothing declared, ending closes the phase at once.
    assert phase_end(user=gm, campaign=campaign).kind == "scout"
