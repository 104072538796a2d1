"""Deadlines: reminders, the deadline reached, hard deadlines, early closes, pause, extensions."""

import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import NotificationKind
from accounts.timefmt import format_local
from campaigns.errors import CampaignError
from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.models import (
    CampaignStatus,
    DeadlineReminder,
    Event,
    EventKind,
    Notice,
    Notification,
    Phase,
    PhaseKind,
    PhaseStatus,
)
from campaigns.services.deadlines import (
    campaign_pause,
    campaign_resume,
    deadline_extend,
    due_phase_ids,
    phase_processing_unflag,
    sweep,
)
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)


def events(campaign, kind):
    return list(Event.objects.filter(campaign=campaign, kind=kind))


def names(members):
    return [m.user.username for m in members]


@pytest.fixture
def game():
    campaign, gm, members = started_campaign_factory(players=3)
    return campaign, gm, members, open_phase(campaign)


@pytest.fixture
def clock(monkeypatch):
    """Set the clock the services read (timezone.now) to a given moment."""

    def set_to(moment):
        monkeypatch.setattr(timezone, "now", lambda: moment)

    return set_to


def test_nothing_is_due_long_before_the_deadline(game):
    campaign, _, _, phase = game
    assert sweep(now=phase.deadline_at - timedelta(hours=25)) == []
    assert due_phase_ids(now=phase.deadline_at - timedelta(hours=25)) == []


def test_reminders_at_24_and_1_hours_each_sent_once(game):
    campaign, _, members, phase = game
    at_24 = phase.deadline_at - timedelta(hours=24)
    actions = [a.as_json() for a in sweep(now=at_24)]
    assert actions == [
        {"campaign": campaign.pk, "phase": phase.pk, "event": "reminder", "user": u}
        for u in names(members)
    ]
    assert sweep(now=at_24 + timedelta(minutes=1)) == []
    orders_mark_done(user=members[1].user, campaign=campaign)
    at_1 = phase.deadline_at - timedelta(hours=1)
    assert [a.user for a in sweep(now=at_1)] == [members[0].user.username,
                                                  members[2].user.username]
    assert sweep(now=at_1 + timedelta(minutes=30)) == []
    assert DeadlineReminder.objects.filter(phase=phase).count() == 5
    reminders = Notification.objects.filter(kind=NotificationKind.REMINDER).order_by("pk")
    assert [n.user.username for n in reminders] == names(members) + names([members[0], members[2]])
    assert reminders[0].message == (
        f"{campaign.name}: your orders for turn 1 are due in 24 h 00 min (the alliance scout phase)."
    )


def test_a_late_sweep_sends_only_the_closest_reminder(game):
    _, _, members, phase = game
    actions = sweep(now=phase.deadline_at - timedelta(minutes=30))
    assert [a.user for a in actions] == names(members)
    assert set(DeadlineReminder.objects.values_list("offset_hours", flat=True)) == {1}
    assert sweep(now=phase.deadline_at - timedelta(minutes=20)) == []


def test_no_reminder_once_the_deadline_has_passed(game):
    _, _, _, phase = game
    actions = sweep(now=phase.deadline_at + timedelta(minutes=1))
    assert [a.event for a in actions] == ["deadline_reached"]
    assert DeadlineReminder.objects.count() == 0


