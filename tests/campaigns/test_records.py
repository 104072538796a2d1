"""Players' records: per closed phase played, late, proxied or missed (NMR); "new" before any
phase closed; on the overview beside each player and on the profile."""

import pytest
from django.utils import timezone

from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.games.erfworld.engine import check_victory
from campaigns.models import Fortification, Phase, PhaseStatus, PlayerPhaseStatus, Side
from campaigns.selectors.records import Record, campaign_records, user_records
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def test_a_player_without_a_closed_phase_is_new():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    assert (str(campaign_records(campaign).get(p1.pk, Record())), str(Record())) == (
        "new", "new")


def test_done_in_time_is_played_and_no_orders_is_missed():
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    orders_mark_done(user=p1.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    records = campaign_records(campaign)
    assert (records[p1.pk], records[p2.pk], str(records[p2.pk])) == (
        Record(played=1), Record(missed=1), "0 played · 1 missed")


def test_each_outcome_is_counted_once_and_open_phases_not_at_all():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    for _ in range(3):  # scout, move/combat (alliance), opposition: three closed phases
        phase_end(user=gm, campaign=campaign)
    closed = list(PlayerPhaseStatus.objects.filter(membership=p1,
                                                   phase__status=PhaseStatus.CLOSED)
                  .order_by("phase__opened_at"))
    now = timezone.now()
    PlayerPhaseStatus.objects.filter(pk=closed[0].pk).update(done_at=now, late=True)
    PlayerPhaseStatus.objects.filter(pk=closed[1].pk).update(done_at=now, proxied_by=p1)
    open_phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    PlayerPhaseStatus.objects.filter(phase=open_phase, membership=p1).update(done_at=now)
    record = campaign_records(campaign)[p1.pk]
    assert (len(closed), record, str(record)) == (
        2, Record(late=1, proxied=1), "0 played · 1 late · 1 proxied")


def test_the_overview_and_the_profile_show_the_record(client):
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    orders_mark_done(user=p1.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    client.force_login(p2.user)
    overview = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    profile = client.get("/accounts/profile/").content.decode()
    assert ('<td data-record>1 played</td>' in overview,
            '<td data-record>0 played · 1 missed</td>' in overview,
            '<strong data-record-total>0 played · 1 missed</strong>' in profile,
            [(c.pk, str(r)) for c, r in user_records(p2.user)]) == (
        True, True, True, [(campaign.pk, "0 played · 1 missed")])


# --- Phases missed in a row -----------------------------------------------------------------


def test_after_the_limit_of_missed_phases_the_gm_and_chief_warlord_are_told_and_it_proxies():
    from campaigns.games.erfworld import scout_order_give
    from campaigns.models import Event, Notification, Unit
    from campaigns.selectors.absences import missed_in_a_row

    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    # Turn 1 scout and move/combat pass without p2's orders (the default limit is 2).
    for _ in range(2):
        orders_mark_done(user=chief.user, campaign=campaign)
        phase_end(user=gm, campaign=campaign)
    told = Event.objects.filter(campaign=campaign, payload__missed_in_a_row=2)
    first_count = told.count()
    phase_end(user=gm, campaign=campaign)  # the opposition phase: turn 2's scouting opens
    scout = Unit.objects.get(owner=p2, name="Scout 1")
    order = scout_order_give(user=chief.user, campaign=campaign, scout=scout, directions=["SE"],
                             on_behalf_of=p2)  # before any deadline: p2 has gone quiet
    assert (missed_in_a_row(p2), first_count, told.count(),
            sorted(Notification.objects.filter(event__in=told).values_list("user__username",
                                                                           flat=True)),
            order.proxied_by_id) == (
        2, 1, 1, sorted([gm.username, chief.user.username]), chief.pk)


def test_no_limit_never_hands_a_player_over():
    from campaigns.errors import NotAllowedError
    from campaigns.games.erfworld import scout_order_give
    from campaigns.models import Campaign, Unit

    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    Campaign.objects.filter(pk=campaign.pk).update(missed_phases_limit=None)
    campaign.refresh_from_db()
    for _ in range(2):
        orders_mark_done(user=chief.user, campaign=campaign)
        phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    with pytest.raises(NotAllowedError) as caught:
        scout_order_give(user=chief.user, campaign=campaign,
                         scout=Unit.objects.get(owner=p2, name="Scout 1"), directions=["SE"],
                         on_behalf_of=p2)
    assert caught.value.code == "not_late"


def test_the_phase_the_victory_closes_is_missed_by_nobody():
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    orders_mark_done(user=p1.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)  # scout: p2 missed it
    orders_mark_done(user=p1.user, campaign=campaign)
    Fortification.objects.filter(campaign=campaign, hex=campaign.victory_hex).update(
        owner=Side.objects.get(campaign=campaign, kind="alliance"))
    check_victory(campaign=campaign, phase=None, actor=gm)
    campaign.refresh_from_db()
    records = campaign_records(campaign)
    assert (campaign.status, records[p1.pk], records[p2.pk]) == (
        "finished", Record(played=2), Record(missed=1))
