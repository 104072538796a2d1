"""Page: the notification centre (/notifications/): every notification with a link to where it
leads, filters by campaign and unread, mark one or all read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from campaigns.models import Notification
from campaigns.selectors.notifications import notification_centre
from campaigns.services.deadlines import notifications_mark_read


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _campaign_filter(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


@login_required
@require_GET
def notifications(request: HttpRequest) -> HttpResponse:
    centre = notification_centre(user=_user(request),
                                 campaign_id=_campaign_filter(request.GET.get("campaign")),
                                 unread_only=request.GET.get("unread") == "1")
    return render(request, "notifications/index.html", {"centre": centre})


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    """Mark one notification (`id`) or all of the user's (of one campaign when `campaign`
    is given) read, then back to the list with its filters."""
    user = _user(request)
    campaign_id = _campaign_filter(request.POST.get("campaign"))
    if request.POST.get("all") == "1":
        unread = Notification.objects.filter(user=user, read_at__isnull=True)
        if campaign_id is not None:
            unread = unread.filter(campaign_id=campaign_id)
        ids = list(unread.values_list("pk", flat=True))
    else:
        ids = [_campaign_filter(request.POST.get("id")) or 0]
    notifications_mark_read(user=user, notification_ids=ids)
    query = request.POST.get("back", "")
    target = reverse("notifications")
    return HttpResponseRedirect(target + (f"?{query}" if query and "//" not in query else ""))


urlpatterns: list[URLPattern] = [
    path("notifications/", notifications, name="notifications"),
    path("notifications/read/", notifications_read, name="notifications-read"),
]
