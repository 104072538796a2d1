"""The campaigns app: campaigns, armies, phases, orders, sightings and their records."""

from typing import Any

from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        # Each game registers itself behind campaigns.game.Game (docs/architecture.md).
        import campaigns.games.battle.game  # noqa: F401
        import campaigns.games.erfworld.game  # noqa: F401
        from campaigns.services.common import event_recorded
        from config import checks  # noqa: F401 - registers the deployment checks

        event_recorded.connect(_forum_answers, dispatch_uid="campaigns.forum")


def _forum_answers(sender: Any, *, event: Any, **kwargs: Any) -> None:
    """The forum's threads and system posts of an event (services.forum.forum_on_event)."""
    from campaigns.services.forum import forum_on_event

    forum_on_event(event)
