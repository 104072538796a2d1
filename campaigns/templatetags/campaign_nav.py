"""The tabs of a campaign's pages: one per page module, the GM tab for the GM only."""

from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse

register = template.Library()

# (URL name, label, GM only). A page whose route is not installed is left out.
TABS = (
    ("campaigns:lobby", "Overview", False),
    ("campaigns:map", "Map", False),
    ("campaigns:reports", "Reports", False),
    ("campaigns:history", "History", False),
    ("campaigns:forum", "Forum", False),
    ("campaigns:gm-campaign", "GM", True),
)

# A battle of another rule system than Erfworld: its page, the forum, the GM's tab is on it.
BATTLE_TABS = (
    ("campaigns:battle", "Battle", False),
    ("campaigns:forum", "Forum", False),
)


@register.inclusion_tag("campaigns/_nav.html", takes_context=True)
def campaign_nav(context: dict[str, Any], campaign: Any, is_gm: bool = False) -> dict[str, Any]:
    request = context.get("request")
    current = request.resolver_match.view_name if request and request.resolver_match else ""
    tabs = []
    tabs_of = TABS if getattr(campaign, "ruleset_key", "erfworld") == "erfworld" else BATTLE_TABS
    for name, label, gm_only in tabs_of:
        if gm_only and not is_gm:
            continue
        try:
            url = reverse(name, args=[campaign.pk])
        except NoReverseMatch:
            continue
        tabs.append({"url": url, "label": label, "current": current == name})
    return {"tabs": tabs, "campaign": campaign}
