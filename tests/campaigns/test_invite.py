"""A new invite link kills the old one (GM, before the start): on the overview, with a copy
button, and in the API."""

import pytest
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, WrongStateError
from campaigns.games.erfworld import campaign_join, invite_regenerate
from campaigns.models import Campaign, Membership
from tests.factories import UserFactory, campaign_factory, started_campaign_factory

pytestmark = pytest.mark.django_db


def gm_of(campaign):
    return Membership.objects.get(campaign=campaign, role="gm").user


def test_the_old_link_dies_and_the_new_one_works():
    campaign = campaign_factory()
    old = campaign.invite_code
    new = invite_regenerate(user=gm_of(campaign), campaign=campaign).invite_code
    with pytest.raises(NotAllowedError) as refused:
        campaign_join(user=UserFactory(), invite_code=old)
    joined = campaign_join(user=UserFactory(), invite_code=new)
    assert (new != old, len(new) >= 10, refused.value.code, joined.campaign_id) == (
        True, True, "invalid_invite", campaign.pk)


def test_only_the_gm_and_only_before_the_start():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    code = campaign.invite_code
    with pytest.raises(NotAllowedError):
        invite_regenerate(user=p1.user, campaign=campaign)
    with pytest.raises(WrongStateError):
        invite_regenerate(user=gm, campaign=campaign)
    assert Campaign.objects.get(pk=campaign.pk).invite_code == code


def test_the_overview_offers_copy_and_a_new_link(client):
    campaign = campaign_factory()
    client.force_login(gm_of(campaign))
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    done = client.post(f"/campaigns/{campaign.pk}/invite/", follow=True)
    campaign.refresh_from_db()
    assert ('<button type="button" data-copy="invite-link">Copy the link</button>' in page,
            'data-key="invite-regenerate"' in page,
            "A new invite link is ready; the old one no longer works." in done.content.decode(),
            f"/campaigns/join/{campaign.invite_code}/" in done.content.decode()) == (
        True, True, True, True)


def test_the_api_answers_the_new_code():
    campaign = campaign_factory()
    api = APIClient()
    api.force_authenticate(gm_of(campaign))
    response = api.post(f"/api/v1/campaigns/{campaign.pk}/gm/invite/")
    campaign.refresh_from_db()
    assert (response.status_code, response.json()) == (
        200, {"invite_code": campaign.invite_code})
