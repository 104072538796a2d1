"""The GM's webhooks page of a campaign: add (Discord, Slack or signed JSON, with the events
to send), send a test, switch back on, remove, and read the delivery log."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_POST

from accounts.models import User
from campaigns.errors import CampaignError
from campaigns.models import Campaign
from campaigns.web import campaign_page_context
from webhooks import services
from webhooks.models import Delivery, Topic, Webhook, WebhookFormat

LOG_SIZE = 20


def _gm_context(request: HttpRequest, campaign_id: int) -> dict[str, Any]:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    context = campaign_page_context(request, campaign)
    if not context["is_gm"]:
        # A player learns nothing of the GM's webhooks, not even that the page exists.
        raise Http404("No such page.")
    return context


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


@login_required
def webhooks_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    context = _gm_context(request, campaign_id)
    campaign = context["campaign"]
    errors: dict[str, str] = {}
    values: dict[str, Any] = {"format": WebhookFormat.DISCORD, "url": "", "label": "",
                              "topics": [t.value for t in Topic]}
    if request.method == "POST":
        values = {"format": request.POST.get("format", ""), "url": request.POST.get("url", ""),
                  "label": request.POST.get("label", "")[:80],
                  "topics": request.POST.getlist("topics")}
        try:
            hook = services.webhook_add(user=_user(request), campaign=campaign, **values)
        except CampaignError as exc:
            errors[exc.field or "page"] = exc.message
        else:
            note = f"Webhook “{hook}” added."
            if hook.secret:
                note += f" Its signing secret (shown here once): {hook.secret}"
            messages.success(request, note)
            return redirect("webhooks:page", campaign.pk)
    hooks = list(Webhook.objects.filter(campaign=campaign))
    context.update(
        errors=errors, values=values, formats=WebhookFormat.choices, topics=Topic.choices,
        hooks=[{"hook": h, "url": services.masked_url(h.url),
                "topics": [t.label for t in Topic if t.value in h.topics]}
               for h in hooks],
        log=list(Delivery.objects.filter(webhook__campaign=campaign)
                 .select_related("webhook", "event")[:LOG_SIZE]),
    )
    return render(request, "webhooks/campaign.html", context, status=400 if errors else 200)


def _hook(request: HttpRequest, campaign_id: int, webhook_id: int) -> Webhook:
    _gm_context(request, campaign_id)
    return get_object_or_404(Webhook, pk=webhook_id, campaign_id=campaign_id)


@login_required
@require_POST
def webhook_action(request: HttpRequest, campaign_id: int, webhook_id: int,
                   action: str) -> HttpResponse:
    hook = _hook(request, campaign_id, webhook_id)
    user = _user(request)
    if action == "remove":
        services.webhook_remove(user=user, webhook=hook)
        messages.success(request, f"Webhook “{hook}” removed.")
    elif action == "test":
        services.webhook_test(user=user, webhook=hook)
        messages.success(request, f"A test message to “{hook}” is on its way: see the log below.")
    elif action == "enable":
        services.webhook_enable(user=user, webhook=hook)
        messages.success(request, f"Webhook “{hook}” is on again.")
    else:
        raise Http404("No such action.")
    return redirect("webhooks:page", campaign_id)


app_name = "webhooks"
urlpatterns = [
    path("<int:campaign_id>/webhooks/", webhooks_page, name="page"),
    path("<int:campaign_id>/webhooks/<int:webhook_id>/<slug:action>/", webhook_action,
         name="action"),
]
