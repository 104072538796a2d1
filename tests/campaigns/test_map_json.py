"""campaigns.selectors.map_json: the cached map JSON and the state version it is keyed on.

These tests commit (transaction=True): the version is only trusted outside a transaction that
has written, which every ordinary test runs inside."""

import gzip
import re

import orjson
import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F

import campaigns.selectors as selectors
from campaigns.errors import CampaignError
from campaigns.games.erfworld import phase_end, scout_order_give, unit_adjust_hits
from campaigns.models import (
    Campaign,
    Unit,
)
from campaigns.selectors import map_state
from campaigns.selectors.map_json import map_json, map_response, state_token
from campaigns.services.deadlines import campaign_pause, deadline_extend
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def game():
    """A started campaign and a cold cache (starting it warmed the cache)."""
    started = started_campaign_factory(players=2)
    cache.clear()
    return started


def fresh(user, campaign) -> bytes:
    return orjson.dumps(map_response(map_state(user=user, campaign=campaign)))


@pytest.fixture
def builds(monkeypatch):
    """How many times map_json built the map (called map_state) rather than read the cache."""
    calls = []
    real = selectors.map_state

    def counting(**kwargs):
        calls.append(kwargs["user"].pk)
        return real(**kwargs)

    monkeypatch.setattr(selectors, "map_state", counting)
    return calls


def test_reading_does_not_change_the_version(game):
    campaign, gm, (p1, _p2) = game
    before = state_token(campaign.pk)
    map_json(user=p1.user, campaign=campaign)
    map_json(user=gm, campaign=campaign)
    assert (before, state_token(campaign.pk)) == (
        str(Campaign.objects.get(pk=campaign.pk).state_version), before)


def _first_unit(campaign):
    return Unit.objects.filter(campaign=campaign, stack__isnull=False).order_by("pk").first()


SERVICES = {
    "a scout order": lambda c, gm, p1: scout_order_give(
        user=p1.user, campaign=c, scout=Unit.objects.get(owner=p1, name="Scout 1"),
        directions=TO_D4),
    "the phase ended": lambda c, gm, p1: phase_end(user=gm, campaign=c),
    "the deadline extended": lambda c, gm, p1: deadline_extend(user=gm, campaign=c, hours=2,
                                                               reason="weekend"),
    "the campaign paused": lambda c, gm, p1: campaign_pause(user=gm, campaign=c,
                                                            reason="holiday"),
    "a unit's hits set by the GM": lambda c, gm, p1: unit_adjust_hits(
        user=gm, unit=_first_unit(c), hits=1, reason="a plague"),
}


@pytest.mark.parametrize("service", SERVICES.values(), ids=SERVICES.keys())
def test_every_service_that_changes_the_campaign_moves_its_version(game, service):
    campaign, gm, (p1, _p2) = game
    before = int(state_token(campaign.pk))
    service(campaign, gm, p1)
    assert int(state_token(campaign.pk)) == before + 1


def test_a_refused_service_leaves_the_version(game):
    campaign, _gm, (p1, _p2) = game
    before = state_token(campaign.pk)
    with pytest.raises(CampaignError):  # p1 may not end the phase yet
        phase_end(user=p1.user, campaign=campaign)
    assert state_token(campaign.pk) == before


def _bump(campaign, **changes):
    """A change made as a service makes it: with the campaign's version moved."""
    Campaign.objects.filter(pk=campaign.pk).update(state_version=F("state_version") + 1,
                                                   **changes)


def _scout(game):
    campaign, gm, (p1, _p2) = game
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)


def test_the_second_read_of_a_state_comes_from_the_cache(game, builds):
    campaign, _, (p1, p2) = game
    first = map_json(user=p1.user, campaign=campaign)
    again = map_json(user=p1.user, campaign=campaign)
    ally = map_json(user=p2.user, campaign=campaign)
    # p2 is on p1's side: the same map, and no second build.
    assert (builds, first == again == ally == fresh(p1.user, campaign)) == ([p1.user.pk], True)


def test_the_gm_and_a_player_never_share_an_entry(game, builds):
    campaign, gm, (p1, _p2) = game
    player = map_json(user=p1.user, campaign=campaign)
    god = map_json(user=gm, campaign=campaign)
    player_again = map_json(user=p1.user, campaign=campaign)
    sides = {s["side"] for s in orjson.loads(player)["stacks"]}
    assert (builds, player_again == player, god == fresh(gm, campaign), sides) == (
        [p1.user.pk, gm.pk], True, True, {"alliance"})


def test_a_change_is_seen_by_the_next_read(game, builds):
    campaign, gm, (p1, _p2) = game
    before = map_json(user=p1.user, campaign=campaign)
    _scout(game)  # the scout phase ends: sightings, a new phase (and the services warm)
    warmed = len(builds)
    after = map_json(user=p1.user, campaign=campaign)
    body = orjson.loads(after)
    assert (after != before, after == fresh(p1.user, campaign), body["phase"]["kind"],
            {s["hex"] for s in body["sightings"]} >= {"D4"}, len(builds) == warmed) == (
        True, True, "move_combat", True, True)


