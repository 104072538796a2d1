"""One campaign's GM page: only its GM; every control calls its service and records why."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from campaigns.games.erfworld import unit_adjust_hits
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Fortification,
    Phase,
    PhaseKind,
    PhaseStatus,
    Unit,
)
from campaigns.services.deadlines import phase_record_failure
from tests.factories import UserFactory, campaign_factory, started_campaign_factory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def game():
    """A started Broad Way campaign (turn 1's scout phase open): (campaign, gm, members)."""
    return started_campaign_factory(players=2)


def page(campaign):
    return f"/campaigns/{campaign.pk}/gm/"


def act(campaign, action):
    return f"/campaigns/{campaign.pk}/gm/{action}/"


def open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)


def garrison_unit(campaign):
    return Unit.objects.filter(campaign=campaign, side__kind="opposition",
                               stack__hex="J10").order_by("created_seq", "pk").first()


# --- who may see the page ----------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_log_in(client, game):
    campaign, _, _ = game
    response = client.get(page(campaign))
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={page(campaign)}"


def test_an_outsider_gets_404(client, game):
    campaign, _, _ = game
    client.force_login(UserFactory())
    assert client.get(page(campaign)).status_code == 404


def test_a_player_gets_403(client, game):
    campaign, _, members = game
    client.force_login(members[0].user)
    assert client.get(page(campaign)).status_code == 403


def test_the_gm_sees_the_controls_and_the_god_view_map_link(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.get(page(campaign))
    body = response.content.decode()
    assert response.status_code == 200
    assert (response.context["campaign"], response.context["is_gm"]) == (campaign, True)
    assert f'<a href="/campaigns/{campaign.pk}/map/">God-view map</a>' in body
    assert f'<input type="hidden" name="phase" value="{open_phase(campaign).pk}">' in body
    # Every unit on the map, of both sides, can have its hits adjusted.
    on_map = Unit.objects.filter(campaign=campaign, stack__isnull=False).count()
    assert len(response.context["panel"]["units"]) == on_map
    assert body.count('<optgroup label="') == 2


def test_a_setup_campaign_shows_its_invite_link_and_no_phase_controls(client):
    gm = UserFactory()
    campaign = campaign_factory(gm=gm)
    client.force_login(gm)
    body = client.get(page(campaign)).content.decode()
    assert f'value="http://testserver/campaigns/join/{campaign.invite_code}/"' in body
    assert "Extend the deadline" not in body


def test_a_player_posting_an_action_gets_403_and_nothing_changes(client, game):
    campaign, _, members = game
    before = open_phase(campaign).deadline_at
    client.force_login(members[0].user)
    response = client.post(act(campaign, "extend"), {"hours": "5", "reason": "why not"})
    assert response.status_code == 403
    assert open_phase(campaign).deadline_at == before


def test_an_outsider_posting_an_action_gets_404(client, game):
    campaign, _, _ = game
    client.force_login(UserFactory())
    response = client.post(act(campaign, "pause"), {"reason": "mine now"})
    assert response.status_code == 404
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.RUNNING


def test_an_unknown_action_is_404(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    assert client.post(act(campaign, "explode"), {}).status_code == 404


# --- deadline and clock ------------------------------------------------------------------


def test_extend_moves_the_deadline_and_records_the_reason(client, game):
    campaign, gm, _ = game
    before = open_phase(campaign).deadline_at
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "24", "reason": "holidays"},
                           **HTMX)
    assert response.status_code == 200
    assert open_phase(campaign).deadline_at == before + timedelta(hours=24)
    event = Event.objects.get(kind=EventKind.DEADLINE_EXTENDED)
    assert (event.actor, event.payload["hours"], event.payload["reason"]) == (gm, 24, "holidays")
    assert "Deadline extended; 24 hours of extensions so far this phase." in (
        response.content.decode())


def test_a_successful_htmx_action_answers_the_panel_and_tells_the_page(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "1", "reason": "r"}, **HTMX)
    body = response.content.decode()
    assert response["HX-Trigger"] == "campaign-changed"
    assert body.lstrip().startswith('<div id="gm-panel" class="gm-panel" ')
    assert "<html" not in body


def test_without_htmx_a_successful_action_redirects_to_the_page(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "1", "reason": "r"})
    assert (response.status_code, response["Location"]) == (302, page(campaign))


def test_extend_without_a_reason_is_refused_and_changes_nothing(client, game):
    campaign, gm, _ = game
    before = open_phase(campaign).deadline_at
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "24", "reason": " "}, **HTMX)
    assert response.status_code == 422
    assert ('<p id="extend-error" class="gm-error" role="alert">Give a reason: GM decisions are '
            "recorded with why.</p>") in response.content.decode()
    assert open_phase(campaign).deadline_at == before
    assert Event.objects.filter(kind=EventKind.DEADLINE_EXTENDED).count() == 0


