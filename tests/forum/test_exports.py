"""Exports for external forums, map pictures and share tokens: the viewer's fog applies."""

import io
import re

import bbcode
import pytest
from PIL import Image

from accounts.timefmt import zoned_text
from campaigns.exports.mapimage import map_picture, picture_size
from campaigns.models import Event, Phase, ShareToken
from campaigns.services.forum import post_create, share_token_create, share_token_revoke
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized

pytestmark = [pytest.mark.django_db]


def _bb(text: str) -> str:
    return bbcode.Parser(replace_cosmetic=False, replace_links=False).format(text)


def _texts(client, url: str) -> list[str]:
    """The export page and its BBCode and Markdown as text."""
    return [client.get(url).content.decode(),
            client.get(url + "?format=bbcode").content.decode(),
            client.get(url + "?format=markdown").content.decode()]


def test_a_post_exports_as_bbcode_and_markdown(started, threads, client_as):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="We take **J10**.")
    client = client_as(user)
    url = f"/campaigns/{started[0].pk}/export/posts/{post.pk}/"
    bb = client.get(url + "?format=bbcode").content.decode()
    md = client.get(url + "?format=markdown").content.decode()
    # In the exporter's own zone, with its offset.
    when = zoned_text(f"{post.created_at:%Y-%m-%d %H:%M} UTC", user.time_zone)
    assert when.endswith("(UTC+00:00)") if user.time_zone == "UTC" else "UTC" not in when
    assert md == f"**{user.public_name}** wrote on {when}:\n\nWe take **J10**.\n"
    assert bb == f"[b]{user.public_name}[/b] wrote on {when}:\n\nWe take [b]J10[/b].\n"


def test_the_export_page_has_both_texts_and_copy_buttons(started, threads, client_as):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="hi")
    html = client_as(user).get(f"/campaigns/{started[0].pk}/export/posts/{post.pk}/").content
    assert b'data-copy="export-bbcode"' in html
    assert b'data-copy="export-markdown"' in html


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_xss_in_a_post_is_neutralized_in_its_exports(started, threads, client_as, payload):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body=payload)
    page, bb, md = _texts(client_as(user), f"/campaigns/{started[0].pk}/export/posts/{post.pk}/")
    assert_neutralized(page[page.index("<h2>Export:"):page.index("</main>")])
    assert_neutralized(_bb(bb))


def test_another_sides_post_cannot_be_exported(started, threads, client_as):
    post = post_create(user=started[1], thread=threads["opposition"], body="garrison plans")
    url = f"/campaigns/{started[0].pk}/export/posts/{post.pk}/"
    assert client_as(started[2][0].user).get(url).status_code == 404


def test_the_scout_report_export_links_to_the_full_report(scouted, client_as):
    campaign, _, members = scouted
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    md = client_as(members[0].user).get(
        f"/campaigns/{campaign.pk}/export/reports/{event.pk}/?format=markdown").content.decode()
    assert md.endswith(
        f"[Full report](http://testserver/campaigns/{campaign.pk}/reports/{event.pk}/)\n")


def test_a_report_of_another_side_is_not_found(scouted, client_as):
    from campaigns.models import Membership, Role, Side

    campaign = scouted[0]
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    from tests.factories import UserFactory

    opponent = UserFactory()
    Membership.objects.create(campaign=campaign, user=opponent, role=Role.PLAYER,
                              side=Side.objects.get(campaign=campaign, kind="opposition"))
    url = f"/campaigns/{campaign.pk}/export/reports/{event.pk}/"
    assert client_as(opponent).get(url).status_code == 404


def test_the_turn_export_bbcode_parses_and_round_trips(scouted, client_as):
    campaign, _, members = scouted
    client = client_as(members[0].user)
    url = f"/campaigns/{campaign.pk}/export/turns/1/"
    bb = client.get(url + "?format=bbcode").content.decode()
    md = client.get(url + "?format=markdown").content.decode()
    from campaigns.markup import render_markdown
    from tests.forum.test_markup import text_of

    assert text_of(_bb(bb)) == text_of(render_markdown(md))
    assert md.startswith("**The Broad Way — turn 1**\n\n**Alliance scout phase** (closed)\n\n- ")


def test_no_export_or_picture_of_the_alliance_names_hidden_units(scouted, hidden, client_as):
    campaign, _, members = scouted
    client = client_as(members[0].user)
    scout = Event.objects.get(campaign=campaign, kind="scout_report")
    phase = Phase.objects.filter(campaign=campaign).order_by("id").first()
    texts = (_texts(client, f"/campaigns/{campaign.pk}/export/turns/1/")
             + _texts(client, f"/campaigns/{campaign.pk}/export/reports/{scout.pk}/")
             + [client.get(f"/campaigns/{campaign.pk}/map.svg").content.decode(),
                client.get(f"/campaigns/{campaign.pk}/map.svg?phase={phase.pk}").content.decode(),
                client.get(f"/campaigns/{campaign.pk}/replay/{phase.pk}/").content.decode()])
    for text in texts:
        for secret in hidden:
            assert secret not in text