def test_a_changed_unit_is_shown_changed(game):
    campaign, gm, (p1, _p2) = game
    unit = Unit.objects.filter(owner=p1, stack__isnull=False).order_by("created_seq", "pk").first()
    map_json(user=p1.user, campaign=campaign)
    unit_adjust_hits(user=gm, unit=unit, hits=1, reason="a plague")
    units = {u["id"]: u for s in orjson.loads(map_json(user=p1.user, campaign=campaign))["stacks"]
             for u in s["units"]}
    assert units[unit.pk]["current_hits"] == 1


def test_the_campaign_is_read_again_not_taken_from_the_callers_copy(game):
    campaign, _, (p1, _p2) = game
    _bump(campaign, terrain_known_to_all=False)
    # `campaign` still says the terrain is known to all; the version already counts the change.
    body = map_json(user=p1.user, campaign=campaign)
    stale = fresh(p1.user, campaign)
    assert (body == fresh(p1.user, Campaign.objects.get(pk=campaign.pk)), body == stale) == (
        True, False)


def test_no_token_inside_a_transaction_that_has_written(game, builds):
    campaign, _, (p1, _p2) = game
    with transaction.atomic():
        assert state_token(campaign.pk) is not None  # nothing written yet
        Unit.objects.filter(campaign=campaign).update(current_hits=F("current_hits"))
        token = state_token(campaign.pk)
        map_json(user=p1.user, campaign=campaign)
        map_json(user=p1.user, campaign=campaign)
    assert (token, builds) == (None, [p1.user.pk, p1.user.pk])


def test_off_postgresql_the_version_is_used_outside_a_transaction_only(game, monkeypatch):
    campaign, _, _ = game
    monkeypatch.setattr(connection, "vendor", "sqlite")
    assert state_token(campaign.pk) == str(Campaign.objects.get(pk=campaign.pk).state_version)
    with transaction.atomic():
        assert state_token(campaign.pk) is None


def test_no_cache_when_map_cache_seconds_is_0(game, builds, settings):
    campaign, _, (p1, _p2) = game
    settings.MAP_CACHE_SECONDS = 0
    map_json(user=p1.user, campaign=campaign)
    map_json(user=p1.user, campaign=campaign)
    assert builds == [p1.user.pk, p1.user.pk]


def test_the_page_and_the_api_serve_the_cached_map(game, client, builds):
    campaign, _, (p1, _p2) = game
    client.force_login(p1.user)
    api = client.get(f"/api/v1/campaigns/{campaign.pk}/map/")
    page = client.get(f"/campaigns/{campaign.pk}/map/").getvalue().decode()
    assert (api.status_code, api["Content-Type"], api.content) == (
        200, "application/json", fresh(p1.user, campaign))
    assert ('<script id="map-data" type="application/json">' in page, builds) == (
        True, [p1.user.pk])


def test_the_page_keeps_its_map_element_per_state_and_sends_it_gzipped(game, client, builds):
    campaign, _, (p1, p2) = game
    pages = []
    for member in (p1, p2, p1):
        client.force_login(member.user)
        response = client.get(f"/campaigns/{campaign.pk}/map/", HTTP_ACCEPT_ENCODING="gzip")
        assert (response["Content-Encoding"], "Accept-Encoding" in response["Vary"]) == (
            "gzip", True)
        pages.append(response.getvalue())
    Unit.objects.filter(campaign=campaign, owner=p1).update(current_hits=1)
    _bump(campaign)
    pages.append(client.get(f"/campaigns/{campaign.pk}/map/",
                            HTTP_ACCEPT_ENCODING="gzip").getvalue())
    hits = [{u["current_hits"] for s in orjson.loads(
        re.search(rb'<script id="map-data" type="application/json">(.*?)</script>',
                  gzip.decompress(page), re.S).group(1))["stacks"]
        for u in s["units"] if u.get("owner") == p1.pk} for page in pages]
    # Built once for the side's three views, again after the change.
    assert len(builds) == 2
    assert hits[3] == {1} and 1 not in hits[0]


def test_the_page_head_leaves_as_a_gzip_block_of_its_own(game, client):
    import zlib

    campaign, _, (p1, _p2) = game
    client.force_login(p1.user)
    chunks = list(client.get(f"/campaigns/{campaign.pk}/map/",
                             HTTP_ACCEPT_ENCODING="gzip").streaming_content)
    head = zlib.decompressobj(31).decompress(chunks[0])
    assert head.startswith(b"<!DOCTYPE html>") and b'id="map-data"' not in head
    assert b'id="map-data"' in gzip.decompress(b"".join(chunks))


def test_a_service_warms_the_cache_for_every_side_once_it_commits(game, builds):
    from campaigns.tasks import warm_map_cache

    campaign, gm, (p1, p2) = game
    _scout(game)  # the GM ends the scout phase; the task runs (eagerly) after the commit
    warmed = list(builds)
    del builds[:]
    maps = [map_json(user=u, campaign=campaign) for u in (p1.user, p2.user, gm)]
    # One build per role and side with a member (the alliance and the GM), none at the views.
    assert (len(warmed) >= 2, builds, maps[0] == fresh(p1.user, campaign),
            maps[2] == fresh(gm, campaign), warm_map_cache(campaign.pk)) == (True, [], True,
                                                                              True, 2)


def test_warming_inside_a_transaction_that_has_written_does_nothing(game, builds):
    from campaigns.selectors.map_json import warm

    campaign, _, _ = game
    with transaction.atomic():
        Unit.objects.filter(campaign=campaign).update(current_hits=F("current_hits"))
        assert warm(campaign.pk) == 0
    assert builds == []