def test_extend_beyond_the_cap_is_refused_with_the_rule(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "200", "reason": "long"}, **HTMX)
    assert response.status_code == 422
    assert ("Extensions are capped at 168 hours in total per phase; this phase has had 0, so "
            "at most 168 more.") in response.content.decode()
    assert open_phase(campaign).extended_hours == 0


def test_extend_by_a_non_number_names_the_input(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "extend"), {"hours": "soon", "reason": "r"}, **HTMX)
    assert response.status_code == 422
    assert ("The extension in hours must be a whole number, not &#x27;soon&#x27;."
            in response.content.decode())
    # The refused form keeps what the GM typed.
    assert 'name="reason" type="text" required value="r"' in response.content.decode()


def test_without_htmx_a_refused_action_renders_the_whole_page_with_the_sentence(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "grant-pop"), {"points": "0"})
    body = response.content.decode()
    assert response.status_code == 422
    assert "<html" in body
    assert "Grant at least 1 pop point." in body


def test_pause_stops_the_clock_with_the_reason(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    client.post(act(campaign, "pause"), {"reason": "server move"}, **HTMX)
    campaign.refresh_from_db()
    event = Event.objects.get(kind=EventKind.CAMPAIGN_PAUSED)
    assert campaign.status == CampaignStatus.PAUSED
    assert event.summary == "The GM paused the campaign: server move"


def test_resume_restarts_the_clock(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    client.post(act(campaign, "pause"), {"reason": "a"}, **HTMX)
    response = client.post(act(campaign, "resume"), {"reason": "b"}, **HTMX)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.RUNNING
    assert Event.objects.filter(kind=EventKind.CAMPAIGN_RESUMED).count() == 1
    assert "The campaign is running again." in response.content.decode()


def test_resume_of_a_running_campaign_is_refused(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "resume"), {"reason": "b"}, **HTMX)
    assert response.status_code == 422
    assert "Only a paused campaign can be resumed." in response.content.decode()


# --- phases ------------------------------------------------------------------------------


def test_end_phase_closes_the_phase_and_opens_the_next(client, game):
    campaign, gm, _ = game
    scout = open_phase(campaign)
    client.force_login(gm)
    client.post(act(campaign, "end-phase"), {"phase": str(scout.pk), "reason": "all in"},
                **HTMX)
    scout.refresh_from_db()
    assert (scout.status, open_phase(campaign).kind) == (PhaseStatus.CLOSED, PhaseKind.MOVE_COMBAT)
    event = Event.objects.get(kind=EventKind.PHASE_CLOSED, phase=scout)
    assert (event.actor, event.payload["reason"]) == (gm, "all in")


def test_end_phase_of_a_phase_already_closed_changes_nothing(client, game):
    campaign, gm, _ = game
    scout = open_phase(campaign)
    client.force_login(gm)
    client.post(act(campaign, "end-phase"), {"phase": str(scout.pk)}, **HTMX)
    move = open_phase(campaign)
    response = client.post(act(campaign, "end-phase"), {"phase": str(scout.pk)}, **HTMX)
    assert response.status_code == 422
    assert "That phase has already been closed." in response.content.decode()
    assert open_phase(campaign) == move


def test_revert_restores_the_phase_opening_and_records_the_reason(client, game):
    campaign, gm, _ = game
    unit = garrison_unit(campaign)
    unit_adjust_hits(user=gm, unit=unit, hits=1, reason="test damage")
    client.force_login(gm)
    client.post(act(campaign, "revert"), {"reason": "misclick",
                                          "phase": open_phase(campaign).pk}, **HTMX)
    unit.refresh_from_db()
    assert unit.current_hits == unit.unit_type.hits
    event = Event.objects.get(kind=EventKind.PHASE_REVERTED)
    assert (event.actor, event.payload["reason"]) == (gm, "misclick")


def test_revert_without_a_reason_changes_nothing(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "revert"), {"reason": "",
                                                     "phase": open_phase(campaign).pk}, **HTMX)
    assert response.status_code == 422
    assert "The GM gives a reason for every overrule; it is recorded." in (
        response.content.decode())
    assert Event.objects.filter(kind=EventKind.PHASE_REVERTED).count() == 0


# --- pop points and hits -----------------------------------------------------------------


def test_grant_pop_points_fills_the_chief_warlords_pool(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "grant-pop"), {"points": "6"}, **HTMX)
    campaign.refresh_from_db()
    assert campaign.pop_pool == Decimal("6")
    assert Event.objects.get(kind=EventKind.POP_POINTS_GRANTED).payload["points"] == 6
    assert "Granted 6 pop points to the Chief Warlord." in response.content.decode()


