"""Reports: combat and scout reports with every factor and die, who may see which, and the
dice commitment and seed of each phase (the seed only once the phase has closed)."""

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.move_combat import stack_attack
from campaigns.models import Event, Membership, Phase, PhaseStatus, Role, Side, Unit
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put
from tests.factories import UserFactory, started_campaign_factory
from tests.web.fog import hidden_units, leaks, scouted_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

def _reports(campaign):
    return reverse("campaigns:reports", args=[campaign.pk])


def _report(campaign, event):
    return reverse("campaigns:report", args=[campaign.pk, event.pk])


def _combat():
    campaign, gm, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "D3")
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "D4"))
    return campaign, gm, p1, event


def _opposition_player(campaign):
    return Membership.objects.create(
        campaign=campaign, user=UserFactory(), role=Role.PLAYER,
        side=Side.objects.get(campaign=campaign, kind="opposition"),
    )


def test_reports_anonymous_is_sent_to_login(client):
    campaign, _, _ = started_campaign_factory(players=1)
    response = client.get(_reports(campaign))
    assert response["Location"] == f"{reverse('account_login')}?next={_reports(campaign)}"


def test_reports_outsider_gets_404(client):
    campaign, _, _ = started_campaign_factory(players=1)
    client.force_login(UserFactory())
    assert client.get(_reports(campaign)).status_code == 404


def test_report_outsider_gets_404(client):
    campaign, _, _, event = _combat()
    client.force_login(UserFactory())
    assert client.get(_report(campaign, event)).status_code == 404


def test_reports_list_links_the_combat_report(client):
    campaign, _, p1, event = _combat()
    client.force_login(p1.user)
    page = client.get(_reports(campaign)).content.decode()
    assert f'<a href="{_report(campaign, event)}">Turn 1 · Combat report</a>' in page
    assert f"<p>{escape(event.summary)}</p>" in page


def test_combat_report_shows_every_factor(client):
    campaign, _, p1, event = _combat()
    client.force_login(p1.user)
    page = client.get(_report(campaign, event)).content.decode()
    factors = event.payload["result"]["attacker"]["factors"]
    for name, value in factors.items():
        assert (f'<tr><th scope="row">{name}</th><td>{value["exact"]}</td>'
                f'<td>{value["decimal"]}</td></tr>') in page
    assert '<tr><th scope="row">TB</th>' in page


def test_combat_report_explains_every_factor_abbreviation(client):
    campaign, _, p1, event = _combat()
    client.force_login(p1.user)
    page = client.get(_report(campaign, event)).content.decode()
    legend = re.findall(r"<dt>([A-Za-z]+)</dt><dd>", page)
    named = set(event.payload["result"]["attacker"]["factors"])
    assert ("data-factor-legend" in page, set(legend) >= named,
            "<dt>RN</dt><dd>random number: (2d6 + 8) / 20, from 0.5 to 1</dd>" in page) == (
        True, True, True)


def test_combat_report_shows_every_die(client):
    campaign, _, p1, event = _combat()
    client.force_login(p1.user)
    page = client.get(_report(campaign, event)).content.decode()
    for d in event.payload["dice"]:
        assert (f'<tr><td>#{d["number"]}</td><td>{d["purpose"]}</td><td>d{d["sides"]}</td>'
                f'<td>{d["value"]}</td></tr>') in page


def test_combat_report_shows_the_explanation_and_result(client):
    campaign, _, p1, event = _combat()
    client.force_login(p1.user)
    page = client.get(_report(campaign, event)).content.decode()
    result = event.payload["result"]
    assert (f"Hits on the defender: <strong>{result['hits_on_defender']}</strong>; hits on the "
            f"attacker: <strong>{result['hits_on_attacker']}</strong>; winner: "
            f"<strong>{result['winner']}</strong>.") in page
    first = event.payload["explanation"][0]
    assert f"<li><code>{first}</code></li>" in page


def test_scout_report_shows_what_was_seen(client):
    campaign, _, (p1,) = scouted_campaign()
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    client.force_login(p1.user)
    page = client.get(_report(campaign, event)).content.decode()
    assert '<th scope="row">D4</th>' in page
    assert "Zorblax 0 (Spearman, 4 hits)" in page


def test_scout_report_is_titled_and_a_road_is_named_once(client):
    campaign, _, (p1,) = scouted_campaign()
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    client.force_login(p1.user)
    listing = client.get(_reports(campaign)).content.decode()
    page = client.get(_report(campaign, event)).content.decode()
    road_rows = re.findall(r'<th scope="row">(\w+)</th>\s*<td>(road[^<]*)</td>', page)
    assert (f'<a href="{_report(campaign, event)}">Turn 1 · Scout report</a>' in listing,
            '<h2 id="report-title">Turn 1: Scout report</h2>' in page,
            sorted({terrain for _, terrain in road_rows})) == (True, True, ["road"])


def test_other_side_does_not_get_the_scout_report(client):
    campaign, _, _ = scouted_campaign()
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    other = _opposition_player(campaign)
    client.force_login(other.user)
    assert client.get(_report(campaign, event)).status_code == 404
    assert _report(campaign, event) not in client.get(_reports(campaign)).content.decode()


def test_gm_gets_the_scout_report(client):
    campaign, gm, _ = scouted_campaign()
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    client.force_login(gm)
    assert client.get(_report(campaign, event)).status_code == 200


def test_a_non_report_event_is_not_found(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    event = Event.objects.get(campaign=campaign, kind="campaign_started")
    client.force_login(p1.user)
    assert client.get(_report(campaign, event)).status_code == 404


def test_reports_pages_never_name_a_hidden_opposition_unit(client):
    campaign, _, (p1,) = scouted_campaign()
    hidden = hidden_units(campaign)
    assert len(hidden) == Unit.objects.filter(campaign=campaign,
                                              side__kind="opposition").count() - 5
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    client.force_login(p1.user)
    texts = {url: client.get(url).content.decode()
             for url in (_reports(campaign), _report(campaign, event))}
    assert {url: leaks(text, hidden) for url, text in texts.items()} == {url: [] for url in texts}


def test_dice_table_shows_the_commitment_of_the_open_phase_and_hides_its_seed(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    client.force_login(p1.user)
    page = client.get(_reports(campaign)).content.decode()
    assert f'<code class="hash">{phase.dice_commitment}</code>' in page
    assert phase.dice_seed not in page
    assert "secret until the phase closes" in page


def test_dice_table_reveals_the_seed_of_a_closed_phase(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    closed = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    phase_end(user=gm, campaign=campaign)
    now_open = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    client.force_login(p1.user)
    page = client.get(_reports(campaign)).content.decode()
    assert f'<code class="hash">{closed.dice_seed}</code>' in page
    assert now_open.dice_seed not in page
