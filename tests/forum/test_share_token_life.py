"""Share tokens expire (30 days, 90 by default, a year, or until revoked) and can be replaced
by new links: the old URLs stop at once, the new ones carry on with the same label and
lifetime. An expired or replaced token answers 404 exactly as a revoked or unknown one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError
from campaigns.models import ShareToken
from campaigns.services.forum import (
    share_token_create,
    share_token_revoke,
    share_token_rotate,
)

pytestmark = [pytest.mark.django_db]


def _feed_status(client, campaign, thread, token):
    return client.get(f"/campaigns/{campaign.pk}/forum/threads/{thread.pk}/feed.atom"
                      f"?token={token}").status_code


def _png_status(client, campaign, token):
    return client.get(f"/campaigns/{campaign.pk}/map.png?token={token}").status_code


@pytest.mark.parametrize(("lifetime", "days"), [("30", 30), ("90", 90), ("365", 365), ("", None)])
def test_a_token_lasts_what_was_chosen(started, lifetime, days):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign, lifetime=lifetime)
    lasts = (token.expires_at - token.created_at).days if token.expires_at else None
    assert lasts == days


def test_ninety_days_unless_told():
    # The page and the service default alike.
    from campaigns.services.forum import DEFAULT_SHARE_TOKEN_LIFETIME
    assert DEFAULT_SHARE_TOKEN_LIFETIME == "90"


def test_a_made_up_lifetime_is_refused_and_nothing_is_made(started):
    campaign, _, members = started
    with pytest.raises(CampaignError) as caught:
        share_token_create(user=members[0].user, campaign=campaign, lifetime="9999")
    assert (caught.value.code, caught.value.field, caught.value.message,
            ShareToken.objects.count()) == (
        "bad_lifetime", "lifetime", "A token lasts 30 days, 90 days, a year or until revoked.", 0)


def test_an_expired_token_answers_like_an_unknown_one(started, threads, client):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign, lifetime="30")
    live = (_feed_status(client, campaign, threads["alliance"], token.token),
            _png_status(client, campaign, token.token))
    ShareToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = (_feed_status(client, campaign, threads["alliance"], token.token),
               _png_status(client, campaign, token.token))
    unknown = (_feed_status(client, campaign, threads["alliance"], "x" * 43),
               _png_status(client, campaign, "x" * 43))
    assert (live, expired, unknown) == ((200, 200), (404, 404), (404, 404))


def test_new_links_stop_the_old_and_keep_label_and_lifetime(started, threads, client):
    campaign, _, members = started
    old = share_token_create(user=members[0].user, campaign=campaign, label="reader",
                             lifetime="30")
    new = share_token_rotate(user=members[0].user, token=old)
    old.refresh_from_db()
    assert (old.revoked_at is not None, new.label, (new.expires_at - new.created_at).days,
            new.token != old.token,
            _feed_status(client, campaign, threads["alliance"], old.token),
            _feed_status(client, campaign, threads["alliance"], new.token)) == (
        True, "reader", 30, True, 404, 200)


def test_only_the_owner_replaces_a_token_and_not_a_revoked_one(started):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    with pytest.raises(NotAllowedError):
        share_token_rotate(user=members[1].user, token=token)
    share_token_revoke(user=members[0].user, token=token)
    with pytest.raises(RuleViolationError, match="A revoked token cannot be replaced"):
        share_token_rotate(user=members[0].user, token=token)
    assert ShareToken.objects.count() == 1


def test_expired_tokens_do_not_count_against_the_limit(started):
    from campaigns.services.forum import MAX_ACTIVE_TOKENS

    campaign, _, members = started
    for _ in range(MAX_ACTIVE_TOKENS):
        share_token_create(user=members[0].user, campaign=campaign)
    with pytest.raises(RuleViolationError):
        share_token_create(user=members[0].user, campaign=campaign)
    ShareToken.objects.update(expires_at=timezone.now() - timedelta(days=1))
    assert share_token_create(user=members[0].user, campaign=campaign).pk is not None


def test_the_page_offers_the_lifetimes_and_new_links(started, client_as):
    campaign, _, members = started
    client = client_as(members[0].user)
    url = f"/campaigns/{campaign.pk}/tokens/"
    made = client.post(url, {"label": "embed", "lifetime": "30"})
    token = ShareToken.objects.get()
    page = client.get(url).content.decode()
    rotated = client.post(f"/campaigns/{campaign.pk}/tokens/{token.pk}/rotate/", follow=True)
    new = ShareToken.objects.get(revoked_at__isnull=True)
    bad = client.post(url, {"label": "x", "lifetime": "7"})
    assert (made.status_code, '<option value="90" selected>90 days</option>' in
            client.get(url).content.decode(), "works until" in page, token.token in page,
            rotated.redirect_chain[-1][0], new.token in rotated.content.decode(),
            token.token in rotated.content.decode(),
            "“embed” has new links; the old ones no longer work." in rotated.content.decode(),
            bad.status_code, "A token lasts 30 days, 90 days, a year or until revoked." in
            bad.content.decode(), ShareToken.objects.count()) == (
        200, True, True, True, f"/campaigns/{campaign.pk}/tokens/#token-{new.pk}", True, False,
        True, 400, True, 2)


def test_another_players_token_cannot_be_replaced_from_the_page(started, client_as):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    response = client_as(members[1].user).post(
        f"/campaigns/{campaign.pk}/tokens/{token.pk}/rotate/")
    token.refresh_from_db()
    assert (response.status_code, token.revoked_at, ShareToken.objects.count()) == (404, None, 1)
