"""A campaign's webhooks and their delivery log.

A webhook's URL is a secret (a Discord or Slack webhook URL lets anyone post to the channel):
only the campaign's GM sees it, masked, and it is in no export. JSON webhooks sign each body
with their own secret (HMAC-SHA256 in the `X-Warcamp-Signature` header)."""

from __future__ import annotations

from django.db import models

from campaigns.models import Campaign, Event


class WebhookFormat(models.TextChoices):
    DISCORD = "discord", "Discord"
    SLACK = "slack", "Slack"
    JSON = "json", "JSON (signed, for bots)"


class Topic(models.TextChoices):
    """What a webhook may carry: only events every member of the campaign may see."""

    PHASE_OPENED = "phase_opened", "A phase opened"
    REMINDER = "reminder", "Deadline reminders (24 h and 1 h before)"
    PHASE_CLOSED = "phase_closed", "A phase closed"
    COMBAT = "combat", "Combat, ambush and siege results"
    PAUSE = "pause", "Campaign paused or resumed"
    VICTORY = "victory", "Victory (the campaign finished)"


class Webhook(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="webhooks")
    format = models.CharField(max_length=10, choices=WebhookFormat.choices)
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64, blank=True)
    topics = models.JSONField(default=list)
    label = models.CharField(max_length=80, blank=True)
    active = models.BooleanField(default=True)
    failures_in_a_row = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.label or f"{self.get_format_display()} webhook"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed"


class Delivery(models.Model):
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="+")
    body = models.JSONField()
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices,
                              default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.webhook}: {self.status}"
