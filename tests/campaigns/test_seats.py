"""Leaving, removal and open seats: before the start a player goes with their army; after it
their seat opens, the Chief Warlord commands its stacks, and someone takes it over by the
invite link (a newcomer with a full phase, or the same player coming back without one). Each
holder's record stays their own; two claims of one seat make one holder."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from campaigns.errors import CampaignError
from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.games.erfworld.move_combat import stack_move
from campaigns.models import (
    Event,
    Membership,
    Phase,
    PlayerPhaseStatus,
    Role,
    Stack,
    Unit,
    UnitType,
)
from campaigns.selectors.records import Record, campaign_records
from campaigns.services.seats import open_seats, player_leave, player_remove, seat_claim
from tests.campaigns.engine_setup import move_phase_campaign, own_stack
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
)

pytestmark = pytest.mark.django_db


def _open(campaign):
    return Phase.objects.get(campaign=campaign, status="open")


def test_before_the_start_a_player_who_leaves_goes_with_their_army():
    campaign = campaign_factory()
    p1 = player_factory(campaign=campaign)
    army_factory(membership=p1)
    assert player_leave(user=p1.user, campaign=campaign) is None
    event = Event.objects.get(campaign=campaign, kind="player_left")
    assert (Membership.objects.filter(pk=p1.pk).exists(),
            Unit.objects.filter(campaign=campaign).exclude(side__kind="opposition").count(),
            UnitType.objects.filter(owner_id=p1.pk).count(), event.summary) == (
        False, 0, 0, f"{p1.user.public_name} left the campaign.")


def test_after_the_start_the_seat_opens_and_the_chief_warlord_commands_it():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    stack = own_stack(p2)
    units = Unit.objects.filter(owner=p2, current_hits__gt=0).count()
    player_leave(user=p2.user, campaign=campaign)
    p2.refresh_from_db()
    event = Event.objects.get(campaign=campaign, kind="player_left")
    # The open phase no longer waits for them: the Chief Warlord alone is done, and ends it
    # after moving the seat's stack for it.
    moved = stack_move(user=chief.user, campaign=campaign, stack=stack, path=["B1"],
                       on_behalf_of=p2)
    with pytest.raises(CampaignError) as nothing_to_mark:
        orders_mark_done(user=chief.user, campaign=campaign, on_behalf_of=p2)
    orders_mark_done(user=chief.user, campaign=campaign)
    phase_end(user=chief.user, campaign=campaign)
    assert (p2.role, p2.side_id, [m.pk for m in open_seats(campaign)],
            Unit.objects.filter(owner=p2, current_hits__gt=0).count(), moved.stack.hex,
            nothing_to_mark.value.code, _open(campaign).kind, event.summary,
            event.side_id) == (
        Role.FORMER, None, [p2.pk], units, "B1", "seat_open", "opposition",
        f"{p2.user.public_name} left the campaign. Their seat is open: the Chief Warlord "
        f"commands their {units} units until someone takes the seat.", None)


def test_only_the_chief_warlord_commands_an_open_seat():
    campaign, gm, (chief, p2, p3) = move_phase_campaign(players=3)
    player_leave(user=p3.user, campaign=campaign)
    before = own_stack(p3).hex
    with pytest.raises(CampaignError) as info:
        stack_move(user=p2.user, campaign=campaign, stack=own_stack(p3), path=["B1"],
                   on_behalf_of=p3)
    with pytest.raises(CampaignError) as own:
        stack_move(user=p2.user, campaign=campaign, stack=own_stack(p3), path=["B1"])
    assert (info.value.code, own.value.code, own_stack(p3).hex) == (
        "chief_warlord_only", "not_your_unit", before)


def test_a_newcomer_takes_over_the_army_with_a_full_phase_and_records_stay_apart():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    orders_mark_done(user=p2.user, campaign=campaign)  # (turn 1's scout phase: missed)
    Membership.objects.filter(pk=p2.pk).update(pop_points=12)
    phase = _open(campaign)
    Phase.objects.filter(pk=phase.pk).update(deadline_at=timezone.now() + timedelta(hours=1))
    player_leave(user=p2.user, campaign=campaign)
    newcomer = UserFactory(username="newcomer")
    holder = seat_claim(user=newcomer, invite_code=campaign.invite_code, seat=p2.pk)
    p2.refresh_from_db()
    phase.refresh_from_db()
    left = phase.deadline_at - timezone.now()
    status = PlayerPhaseStatus.objects.get(phase=phase, membership=holder)
    orders_mark_done(user=chief.user, campaign=campaign)
    orders_mark_done(user=newcomer, campaign=campaign)
    phase_end(user=chief.user, campaign=campaign)
    records = campaign_records(campaign)
    types = set(UnitType.objects.filter(owner=holder).values_list("name", flat=True))
    assert (holder.role, holder.side.kind, str(holder.pop_points), p2.successor_id,
            str(p2.pop_points), Unit.objects.filter(owner=p2).count(), bool(types),
            status.done_at is None, timedelta(hours=71) < left <= timedelta(hours=72),
            records[p2.pk], records[holder.pk], open_seats(campaign)) == (
        Role.PLAYER, "alliance", "12.000", holder.pk, "0.000", 0, True, True, True,
        Record(played=1, missed=1), Record(played=1), [])
    assert Event.objects.get(campaign=campaign, kind="seat_taken").summary.startswith(
        f"newcomer took over {p2.user.public_name}'s seat and its army (")


def test_a_player_who_comes_back_retakes_their_seat_without_extra_time():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    units = set(Unit.objects.filter(owner=p2).values_list("pk", flat=True))
    deadline = _open(campaign).deadline_at
    player_leave(user=p2.user, campaign=campaign)
    back = seat_claim(user=p2.user, invite_code=campaign.invite_code, seat=p2.pk)
    assert (back.pk, back.role, set(Unit.objects.filter(owner=back).values_list("pk", flat=True)),
            _open(campaign).deadline_at, back.successor_id) == (
        p2.pk, Role.PLAYER, units, deadline, None)


def test_a_taken_seat_a_member_or_a_wrong_code_cannot_claim():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    player_leave(user=p2.user, campaign=campaign)
    seat_claim(user=UserFactory(), invite_code=campaign.invite_code, seat=p2.pk)
    codes = []
    for user, code in ((UserFactory(), campaign.invite_code), (chief.user, campaign.invite_code),
                       (UserFactory(), "nope")):
        with pytest.raises(CampaignError) as info:
            seat_claim(user=user, invite_code=code, seat=p2.pk)
        codes.append(info.value.code)
    assert codes == ["seat_taken", "seat_taken", "invalid_invite"]


def test_the_gm_removes_a_player_with_a_reason_and_the_deputy_becomes_chief():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    Membership.objects.filter(pk=p2.pk).update(is_deputy=True)
    with pytest.raises(CampaignError) as no_reason:
        player_remove(user=gm, campaign=campaign, membership=chief, reason=" ")
    with pytest.raises(CampaignError) as not_gm:
        player_remove(user=p2.user, campaign=campaign, membership=chief, reason="x")
    player_remove(user=gm, campaign=campaign, membership=chief, reason="Never came back.")
    chief.refresh_from_db()
    p2.refresh_from_db()
    event = Event.objects.get(campaign=campaign, kind="player_left")
    assert (no_reason.value.code, not_gm.value.code, chief.role, chief.removed_by_gm,
            chief.left_reason, p2.is_chief_warlord, p2.is_deputy, event.summary) == (
        "reason_required", "gm_only", Role.FORMER, True, "Never came back.", True, False,
        f"The GM removed {chief.user.public_name}: Never came back. Their seat is open: the "
        f"Chief Warlord commands their "
        f"{Unit.objects.filter(owner=chief, current_hits__gt=0).count()} units until someone "
        f"takes the seat. The deputy, {p2.user.public_name}, is now the Chief Warlord.")


def test_a_former_player_sees_only_what_everyone_sees(client):
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    player_leave(user=p2.user, campaign=campaign)
    client.force_login(p2.user)
    state = client.get(f"/api/v1/campaigns/{campaign.pk}/map/").json()
    assert (state["viewer"]["side"], [s for s in state["stacks"] if s.get("units")
                                      and any("owner" in u for u in s["units"])]) == (None, [])


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("require_postgres")
def test_two_people_claiming_one_seat_at_once_make_one_holder():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    player_leave(user=p2.user, campaign=campaign)
    first, second = UserFactory(), UserFactory()
    barrier = threading.Barrier(2)
    outcomes = {}

    def claim(user):
        try:
            barrier.wait()
            seat_claim(user=user, invite_code=campaign.invite_code, seat=p2.pk)
            outcomes[user.pk] = "ok"
        except CampaignError as exc:
            outcomes[user.pk] = exc.code
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(u,)) for u in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    holders = Membership.objects.filter(campaign=campaign, role=Role.PLAYER,
                                        user__in=[first, second])
    assert (sorted(outcomes.values()), holders.count(),
            Unit.objects.filter(owner__in=holders).count() > 0,
            Stack.objects.filter(units__owner=p2).exists()) == (
        ["ok", "seat_taken"], 1, True, False)
