"""Everything the forum area shows a reader, walked whole: the alliance never reads what only
the opposition may see, and nobody reads a phase's seed before the phase has closed.

The scenario: turn 1 played through its move/combat phase (a fight at D4 the alliance saw,
the GM's hit adjustment of a hidden J10 unit, the GM writing about the garrison in the
opposition's thread and the GM notes), then the opposition phase, then turn 2's scout phase.
"""

import xml.etree.ElementTree as ET

import pytest
from rest_framework.test import APIClient

from campaigns.exports.mapimage import map_picture
from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.gm_tools import unit_adjust_hits
from campaigns.games.erfworld.move_combat import stack_attack
from campaigns.markup import render_markdown
from campaigns.models import Event, Phase, Post, Thread, Turn, Unit
from campaigns.selectors.forum import readable_threads
from campaigns.services.deadlines import campaign_pause
from campaigns.services.forum import post_create, share_token_create
from tests.campaigns.engine_setup import opposition_stack, own_stack, put
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized
from tests.forum.test_feeds import A
from tests.forum.test_markup import bbcode_html

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def battle(scouted, hidden, threads):
    campaign, gm, members = scouted
    p1 = members[0]
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                 target=opposition_stack(campaign, "D4"))
    secret = Unit.objects.filter(campaign=campaign, stack__hex="J10").order_by("created_seq", "pk").first()
    unit_adjust_hits(user=gm, unit=secret, hits=1, reason="struck by lightning")
    post_create(user=gm, thread=threads["opposition"],
                body=f"{secret.name} and the Gatekeepers hold J10.")
    post_create(user=gm, thread=threads["gm"], body=f"Remember {secret.name} is weak.")
    phase_end(user=gm, campaign=campaign)  # the opposition phase
    phase_end(user=gm, campaign=campaign)  # turn 2's scout phase
    return campaign, gm, members, secret


def _get(client, url):
    response = client.get(url)
    assert response.status_code in (200, 404), url
    return response.content.decode(errors="replace")


