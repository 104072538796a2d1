"""Turn 1's scout phase: scout orders, orders done, late players and proxies, ending it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.errors import CampaignError
from campaigns.games.erfworld import open_phase as services_open_phase
from campaigns.games.erfworld import (
    orders_mark_done,
    phase_end,
    scout_order_cancel,
    scout_order_give,
)
from campaigns.models import (
    Event,
    Phase,
    PhaseKind,
    PhaseSnapshot,
    PlayerPhaseStatus,
    ScoutOrder,
    Sighting,
    Stack,
    Turn,
    Unit,
)
from rules.dice import commitment
from tests.factories import UserFactory, started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

# From A1 along the road: B1, B2, C3, D3, D4 (D4: opposition tower and stack).
TO_D4 = ["SE", "S", "SE", "SE", "S"]


def scout_of(member, n=1):
    return Unit.objects.get(owner=member, name=f"Scout {n}")


def open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status="open")


def make_late(campaign):
    """Move the open phase's opening and deadline 73 hours into the past."""
    phase = open_phase(campaign)
    shift = timedelta(hours=73)
    Phase.objects.filter(pk=phase.pk).update(
        opened_at=phase.opened_at - shift, deadline_at=phase.deadline_at - shift
    )


def test_scout_order_returns_the_inspected_hexes():
    campaign, _, (p1, *_rest) = started_campaign_factory()
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1),
                             directions=TO_D4)
    assert (order.directions, order.inspected_hexes, order.given_by_id, order.proxied_by_id) == (
        TO_D4, ["B1", "B2", "C3", "D3", "D4"], p1.pk, None,
    )
    event = Event.objects.get(kind="scout_order_given")
    assert (event.side.kind, event.summary) == (
        "alliance", f"{p1.user.username} ordered Scout 1 in A1 to inspect B1, B2, C3, D3, D4.",
    )


def test_giving_an_order_again_replaces_it():
    campaign, _, (p1, *_rest) = started_campaign_factory()
    scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1), directions=TO_D4)
    scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1), directions=["S"])
    assert list(ScoutOrder.objects.values_list("inspected_hexes", flat=True)) == [["A2"]]


def test_a_cancelled_order_is_gone():
    campaign, _, (p1, *_rest) = started_campaign_factory()
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1),
                             directions=["S"])
    scout_order_cancel(user=p1.user, order=order)
    assert ScoutOrder.objects.count() == 0


@pytest.mark.parametrize(
    ("directions", "code", "message"),
    [
        (TO_D4 + ["SE", "S"], "invalid_scout_path",
         "The scout path has 7 steps, but a scout with Move 4 may inspect at most 6 hexes "
         "(M + floor(M / 2), §5)."),
        (["N"], "invalid_scout_path",
         "Step 1 of the scout path (N) leaves the map; every inspected hex must be on the map "
         "(§5)."),
        (["UP"], "invalid_scout_path",
         "Step 1 of the scout path is 'UP'; a step must be one of the directions N, NE, SE, S, "
         "SW or NW (§5)."),
    ],
)
def test_bad_scout_paths_are_refused(unchanged, directions, code, message):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1),
                         directions=directions)
    assert (info.value.code, str(info.value), info.value.field) == (code, message, "directions")


def test_a_scout_without_a_commander_in_its_hex_is_refused(unchanged):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    scout = scout_of(p1)
    # The scout stands alone in A2.
    stack = Stack.objects.create(campaign=campaign, side=scout.side, hex="A2")
    Unit.objects.filter(pk=scout.pk).update(stack=stack, position=0)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["S"])
    assert (info.value.code, str(info.value)) == (
        "no_commander_in_hex",
        "The scout in A2 can take orders only while a commander of its side is in the same hex "
        "(§5).",
    )


def test_a_unit_without_the_scout_special_is_refused(unchanged):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    spearman = Unit.objects.get(owner=p1, name="Spearman 1")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p1.user, campaign=campaign, scout=spearman, directions=["S"])
    assert (info.value.code, str(info.value)) == (
        "not_a_scout", "Only units with the scout special can be given scout orders (§5).",
    )


def test_ordering_another_players_scout_is_refused(unchanged):
    campaign, _, (p1, p2, _p3) = started_campaign_factory()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p2.user, campaign=campaign, scout=scout_of(p1), directions=["S"])
    assert info.value.code == "not_your_unit"


