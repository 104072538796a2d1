"""The campaigns app: campaigns, armies, phases, orders, sightings and their records."""

from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"