def test_deadline_reached_marks_late_players_once(game):
    campaign, gm, members, phase = game
    orders_mark_done(user=members[2].user, campaign=campaign)
    actions = [a.as_json() for a in sweep(now=phase.deadline_at)]
    assert actions == [{"campaign": campaign.pk, "phase": phase.pk, "event": "deadline_reached"}]
    assert sweep(now=phase.deadline_at + timedelta(minutes=5)) == []
    statuses = {s.membership_id: s.late for s in phase.player_statuses.all()}
    assert statuses == {members[0].pk: True, members[1].pk: True, members[2].pk: False}
    [event] = events(campaign, EventKind.DEADLINE_REACHED)
    late = f"{members[0].user.public_name}, {members[1].user.public_name}"
    assert event.summary == (
        "Turn 1: the deadline of the alliance scout phase (72 hours) has passed — late: "
        f"{late}; the Chief Warlord may now give their orders and end the phase."
    )
    assert [n.body for n in Notice.objects.filter(campaign=campaign)] == [event.summary]
    notes = {n.user_id: n.message for n in Notification.objects.filter(event=event)}
    # player1 is the (late) Chief Warlord: the proxy message only; player2 is late; the GM.
    assert notes == {
        members[0].user_id: f"{campaign.name}: {late} late; you may act for them as proxy and "
                            "end the phase.",
        members[1].user_id: f"{campaign.name}: you are late for turn 1; the Chief Warlord may "
                            "now give your orders.",
        gm.pk: event.summary,
    }
    phase.refresh_from_db()
    assert phase.deadline_processed_at == phase.deadline_at
    assert phase.status == PhaseStatus.OPEN  # the Chief Warlord decides (no hard deadline)


def test_after_the_deadline_the_chief_warlord_may_act_as_proxy(game):
    campaign, _, members, phase = game
    sweep(now=phase.deadline_at)
    status = orders_mark_done(user=members[0].user, campaign=campaign, on_behalf_of=members[1])
    assert status.proxied_by_id == members[0].pk


def test_process_deadlines_command_prints_json_lines(game):
    campaign, _, members, phase = game
    out = StringIO()
    call_command("process_deadlines", "--now",
                 (phase.deadline_at - timedelta(minutes=59)).isoformat(), stdout=out)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {"campaign": campaign.pk, "phase": phase.pk, "event": "reminder", "user": u}
        for u in names(members)
    ]


@pytest.mark.parametrize("value", ["yesterday", "2026-11-21T18:00:00"])
def test_process_deadlines_rejects_a_bad_now(value):
    with pytest.raises(CommandError):
        call_command("process_deadlines", "--now", value, stdout=StringIO())


def test_hard_deadline_closes_the_phase_with_the_orders_given(game):
    campaign, _, members, phase = game
    campaign.hard_deadline = True
    campaign.save(update_fields=["hard_deadline"])
    actions = [a.event for a in sweep(now=phase.deadline_at)]
    assert actions == ["deadline_reached", "auto_closed"]
    phase.refresh_from_db()
    assert (phase.status, phase.closed_at) == (PhaseStatus.CLOSED, phase.deadline_at)
    assert open_phase(campaign).kind == PhaseKind.MOVE_COMBAT
    [closed] = events(campaign, EventKind.PHASE_CLOSED)
    assert (closed.actor, closed.payload["reason"]) == (None, "hard deadline reached")
    assert sweep(now=phase.deadline_at + timedelta(minutes=1)) == []


def test_early_close_when_every_player_is_done(game):
    campaign, _, members, phase = game
    campaign.early_close = True
    campaign.save(update_fields=["early_close"])
    for m in members[:2]:
        orders_mark_done(user=m.user, campaign=campaign)
    assert sweep(now=phase.opened_at + timedelta(hours=1)) == []
    orders_mark_done(user=members[2].user, campaign=campaign)
    actions = [a.event for a in sweep(now=phase.opened_at + timedelta(hours=1))]
    assert actions == ["early_closed"]
    assert open_phase(campaign).kind == PhaseKind.MOVE_COMBAT


def test_without_early_close_the_chief_warlord_decides(game):
    campaign, _, members, phase = game
    for m in members:
        orders_mark_done(user=m.user, campaign=campaign)
    assert sweep(now=phase.opened_at + timedelta(hours=1)) == []
    assert open_phase(campaign).pk == phase.pk


