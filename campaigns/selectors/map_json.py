"""The map JSON (the API's map answer, also embedded in the map page) as bytes, kept in the
cache per campaign, viewer role and side until the game state changes.

Building it reads every stack and unit of the campaign (on a 100 × 100 map with 2,000 stacks:
60 to 90 ms, docs/perf.md), and players open the map far more often than the state changes. The
cached copy is keyed on the campaign's *state version*: every service that changes a campaign
takes its lock first (campaigns.services.common.lock_campaign), and the lock bumps
`Campaign.state_version`, so the version moves with every change the services make. (A change
made around the services, in the database by hand, is not seen until the entry expires after
MAP_CACHE_SECONDS.)

Read order makes it safe: the version is read before the state (READ COMMITTED), so the state
stored under a version is never older than that version. The cache is not used inside a
transaction that has written, whose version a rollback could hand to another state (on
PostgreSQL: a transaction id is assigned; elsewhere: any open transaction), nor when
MAP_CACHE_SECONDS is 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils.html import escape

from accounts.models import User
from campaigns.models import Campaign, Membership

T = TypeVar("T")


def map_response(state: dict[str, Any]) -> dict[str, Any]:
    """`selectors.map_state` in the API's shape (the API's map answer). Built as plain data
    rather than through the API's MapStateSerializer (which documents it): the map is the
    hot read, thousands of units."""
    phase = state["phase"]
    game_map = state["map"]
    return {
        "turn": phase["turn"] if phase else None,
        "phase": phase,
        "viewer": state["viewer"],
        "map": {"cols": game_map["cols"], "rows": game_map["rows"],
                "default_terrain": game_map["default_terrain"]},
        "hexes": [{"hex": h, "terrain": t} for h, t in sorted(game_map["terrain"].items())],
        "fortifications": state["fortifications"],
        "stacks": state["stacks"],
        "sightings": state["sightings"],
    }


def state_token(campaign_id: int) -> str | None:
    """The campaign's state version as a cache key part, or None where it cannot be trusted
    (this transaction has written, or may have: see the module's text)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT state_version, pg_current_xact_id_if_assigned()::text "
                           "FROM campaigns_campaign WHERE id = %s", [campaign_id])
            row = cursor.fetchone()
        if row is None or row[1] is not None:
            return None
        return str(row[0])
    if connection.in_atomic_block:
        return None
    version = Campaign.objects.filter(pk=campaign_id).values_list("state_version",
                                                                  flat=True).first()
    return None if version is None else str(version)


def map_json(*, user: User, campaign: Campaign) -> bytes:
    """`map_response(map_state(user, campaign))` as JSON bytes (orjson; what the API's map
    endpoint answers and the map page embeds), from the cache when the state has not changed
    since it was built for the viewer's role and side. A non-member is refused
    (NotAllowedError), as by `map_state`."""
    return map_json_as(user=user, campaign=campaign, variant="json", make=lambda body: body)


def map_json_as(*, user: User, campaign: Campaign, variant: str,
                make: Callable[[bytes], T]) -> T:
    """`make(map_json(...))`, kept in the cache as `variant` beside the JSON, under the same
    state version (the map page keeps its compressed script element so)."""
    from campaigns.selectors import _membership, map_state

    def build(campaign: Campaign) -> bytes:
        return orjson.dumps(map_response(map_state(user=user, campaign=campaign)))

    membership = _membership(user=user, campaign=campaign)
    seconds = settings.MAP_CACHE_SECONDS
    token = state_token(campaign.pk) if seconds else None
    if token is None:
        return make(build(campaign))
    key = f"map-json:{campaign.pk}:{membership.role}:{membership.side_id}:{token}"
    value: T | None = cache.get(f"{key}:{variant}")
    if value is not None:
        return value
    body: bytes | None = None if variant == "json" else cache.get(f"{key}:json")
    if body is None:
        # Read after the token, like everything else: the caller's copy may be older.
        body = build(Campaign.objects.get(pk=campaign.pk))
        cache.set(f"{key}:json", body, seconds)
    if variant == "json":
        return make(body)
    value = make(body)
    cache.set(f"{key}:{variant}", value, seconds)
    return value


# json_script's escapes: nothing in the element can close it or open a comment.
_ESCAPES = ((b"<", b"\\u003C"), (b">", b"\\u003E"), (b"&", b"\\u0026"))


def json_script_element(body: bytes, element_id: str) -> bytes:
    """What Django's `json_script` writes, as UTF-8 bytes, around a document already written
    as JSON bytes."""
    for char, escaped in _ESCAPES:
        body = body.replace(char, escaped)
    return (f'<script id="{escape(element_id)}" type="application/json">'.encode() + body
            + b"</script>")


def _element(body: bytes) -> bytes:
    return json_script_element(body, "map-data")


def map_page_element(*, user: User, campaign: Campaign) -> bytes:
    """The map page's JSON script element "map-data", kept in the cache like the JSON."""
    return map_json_as(user=user, campaign=campaign, variant="page", make=_element)


def warm(campaign_id: int) -> int:
    """Build what a view of the campaign's map would read (the JSON and the page's script
    element) for every role and side that has a member, unless the cache has it already.
    Returns how many viewers' entries it made sure of (none off PostgreSQL or with the
    cache off)."""
    if not settings.MAP_CACHE_SECONDS or state_token(campaign_id) is None:
        return 0
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or campaign.ruleset_key != "erfworld":
        # A battle of another rule system has no Erfworld map to keep.
        return 0
    viewers: dict[tuple[str, int | None], int] = {}
    for user_id, role, side_id in (Membership.objects.filter(campaign=campaign)
                                   .order_by("pk").values_list("user_id", "role", "side_id")):
        viewers.setdefault((role, side_id), user_id)
    for user in User.objects.filter(pk__in=viewers.values()):
        # Builds and keeps the JSON on the way (the API's answer), then the page's element.
        map_page_element(user=user, campaign=campaign)
    return len(viewers)
