"""Pages: the campaign map (an SVG drawn by static/js/map.js from the fogged map JSON)."""

from __future__ import annotations

import secrets
import zlib
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.middleware.gzip import re_accepts_gzip  # as GZipMiddleware decides it
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from accounts.models import User
from campaigns.models import Campaign
from campaigns.selectors.map_json import map_page_element
from campaigns.selectors.map_page import acting_for, map_page_tools
from campaigns.web import campaign_page_context, erfworld_only, member_or_404


@login_required
def campaign_map(request: HttpRequest, campaign_id: int) -> StreamingHttpResponse:
    """The map as the viewer may see it, streamed in two parts: the page down to the map (its
    head names the styles and scripts) at once, then the map JSON, which is exactly what the
    API's map endpoint answers (2 MB on a 100 × 100 map with 2,000 stacks), and the rest. The
    browser loads the scripts while the server reads the map. Who may see the page is decided
    before the first byte: a non-member gets a 404."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    if campaign.ruleset_key != "erfworld":
        # A battle's map is on its battle page.
        member_or_404(request, campaign)
        return redirect("campaigns:battle", campaign.pk)  # type: ignore[return-value]
    context = campaign_page_context(request, campaign)
    user = context["membership"].user
    api_base = reverse("api:campaign", args=[campaign.pk])
    ally = acting_for(viewer=context["membership"],
                      on_behalf_of=request.GET.get("on_behalf_of"))
    # Where the map JSON goes: a marker no page text can hold (the page shows names players
    # chose).
    slot = f"map-data-{secrets.token_hex(16)}"
    context.update({
        "map_data_slot": slot,
        "map_page": {
            "campaign": campaign.pk,
            "api": api_base,
            "map_url": reverse("api:map", args=[campaign.pk]),
            "report_url": _report_url(campaign.pk),
            "tools_url": reverse("campaigns:map-tools", args=[campaign.pk]),
            "csrf_token": get_token(request),
            **map_page_tools(user=user, campaign=campaign),
            "acting_for": ally,
        },
        "acting_for": ally,
    })
    head, tail = render_to_string("campaigns/map.html", context, request=request).split(slot)

    parts = _page(head.encode(), user, campaign, tail.encode())
    gzipped = bool(re_accepts_gzip.search(request.headers.get("accept-encoding", "")))
    response = StreamingHttpResponse(_gzip(parts) if gzipped else parts,
                                     content_type="text/html; charset=utf-8")
    patch_vary_headers(response, ("Accept-Encoding",))
    if gzipped:
        # Compressed here, so the head is flushed on its own (GZipMiddleware leaves a
        # response with a Content-Encoding alone, and would hold the head back).
        response["Content-Encoding"] = "gzip"
    return response


def _page(head: bytes, user: User, campaign: Campaign, tail: bytes) -> Iterator[bytes]:
    """The head at once, then the map's script element (kept in the cache per state and
    side) and the rest."""
    yield head
    yield map_page_element(user=user, campaign=campaign) + tail


def _gzip(parts: Iterator[bytes]) -> Iterator[bytes]:
    """One gzip stream, each part flushed as it comes (zlib: a sync flush ends a part on a
    byte boundary the browser can decode at once)."""
    stream = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: with the gzip header and trailer
    for part in parts:
        yield stream.compress(part) + stream.flush(zlib.Z_SYNC_FLUSH)
    yield stream.flush()


@login_required
@require_GET
def campaign_map_tools(request: HttpRequest, campaign_id: int) -> JsonResponse:
    """The tools data of the map page again (scout orders, pops, unit types), for map.js
    when the phase changes under an open page."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    membership = member_or_404(request, campaign)
    return JsonResponse(map_page_tools(user=membership.user, campaign=campaign))


_EVENT = 999_999_999


def _report_url(campaign_id: int) -> str | None:
    """The address of a report with "{event}" for the event id, for map.js to fill in; None
    while the reports page (another module's) has no such route."""
    try:
        return reverse("campaigns:report", args=[campaign_id, _EVENT]).replace(
            str(_EVENT), "{event}")
    except NoReverseMatch:
        return None


urlpatterns: list[URLPattern] = [
    path("<int:campaign_id>/map/", campaign_map, name="map"),
    path("<int:campaign_id>/map/tools/", erfworld_only(campaign_map_tools, page=False),
         name="map-tools"),
]
