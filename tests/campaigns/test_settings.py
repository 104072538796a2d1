"""Campaign settings: the GM changes every setting before the start; after it the pace changes
with a reason, is posted to the public thread and applies from the next phase, and what shapes
the armies and the map is fixed. Bad values are refused naming the field, changing nothing.
Page (/campaigns/<id>/gm/settings/), API (PATCH /api/v1/campaigns/<id>/) and overview."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.html import escape
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld import campaign_join, phase_end
from campaigns.models import Campaign, Event, EventKind, Phase, PhaseStatus, Post
from campaigns.services.settings import campaign_settings_update
from tests.factories import UserFactory, campaign_factory, started_campaign_factory

pytestmark = pytest.mark.django_db


def gm_of(campaign):
    return campaign.memberships.get(role="gm").user


def test_before_the_start_every_setting_changes_at_once():
    campaign = campaign_factory()
    changes = {"name": "Autumn", "description": "Slow and steady.", "player_cap": 4,
               "scout_hours": 24, "phase_hours": 48, "opposition_hours": 96,
               "hard_deadline": True, "early_close": True, "max_extension_hours": 24,
               "points_budget": 400, "max_unit_types": 3, "ambush_value": 3,
               "terrain_known_to_all": False}
    campaign_settings_update(user=gm_of(campaign), campaign=campaign, changes=changes)
    campaign.refresh_from_db()
    event = Event.objects.get(campaign=campaign, kind=EventKind.SETTINGS_CHANGED)
    assert ({n: getattr(campaign, n) for n in changes}, campaign.pending_settings,
            event.side_id) == (changes, {}, None)
    assert event.summary == (
        "The GM changed the settings. Name: 'The Broad Way' → 'Autumn'; Description changed; "
        "Player cap: no cap → 4; Scout phase length: as the move/combat phase → 24 hours; "
        "Move/combat phase length: 72 hours → 48 hours; Opposition phase length: as the "
        "move/combat phase → 96 hours; Hard deadline: off → on; Early close when every player "
        "is done: off → on; Extension cap per phase: 168 hours → 24 hours; Points budget: "
        "500 → 400; Unit types per player: 5 → 3; Ambush value: 2 → 3; Terrain known to all: "
        "on → off.")


def test_each_phase_kind_lasts_its_own_length():
    campaign, gm, _ = started_campaign_factory(players=1)
    # Set after turn 1's scout phase opened (72 hours): the next phases take them up.
    Campaign.objects.filter(pk=campaign.pk).update(scout_hours=24, opposition_hours=96)
    lengths = []
    for _ in range(4):  # scout → move/combat → opposition → scout of turn 2
        phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
        lengths.append((phase.kind, (phase.deadline_at - phase.opened_at) / timedelta(hours=1)))
        phase_end(user=gm, campaign=campaign)
    assert lengths == [("scout", 72), ("move_combat", 72), ("opposition", 96), ("scout", 24)]


def test_after_the_start_the_pace_changes_from_the_next_phase_with_a_reason():
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    deadline = scout.deadline_at
    campaign_settings_update(user=gm, campaign=campaign, changes={"phase_hours": 24},
                             reason="Holidays are over.")
    campaign.refresh_from_db()
    scout.refresh_from_db()
    waiting = (campaign.phase_hours, campaign.pending_settings, scout.deadline_at == deadline)
    post = Post.objects.get(event__kind=EventKind.SETTINGS_CHANGED)
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    move = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    assert (waiting, post.thread.audience, post.body.split("\n")[0],  campaign.phase_hours, campaign.pending_settings,
        move.deadline_at - move.opened_at) == (
        (72, {"phase_hours": 24}, True), "public",
        "The GM changed the settings. Move/combat phase length: 72 hours → 24 hours (from the "
        "next phase). Reason: Holidays are over.", 24, {}, timedelta(hours=24))


def test_after_the_start_a_change_of_pace_needs_a_reason():
    campaign, gm, _ = started_campaign_factory(players=1)
    with pytest.raises(RuleViolationError) as caught:
        campaign_settings_update(user=gm, campaign=campaign, changes={"hard_deadline": True})
    campaign.refresh_from_db()
    assert (caught.value.field, caught.value.code, campaign.pending_settings,
            campaign.hard_deadline) == ("reason", "reason_required", {}, False)


@pytest.mark.parametrize("name", ["points_budget", "max_unit_types", "ambush_value"])
def test_after_the_start_what_shapes_the_armies_is_fixed(name):
    campaign, gm, _ = started_campaign_factory(players=1)
    with pytest.raises(WrongStateError) as caught:
        campaign_settings_update(user=gm, campaign=campaign, changes={name: 1},
                                 reason="why not")
    assert (caught.value.field, caught.value.code,
            caught.value.message.endswith("fixed when the campaign started (it shapes the "
                                          "armies and the map).")) == (name, "setup_only", True)


@pytest.mark.parametrize(("changes", "field", "message"), [
    ({"phase_hours": 0}, "phase_hours",
     "Move/combat phase length: a whole number from 1 to 720 hours, not 0."),
    ({"scout_hours": 721}, "scout_hours",
     "Scout phase length: a whole number from 1 to 720 hours (or empty), not 721."),
    ({"player_cap": 51}, "player_cap", "Player cap: a whole number from 1 to 50 (or empty), "
     "not 51."),
    ({"name": "   "}, "name", "Name: a campaign needs a name."),
    ({"name": "x" * 121}, "name", "Name: at most 120 characters, not 121."),
    ({"hard_deadline": "yes"}, "hard_deadline", "Hard deadline: true or false."),
    ({"colour": "red"}, "colour", "colour: not a campaign setting (settings: name, "
     "description, player_cap, scout_hours, phase_hours, opposition_hours, deadline_mode, "
     "deadline_clock, deadline_zone, deadline_days_off, hard_deadline, early_close, "
     "max_extension_hours, max_pause_hours, absence_days, absence_extends, "
     "missed_phases_limit, diplomacy, gm_reads_conversations, alliance_draw, "
     "alliance_draw_hours, points_budget, "
     "max_unit_types, ambush_value, terrain_known_to_all)."),
    ({"phase_hours": 48, "ambush_value": 99}, "ambush_value",
     "Ambush value: a whole number from 0 to 6, not 99."),
])
def test_bad_values_are_refused_naming_the_field_and_change_nothing(changes, field, message):
    campaign = campaign_factory()
    with pytest.raises(RuleViolationError) as caught:
        campaign_settings_update(user=gm_of(campaign), campaign=campaign, changes=changes)
    campaign.refresh_from_db()
    assert (caught.value.field, caught.value.message, campaign.phase_hours,
            Event.objects.filter(kind=EventKind.SETTINGS_CHANGED).count()) == (
        field, message, 72, 0)


def test_only_the_gm_changes_settings():
    campaign = campaign_factory()
    player = UserFactory()
    campaign_join(user=player, invite_code=campaign.invite_code)
    with pytest.raises(NotAllowedError):
        campaign_settings_update(user=player, campaign=campaign, changes={"phase_hours": 1})


def test_the_player_cap_refuses_joins_past_it_and_cannot_go_below_the_players():
    campaign = campaign_factory()
    gm = gm_of(campaign)
    for _ in range(2):
        campaign_join(user=UserFactory(), invite_code=campaign.invite_code)
    with pytest.raises(RuleViolationError, match="2 players have joined already"):
        campaign_settings_update(user=gm, campaign=campaign, changes={"player_cap": 1})
    campaign_settings_update(user=gm, campaign=campaign, changes={"player_cap": 2})
    with pytest.raises(WrongStateError) as caught:
        campaign_join(user=UserFactory(), invite_code=campaign.invite_code)
    assert (caught.value.code, caught.value.message) == (
        "campaign_full", "The campaign is full: at most 2 players (the GM's player cap).")


def test_the_settings_page_saves_and_shows_a_refusal_next_to_its_field(client):
    campaign = campaign_factory()
    client.force_login(gm_of(campaign))
    url = f"/campaigns/{campaign.pk}/gm/settings/"
    page = client.get(url).content.decode()
    form = {"name": "The Broad Way", "description": "", "player_cap": "", "scout_hours": "",
            "phase_hours": "48", "opposition_hours": "", "max_extension_hours": "168",
            "points_budget": "500", "max_unit_types": "5", "ambush_value": "2",
            "terrain_known_to_all": "1"}
    saved = client.post(url, form, follow=True)
    refused = client.post(url, {**form, "phase_hours": "many"})
    campaign.refresh_from_db()
    assert ('data-key="save-settings"' in page, saved.redirect_chain[-1][0],
            "Settings saved." in saved.content.decode(), campaign.phase_hours,
            campaign.terrain_known_to_all, campaign.hard_deadline, refused.status_code,
            '<p id="set-phase_hours-error" class="form-error" role="alert">'
            + escape("Move/combat phase length must be a whole number, not 'many'.")
            in refused.content.decode()) == (
        True, url, True, 48, True, False, 400, True)


def test_the_settings_page_after_the_start_locks_the_fixed_ones(client):
    campaign, gm, _ = started_campaign_factory(players=1)
    client.force_login(gm)
    url = f"/campaigns/{campaign.pk}/gm/settings/"
    page = client.get(url).content.decode()
    form = {"name": campaign.name, "description": "", "player_cap": "", "scout_hours": "",
            "phase_hours": "72", "opposition_hours": "48", "max_extension_hours": "168",
            "terrain_known_to_all": "1", "reason": "The GM is busy on weekdays."}
    client.post(url, form)
    campaign.refresh_from_db()
    assert ('id="set-points_budget" name="points_budget" type="number" inputmode="numeric" '
            'min="1" max="100000" value="500" disabled' in page, campaign.pending_settings,
            campaign.points_budget) == (True, {"opposition_hours": 48}, 500)


def test_a_player_cannot_open_the_settings_page(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    client.force_login(p1.user)
    assert client.get(f"/campaigns/{campaign.pk}/gm/settings/").status_code == 403


def test_players_read_every_setting_on_the_overview(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    campaign_settings_update(user=gm, campaign=campaign, changes={"opposition_hours": 48},
                             reason="Faster opposition.")
    client.force_login(p1.user)
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert ('<dd data-setting="opposition_hours">as the move/combat phase → <strong>48 hours'
            '</strong> from the next phase</dd>' in page,
            '<dd data-setting="points_budget">500</dd>' in page,
            '<dd data-setting="hard_deadline">off</dd>' in page,
            "Change the settings" in page) == (True, True, True, False)


def test_the_api_patches_and_answers_the_campaign():
    campaign = campaign_factory()
    api = APIClient()
    api.force_authenticate(gm_of(campaign))
    ok = api.patch(f"/api/v1/campaigns/{campaign.pk}/", {"scout_hours": 12, "player_cap": None},
                   format="json")
    bad = api.patch(f"/api/v1/campaigns/{campaign.pk}/", {"scout_hours": 0}, format="json")
    assert (ok.status_code, ok.json()["scout_hours"], ok.json()["player_cap"],
            bad.status_code, bad.json()) == (
        200, 12, None, 400,
        {"code": "invalid_field", "field": "scout_hours",
         "detail": "Scout phase length: a whole number from 1 to 720 hours (or empty), not 0."})


# --- Clock-time deadlines -------------------------------------------------------------------


def test_in_clock_mode_the_next_phase_ends_at_the_clock_time():
    from datetime import time

    from campaigns.deadline_clock import clock_deadline

    campaign, gm, _ = started_campaign_factory(players=1)
    campaign_settings_update(user=gm, campaign=campaign, reason="Evenings suit us.", changes={
        "deadline_mode": "clock", "deadline_clock": "21:00", "deadline_zone": "Europe/Paris",
        "deadline_days_off": [6, 5, 5], "phase_hours": 24})
    campaign.refresh_from_db()
    pending = dict(campaign.pending_settings)
    phase_end(user=gm, campaign=campaign)
    move = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    assert (pending["deadline_days_off"], move.deadline_at) == (
        [5, 6], clock_deadline(opened_at=move.opened_at, min_hours=24, clock=time(21, 0),
                               zone_name="Europe/Paris", days_off=frozenset({5, 6})))


@pytest.mark.parametrize(("changes", "field", "message"), [
    ({"deadline_mode": "lunar"}, "deadline_mode", "Deadline mode: rolling or clock, not 'lunar'."),
    ({"deadline_clock": "9pm"}, "deadline_clock",
     "Deadline time of day: a time of day as HH:MM (e.g. 21:00), not '9pm'."),
    ({"deadline_zone": "Mars/Olympus"}, "deadline_zone",
     "Deadline time zone: 'Mars/Olympus' is not a known time zone (e.g. Europe/Paris)."),
    ({"deadline_days_off": [7]}, "deadline_days_off",
     "Days the clock does not run: a list of weekdays, 0 (Monday) to 6 (Sunday)."),
    ({"deadline_days_off": list(range(7))}, "deadline_days_off",
     "Days the clock does not run: the clock must run on at least one day of the week."),
])
def test_clock_settings_are_checked(changes, field, message):
    campaign = campaign_factory()
    with pytest.raises(RuleViolationError) as caught:
        campaign_settings_update(user=gm_of(campaign), campaign=campaign, changes=changes)
    assert (caught.value.field, caught.value.message) == (field, message)


def test_the_fairness_hint_flags_a_deadline_at_night(client):
    campaign = campaign_factory()
    gm = gm_of(campaign)
    player = UserFactory(time_zone="Asia/Tokyo")
    campaign_join(user=player, invite_code=campaign.invite_code)
    # 21:00 in Paris is 05:00 (winter) or 04:00 (summer) the next day in Tokyo.
    campaign_settings_update(user=gm, campaign=campaign, changes={
        "deadline_mode": "clock", "deadline_clock": "21:00", "deadline_zone": "Europe/Paris"})
    client.force_login(gm)
    page = client.get(f"/campaigns/{campaign.pk}/gm/settings/").content.decode()
    rows = re.findall(r'<tr( class="is-night")?><th scope="row">([^<]+)</th><td>([^<]+)</td>',
                      page)
    assert ([(name, zone, bool(night)) for night, name, zone in rows],
            '<option value="clock" selected>' in page, 'type="time" value="21:00"' in page) == (
        [(gm.public_name, gm.time_zone, False), (player.public_name, "Asia/Tokyo", True)],
        True, True)


def test_the_page_saves_days_off_as_checkboxes(client):
    campaign = campaign_factory()
    client.force_login(gm_of(campaign))
    url = f"/campaigns/{campaign.pk}/gm/settings/"
    form = {"name": "The Broad Way", "description": "", "player_cap": "", "scout_hours": "",
            "phase_hours": "72", "opposition_hours": "", "max_extension_hours": "168",
            "points_budget": "500", "max_unit_types": "5", "ambush_value": "2",
            "terrain_known_to_all": "1", "deadline_mode": "clock", "deadline_clock": "20:30",
            "deadline_zone": "America/New_York", "deadline_days_off": ["5", "6"]}
    client.post(url, form)
    campaign.refresh_from_db()
    assert (campaign.deadline_mode, campaign.deadline_clock, campaign.deadline_zone,
            campaign.deadline_days_off) == ("clock", "20:30", "America/New_York", [5, 6])


# --- Pause cap ------------------------------------------------------------------------------


def test_pauses_count_and_a_used_up_cap_refuses_the_next():
    from campaigns.services.deadlines import campaign_pause, campaign_resume

    campaign, gm, _ = started_campaign_factory(players=1)
    campaign_settings_update(user=gm, campaign=campaign, changes={"max_pause_hours": 2})
    campaign_pause(user=gm, campaign=campaign, reason="Lunch.")
    Campaign.objects.filter(pk=campaign.pk).update(
        paused_at=timezone.now() - timedelta(hours=2, minutes=1))
    campaign_resume(user=gm, campaign=campaign, reason="Back.")
    campaign.refresh_from_db()
    with pytest.raises(RuleViolationError) as caught:
        campaign_pause(user=gm, campaign=campaign, reason="Again.")
    assert (campaign.paused_seconds >= 7260, caught.value.code, caught.value.message) == (
        True, "pause_cap_reached", "The campaign's pause cap (2 hours in all) is used up: "
        "extend the deadline instead, or raise the cap in the settings.")


def test_a_pause_that_reaches_the_cap_ends_itself():
    from campaigns.services.deadlines import campaign_pause, sweep

    campaign, gm, _ = started_campaign_factory(players=1)
    campaign_settings_update(user=gm, campaign=campaign, changes={"max_pause_hours": 3})
    campaign_pause(user=gm, campaign=campaign, reason="Storm.")
    early = sweep(now=timezone.now() + timedelta(hours=2))
    still = Campaign.objects.get(pk=campaign.pk).status
    late = sweep(now=timezone.now() + timedelta(hours=3, minutes=1))
    campaign.refresh_from_db()
    resumed = Event.objects.filter(campaign=campaign, kind=EventKind.CAMPAIGN_RESUMED).get()
    assert ([a.event for a in early if a.event == "pause_cap_resumed"], still,
            [a.event for a in late], campaign.status,
            resumed.summary.endswith("the pause cap of 3 hours is reached")) == (
        [], "paused", ["pause_cap_resumed"], "running", True)