def test_pause_keeps_the_remaining_time_and_nothing_fires(game, clock):
    campaign, gm, members, phase = game
    paused_at = phase.opened_at + timedelta(hours=30)
    clock(paused_at)
    campaign_pause(user=gm, campaign=campaign, reason="holidays")
    phase.refresh_from_db()
    assert phase.paused_remaining == timedelta(hours=42)
    assert sweep(now=paused_at + timedelta(days=30)) == []
    with pytest.raises(CampaignError) as info:
        orders_mark_done(user=members[0].user, campaign=campaign)
    assert info.value.code == "paused"
    resumed_at = paused_at + timedelta(days=10)
    clock(resumed_at)
    campaign_resume(user=gm, campaign=campaign, reason="back")
    phase.refresh_from_db()
    campaign.refresh_from_db()
    assert (campaign.status, phase.deadline_at, phase.paused_remaining) == (
        CampaignStatus.RUNNING, resumed_at + timedelta(hours=42), None)
    assert [n.body for n in Notice.objects.filter(campaign=campaign).order_by("pk")] == [
        "The GM paused the campaign: holidays",
        f"The GM resumed the campaign; the deadline is now {phase.deadline_at:%Y-%m-%d %H:%M} "
        "UTC: back",
    ]


def test_pause_and_resume_are_gm_only_and_need_a_reason(game, unchanged):
    campaign, gm, members, _ = game
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_pause(user=members[0].user, campaign=campaign, reason="x")
    assert info.value.code == "gm_only"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_pause(user=gm, campaign=campaign, reason="  ")
    assert info.value.code == "reason_required"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_resume(user=gm, campaign=campaign, reason="x")
    assert info.value.code == "not_paused"


def test_extensions_are_capped_per_phase(game, unchanged):
    campaign, gm, _, phase = game
    first = phase.deadline_at
    deadline_extend(user=gm, campaign=campaign, hours=100, reason="storm")
    deadline_extend(user=gm, campaign=campaign, hours=68, reason="more storm")
    phase.refresh_from_db()
    assert (phase.deadline_at, phase.extended_hours) == (first + timedelta(hours=168), 168)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        deadline_extend(user=gm, campaign=campaign, hours=1, reason="again")
    assert info.value.code == "extension_cap"
    assert str(info.value) == ("Extensions are capped at 168 hours in total per phase; this "
                               "phase has had 168, so at most 0 more.")
    [extended, _] = events(campaign, EventKind.DEADLINE_EXTENDED)
    assert extended.actor == gm
    assert extended.payload["reason"] == "storm"


def test_extension_refused_for_players(game, unchanged):
    campaign, _, members, _ = game
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        deadline_extend(user=members[0].user, campaign=campaign, hours=5, reason="please")
    assert info.value.code == "gm_only"


def test_extension_after_the_deadline_gives_late_players_time_again(game, clock):
    campaign, gm, members, phase = game
    sweep(now=phase.deadline_at)
    clock(phase.deadline_at + timedelta(hours=1))
    deadline_extend(user=gm, campaign=campaign, hours=24, reason="flu")
    phase.refresh_from_db()
    assert phase.deadline_processed_at is None
    assert not phase.player_statuses.filter(late=True).exists()
    assert [a.event for a in sweep(now=phase.deadline_at)] == ["deadline_reached"]


def test_the_gm_ends_a_phase_with_a_reason(game):
    campaign, gm, _, phase = game
    phase_end(user=gm, campaign=campaign, reason="everyone agreed on the forum")
    [closed] = events(campaign, EventKind.PHASE_CLOSED)
    assert (closed.actor, closed.payload["reason"]) == (gm, "everyone agreed on the forum")


def test_durations_are_exact_across_daylight_saving(clock):
    # Berlin leaves summer time on 2026-10-25: a 72-hour phase opened at 12:00 CEST ends at
    # 11:00 CET local time, exactly 72 hours later.
    clock(datetime(2026, 10, 24, 10, 0, tzinfo=UTC))
    campaign, _, _ = started_campaign_factory(players=1)
    phase = open_phase(campaign)
    assert phase.deadline_at - phase.opened_at == timedelta(hours=72)
    assert format_local(phase.opened_at, "Europe/Berlin") == "Sat 24 Oct 2026, 12:00 CEST (UTC+02:00)"
    assert format_local(phase.deadline_at, "Europe/Berlin") == "Tue 27 Oct 2026, 11:00 CET (UTC+01:00)"
    assert format_local(phase.deadline_at, "UTC") == "Tue 27 Oct 2026, 10:00 UTC (UTC+00:00)"


