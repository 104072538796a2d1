"""Webhook deliveries through Celery: an attempt now, then retries with backoff."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from webhooks.services import MAX_ATTEMPTS, attempt, backoff_seconds


@shared_task(name="webhooks.tasks.deliver_webhook", bind=True, acks_late=True,
             max_retries=MAX_ATTEMPTS, ignore_result=True)
def deliver_webhook(self: Any, delivery_id: int) -> str:
    outcome = attempt(delivery_id)
    if outcome == "retry":
        raise self.retry(countdown=backoff_seconds(self.request.retries + 1))
    return outcome