def test_a_non_member_cannot_give_scout_orders(unchanged):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=UserFactory(), campaign=campaign, scout=scout_of(p1),
                         directions=["S"])
    assert info.value.code == "not_member"


def test_the_gm_cannot_give_alliance_scout_orders(unchanged):
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=gm, campaign=campaign, scout=scout_of(p1), directions=["S"])
    assert info.value.code == "wrong_side"


def test_mark_done_records_the_time():
    campaign, _, (p1, *_rest) = started_campaign_factory()
    status = orders_mark_done(user=p1.user, campaign=campaign)
    assert (status.done_at is not None, status.late, status.proxied_by_id) == (True, False, None)


def test_marking_done_twice_is_refused(unchanged):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    orders_mark_done(user=p1.user, campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        orders_mark_done(user=p1.user, campaign=campaign)
    assert info.value.code == "already_done"


# --- late players and proxies --------------------------------------------------------------


def test_proxy_before_the_timeout_is_refused(unchanged):
    campaign, _, (cw, p2, _p3) = started_campaign_factory()
    phase = open_phase(campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=cw.user, campaign=campaign, scout=scout_of(p2), directions=["S"],
                         on_behalf_of=p2)
    assert (info.value.code, str(info.value)) == (
        "not_late",
        f"{p2.user.username} is not late: the Chief Warlord may act for a player only after 72 "
        "hours from the phase opening without their orders being marked done (§5); that is "
        f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC.",
    )
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        orders_mark_done(user=cw.user, campaign=campaign, on_behalf_of=p2)
    assert info.value.code == "not_late"


def test_proxy_by_a_player_who_is_not_chief_warlord_is_refused(unchanged):
    campaign, _, (_cw, p2, p3) = started_campaign_factory()
    make_late(campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p3.user, campaign=campaign, scout=scout_of(p2), directions=["S"],
                         on_behalf_of=p2)
    assert (info.value.code, str(info.value)) == (
        "chief_warlord_only",
        "Only the Chief Warlord may give orders for another player, and only once that player "
        "is late (§5).",
    )
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        orders_mark_done(user=p3.user, campaign=campaign, on_behalf_of=p2)
    assert info.value.code == "chief_warlord_only"


def test_the_chief_warlord_orders_and_marks_done_for_a_late_player():
    campaign, _, (cw, p2, _p3) = started_campaign_factory()
    make_late(campaign)
    order = scout_order_give(user=cw.user, campaign=campaign, scout=scout_of(p2),
                             directions=["S"], on_behalf_of=p2)
    status = orders_mark_done(user=cw.user, campaign=campaign, on_behalf_of=p2)
    assert (order.given_by_id, order.proxied_by_id) == (p2.pk, cw.pk)
    assert (status.membership_id, status.late, status.proxied_by_id) == (p2.pk, True, cw.pk)
    assert Event.objects.filter(kind="orders_done").get().summary == (
        f"{p2.user.username}'s orders are done (marked by {cw.user.username}, by proxy)."
    )


# --- ending the scout phase ----------------------------------------------------------------


def test_the_chief_warlord_cannot_end_the_phase_while_players_are_neither_done_nor_late(
    unchanged,
):
    campaign, _, (cw, p2, p3) = started_campaign_factory()
    orders_mark_done(user=cw.user, campaign=campaign)
    orders_mark_done(user=p2.user, campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_end(user=cw.user, campaign=campaign)
    assert (info.value.code, str(info.value)) == (
        "players_not_done",
        "The Chief Warlord may end the phase once every player is done or late; waiting for "
        f"{p3.user.username}.",
    )


def test_a_player_who_is_not_chief_warlord_cannot_end_the_phase(unchanged):
    campaign, _, (_cw, p2, _p3) = started_campaign_factory()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_end(user=p2.user, campaign=campaign)
    assert info.value.code == "chief_warlord_only"


def test_the_chief_warlord_ends_the_phase_once_the_others_are_late():
    campaign, _, (cw, _p2, _p3) = started_campaign_factory()
    orders_mark_done(user=cw.user, campaign=campaign)
    make_late(campaign)
    phase_end(user=cw.user, campaign=campaign)
    scout = Phase.objects.get(campaign=campaign, kind="scout")
    assert list(scout.player_statuses.order_by("membership_id").values_list("late", flat=True)
                ) == [False, True, True]


def test_ending_the_scout_phase_makes_sightings_a_report_and_opens_move_combat(
    django_capture_on_commit_callbacks,
):
    campaign, gm, (p1, *_rest) = started_campaign_factory()
    scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1), directions=TO_D4)
    with django_capture_on_commit_callbacks(execute=True):
        new_phase = phase_end(user=gm, campaign=campaign)

    scout = Phase.objects.get(campaign=campaign, kind="scout")
    assert (scout.status, scout.closed_at is not None, scout.version) == ("closed", True, 1)
    assert (new_phase.kind, new_phase.status, new_phase.turn.number) == ("move_combat", "open", 1)
    assert new_phase.dice_commitment == commitment(new_phase.dice_seed)
    assert new_phase.dice_seed != scout.dice_seed
    assert PhaseSnapshot.objects.filter(phase=new_phase).count() == 1

    sightings = {s.hex: s for s in Sighting.objects.filter(campaign=campaign)}
    assert sorted(sightings) == ["B1", "B2", "C3", "D3", "D4"]
    d4 = sightings["D4"]
    assert (d4.side.kind, d4.turn.number, d4.is_latest) == ("alliance", 1, True)
    assert d4.seen == {
        "hex": "D4",
        "terrain": "road",
        "road": True,
        "stacks": [{
            "side": "opposition",
            "fortification": "D4",
            "turn": 1,
            "units": [
                {"name": "Spearman 1", "unit_type": "Spearman", "current_hits": 4},
                {"name": "Spearman 2", "unit_type": "Spearman", "current_hits": 4},
                {"name": "Spearman 3", "unit_type": "Spearman", "current_hits": 4},
                {"name": "Archer 1", "unit_type": "Archer", "current_hits": 3},
                {"name": "Archer 2", "unit_type": "Archer", "current_hits": 3},
            ],
        }],
        "fortifications": [{"kind": "tower", "hits": 20, "direction": None,
                            "owner": "opposition", "turn": 1}],
        "whole": True,
    }
    report = Event.objects.get(kind="scout_report")
    assert (report.side.kind, report.summary) == (
        "alliance", "Scout report of turn 1: 5 hexes inspected (B1, B2, C3, D3, D4).",
    )
    closed = Event.objects.get(kind="phase_closed")
    assert closed.payload == {"dice_seed": scout.dice_seed,
                              "dice_commitment": scout.dice_commitment, "reason": ""}


