"""The map JSON (the API's map answer, also embedded in the map page) as bytes, kept in the
cache per campaign, viewer role and side until the game state changes.

Building it reads every stack and unit of the campaign (on a 100 × 100 map with 2,000 stacks:
60 to 90 ms, docs/perf.md), and players open the map far more often than the state changes. The
cached copy is keyed on a *state token* that PostgreSQL computes in one query: for each table
`map_state` reads, the number of the campaign's rows, the sum of their `xmin` (the id of the
transaction that wrote each row's current version) and the sum of a hash of (id, xmin). Any
insert, update or delete, through a service, a bulk update, the admin or raw SQL, writes a row
version with a new `xmin` or removes one, so the token changes with the first commit that
changes the state; nothing has to remember to invalidate anything. A transaction changes the
plain sum by (rows written) × its own id − (the old `xmin` of the rows it replaced or
deleted): with the number of rows unchanged that is never zero while every old `xmin` is
older than its id. The hashed sum covers the rest (a transaction that began before the one
whose rows it overwrites, transaction ids wrapping around): a false match would need both
sums to come out equal by coincidence.

Read order makes it safe: the token is read before the state (READ COMMITTED), so the state
stored under a token is never older than that token. The cache is not used inside a
transaction that has written (its own uncommitted rows would share one `xmin`), nor off
PostgreSQL (SQLite has no `xmin`), nor when MAP_CACHE_SECONDS is 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

import orjson
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils.html import escape

from accounts.models import User
from campaigns.gzip_parts import Part, make_part
from campaigns.models import (
    Campaign,
    Declaration,
    Fortification,
    Map,
    Membership,
    Phase,
    Side,
    Sighting,
    Stack,
    Turn,
    Unit,
    UnitType,
)

T = TypeVar("T")

# Every table `map_state` reads, each by its campaign column.
_TABLES = (Unit, Stack, Sighting, Fortification, UnitType, Phase, Turn, Membership, Side, Map,
           Declaration)


_TABLE_PART = (
    "(SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) || ':' "
    "|| coalesce(sum(hashtext(id::text || '/' || xmin::text)::bigint), 0) "
    "FROM {table} WHERE campaign_id = %(c)s)"
)


def _token_sql() -> str:
    parts = ["(SELECT xmin::text FROM campaigns_campaign WHERE id = %(c)s)"]
    for model in _TABLES:
        table = connection.ops.quote_name(model._meta.db_table)
        # Table names from the models (quoted), never from input.
        parts.append(_TABLE_PART.format(table=table))
    parts.append("pg_current_xact_id_if_assigned()::text")
    return "SELECT " + ", ".join(parts)


def state_token(campaign_id: int) -> str | None:
    """The campaign's state token, or None where no token can be trusted (not PostgreSQL,
    or this transaction has written: see the module's text)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(_token_sql(), {"c": campaign_id})
        *parts, own_xid = cursor.fetchone()
    if own_xid is not None or parts[0] is None:
        return None
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def map_json(*, user: User, campaign: Campaign) -> bytes:
    """`map_response(map_state(user, campaign))` as JSON bytes (orjson; what the API's map
    endpoint answers and the map page embeds), from the cache when the state has not changed
    since it was built for the viewer's role and side. A non-member is refused
    (NotAllowedError), as by `map_state`."""
    return map_json_as(user=user, campaign=campaign, variant="json", make=lambda body: body)


def map_json_as(*, user: User, campaign: Campaign, variant: str,
                make: Callable[[bytes], T]) -> T:
    """`make(map_json(...))`, kept in the cache as `variant` beside the JSON, under the same
    state token (the map page keeps its compressed script element so)."""
    from campaigns.api.serializers import map_response
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


def _compressed_element(body: bytes) -> Part:
    return make_part(_element(body))


def map_page_element(*, user: User, campaign: Campaign) -> bytes:
    """The map page's JSON script element "map-data", kept in the cache like the JSON."""
    return map_json_as(user=user, campaign=campaign, variant="page", make=_element)


def map_page_part(*, user: User, campaign: Campaign) -> Part:
    """That element compressed once (campaigns/gzip_parts.py), kept in the cache."""
    return map_json_as(user=user, campaign=campaign, variant="page-gzip",
                       make=_compressed_element)


def warm(campaign_id: int) -> int:
    """Build what a view of the campaign's map would read (the JSON and the page's compressed
    element) for every role and side that has a member, unless the cache has it already.
    Returns how many viewers' entries it made sure of (none off PostgreSQL or with the
    cache off)."""
    if not settings.MAP_CACHE_SECONDS or state_token(campaign_id) is None:
        return 0
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    viewers: dict[tuple[str, int | None], int] = {}
    for user_id, role, side_id in (Membership.objects.filter(campaign=campaign)
                                   .order_by("pk").values_list("user_id", "role", "side_id")):
        viewers.setdefault((role, side_id), user_id)
    for user in User.objects.filter(pk__in=viewers.values()):
        # Builds and keeps the JSON on the way (the API's answer), then the page's part.
        map_page_part(user=user, campaign=campaign)
    return len(viewers)
