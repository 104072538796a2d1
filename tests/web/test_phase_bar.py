"""The phase bar: shown on every campaign page, refreshed by HTMX, "I'm done", "End phase",
acting for a late player; every action through the phase services."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.games.erfworld import phase_end
from campaigns.models import Phase, PhaseKind, PhaseStatus, PlayerPhaseStatus
from campaigns.web import campaign_page_context
from tests.factories import UserFactory, campaign_factory, started_campaign_factory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)


def _make_late(phase):
    Phase.objects.filter(pk=phase.pk).update(
        opened_at=phase.opened_at - timedelta(hours=200),
        deadline_at=timezone.now() - timedelta(hours=1),
    )


def test_phase_bar_anonymous_is_sent_to_login(client):
    campaign, _, _ = started_campaign_factory(players=1)
    url = reverse("campaigns:phase-bar", args=[campaign.pk])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('account_login')}?next={url}"


def test_phase_bar_outsider_gets_404(client):
    campaign, _, _ = started_campaign_factory(players=1)
    client.force_login(UserFactory())
    assert client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).status_code == 404


def test_campaign_page_context_raises_404_for_an_outsider(rf):
    from django.http import Http404

    campaign = campaign_factory()
    request = rf.get("/")
    request.user = UserFactory()
    with pytest.raises(Http404):
        campaign_page_context(request, campaign)


def test_campaign_page_context_gives_campaign_is_gm_and_phase_bar(rf):
    campaign, gm, _ = started_campaign_factory(players=1)
    request = rf.get("/")
    request.user = gm
    context = campaign_page_context(request, campaign)
    assert context["campaign"] == campaign
    assert context["is_gm"] is True
    assert context["phase_bar"]["open"] is True
    assert context["phase_bar"]["board"]["phase"] == PhaseKind.SCOUT


def test_phase_bar_shows_turn_phase_and_players(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[1].user)
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    assert "Turn 1: Alliance scout phase" in page
    assert f"{members[0].user.public_name} (Chief Warlord):" in page
    assert page.count("not done yet") == 2


def test_phase_bar_countdown_carries_the_iso_deadline_and_the_viewers_zone(client):
    campaign, _, members = started_campaign_factory(players=1)
    user = members[0].user
    user.time_zone = "Asia/Tokyo"
    user.save()
    client.force_login(user)
    deadline = _open_phase(campaign).deadline_at
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    from accounts.timefmt import format_local

    assert f'data-countdown="{deadline.isoformat()}"' in page
    assert f'<time datetime="{deadline.isoformat()}">{format_local(deadline, "Asia/Tokyo")}</time>' in page
    assert "JST (UTC+09:00)" in page


def test_phase_bar_is_on_the_lobby_page_with_its_htmx_refresh(client):
    campaign, _, members = started_campaign_factory(players=1)
    client.force_login(members[0].user)
    page = client.get(reverse("campaigns:lobby", args=[campaign.pk])).content.decode()
    assert (f'hx-get="{reverse("campaigns:phase-bar", args=[campaign.pk])}"\n'
            '         hx-trigger="every 60s, campaign-changed from:body"') in page


def test_im_done_marks_the_players_orders_done(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[1].user)
    response = client.post(reverse("campaigns:phase-done", args=[campaign.pk]), **HTMX)
    assert response.status_code == 200
    assert json.loads(response["HX-Trigger"]) == {
        "phase-changed": {"phase": _open_phase(campaign).pk}}
    assert "Your orders are marked done." in response.content.decode()
    status = PlayerPhaseStatus.objects.get(membership=members[1])
    assert status.done_at is not None


def test_im_done_twice_shows_the_rule_and_changes_nothing(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[1].user)
    url = reverse("campaigns:phase-done", args=[campaign.pk])
    client.post(url, **HTMX)
    done_at = PlayerPhaseStatus.objects.get(membership=members[1]).done_at
    page = client.post(url, **HTMX).content.decode()
    assert f"{members[1].user.public_name}&#x27;s orders are already marked done." in page
    assert PlayerPhaseStatus.objects.get(membership=members[1]).done_at == done_at


def test_im_done_without_htmx_redirects_back(client):
    campaign, _, members = started_campaign_factory(players=1)
    client.force_login(members[0].user)
    lobby = reverse("campaigns:lobby", args=[campaign.pk])
    response = client.post(reverse("campaigns:phase-done", args=[campaign.pk]), {"next": lobby})
    assert response.status_code == 302
    assert response["Location"] == lobby


def test_done_button_is_hidden_once_done(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[1].user)
    page = client.post(reverse("campaigns:phase-done", args=[campaign.pk]), **HTMX).content.decode()
    assert "I&#x27;m done</button>" not in page
    assert "I'm done</button>" not in page


def test_gm_has_no_done_button_but_may_end_the_phase(client):
    campaign, gm, _ = started_campaign_factory(players=1)
    client.force_login(gm)
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    assert "I'm done</button>" not in page
    assert "End phase</button>" in page


def test_chief_warlord_end_phase_waits_for_players_in_time(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[0].user)
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    assert "End phase</button>" not in page
    names = ", ".join(m.user.public_name for m in members)
    assert f"waiting for {names}." in page


def test_chief_warlord_ends_the_phase_once_everyone_is_done(client):
    campaign, _, members = started_campaign_factory(players=2)
    phase = _open_phase(campaign)
    for m in members:
        client.force_login(m.user)
        client.post(reverse("campaigns:phase-done", args=[campaign.pk]), **HTMX)
    client.force_login(members[0].user)
    response = client.post(reverse("campaigns:phase-end", args=[campaign.pk]),
                           {"phase": phase.pk}, **HTMX)
    assert "The phase is closed; turn 1: the alliance move/combat phase is open." in (
        response.content.decode())
    phase.refresh_from_db()
    assert phase.status == PhaseStatus.CLOSED
    assert _open_phase(campaign).kind == PhaseKind.MOVE_COMBAT


def test_end_phase_with_a_stale_phase_closes_nothing(client):
    campaign, gm, _ = started_campaign_factory(players=1)
    first = _open_phase(campaign)
    client.force_login(gm)
    url = reverse("campaigns:phase-end", args=[campaign.pk])
    client.post(url, {"phase": first.pk}, **HTMX)
    second = _open_phase(campaign)
    page = client.post(url, {"phase": first.pk}, **HTMX).content.decode()
    assert "That phase has already been closed." in page
    assert _open_phase(campaign).pk == second.pk


def test_player_who_is_not_chief_warlord_cannot_end_the_phase(client):
    campaign, _, members = started_campaign_factory(players=2)
    phase = _open_phase(campaign)
    client.force_login(members[1].user)
    page = client.post(reverse("campaigns:phase-end", args=[campaign.pk]),
                       {"phase": phase.pk}, **HTMX).content.decode()
    assert "Only the Chief Warlord (or the GM) ends the alliance&#x27;s phases (§5)." in page
    assert _open_phase(campaign).pk == phase.pk


def test_chief_warlord_sees_late_players_to_act_for(client):
    campaign, _, members = started_campaign_factory(players=2)
    _make_late(_open_phase(campaign))
    client.force_login(members[0].user)
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    late = members[1].user.public_name
    assert f"Mark {late} done</button>" in page
    assert f'name="on_behalf_of" value="{members[1].pk}"' in page


def test_chief_warlord_marks_a_late_player_done_by_proxy(client):
    campaign, _, members = started_campaign_factory(players=2)
    _make_late(_open_phase(campaign))
    client.force_login(members[0].user)
    page = client.post(reverse("campaigns:phase-done", args=[campaign.pk]),
                       {"on_behalf_of": members[1].pk}, **HTMX).content.decode()
    assert f"{members[1].user.public_name}&#x27;s orders are marked done." in page
    status = PlayerPhaseStatus.objects.get(membership=members[1])
    assert status.proxied_by_id == members[0].pk
    assert status.done_at is not None


def test_proxy_for_a_player_in_time_is_refused(client):
    campaign, _, members = started_campaign_factory(players=2)
    client.force_login(members[0].user)
    page = client.post(reverse("campaigns:phase-done", args=[campaign.pk]),
                       {"on_behalf_of": members[1].pk}, **HTMX).content.decode()
    assert f"{members[1].user.public_name} is not late" in page
    assert PlayerPhaseStatus.objects.get(membership=members[1]).done_at is None


def test_setup_campaign_bar_says_no_phase_is_open(client):
    campaign = campaign_factory()
    from tests.factories import player_factory

    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.get(reverse("campaigns:phase-bar", args=[campaign.pk])).content.decode()
    assert "No phase is open: the campaign starts when the GM starts it." in page


@pytest.mark.parametrize(("seen", "trigger"), [("open", False), ("closed", True), ("none", True)])
def test_a_refresh_that_finds_another_phase_tells_the_page(client, seen, trigger):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    first = _open_phase(campaign)
    phase_end(user=gm, campaign=campaign)
    value = {"open": str(_open_phase(campaign).pk), "closed": str(first.pk), "none": ""}[seen]
    client.force_login(p1.user)
    response = client.get(reverse("campaigns:phase-bar", args=[campaign.pk]),
                          {"seen_phase": value}, **HTMX)
    expected = (json.dumps({"phase-changed": {"phase": _open_phase(campaign).pk}})
                if trigger else None)
    assert (response.status_code, response.get("HX-Trigger")) == (200, expected)


def test_the_bar_carries_the_phase_it_was_drawn_for(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    client.force_login(p1.user)
    page = client.get(reverse("campaigns:lobby", args=[campaign.pk])).content.decode()
    assert f'hx-vals=\'{{"seen_phase": "{_open_phase(campaign).pk}"}}\'' in page