def test_a_later_sighting_of_a_hex_replaces_the_latest():
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1), directions=["S"])
    phase_end(user=gm, campaign=campaign)
    # Turn 2's scout phase, opened by hand (ending move/combat comes with the next issue).
    Phase.objects.filter(campaign=campaign, status="open").update(
        status="closed", closed_at=timezone.now()
    )
    turn2 = Turn.objects.create(campaign=campaign, number=2)
    services_open_phase(campaign=campaign, turn=turn2, kind=PhaseKind.SCOUT,
                        now=timezone.now(), actor=None)
    scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1), directions=["S"])
    phase_end(user=gm, campaign=campaign)
    assert list(Sighting.objects.order_by("pk").values_list("hex", "turn__number", "is_latest")
                ) == [("A2", 1, False), ("A2", 2, True)]


def test_ending_with_no_open_phase_is_refused(unchanged):
    campaign, gm, _ = started_campaign_factory(players=1)
    Phase.objects.filter(campaign=campaign).update(status="closed", closed_at=timezone.now())
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_end(user=gm, campaign=campaign)
    assert info.value.code == "no_open_phase"


def test_phase_statuses_exist_for_every_alliance_player():
    campaign, _, members = started_campaign_factory()
    assert sorted(PlayerPhaseStatus.objects.values_list("membership_id", flat=True)) == sorted(
        m.pk for m in members
    )


def test_ordering_an_opposition_unit_never_names_it(unchanged):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    hidden = Unit.objects.filter(campaign=campaign, owner__isnull=True).first()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p1.user, campaign=campaign, scout=hidden, directions=["S"])
    assert (info.value.code, str(info.value)) == (
        "not_your_unit", f"That unit is not one of {p1.user.public_name}'s units.")
    assert hidden.name not in str(info.value)


def test_ordering_a_teammates_scout_names_it(unchanged):
    campaign, _, (p1, p2, _p3) = started_campaign_factory()
    scout = scout_of(p1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        scout_order_give(user=p2.user, campaign=campaign, scout=scout, directions=["S"])
    assert str(info.value) == f"{scout.name} is not one of {p2.user.public_name}'s units."
