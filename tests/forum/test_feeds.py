"""Atom feeds: valid XML with Atom's required elements, sanitized content, private by token."""

import xml.etree.ElementTree as ET

import pytest

from campaigns.services.forum import post_create, share_token_create, share_token_revoke
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized

pytestmark = [pytest.mark.django_db]

A = "{http://www.w3.org/2005/Atom}"


def _feed(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)  # noqa: S314 (our own feed, in a test)


def test_the_public_feed_is_atom_with_the_required_elements(started, threads, client):
    post_create(user=started[2][0].user, thread=threads["public"], body="Forward!")
    root = _feed(client, f"/campaigns/{started[0].pk}/feed.atom")
    assert root.tag == f"{A}feed"
    for name in ("id", "title", "updated", "link"):
        assert root.find(f"{A}{name}") is not None, name
    entries = root.findall(f"{A}entry")
    assert len(entries) == 4  # Chief Warlord appointed, campaign started, phase opened, the post
    for entry in entries:
        for name in ("id", "title", "updated", "link", "author", "summary"):
            assert entry.find(f"{A}{name}") is not None, name
    assert entries[0].find(f"{A}title").text == f"{started[2][0].user.public_name}: Forward!"


def test_xss_payloads_are_neutralized_in_the_feed(started, threads, client):
    for payload in XSS_PAYLOADS:
        post_create(user=started[2][0].user, thread=threads["public"], body=payload)
    root = _feed(client, f"/campaigns/{started[0].pk}/feed.atom")
    for entry in root.findall(f"{A}entry"):
        assert_neutralized(entry.find(f"{A}summary").text or "")


def test_a_side_feed_without_a_token_is_not_found(started, threads, client):
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['alliance'].pk}/feed.atom"
    assert client.get(url).status_code == 404


def test_a_side_feed_with_its_readers_token_lists_the_scout_report(scouted, threads, client):
    campaign, _, members = scouted
    token = share_token_create(user=members[0].user, campaign=campaign)
    url = (f"/campaigns/{campaign.pk}/forum/threads/{threads['alliance'].pk}/feed.atom"
           f"?token={token.token}")
    titles = [e.find(f"{A}title").text for e in _feed(client, url).findall(f"{A}entry")]
    assert titles == ["Warcamp: Scout report of turn 1: 5 hexes inspected (B1, B2, C3, D3, D4)."]


def test_a_token_does_not_open_another_sides_feed(started, threads, client):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    for name in ("opposition", "gm"):
        url = (f"/campaigns/{campaign.pk}/forum/threads/{threads[name].pk}/feed.atom"
               f"?token={token.token}")
        assert client.get(url).status_code == 404


def test_a_revoked_token_closes_the_feed(started, threads, client):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    share_token_revoke(user=members[0].user, token=token)
    url = (f"/campaigns/{campaign.pk}/forum/threads/{threads['alliance'].pk}/feed.atom"
           f"?token={token.token}")
    assert client.get(url).status_code == 404


def test_no_feed_of_the_alliance_names_hidden_units(scouted, threads, hidden, client):
    campaign, _, members = scouted
    token = share_token_create(user=members[0].user, campaign=campaign)
    texts = [
        client.get(f"/campaigns/{campaign.pk}/feed.atom").content.decode(),
        client.get(f"/campaigns/{campaign.pk}/forum/threads/{threads['alliance'].pk}/feed.atom"
                   f"?token={token.token}").content.decode(),
    ]
    for text in texts:
        for secret in hidden:
            assert secret not in text
