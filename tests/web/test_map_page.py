"""The map page /campaigns/<id>/map/: who may see it, what its embedded JSON holds (fog), and
how it is streamed (the head first, then the map)."""

import gzip
import json
import re
import zlib

import pytest
from django.urls import reverse

from campaigns.games.erfworld import scout_order_give
from campaigns.models import Stack, Unit
from campaigns.selectors import map_state
from campaigns.selectors.map_json import map_response
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db

HIDDEN_NAME = "Gatekeeper Zabriskie"


def _embedded(html: str, element_id: str) -> dict:
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html,
                      re.S)
    assert match is not None, f"no json_script {element_id!r} in the page"
    return json.loads(match.group(1))


def _page(client, user, campaign):
    client.force_login(user)
    return client.get(reverse("campaigns:map", args=[campaign.pk]))


@pytest.fixture
def started():
    return started_campaign_factory(players=2)


@pytest.fixture
def hidden_unit(started):
    """An opposition unit with a unique name in J10, far from the alliance at A1."""
    campaign, _, _ = started
    unit = Unit.objects.filter(campaign=campaign, side__kind="opposition",
                               stack__hex="J10").order_by("created_seq", "pk").first()
    unit.name = HIDDEN_NAME
    unit.save(update_fields=["name"])
    return unit


def test_the_map_url_is_named():
    assert reverse("campaigns:map", args=[7]) == "/campaigns/7/map/"


def test_an_anonymous_visitor_is_sent_to_log_in(client, started):
    campaign, _, _ = started
    url = reverse("campaigns:map", args=[campaign.pk])
    response = client.get(url)
    assert (response.status_code, response["Location"]) == (302, f"/accounts/login/?next={url}")


def test_an_outsider_gets_404(client, started):
    campaign, _, _ = started
    assert _page(client, UserFactory(), campaign).status_code == 404


def test_an_unknown_campaign_is_404(client):
    client.force_login(UserFactory())
    assert client.get(reverse("campaigns:map", args=[999999])).status_code == 404


def test_a_player_sees_the_page_with_the_map_mount_and_script(client, started):
    campaign, _, (p1, _p2) = started
    response = _page(client, p1.user, campaign)
    html = response.getvalue().decode()
    assert response.status_code == 200
    assert ('id="campaign-map"' in html, "js/map.js" in html, "css/map.css" in html) == (
        True, True, True)


def test_the_embedded_map_is_the_api_body_of_the_player(client, started):
    campaign, _, (p1, _p2) = started
    html = _page(client, p1.user, campaign).getvalue().decode()
    expected = json.loads(json.dumps(map_response(map_state(user=p1.user, campaign=campaign))))
    assert _embedded(html, "map-data") == expected


def test_the_gm_gets_every_stack_of_both_sides(client, started):
    campaign, gm, _ = started
    data = _embedded(_page(client, gm, campaign).getvalue().decode(), "map-data")
    assert sorted(s["id"] for s in data["stacks"]) == sorted(
        Stack.objects.filter(campaign=campaign).values_list("pk", flat=True))


def test_the_gm_page_says_it_is_the_god_view(client, started):
    campaign, gm, _ = started
    assert "God view" in _page(client, gm, campaign).getvalue().decode()


def test_a_player_page_holds_no_hidden_opposition_unit_name(client, started, hidden_unit):
    campaign, _, (p1, _p2) = started
    html = _page(client, p1.user, campaign).getvalue().decode()
    assert HIDDEN_NAME not in html


def test_a_player_map_json_holds_no_opposition_stack_or_unit(client, started, hidden_unit):
    campaign, _, (p1, _p2) = started
    data = _embedded(_page(client, p1.user, campaign).getvalue().decode(), "map-data")
    stack_ids = {s["id"] for s in data["stacks"]}
    unit_ids = {u.get("id") for s in data["stacks"] for u in s["units"]}
    assert (hidden_unit.stack_id in stack_ids, hidden_unit.pk in unit_ids,
            {s["side"] for s in data["stacks"]}) == (False, False, {"alliance"})


