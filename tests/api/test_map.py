"""GET /api/v1/campaigns/<id>/map/: the map_state selector in the API's shape."""

import gzip

import pytest

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Phase, Unit
from campaigns.selectors import map_state
from tests.factories import UserFactory, started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]


def test_the_map_has_the_documented_keys_and_the_selectors_data(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    response = client_for(p1.user).get(f"/api/v1/campaigns/{campaign.pk}/map/")
    body = response.json()
    state = map_state(user=p1.user, campaign=campaign)
    phase = Phase.objects.get(campaign=campaign, status="open")
    assert (response.status_code, list(body)) == (200, [
        "turn", "phase", "viewer", "map", "hexes", "fortifications", "stacks", "sightings",
    ])
    assert (body["turn"], body["phase"]["id"], body["phase"]["kind"]) == (1, phase.pk, "scout")
    assert body["hexes"] == [{"hex": h, "terrain": t}
                             for h, t in sorted(state["map"]["terrain"].items())]
    assert body["stacks"] == state["stacks"]
    assert body["fortifications"] == state["fortifications"]
    assert body["map"] == {"cols": state["map"]["cols"], "rows": state["map"]["rows"],
                           "default_terrain": "open"}
    assert [s["id"] for s in body["stacks"]] == [s["id"] for s in state["stacks"]]
    assert set(body["stacks"][0]) == {"id", "hex", "side", "units"}


def test_sightings_carry_hex_and_turn(client_for):
    campaign, gm, (p1, *_rest) = started_campaign_factory()
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    body = client_for(p1.user).get(f"/api/v1/campaigns/{campaign.pk}/map/").json()
    assert [(s["hex"], s["turn"]) for s in body["sightings"]] == [
        ("B1", 1), ("B2", 1), ("C3", 1), ("D3", 1), ("D4", 1),
    ]


def test_an_outsider_gets_404(client_for):
    campaign, _, _ = started_campaign_factory(players=1)
    assert client_for(UserFactory()).get(f"/api/v1/campaigns/{campaign.pk}/map/").status_code == 404


def test_the_map_never_contains_the_dice_seed(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status="open")
    text = client_for(p1.user).get(f"/api/v1/campaigns/{campaign.pk}/map/").content.decode()
    assert (phase.dice_seed in text, campaign.setup_dice_seed in text) == (False, False)


def test_the_map_is_gzipped_for_a_client_that_accepts_it(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    client = client_for(p1.user)
    url = f"/api/v1/campaigns/{campaign.pk}/map/"
    plain = client.get(url)
    zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert (plain.has_header("Content-Encoding"), zipped["Content-Encoding"],
            zipped["Vary"]) == (False, "gzip", "Accept, Cookie, Accept-Encoding")
    assert gzip.decompress(zipped.content) == plain.content
    assert len(zipped.content) < len(plain.content) / 4
