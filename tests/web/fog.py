"""Fog-of-war helpers of the page tests: give the opposition names and ids found nowhere
else, then search a page's text for any unit the alliance has not sighted."""

import re

from campaigns.models import Sighting, Unit

HIDDEN_ID_BASE = 7_340_000


def disguise_the_opposition(campaign):
    """Distinctive ids and names for every opposition unit (call before anything refers to them)."""
    for i, unit in enumerate(Unit.objects.filter(campaign=campaign, side__kind="opposition")
                             .order_by("pk")):
        Unit.objects.filter(pk=unit.pk).update(id=HIDDEN_ID_BASE + i, name=f"Zorblax {i}")


def hidden_units(campaign):
    """(id, name) of every opposition unit the alliance has not sighted."""
    seen = {u["name"] for s in Sighting.objects.filter(campaign=campaign, side__kind="alliance")
            for stack in s.seen["stacks"] for u in stack["units"]}
    return [(u.pk, u.name) for u in Unit.objects.filter(campaign=campaign,
                                                         side__kind="opposition")
            if u.name not in seen]


def leaks(text, hidden):
    found = []
    for pk, name in hidden:
        if re.search(rf"(?<![0-9A-Za-z]){pk}(?![0-9A-Za-z])", text):
            found.append(pk)
        if re.search(rf"{re.escape(name)}(?!\d)", text):
            found.append(name)
    return found