def outputs(campaign, user, client, api, token):
    """(url, text) of every page, export, feed and API answer of the forum area that `user`
    may read, as their logged-in browser, their API client and their share token get it."""
    c = campaign.pk
    urls = [f"/campaigns/{c}/forum/", f"/campaigns/{c}/feed.atom", f"/campaigns/{c}/map.svg",
            f"/campaigns/{c}/tokens/"]
    for thread in readable_threads(user=user, campaign=campaign):
        posts = Post.objects.filter(thread=thread).count()
        urls += [f"/campaigns/{c}/forum/threads/{thread.pk}/?page={n}"
                 for n in range(1, posts // 20 + 2)]
        urls.append(f"/campaigns/{c}/forum/threads/{thread.pk}/feed.atom")
        urls.append(f"/campaigns/{c}/forum/threads/{thread.pk}/feed.atom?token={token}")
        urls.append(f"/api/v1/campaigns/{c}/threads/{thread.pk}/posts/")
        for post in Post.objects.filter(thread=thread):
            urls += [f"/campaigns/{c}/export/posts/{post.pk}/{fmt}"
                     for fmt in ("", "?format=bbcode", "?format=markdown")]
    for event in Event.objects.filter(campaign=campaign):
        urls += [f"/campaigns/{c}/export/reports/{event.pk}/{fmt}"
                 for fmt in ("", "?format=bbcode", "?format=markdown")]
    for turn in Turn.objects.filter(campaign=campaign):
        urls += [f"/campaigns/{c}/export/turns/{turn.number}/{fmt}"
                 for fmt in ("", "?format=bbcode", "?format=markdown")]
    for phase in Phase.objects.filter(campaign=campaign):
        urls += [f"/campaigns/{c}/export/phases/{phase.pk}/{fmt}"
                 for fmt in ("", "?format=bbcode", "?format=markdown")]
        urls += [f"/campaigns/{c}/map.svg?phase={phase.pk}",
                 f"/campaigns/{c}/map.svg?phase={phase.pk}&token={token}",
                 f"/campaigns/{c}/dice/{phase.pk}/"]
        steps = Event.objects.filter(phase=phase).count()
        urls += [f"/campaigns/{c}/replay/{phase.pk}/?step={n}" for n in range(1, steps + 1)]
    out = [(url, _get(client, url)) for url in urls]
    out.append(("api threads", _get(api, f"/api/v1/campaigns/{c}/threads/")))
    return out


def _clients(user):
    client = APIClient()
    client.force_login(user)
    api = APIClient()
    api.force_authenticate(user)
    return client, api


def _no_open_seed_and_closed_seeds_shown(campaign, texts):
    """Nobody reads the open phase's seed before it closes; the closed phases' seeds are
    there, on their dice pages (one walk serves this check and the fog check)."""
    open_phase = Phase.objects.get(campaign=campaign, status="open")
    assert [url for url, text in texts if open_phase.dice_seed in text] == []
    for phase in Phase.objects.filter(campaign=campaign, status="closed"):
        assert phase.dice_seed in dict(texts)[f"/campaigns/{campaign.pk}/dice/{phase.pk}/"]


def test_nothing_the_alliance_reads_names_a_hidden_unit_or_an_open_seed(battle, hidden):
    campaign, _, members, secret = battle
    for member in members:
        client, api = _clients(member.user)
        token = share_token_create(user=member.user, campaign=campaign).token
        texts = outputs(campaign, member.user, client, api, token)
        assert len(texts) > 150
        leaks = [url for url, text in texts for word in hidden if word in text]
        assert leaks == []
        _no_open_seed_and_closed_seeds_shown(campaign, texts)


def test_the_gm_does_read_them_so_the_check_above_looks_at_real_text(battle):
    campaign, gm, _, secret = battle
    client, api = _clients(gm)
    token = share_token_create(user=gm, campaign=campaign).token
    walked = outputs(campaign, gm, client, api, token)
    _no_open_seed_and_closed_seeds_shown(campaign, walked)
    texts = dict(walked)
    opposition = Thread.objects.get(campaign=campaign, side__kind="opposition")
    feed = texts[f"/campaigns/{campaign.pk}/forum/threads/{opposition.pk}/feed.atom"]
    assert f"{secret.name} and the Gatekeepers hold J10." in feed
    assert f"The GM set {secret.name}&#x27;s hits from" in texts[
        f"/campaigns/{campaign.pk}/export/turns/1/"]
    assert f"The GM set {secret.name}'s hits from" in texts[
        f"/campaigns/{campaign.pk}/export/turns/1/?format=markdown"]


def test_no_alliance_picture_of_any_phase_has_a_stack_in_the_hidden_hex(battle):
    campaign, gm, members, _ = battle
    phases = [None, *Phase.objects.filter(campaign=campaign).order_by("id")]
    for phase in phases:
        for member in members:
            picture = map_picture(viewer=member.user, campaign=campaign, phase=phase)
            assert [s for s in picture.stacks if s[0] == "J10"] == []
        gm_picture = map_picture(viewer=gm, campaign=campaign, phase=phase)
        assert [s[1] for s in gm_picture.stacks if s[0] == "J10"] == ["opposition"] * 2


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_xss_in_an_event_summary_is_neutralized_wherever_the_forum_shows_it(started, payload):
    """The GM's pause reason is written into the event's summary and the engine's post."""
    campaign, gm, members = started
    campaign_pause(user=gm, campaign=campaign, reason=payload)
    event = Event.objects.get(campaign=campaign, kind="campaign_paused")
    client, api = _clients(members[0].user)
    c, public = campaign.pk, Thread.objects.get(campaign=campaign, audience="public")
    post = Post.objects.get(event=event)
    # The part of each page the forum writes (the phase bar above it has its own forms).
    pages = [
        (f"/campaigns/{c}/forum/threads/{public.pk}/", 'id="thread-title"', 'id="reply-title"'),
        (f"/campaigns/{c}/export/posts/{post.pk}/", "<h2>Export:", "</main>"),
        (f"/campaigns/{c}/export/reports/{event.pk}/", "<h2>Export:", "</main>"),
        (f"/campaigns/{c}/export/turns/1/", "<h2>Export:", "</main>"),
        # (after the replay's campaign slider, a form of its own)
        (f"/campaigns/{c}/replay/{event.phase_id}/?event={event.pk}", '<div class="replay">',
         "</main>"),
    ]
    for url, start, end in pages:
        html = _get(client, url)
        assert_neutralized(html[html.index(start):html.index(end)])
    for url in (f"/campaigns/{c}/export/posts/{post.pk}/", f"/campaigns/{c}/export/reports/"
                f"{event.pk}/", f"/campaigns/{c}/export/turns/1/"):
        assert_neutralized(render_markdown(_get(client, url + "?format=markdown")))
        assert_neutralized(bbcode_html(_get(client, url + "?format=bbcode")))
    root = ET.fromstring(client.get(f"/campaigns/{c}/feed.atom").content)  # noqa: S314
    for entry in root.findall(f"{A}entry"):
        assert_neutralized(entry.find(f"{A}summary").text or "")
    assert_neutralized(api.get(f"/api/v1/campaigns/{c}/threads/{public.pk}/posts/")
                       .json()["posts"][-1]["html"])


def test_a_private_conversation_reaches_its_participants_and_nobody_else(battle):
    """The walk over everything the forum area shows: the GM (who may not read players'
    conversations here) and the members outside it never read its title or text; its
    participants do, so the check looks at real text."""
    from campaigns.services.forum import thread_create

    campaign, gm, members, _ = battle
    p1, p2 = members[0], members[1]
    talk = thread_create(user=p1.user, campaign=campaign, title="Privatetitle",
                         audience="private", participants=[p2.user.username],
                         body="Privateplan: the ford at dawn.")
    client, api = _clients(gm)
    token = share_token_create(user=gm, campaign=campaign).token
    texts = outputs(campaign, gm, client, api, token)
    assert [url for url, text in texts if "Privateplan" in text or "Privatetitle" in text] == []
    # Its participants do read it, on its page, in the API and in its feed.
    for member in (p1, p2):
        client, api = _clients(member.user)
        token = share_token_create(user=member.user, campaign=campaign).token
        c = campaign.pk
        seen = [_get(client, f"/campaigns/{c}/forum/threads/{talk.pk}/"),
                _get(api, f"/api/v1/campaigns/{c}/threads/{talk.pk}/posts/"),
                _get(client, f"/campaigns/{c}/forum/threads/{talk.pk}/feed.atom?token={token}"),
                _get(client, f"/campaigns/{c}/forum/")]
        assert ["Privateplan" in text for text in seen[:3]] == [True, True, True]
        assert "Privatetitle" in seen[3]
