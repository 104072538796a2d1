"""Pages: the campaign map (an SVG drawn by static/js/map.js from the fogged map JSON)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.views.decorators.http import require_GET

from campaigns.models import Campaign
from campaigns.selectors.map_page import acting_for, map_page_tools
from campaigns.web import campaign_page_context, member_or_404


@login_required
def campaign_map(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The map page: the frame and the viewer's tools data. map.js draws the map from the
    API's map endpoint (the fog of war is applied there), which the page's head preloads: the
    server reads the map while the browser loads the scripts, and the first view and every
    refetch after an action come from the same answer."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    context = campaign_page_context(request, campaign)
    user = context["membership"].user
    api_base = reverse("api:campaign", args=[campaign.pk])
    ally = acting_for(viewer=context["membership"],
                      on_behalf_of=request.GET.get("on_behalf_of"))
    context.update({
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
    return render(request, "campaigns/map.html", context)


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
    path("<int:campaign_id>/map/tools/", campaign_map_tools, name="map-tools"),
]
