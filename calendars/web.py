"""The calendar feed URLs and the profile's controls for the private feed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from calendars import services
from campaigns.models import Campaign

ICS = "text/calendar; charset=utf-8"


@require_GET
def user_feed(request: HttpRequest, token: str) -> HttpResponse:
    user = services.user_for_token(token)
    if user is None:
        raise Http404("No such calendar.")
    response = HttpResponse(services.user_feed(user), content_type=ICS)
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def campaign_feed(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    return HttpResponse(services.campaign_feed(campaign), content_type=ICS)


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    token = services.calendar_token_create(user=_user(request))
    url = request.build_absolute_uri(f"/calendar/{token}.ics")
    request.session["new_calendar_url"] = url
    messages.success(request, "Your new calendar link is below; the old one, if any, no "
                              "longer works.")
    return redirect("profile")


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    services.calendar_token_revoke(user=_user(request))
    messages.success(request, "Your calendar link no longer works.")
    return redirect("profile")


urlpatterns = [
    path("calendar/<str:token>.ics", user_feed, name="calendar-feed"),
    path("campaigns/<int:campaign_id>/deadlines.ics", campaign_feed,
         name="campaign-calendar"),
    path("accounts/profile/calendar/", token_create, name="calendar-token-create"),
    path("accounts/profile/calendar/revoke/", token_revoke, name="calendar-token-revoke"),
]
