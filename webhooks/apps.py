from typing import Any

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from campaigns.services.common import event_recorded

        event_recorded.connect(_deliveries, dispatch_uid="webhooks.deliveries")


def _deliveries(sender: Any, *, event: Any, **kwargs: Any) -> None:
    """A delivery of the event per active webhook that wants it (services.on_event)."""
    from webhooks.services import on_event

    on_event(event)