def test_a_crash_half_way_rolls_back_and_the_next_sweep_completes(game, monkeypatch):
    campaign, _, _, phase = game
    real = Notice.objects.create

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Notice.objects, "create", broken)
    assert sweep(now=phase.deadline_at) == []
    phase.refresh_from_db()
    assert (phase.processing_failures, phase.processing_error) == (1, "RuntimeError: disk full")
    assert phase.deadline_processed_at is None
    assert not phase.player_statuses.filter(late=True).exists()
    assert events(campaign, EventKind.DEADLINE_REACHED) == []
    monkeypatch.setattr(Notice.objects, "create", real)
    assert [a.event for a in sweep(now=phase.deadline_at)] == ["deadline_reached"]
    assert len(events(campaign, EventKind.DEADLINE_REACHED)) == 1


def test_repeated_failures_flag_the_phase_for_the_gm(game, monkeypatch, settings):
    campaign, gm, _, phase = game
    settings.DEADLINE_MAX_FAILURES = 3

    def broken(**kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(Notice.objects, "create", broken)
    for _ in range(5):
        sweep(now=phase.deadline_at)
    phase.refresh_from_db()
    assert phase.processing_failures == 3
    assert phase.processing_flagged_at == phase.deadline_at
    assert due_phase_ids(now=phase.deadline_at) == []
    [flagged] = events(campaign, EventKind.PROCESSING_FLAGGED)
    assert list(Notification.objects.filter(event=flagged).values_list("user", flat=True)) == [
        gm.pk]
    monkeypatch.undo()
    phase_processing_unflag(user=gm, campaign=campaign)
    assert [a.event for a in sweep(now=phase.deadline_at)] == ["deadline_reached"]


def test_notifications_are_emailed_on_commit_by_preference(game, django_capture_on_commit_callbacks):
    campaign, _, members, phase = game
    quiet = members[1].user
    quiet.email_notifications = {"reminder": False}
    quiet.save(update_fields=["email_notifications"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        sweep(now=phase.deadline_at - timedelta(hours=1))
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [members[0].user.email, members[2].user.email])
    assert mail.outbox[0].subject == f"[{campaign.name}] Deadline reminder"
    notes = Notification.objects.filter(kind=NotificationKind.REMINDER)
    assert {(n.user_id, n.emailed_at is not None, n.email_skipped) for n in notes} == {
        (members[0].user_id, True, False), (quiet.pk, False, True),
        (members[2].user_id, True, False),
    }
    # Delivering again (a retried task) sends nothing twice.
    from campaigns.notifications import notifications_send_email

    assert notifications_send_email(notification_ids=[n.pk for n in notes]) == 0
    assert len(mail.outbox) == 2


def test_ending_a_phase_that_a_deadline_already_closed_does_not_close_the_next(game, unchanged):
    campaign, gm, _, phase = game
    campaign.hard_deadline = True
    campaign.save(update_fields=["hard_deadline"])
    sweep(now=phase.deadline_at)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        phase_end(user=gm, campaign=campaign, expected_phase=phase)
    assert (info.value.code, str(info.value)) == (
        "phase_already_closed", "That phase has already been closed.")


def test_unread_count_and_marking_read(game):
    from campaigns.selectors import notifications_for, notifications_unread_count
    from campaigns.services.deadlines import notifications_mark_read

    _, _, members, phase = game
    user = members[1].user
    before = notifications_unread_count(user=user)
    sweep(now=phase.deadline_at - timedelta(hours=1))
    assert notifications_unread_count(user=user) == before + 1
    newest = notifications_for(user=user)[0]
    assert newest.kind == NotificationKind.REMINDER
    assert notifications_mark_read(user=user, notification_ids=[newest.pk]) == 1
    assert notifications_unread_count(user=user) == before
    # Someone else's notification is never marked by this user.
    other = Notification.objects.filter(kind=NotificationKind.REMINDER).exclude(user=user).first()
    assert notifications_mark_read(user=user, notification_ids=[other.pk]) == 0
