"""Fog-of-war helpers of the page tests: give the opposition names and ids found nowhere
else, then search a page's text for any unit the alliance has not sighted."""

import re

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Sighting, Unit
from tests.factories import started_campaign_factory

HIDDEN_ID_BASE = 7_340_000
# Scout 1's inspect path from the entry hex A1 to the garrison at D4.
TO_D4 = ["SE", "S", "SE", "SE", "S"]


def disguise_the_opposition(campaign):
    """Distinctive ids and names for every opposition unit (call before anything refers to them)."""
    for i, unit in enumerate(Unit.objects.filter(campaign=campaign, side__kind="opposition")
                             .order_by("created_seq", "pk")):
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


def scouted_campaign():
    """Started with one player, the opposition disguised; p1's Scout 1 inspected D4 and the GM
    ended the scout phase (so the move/combat phase is open with its snapshot taken)."""
    campaign, gm, members = started_campaign_factory(players=1)
    disguise_the_opposition(campaign)
    scout_order_give(user=members[0].user, campaign=campaign,
                     scout=Unit.objects.get(owner=members[0], name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    return campaign, gm, members
