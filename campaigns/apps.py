"""The campaigns app: campaigns, armies, phases, orders, sightings and their records."""

from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        from config import checks  # noqa: F401 - registers the deployment checks