def test_the_alliance_map_shows_no_stack_in_hidden_hexes(scouted, client_as):
    campaign, _, members = scouted
    svg = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/map.svg").content.decode()
    assert re.findall(r"<title>opposition: \d+ units</title>", svg) == []


def test_the_gm_map_shows_every_opposition_stack(started, client_as):
    campaign, gm, _ = started
    svg = client_as(gm).get(f"/campaigns/{campaign.pk}/map.svg").content.decode()
    # Broad Way: garrisons at D4, G7, C6, I9 and two stacks at J10 (drawn as one marker).
    assert len(re.findall(r"<title>opposition: \d+ units</title>", svg)) == 5


def test_the_png_is_a_real_image_of_the_maps_size(started, client_as):
    user = started[2][0].user
    response = client_as(user).get(f"/campaigns/{started[0].pk}/map.png")
    image = Image.open(io.BytesIO(response.content))
    picture = map_picture(viewer=user, campaign=started[0], phase=None)
    assert response["Content-Type"] == "image/png"
    assert (image.format, image.size) == ("PNG", picture_size(picture))
    # The 12 x 12 map is 353 pixels wide at its natural size.
    assert picture_size(picture)[0] == 353


def test_the_public_picture_needs_no_login_and_shows_no_stack(started, client):
    svg = client.get(f"/campaigns/{started[0].pk}/map.svg").content.decode()
    assert "units</title>" not in svg
    assert "<title>tower (opposition)</title>" in svg


def test_a_share_token_shows_its_owners_map(started, client):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign, label="forum")
    svg = client.get(f"/campaigns/{campaign.pk}/map.svg?token={token.token}").content.decode()
    assert len(re.findall(r"<title>alliance: \d+ units</title>", svg)) == 1


def test_a_revoked_token_is_refused(started, client):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    share_token_revoke(user=members[0].user, token=token)
    assert client.get(f"/campaigns/{campaign.pk}/map.png?token={token.token}").status_code == 404


def test_tokens_are_created_and_revoked_on_their_page(started, client_as):
    campaign, _, members = started
    client = client_as(members[0].user)
    url = f"/campaigns/{campaign.pk}/tokens/"
    assert client.post(url, {"label": "reader"}).status_code == 200
    token = ShareToken.objects.get(user=members[0].user)
    response = client.post(f"{url}{token.pk}/revoke/")
    token.refresh_from_db()
    assert (response.status_code, token.revoked_at is not None) == (302, True)


def test_nobody_revokes_another_users_token(started, client_as):
    campaign, _, members = started
    token = share_token_create(user=members[0].user, campaign=campaign)
    response = client_as(members[1].user).post(f"/campaigns/{campaign.pk}/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert (response.status_code, token.revoked_at) == (404, None)


def test_the_alliance_scout_report_export_names_what_the_scout_saw(scouted, client_as):
    campaign, _, members = scouted
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    md = client_as(members[0].user).get(
        f"/campaigns/{campaign.pk}/export/reports/{event.pk}/?format=markdown").content.decode()
    assert "- D4 (road): opposition: Spearman 1 (Spearman, 4 hits)" in md


def test_a_wall_is_drawn_on_its_hexside(started, client):
    svg = client.get(f"/campaigns/{started[0].pk}/map.svg").content.decode()
    # Broad Way: walls on G7 (NW, N), I9 (NW, N, NE) and all six sides of J10.
    assert svg.count('<line class="wall"') == 11


def test_every_report_export_bbcode_parses_and_round_trips(scouted, client_as):
    from campaigns.games.erfworld.move_combat import stack_attack
    from campaigns.markup import render_markdown
    from tests.campaigns.engine_setup import opposition_stack, own_stack, put
    from tests.forum.test_markup import text_of

    campaign, _, members = scouted
    fight = stack_attack(user=members[0].user, campaign=campaign,
                         stack=put(own_stack(members[0]), "D3"),
                         target=opposition_stack(campaign, "D4"))
    client = client_as(members[0].user)
    events = Event.objects.filter(campaign=campaign).exclude(side__kind="opposition")
    for event in events:
        url = f"/campaigns/{campaign.pk}/export/reports/{event.pk}/"
        bb = client.get(url + "?format=bbcode").content.decode()
        md = client.get(url + "?format=markdown").content.decode()
        assert text_of(_bb(bb)) == text_of(render_markdown(md)), event.kind
    md = client.get(f"/campaigns/{campaign.pk}/export/reports/{fight.pk}/?format=markdown")
    # The fight's explanation, every factor and die, as a code block.
    assert "\n\n    " in md.content.decode()
