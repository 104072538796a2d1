"""Fog-of-war audit: EVERY GET endpoint of /api/v1/ (enumerated from the URLconf: a new one
without a row here fails the guard test), called as an alliance player of a seeded Broad Way
campaign, leaves out the opposition units the alliance has not sighted: no id, no name,
anywhere in the response text, at three moments of a turn:

- turn 1's scout phase, before any scouting;
- the move/combat phase after scouting D4, once the player attacked D4's garrison (a combat
  report) and wrote in the alliance's thread;
- turn 2's scout phase after an opposition phase in which the GM moved a stack the alliance
  never saw, set a hidden unit's hits and named hidden units in the opposition's thread.

Every id-taking endpoint is called with every id of its kind in the campaign, the hidden ones
too (the answer must then be the plain 404). The opposition's units are first given names and
ids found nowhere else ("Spearman 1" is also an alliance unit's name, and small ids are also
other rows' ids), so that a plain text search proves their absence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import URLPattern, reverse

from campaigns.api import urls as api_urls
from campaigns.games.erfworld import (
    orders_mark_done,
    phase_end,
    scout_order_give,
    stack_attack,
    stack_move,
    unit_adjust_hits,
)
from campaigns.models import Event, Membership, Phase, Sighting, Stack, Thread, Unit
from campaigns.services.forum import post_create, threads_ensure
from tests.campaigns.engine_setup import opposition_stack, own_stack, put
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]
HIDDEN_ID_BASE = 7_340_000
NOT_FOUND = '{"code":"not_found","detail":"Not found.","field":null}'


@dataclass
class Audit:
    """The campaign as the alliance player `player` meets it."""

    campaign: Any
    gm: Any
    player: Membership

    def base(self, route: str, **kwargs: Any) -> str:
        return reverse(f"api:{route}", kwargs={"campaign_id": self.campaign.pk, **kwargs})

    def stack_ids(self) -> list[int]:
        return list(Stack.objects.filter(campaign=self.campaign).order_by("created_seq", "pk")
                    .values_list("pk", flat=True))


def every_stack(route: str, query: str = "") -> Callable[[Audit], Iterator[str]]:
    def urls(audit: Audit) -> Iterator[str]:
        for pk in audit.stack_ids():
            yield audit.base(route, stack_id=pk) + query
    return urls


def plain(route: str, query: str = "", campaign: bool = True) -> Callable[[Audit], Iterator[str]]:
    def urls(audit: Audit) -> Iterator[str]:
        yield (audit.base(route) if campaign else reverse(f"api:{route}")) + query
    return urls


def every_event(audit: Audit) -> Iterator[str]:
    for pk in Event.objects.filter(campaign=audit.campaign).order_by("pk").values_list(
            "pk", flat=True):
        yield audit.base("report", event_id=pk)


SINCE_REFUSED = ('{"code":"invalid_field","detail":"Not the id of an event of this campaign '
                 'you can see.","field":"since"}')


def events_pages(audit: Audit) -> Iterator[str]:
    yield audit.base("events") + "?since=0&limit=200"
    # The event log read page by page, from each event on ("events since N").
    for pk in Event.objects.filter(campaign=audit.campaign).values_list("pk", flat=True):
        yield audit.base("events") + f"?since={pk}&limit=3"


def every_phase(audit: Audit) -> Iterator[str]:
    for pk in Phase.objects.filter(campaign=audit.campaign).order_by("pk").values_list(
            "pk", flat=True):
        yield audit.base("phase-dice", phase_id=pk)


def join_info(audit: Audit) -> Iterator[str]:
    yield reverse("api:campaign-join") + f"?invite_code={audit.campaign.invite_code}"


def every_thread(audit: Audit) -> Iterator[str]:
    threads_ensure(campaign=audit.campaign)
    for pk in Thread.objects.filter(campaign=audit.campaign).order_by("pk").values_list(
            "pk", flat=True):
        yield audit.base("thread-posts", thread_id=pk)


# Every GET route of the API: how to call it (every URL to read).
GET_ROUTES: dict[str, Callable[[Audit], Iterator[str]]] = {
    "campaigns": plain("campaigns", campaign=False),
    "campaign": plain("campaign"),
    "campaign-join": join_info,
    "map": plain("map"),
    "phase-status": plain("phase-status"),
    "notifications": plain("notifications", campaign=False),
    "notifications-unread-count": plain("notifications-unread-count", campaign=False),
    "scenarios": plain("scenarios", campaign=False),
    "unit-types": plain("unit-types"),
    "army": plain("army"),
    "reports": plain("reports"),
    "report": every_event,
    "events": events_pages,
    "phase-dice": every_phase,
    "setup-dice": plain("setup-dice"),
    "stack-reachable": every_stack("stack-reachable"),
    "stack-path": every_stack("stack-path", "?to=C3"),
    "stack-targets": every_stack("stack-targets"),
    "stack-siege-targets": every_stack("stack-siege-targets"),
    "threads": plain("threads"),
    "mutes": plain("mutes"),
    "after-action": plain("after-action"),
    "declarations": plain("declarations"),
    "thread-posts": every_thread,
    "game": plain("game"),
    "battle-scenarios": plain("battle-scenarios", campaign=False),
}


def get_routes() -> set[str]:
    names = set()
    for entry in api_urls.urlpatterns:
        assert isinstance(entry, URLPattern)
        view = entry.callback.cls  # type: ignore[attr-defined]
        if hasattr(view, "get"):
            names.add(entry.name)
    return names


def test_every_get_route_is_audited():
    assert sorted(get_routes() ^ set(GET_ROUTES)) == []


# --- the seeded campaign at three moments -------------------------------------------------


def disguise_the_opposition(campaign) -> None:
    """Distinctive ids and names for every opposition unit (none is referenced yet)."""
    for i, unit in enumerate(Unit.objects.filter(campaign=campaign, side__kind="opposition")
                             .order_by("created_seq", "pk")):
        Unit.objects.filter(pk=unit.pk).update(id=HIDDEN_ID_BASE + i, name=f"Zorblax {i}")


def seeded() -> Audit:
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    disguise_the_opposition(campaign)
    return Audit(campaign=campaign, gm=gm, player=p1)


def scouted_and_fought(audit: Audit) -> Audit:
    """Scout 1 inspected B1 … D4; in the move/combat phase p1's stack attacked D4 from D3."""
    campaign = audit.campaign
    scout_order_give(user=audit.player.user, campaign=campaign,
                     scout=Unit.objects.get(owner=audit.player, name="Scout 1"),
                     directions=TO_D4)
    phase_end(user=audit.gm, campaign=campaign)
    stack_attack(user=audit.player.user, campaign=campaign,
                 stack=put(own_stack(audit.player), "D3"),
                 target=opposition_stack(campaign, "D4"))
    threads_ensure(campaign=campaign)
    post_create(user=audit.player.user, body="We hit D4.",
                thread=Thread.objects.get(campaign=campaign, side__kind="alliance"))
    return audit