def test_the_gm_page_shows_the_hidden_unit(client, started, hidden_unit):
    campaign, gm, _ = started
    assert HIDDEN_NAME in _page(client, gm, campaign).getvalue().decode()


def test_the_tools_data_holds_the_players_scout_order(client, started):
    campaign, _, (p1, _p2) = started
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["SE", "S"])
    tools = _embedded(_page(client, p1.user, campaign).getvalue().decode(), "map-page-data")
    assert tools["scout_orders"] == [{
        "id": order.pk, "scout": scout.pk, "scout_name": "Scout 1",
        "directions": ["SE", "S"], "inspected_hexes": order.inspected_hexes,
    }]


def test_the_tools_data_holds_no_scout_order_of_the_other_side_for_the_gm(client, started):
    campaign, gm, _ = started
    tools = _embedded(_page(client, gm, campaign).getvalue().decode(), "map-page-data")
    assert (tools["role"], tools["scout_orders"], tools["unit_types"]) == ("gm", [], [])


def test_the_tools_data_names_the_api_and_pop_hexes(client, started):
    campaign, _, (p1, _p2) = started
    tools = _embedded(_page(client, p1.user, campaign).getvalue().decode(), "map-page-data")
    assert (tools["api"], tools["map_url"], tools["pop_hexes"], tools["membership"]) == (
        f"/api/v1/campaigns/{campaign.pk}/", f"/api/v1/campaigns/{campaign.pk}/map/",
        ["B10", "I10"], p1.pk)


def test_the_tools_data_lists_the_players_own_unit_types(client, started):
    campaign, _, (p1, _p2) = started
    tools = _embedded(_page(client, p1.user, campaign).getvalue().decode(), "map-page-data")
    assert [t["name"] for t in tools["unit_types"]] == ["Scout", "Spearman", "Warlord"]


def _acting_for(client, user, campaign, value):
    client.force_login(user)
    response = client.get(reverse("campaigns:map", args=[campaign.pk]),
                          {"on_behalf_of": value})
    return _embedded(response.getvalue().decode(), "map-page-data")["acting_for"]


def test_the_chief_warlord_may_open_the_map_for_an_ally(client, started):
    campaign, _, (chief, other) = started
    assert _acting_for(client, chief.user, campaign, other.pk) == {
        "membership": other.pk, "name": other.user.public_name, "open_seat": False,
        "standing": ""}


def test_a_player_who_is_not_chief_warlord_cannot_act_for_anyone(client, started):
    campaign, _, (chief, other) = started
    assert _acting_for(client, other.user, campaign, chief.pk) is None


@pytest.mark.parametrize("value", ["gm", "self", "nonsense", "other-campaign"])
def test_the_chief_warlord_cannot_act_for_a_non_ally(client, started, value):
    campaign, gm, (chief, _) = started
    stranger = started_campaign_factory(players=1)[2][0]
    pk = {"gm": campaign.memberships.get(user=gm).pk, "self": chief.pk, "nonsense": "x1",
          "other-campaign": stranger.pk}[value]
    assert _acting_for(client, chief.user, campaign, pk) is None


def test_the_tools_data_is_fetched_again_as_the_page_embeds_it(client, started):
    campaign, _, (p1, _) = started
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=["SE"])
    embedded = _embedded(_page(client, p1.user, campaign).getvalue().decode(), "map-page-data")
    fetched = client.get(reverse("campaigns:map-tools", args=[campaign.pk])).json()
    assert fetched == {k: v for k, v in embedded.items() if k in fetched}
    assert fetched["scout_orders"][0]["inspected_hexes"] == ["B1"]


def test_the_page_streams_its_head_before_the_map(client, started):
    campaign, _, (p1, _p2) = started
    client.force_login(p1.user)
    response = client.get(reverse("campaigns:map", args=[campaign.pk]))
    first, *rest = list(response.streaming_content)
    head, whole = first.decode(), b"".join([first, *rest]).decode()
    assert (response.streaming, response.has_header("Content-Encoding"), response["Vary"],
            response["Content-Type"]) == (True, False, "Accept-Encoding, Cookie",
                                          "text/html; charset=utf-8")
    assert ("css/map.css" in head, "js/map.js" in head, 'id="map-data"' in head,
            'id="map-page-data"' in head) == (True, True, False, True)
    assert whole.startswith(head) and whole.count('<script id="map-data"') == 1
    assert whole.rstrip().endswith("</html>")


