"""Pages: the notification centre (/notifications/): every notification with a link to where it
leads, filters by campaign and unread, mark one or all read; and the mails' one-click
unsubscribe (/mail/unsubscribe/<signed token>/)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts.models import NotificationKind, User
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


@csrf_exempt  # the signed token is the credential: mail clients post without a session
def mail_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """A mail's one-click unsubscribe (RFC 8058): GET asks, POST stops that kind of mail for
    that user (the mail client's own POST does it without asking). A bad token is 404."""
    from campaigns.mail import read_unsubscribe_token

    found = read_unsubscribe_token(token)
    user = User.objects.filter(pk=found[0]).first() if found else None
    if found is None or user is None:
        raise Http404("This unsubscribe link is not valid.")
    kind = NotificationKind(found[1])
    done = False
    if request.method == "POST":
        user.email_notifications = {**user.email_notifications, kind.value: False}
        user.save(update_fields=["email_notifications"])
        done = True
    elif request.method != "GET":
        return HttpResponseNotAllowed(["GET", "POST"])
    return render(request, "notifications/unsubscribe.html",
                  {"kind": kind.label, "done": done, "who": user.public_name})


urlpatterns: list[URLPattern] = [
    path("mail/unsubscribe/<str:token>/", mail_unsubscribe, name="mail-unsubscribe"),
    path("notifications/", notifications, name="notifications"),
    path("notifications/read/", notifications_read, name="notifications-read"),
]