def after_the_opposition_phase(audit: Audit) -> Audit:
    """Then the move/combat phase ends; in the opposition phase the GM moves the unsighted
    G7 stack, sets a hidden unit's hits and names hidden units in the opposition's thread;
    turn 2's scout phase opens."""
    campaign, gm = audit.campaign, audit.gm
    for member in Membership.objects.filter(campaign=campaign, role="player"):
        orders_mark_done(user=member.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    g7 = opposition_stack(campaign, "G7")
    stack_move(user=gm, campaign=campaign, stack=g7, destination="F7")
    victim = Unit.objects.filter(stack=opposition_stack(campaign, "J10")).order_by("created_seq", "pk").first()
    unit_adjust_hits(user=gm, unit=victim, hits=1, reason=f"{victim.name} fell off the wall.")
    names = ", ".join(Unit.objects.filter(stack=g7).values_list("name", flat=True))
    post_create(user=gm, body=f"{names} march on F7.",
                thread=Thread.objects.get(campaign=campaign, side__kind="opposition"))
    phase_end(user=gm, campaign=campaign)
    return audit


def sighted_names(campaign) -> set[str]:
    return {u["name"] for s in Sighting.objects.filter(campaign=campaign, side__kind="alliance")
            for stack in s.seen["stacks"] for u in stack["units"]}


def hidden_units(campaign) -> list[tuple[int, str]]:
    seen = sighted_names(campaign)
    return [(u.pk, u.name) for u in Unit.objects.filter(campaign=campaign,
                                                         side__kind="opposition")
            if u.name not in seen]


def leaks(text: str, hidden: list[tuple[int, str]]) -> list[int | str]:
    found: list[int | str] = []
    for pk, name in hidden:
        if re.search(rf"(?<![0-9A-Za-z]){pk}(?![0-9A-Za-z])", text):
            found.append(pk)
        if re.search(rf"{re.escape(name)}(?!\d)", text):
            found.append(name)
    return found


def read_everything(client, audit: Audit) -> dict[str, tuple[str, int, str]]:
    """`url: (route, status, text)` of every GET route, then the answers of the player's own
    orders of the phase (a scout order, done)."""
    out = {}
    for route, urls in GET_ROUTES.items():
        for url in urls(audit):
            response = client.get(url)
            out[url] = (route, response.status_code, response.content.decode())
    phase = Phase.objects.get(campaign=audit.campaign, status="open")
    if phase.kind == "scout":
        scout = Unit.objects.get(owner=audit.player, name="Scout 2")
        response = client.post(audit.base("scout-orders"),
                               {"scout": scout.pk, "directions": ["S"]}, format="json")
        out["POST scout-orders"] = ("scout-orders", response.status_code,
                                    response.content.decode())
    response = client.post(audit.base("done"), {}, format="json")
    out["POST done"] = ("done", response.status_code, response.content.decode())
    return out


def audit(client, state: Audit) -> tuple[dict[str, list[Any]], set[str]]:
    """(the leaks of every call, the routes that answered 200). Any answer other than 200
    (201 for an order) must be the bare 404 of a thing the player may not know of, or the
    refusal of an order (a stack read outside the phase for moves or of an ally's stack, a
    scout without a commander), or the one refusal of the event log's `since` for any event
    the player cannot see, hidden or absent alike."""
    hidden = hidden_units(state.campaign)
    calls = read_everything(client, state)
    for url, (route, status, text) in calls.items():
        assert status in (200, 201) or (status == 404 and text == NOT_FOUND) or (
            status in (400, 403) and (route.startswith("stack-") or route == "scout-orders")
        ) or (status == 400 and route == "events" and text == SINCE_REFUSED) or (
            status == 403 and route == "declarations" and '"code":"gm_only"' in text), (
            url, status, text)
    return ({url: leaks(text, hidden) for url, (_, _, text) in calls.items()},
            {route for route, status, _ in calls.values() if status in (200, 201)})


def no_leaks(found: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {url: [] for url in found}


# The audit's army has no siege unit: its stacks' siege targets are refused (400) everywhere;
# the after-action report is "not found" until the campaign ends (the fog lifts then); the
# opposition's declared combats are the GM's alone (403 to a player).
NO_SIEGE = {"stack-siege-targets", "after-action", "declarations"}
ALL_BUT_MOVES = set(GET_ROUTES) - {"stack-reachable", "stack-path", "stack-targets"} - NO_SIEGE


def test_before_any_scouting_no_opposition_unit_appears_anywhere(client_for):
    state = seeded()
    hidden = hidden_units(state.campaign)
    assert len(hidden) == Unit.objects.filter(campaign=state.campaign,
                                              side__kind="opposition").count()
    found, answered = audit(client_for(state.player.user), state)
    assert found == no_leaks(found)
    # No report yet: every event is answered 404 at reports/<id>/.
    assert answered == ALL_BUT_MOVES - {"report"} | {"scout-orders", "done"}


def test_in_the_move_phase_after_a_combat_only_the_sighted_units_appear(client_for):
    state = scouted_and_fought(seeded())
    hidden = hidden_units(state.campaign)
    sighted = sighted_names(state.campaign)
    # D4's five units were sighted; every other opposition unit stays hidden.
    assert (len(sighted), len(hidden)) == (
        5, Unit.objects.filter(campaign=state.campaign, side__kind="opposition").count() - 5)
    found, answered = audit(client_for(state.player.user), state)
    assert found == no_leaks(found)
    assert answered == set(GET_ROUTES) - NO_SIEGE | {"done"}
    # The audit can see a leak: the sighted names are in the combat report, and the map
    # names the units D4 holds after the fight (the fallen ones are gone from the picture).
    report = Event.objects.get(campaign=state.campaign, kind="combat")
    texts = read_everything(client_for(state.player.user), state)
    standing = set(Unit.objects.filter(campaign=state.campaign, stack__hex="D4",
                                       current_hits__gt=0).values_list("name", flat=True))
    assert all(name in texts[state.base("report", event_id=report.pk)][2] for name in sighted)
    on_map = {n for n in sighted if re.search(rf"{re.escape(n)}(?!\d)", texts[state.base("map")][2])}
    assert on_map == standing


def test_after_the_opposition_phase_the_gms_moves_and_words_stay_hidden(client_for):
    state = after_the_opposition_phase(scouted_and_fought(seeded()))
    hidden = hidden_units(state.campaign)
    assert len(hidden) == Unit.objects.filter(campaign=state.campaign,
                                              side__kind="opposition").count() - 5
    found, answered = audit(client_for(state.player.user), state)
    assert found == no_leaks(found)
    assert answered == ALL_BUT_MOVES | {"done"}
    # The GM reads what the player may not: the audit would see it.
    gm_texts = read_everything(client_for(state.gm), state)
    assert {name for _, name in hidden} <= {
        leak for _, _, text in gm_texts.values() for leak in leaks(text, hidden)}


def test_the_audit_catches_a_leak(client_for):
    state = seeded()
    hidden = hidden_units(state.campaign)
    gm_map = client_for(state.gm).get(state.base("map")).content.decode()
    assert len(leaks(gm_map, hidden)) == 2 * len(hidden)