def test_a_gzip_client_gets_the_head_as_a_flushed_gzip_block(client, started):
    campaign, _, (p1, _p2) = started
    client.force_login(p1.user)
    url = reverse("campaigns:map", args=[campaign.pk])
    plain = client.get(url).getvalue()
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    first, *rest = list(response.streaming_content)
    # Compared without the CSRF token, which is masked anew on every response, and the
    # Content-Security-Policy nonce, which is new on every response too.
    mask = re.compile(rb'"csrf_token": "[^"]+"|name="csrfmiddlewaretoken" value="[^"]+"|'
                      rb'"X-CSRFToken": "[^"]+"|nonce="[^"]+"')
    plain = mask.sub(b"", plain)
    # The first block decompresses on its own, to the page's first part.
    head = mask.sub(b"", zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(first))
    assert (response["Content-Encoding"], response["Vary"]) == ("gzip", "Accept-Encoding, Cookie")
    assert (len(head) > 1000, plain.startswith(head), b'id="map-data"' in head) == (
        True, True, False)
    whole = gzip.decompress(b"".join([first, *rest]))
    assert mask.sub(b"", whole) == plain


def test_the_split_marker_is_not_in_the_page_even_if_a_name_copies_its_form(client, started):
    campaign, _, (p1, _p2) = started
    campaign.name = "map-data-{{ map_data_slot }} map-data-0123456789abcdef0123456789abcdef"
    campaign.save(update_fields=["name"])
    html = _page(client, p1.user, campaign).getvalue().decode()
    shown = html.count(campaign.name)
    assert (shown > 0, html.count('<script id="map-data"'),
            re.findall(r"map-data-[0-9a-f]{32}", html)) == (
        True, 1, ["map-data-0123456789abcdef0123456789abcdef"] * shown)


def _tools(client, member, campaign):
    return _embedded(_page(client, member.user if hasattr(member, "user") else member,
                           campaign).getvalue().decode(), "map-page-data")


def test_the_chief_warlord_sees_the_pool_and_the_players_to_share_it_with(client, started):
    from campaigns.games.erfworld import pop_points_grant

    campaign, gm, (p1, p2) = started
    pop_points_grant(user=gm, campaign=campaign, points=60)
    tools = _tools(client, p1, campaign)
    assert (tools["is_chief_warlord"], tools["pop_pool"], tools["alliance_players"]) == (
        True, "60", [{"membership": p1.pk, "name": p1.user.public_name, "pop_points": "0"},
                     {"membership": p2.pk, "name": p2.user.public_name, "pop_points": "0"}])


def test_another_player_sees_the_pool_but_not_the_others_points(client, started):
    from campaigns.games.erfworld import pop_points_grant

    campaign, gm, (_p1, p2) = started
    pop_points_grant(user=gm, campaign=campaign, points=60)
    tools = _tools(client, p2, campaign)
    assert (tools["pop_pool"], tools["alliance_players"], tools["pop_points"]) == (
        "60", [], "0")


def test_the_gm_gets_no_pool_and_no_repairs(client, started):
    campaign, gm, _ = started
    tools = _tools(client, gm, campaign)
    assert (tools["pop_pool"], tools["alliance_players"]) == (None, [])


def test_the_tools_data_lists_the_sides_damaged_fortifications_to_repair(client, started):
    from campaigns.models import Fortification

    campaign, _, (p1, _p2) = started
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    Fortification.objects.filter(pk=tower.pk).update(owner=p1.side, hits=12)
    # A fortification of the side at full hits has nothing to repair.
    Fortification.objects.filter(campaign=campaign, hex="I9").update(owner=p1.side)
    assert _tools(client, p1, campaign)["repairable"] == [
        {"id": tower.pk, "hex": "D4", "kind": "tower", "direction": None, "hits": 12,
         "starting_hits": 20}]
