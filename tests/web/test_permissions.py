"""Who may use which page: every campaign page and action of the browser is a 404 for
someone outside the campaign (the same answer as for no campaign at all, so nothing about
it leaks), sends an anonymous visitor to log in, and changes nothing when refused."""

import pytest
from django.urls import reverse

from campaigns.models import Event, Phase, UnitType
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db

# (URL name, extra URL arguments after the campaign id, method). The forum's routes are the
# forum's own tests' business.
ROUTES = [
    ("lobby", [], "get"), ("phase-bar", [], "get"), ("phase-done", [], "post"),
    ("phase-end", [], "post"), ("unit-type-preview", [], "post"),
    ("unit-type-create", [], "post"), ("unit-type-edit", ["type"], "get"),
    ("unit-type-delete", ["type"], "post"), ("units-buy", ["type"], "post"),
    ("army-ready", [], "post"), ("vote", [], "post"), ("appoint", [], "post"),
    ("start", [], "post"), ("map", [], "get"), ("map-tools", [], "get"),
    ("reports", [], "get"),
    ("report", ["event"], "get"), ("history", [], "get"), ("history-phase", ["phase"], "get"),
    ("gm-campaign", [], "get"), ("gm-action", ["end-phase"], "post"),
]


@pytest.fixture
def game():
    campaign, gm, members = started_campaign_factory(players=1)
    return campaign, gm, members[0]


def _url(name, extra, campaign, player):
    values = {
        "type": UnitType.objects.filter(owner=player).order_by("pk").first().pk,
        "event": Event.objects.filter(campaign=campaign).first().pk,
        "phase": Phase.objects.filter(campaign=campaign).order_by("pk").first().pk,
        "end-phase": "end-phase",
    }
    return reverse(f"campaigns:{name}", args=[campaign.pk, *(values[e] for e in extra)])


def _post_data(campaign):
    phase = Phase.objects.get(campaign=campaign, status="open")
    return {"phase": phase.pk, "count": "1", "candidate": "1", "membership": "1",
            "ready": "yes", "name": "X", "hits": "1", "attack": "1", "defence": "1",
            "move": "1"}


@pytest.mark.parametrize(("name", "extra", "method"), ROUTES)
def test_an_outsider_gets_404_and_nothing_changes(client, game, name, extra, method):
    campaign, _, player = game
    client.force_login(UserFactory())
    events = Event.objects.count()
    url = _url(name, extra, campaign, player)
    response = (client.post(url, _post_data(campaign)) if method == "post"
                else client.get(url))
    assert (response.status_code, Event.objects.count()) == (404, events)


@pytest.mark.parametrize(("name", "extra", "method"), ROUTES)
def test_an_anonymous_visitor_is_sent_to_log_in_and_nothing_changes(client, game, name, extra,
                                                                    method):
    campaign, _, player = game
    events = Event.objects.count()
    url = _url(name, extra, campaign, player)
    response = (client.post(url, _post_data(campaign)) if method == "post"
                else client.get(url))
    assert (response.status_code, response["Location"], Event.objects.count()) == (
        302, f"{reverse('account_login')}?next={url}", events)


@pytest.mark.parametrize(("name", "extra"), [
    ("unit-type-edit", ["type"]), ("unit-type-delete", ["type"]), ("units-buy", ["type"]),
])
def test_another_players_unit_type_is_not_found(client, name, extra):
    campaign, _, (player, other) = started_campaign_factory(players=2)
    client.force_login(other.user)
    url = _url(name, extra, campaign, player)
    units = player.units.count()
    response = client.post(url, {"count": "1"}) if name != "unit-type-edit" else client.get(url)
    assert (response.status_code, player.units.count()) == (404, units)


@pytest.mark.parametrize(("name", "extra", "method"), [
    ("gm-campaign", [], "get"), ("gm-action", ["end-phase"], "post"),
])
def test_a_player_gets_403_from_the_gm_pages(client, game, name, extra, method):
    campaign, _, player = game
    client.force_login(player.user)
    phase = Phase.objects.get(campaign=campaign, status="open")
    url = _url(name, extra, campaign, player)
    response = client.post(url, _post_data(campaign)) if method == "post" else client.get(url)
    phase.refresh_from_db()
    assert (response.status_code, phase.status) == (403, "open")
