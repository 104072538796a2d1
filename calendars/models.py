"""A user's private calendar feed token: stored as its SHA-256 only (the URL is the secret),
revocable; a new one replaces the old."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class CalendarToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="calendar_tokens")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.prefix}… of {self.user}"
