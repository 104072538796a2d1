"""Fog-of-war audit: every endpoint, called as an alliance player of the seeded Broad Way
campaign, leaves out the opposition units the alliance has not sighted: no id, no name,
anywhere in the response text.

The opposition's units are given names and ids found nowhere else first (the scenario's
"Spearman 1" is also an alliance unit's name, and small ids are also other rows' ids), so
that a plain text search proves their absence.
"""

import re

import pytest

from campaigns.models import Phase, Sighting, Stack, Unit
from campaigns.services import phase_end, scout_order_give
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]
HIDDEN_ID_BASE = 7_340_000


def disguise_the_opposition(campaign):
    """Distinctive ids and names for every opposition unit (none is referenced yet)."""
    for i, unit in enumerate(Unit.objects.filter(campaign=campaign, side__kind="opposition")
                             .order_by("pk")):
        Unit.objects.filter(pk=unit.pk).update(id=HIDDEN_ID_BASE + i, name=f"Zorblax {i}")


def sighted_names(campaign):
    return {u["name"] for s in Sighting.objects.filter(campaign=campaign, side__kind="alliance")
            for stack in s.seen["stacks"] for u in stack["units"]}


def hidden_units(campaign):
    seen = sighted_names(campaign)
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


def responses(client, campaign, p1):
    """The text of every API endpoint as `p1` sees it, by method and path."""
    base = f"/api/v1/campaigns/{campaign.pk}/"
    phase = Phase.objects.get(campaign=campaign, status="open")
    calls = [
        ("get", "/api/v1/campaigns/", None),
        ("get", base, None),
        ("get", base + "map/", None),
        ("get", base + "phase/", None),
        ("get", "/api/v1/notifications/", None),
        ("get", "/api/v1/notifications/unread-count/", None),
        # Setup, reports, events and dice (campaigns/api/views_setup.py).
        ("get", "/api/v1/scenarios/", None),
        ("get", base + "unit-types/", None),
        ("get", base + "army/", None),
        ("get", base + "reports/", None),
        ("get", base + "events/?since=0&limit=200", None),
        ("get", base + "setup-dice/", None),
    ]
    calls += [("get", f"{base}phases/{pk}/dice/", None)
              for pk in Phase.objects.filter(campaign=campaign).order_by("pk")
              .values_list("pk", flat=True)]
    calls += [("get", f"{base}reports/{report['id']}/", None)
              for report in client.get(base + "reports/").json()]
    if phase.kind == "scout":
        scout = Unit.objects.get(owner=p1, name="Scout 2")
        calls.append(("post", base + "scout-orders/", {"scout": scout.pk, "directions": ["S"]}))
    if phase.kind == "move_combat":
        # The play reads of p1's own stack (campaigns/api/views_play.py).
        stack = Stack.objects.get(units__owner=p1, units__name="Warlord 1")
        for tail in ("reachable/", "path/?to=B1", "targets/"):
            calls.append(("get", f"{base}stacks/{stack.pk}/{tail}", None))
    calls.append(("post", base + "done/", {}))
    out = {}
    for method, path, data in calls:
        response = getattr(client, method)(path, data, format="json") if data is not None \
            else getattr(client, method)(path)
        assert response.status_code in (200, 201), (method, path, response.content)
        out[f"{method.upper()} {path}"] = response.content.decode()
    return out


def test_before_any_scouting_no_opposition_unit_appears_anywhere(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    disguise_the_opposition(campaign)
    hidden = hidden_units(campaign)
    assert len(hidden) == Unit.objects.filter(campaign=campaign, side__kind="opposition").count()
    texts = responses(client_for(p1.user), campaign, p1)
    assert {call: leaks(text, hidden) for call, text in texts.items()} == {
        call: [] for call in texts
    }


def test_after_scouting_only_the_sighted_units_appear(client_for):
    campaign, gm, (p1, *_rest) = started_campaign_factory()
    disguise_the_opposition(campaign)
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    hidden = hidden_units(campaign)
    sighted = sighted_names(campaign)
    # D4's five units were sighted; every other opposition unit stays hidden.
    assert (len(sighted), len(hidden)) == (
        5, Unit.objects.filter(campaign=campaign, side__kind="opposition").count() - 5
    )
    texts = responses(client_for(p1.user), campaign, p1)
    assert {call: leaks(text, hidden) for call, text in texts.items()} == {
        call: [] for call in texts
    }
    # The audit can see a leak: the sighted names are in the map.
    assert all(name in texts[f"GET /api/v1/campaigns/{campaign.pk}/map/"] for name in sighted)


def test_the_audit_catches_a_leak(client_for):
    campaign, gm, (p1, *_rest) = started_campaign_factory(players=1)
    disguise_the_opposition(campaign)
    hidden = hidden_units(campaign)
    gm_map = client_for(gm).get(f"/api/v1/campaigns/{campaign.pk}/map/").content.decode()
    assert len(leaks(gm_map, hidden)) == 2 * len(hidden)