def test_grant_of_no_pop_points_is_refused(client, game):
    campaign, gm, _ = game
    client.force_login(gm)
    response = client.post(act(campaign, "grant-pop"), {"points": "0"}, **HTMX)
    campaign.refresh_from_db()
    assert response.status_code == 422
    assert '<p id="grant-pop-error" class="gm-error" role="alert">Grant at least 1 pop point.' in (
        response.content.decode())
    assert campaign.pop_pool == Decimal("0")


def test_unit_hits_are_set_with_the_reason(client, game):
    campaign, gm, _ = game
    unit = garrison_unit(campaign)
    client.force_login(gm)
    client.post(act(campaign, "unit-hits"),
                {"unit": str(unit.pk), "hits": "2", "reason": "plague"}, **HTMX)
    unit.refresh_from_db()
    event = Event.objects.get(kind=EventKind.HITS_ADJUSTED)
    assert unit.current_hits == 2
    assert (event.payload["after"], event.payload["reason"]) == (2, "plague")


def test_unit_hits_above_the_types_hits_are_refused(client, game):
    campaign, gm, _ = game
    unit = garrison_unit(campaign)
    client.force_login(gm)
    response = client.post(act(campaign, "unit-hits"),
                           {"unit": str(unit.pk), "hits": "99", "reason": "buff"}, **HTMX)
    unit.refresh_from_db()
    assert response.status_code == 422
    assert (f"{unit.name} has {unit.unit_type.hits} hits; its current hits are between 0 and "
            f"{unit.unit_type.hits}.") in response.content.decode()
    assert unit.current_hits == unit.unit_type.hits


def test_a_unit_of_another_campaign_is_refused(client, game):
    campaign, gm, _ = game
    other, _, _ = started_campaign_factory(players=1)
    unit = garrison_unit(other)
    client.force_login(gm)
    response = client.post(act(campaign, "unit-hits"),
                           {"unit": str(unit.pk), "hits": "1", "reason": "x"}, **HTMX)
    unit.refresh_from_db()
    assert "Choose a unit on this campaign&#x27;s map." in response.content.decode()
    assert unit.current_hits == unit.unit_type.hits


def test_fortification_hits_are_set_with_the_reason(client, game):
    campaign, gm, _ = game
    tower = Fortification.objects.get(campaign=campaign, hex="J10", kind="tower")
    client.force_login(gm)
    client.post(act(campaign, "fortification-hits"),
                {"fortification": str(tower.pk), "hits": "10", "reason": "earthquake"}, **HTMX)
    tower.refresh_from_db()
    event = Event.objects.get(kind=EventKind.HITS_ADJUSTED)
    assert tower.hits == 10
    assert (event.payload["before"], event.payload["reason"]) == (40, "earthquake")


def test_fortification_hits_above_the_start_are_refused(client, game):
    campaign, gm, _ = game
    tower = Fortification.objects.get(campaign=campaign, hex="J10", kind="tower")
    client.force_login(gm)
    response = client.post(act(campaign, "fortification-hits"),
                           {"fortification": str(tower.pk), "hits": "41", "reason": "r"}, **HTMX)
    tower.refresh_from_db()
    assert "This fortification&#x27;s hits are between 0 and its starting hits (40)." in (
        response.content.decode())
    assert tower.hits == 40


# --- processing flag ---------------------------------------------------------------------


def test_clear_processing_flag_lets_the_sweep_try_again(client, game, settings):
    settings.DEADLINE_MAX_FAILURES = 1
    campaign, gm, _ = game
    phase_record_failure(phase_id=open_phase(campaign).pk, error=RuntimeError("boom"),
                         now=timezone.now())
    client.force_login(gm)
    before = client.get(page(campaign)).content.decode()
    assert "Stopped after 1 failures: RuntimeError: boom" in before
    response = client.post(act(campaign, "unflag"), {}, **HTMX)
    phase = open_phase(campaign)
    assert (phase.processing_flagged_at, phase.processing_failures) == (None, 0)
    assert "The deadline sweep will process this phase again." in response.content.decode()


def test_a_revert_from_a_page_showing_a_closed_phase_changes_nothing(client, game):
    campaign, gm, _ = game
    seen = open_phase(campaign)
    client.force_login(gm)
    client.post(act(campaign, "end-phase"), {"phase": seen.pk}, **HTMX)
    now_open = open_phase(campaign)
    response = client.post(act(campaign, "revert"), {"reason": "misclick", "phase": seen.pk},
                           **HTMX)
    assert (response.status_code, open_phase(campaign), Event.objects.filter(
        kind=EventKind.PHASE_REVERTED).count()) == (422, now_open, 0)
    assert ("That phase has already been closed; the revert would put back another phase."
            in response.content.decode())
