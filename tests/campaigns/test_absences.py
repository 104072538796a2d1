"""Declared absences: in advance, within the campaign's allowance, no overlap; meanwhile the
Chief Warlord may act for the player and the phase does not wait for them; a phase missed
while away is excused in the record; everyone sees who is away."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld import orders_mark_done, phase_end, scout_order_give
from campaigns.models import Absence, Campaign, Event, PhaseStatus, Unit
from campaigns.selectors.absences import standing_down
from campaigns.selectors.records import Record, campaign_records
from campaigns.services.absences import absence_cancel, absence_declare
from campaigns.services.deadlines import phase_process_deadline
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def day(n):
    return (timezone.now().date() + timedelta(days=n)).isoformat()


@pytest.mark.parametrize(("start", "end", "field", "message"), [
    (-1, 1, "starts_on", "From: an absence is declared in advance (today at the earliest)."),
    (3, 2, "ends_on", "Until: on or after the first day away."),
    (0, 14, "ends_on", "Until: 15 days would make 15 days away in this campaign; the "
     "allowance is 14 (14 left)."),
])
def test_bad_absences_are_refused_naming_the_field(start, end, field, message):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    with pytest.raises(RuleViolationError) as caught:
        absence_declare(user=p1.user, campaign=campaign, starts_on=day(start), ends_on=day(end))
    assert (caught.value.field, caught.value.message, Absence.objects.count()) == (
        field, message, 0)


def test_overlaps_and_the_allowance_count_every_absence():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    absence_declare(user=p1.user, campaign=campaign, starts_on=day(1), ends_on=day(10))
    with pytest.raises(RuleViolationError, match="overlaps"):
        absence_declare(user=p1.user, campaign=campaign, starts_on=day(10), ends_on=day(11))
    with pytest.raises(RuleViolationError, match=r"allowance is 14 \(4 left\)"):
        absence_declare(user=p1.user, campaign=campaign, starts_on=day(20), ends_on=day(24))
    absence_declare(user=p1.user, campaign=campaign, starts_on=day(20), ends_on=day(23))
    assert Absence.objects.count() == 2


def test_the_gm_does_not_declare_absences():
    campaign, gm, _ = started_campaign_factory(players=1)
    with pytest.raises(NotAllowedError):
        absence_declare(user=gm, campaign=campaign, starts_on=day(1), ends_on=day(2))


def test_while_away_the_chief_warlord_acts_and_the_phase_does_not_wait():
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    absence_declare(user=p2.user, campaign=campaign, starts_on=day(0), ends_on=day(3))
    scout = Unit.objects.filter(owner=p2, name__startswith="Scout").first() or Unit.objects.filter(
        owner=p2).first()
    order = scout_order_give(user=chief.user, campaign=campaign, scout=scout, directions=["SE"],
                             on_behalf_of=p2) if scout.unit_type.specials else None
    orders_mark_done(user=chief.user, campaign=campaign)
    phase_end(user=chief.user, campaign=campaign)  # p2 is away: the phase need not wait
    records = campaign_records(campaign)
    assert (p2.pk in standing_down(campaign, [p2]), order is None or order.proxied_by_id == chief.pk,
            campaign.phases.filter(status=PhaseStatus.OPEN).get().kind, records[p2.pk]) == (
        True, True, "move_combat", Record(proxied=1))


def test_a_phase_missed_while_away_is_excused():
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    absence_declare(user=p2.user, campaign=campaign, starts_on=day(0), ends_on=day(5))
    orders_mark_done(user=chief.user, campaign=campaign)
    phase_end(user=chief.user, campaign=campaign)
    record = campaign_records(campaign)[p2.pk]
    assert (record, str(record)) == (Record(excused=1), "0 played · 1 away")


def test_cancelling_deletes_a_future_absence_and_ends_one_under_way_today():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    future = absence_declare(user=p1.user, campaign=campaign, starts_on=day(5), ends_on=day(6))
    now = absence_declare(user=p1.user, campaign=campaign, starts_on=day(0), ends_on=day(3))
    absence_cancel(user=p1.user, absence=future)
    absence_cancel(user=p1.user, absence=now)
    now.refresh_from_db()
    assert (Absence.objects.filter(pk=future.pk).exists(), now.ends_on.isoformat()) == (
        False, day(0))


def test_the_overview_shows_who_is_away_and_takes_a_declaration(client):
    campaign, _, (p1, p2) = started_campaign_factory(players=2)
    client.force_login(p2.user)
    done = client.post(f"/campaigns/{campaign.pk}/absences/",
                       {"starts_on": day(1), "ends_on": day(2), "note": "Wedding"}, follow=True)
    refused = client.post(f"/campaigns/{campaign.pk}/absences/",
                          {"starts_on": "soon", "ends_on": day(2)})
    client.force_login(p1.user)
    seen = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert (done.redirect_chain[-1][0], 'data-key="absence-cancel"' in done.content.decode(),
            refused.status_code, "From: a date as YYYY-MM-DD, not &#x27;soon&#x27;." in
            refused.content.decode(), seen.count("data-away>away "),
            Campaign.objects.get(pk=campaign.pk).absence_days) == (
        f"/campaigns/{campaign.pk}/#away-title", True, 400, True, 1, 14)


def test_with_absences_extending_the_phase_it_waits_for_the_player_away():
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    Campaign.objects.filter(pk=campaign.pk).update(absence_extends=True)
    campaign.refresh_from_db()
    absence_declare(user=p2.user, campaign=campaign, starts_on=day(0), ends_on=day(3))
    orders_mark_done(user=chief.user, campaign=campaign)
    with pytest.raises(WrongStateError) as waits:
        phase_end(user=chief.user, campaign=campaign)  # not standing down: the phase waits
    phase = campaign.phases.get(status=PhaseStatus.OPEN)
    now = phase.deadline_at + timedelta(minutes=1)
    actions = phase_process_deadline(phase_id=phase.pk, now=now)
    phase.refresh_from_db()
    back = datetime.combine(date.fromisoformat(day(4)), datetime.min.time(), p2.user.zone)
    event = Event.objects.get(campaign=campaign, kind="deadline_extended")
    assert (p2.pk in standing_down(campaign, [p2]), waits.value.code,
            [a.event for a in actions], phase.deadline_at, phase.deadline_processed_at,
            event.summary) == (
        False, "players_not_done", ["extended_for_absence"], back.astimezone(UTC), None,
        f"Turn 1's alliance scout phase waits for {p2.user.public_name}, away: its deadline moves to "
        f"{back.astimezone(UTC):%Y-%m-%d %H:%M} UTC (the campaign's absences extend the "
        "phase).")


def test_without_the_setting_the_deadline_passes_as_usual_for_a_player_away():
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    absence_declare(user=p2.user, campaign=campaign, starts_on=day(0), ends_on=day(3))
    phase = campaign.phases.get(status=PhaseStatus.OPEN)
    deadline = phase.deadline_at
    actions = phase_process_deadline(phase_id=phase.pk, now=deadline + timedelta(minutes=1))
    phase.refresh_from_db()
    assert ([a.event for a in actions], phase.deadline_at) == (["deadline_reached"], deadline)
