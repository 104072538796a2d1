"""A whole campaign turn played through the API alone, each person with their own token.

The GM creates a Broad Way campaign; two players join, design and buy their armies, mark them
ready and elect a Chief Warlord; the GM starts it. Turn 1: the scout phase (a scout order,
done, the Chief Warlord ends it), the alliance's move/combat phase (a split, a move along the
road, an attack with its preview first, a second player's move, done, end) and the opposition
phase (the GM moves an opposition stack the alliance never saw, and ends it). Turn 2's scout
phase is then open, the alliance has not seen the GM's move, and every die of turn 1 checks
out against its revealed seed. The dice are the phases' own (nothing fixed by hand), so the
combat's numbers are checked against the stored record and the preview's odds.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.services import api_token_create
from campaigns.models import Event, Membership, Notification, Phase, Stack
from tests.factories import STANDARD_ARMY, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]


class Caller:
    """One person of the campaign, talking to the API with their own token only."""

    def __init__(self, name: str) -> None:
        self.user = UserFactory(username=name)
        self.client = APIClient()
        key = api_token_create(user=self.user)
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    def get(self, path: str) -> Any:
        response = self.client.get("/api/v1/" + path)
        assert response.status_code == 200, (path, response.content)
        return response.json()

    def post(self, path: str, body: Any = None, *, status: int = 200) -> Any:
        response = self.client.post("/api/v1/" + path, body or {}, format="json")
        assert response.status_code == status, (path, response.content)
        return response.json() if response.content else None


def stack_of(state: dict[str, Any], membership: int) -> dict[str, Any]:
    return next(s for s in state["stacks"] if s["units"][0].get("owner") == membership)


def unit_ids(stack: dict[str, Any], prefix: str) -> list[int]:
    return [u["id"] for u in stack["units"] if u["name"].startswith(prefix)]


def test_a_whole_turn_through_the_api():
    gm, ann, bob = Caller("gm"), Caller("ann"), Caller("bob")

    # --- setup: create, join, armies, election, start -------------------------------------
    created = gm.post("campaigns/", {"scenario": "broad_way", "name": "Over the wire"},
                      status=201)
    c = f"campaigns/{created['id']}/"
    member: dict[str, int] = {}
    for name, player in (("ann", ann), ("bob", bob)):
        joined = player.post("campaigns/join/", {"invite_code": created["invite_code"]},
                             status=201)
        member[name] = joined["membership"]
        for type_name, stats, count in STANDARD_ARMY:
            made = player.post(c + "unit-types/", {"name": type_name, **stats}, status=201)
            bought = player.post(c + "units/buy/", {"unit_type": made["id"], "count": count},
                                 status=201)
            assert len(bought) == count
        assert player.post(c + "army/ready/")["ready"] is True
    first = ann.post(c + "election/vote/", {"candidate": member["ann"]})
    second = bob.post(c + "election/vote/", {"candidate": member["ann"]})
    # The election stays open until the start, which closes it: ann has both votes.
    assert (first["chief_warlord"], second["chief_warlord"]) == (None, None)
    started = gm.post(c + "gm/start/")
    assert gm.get(c)["status"] == "running"
    assert Membership.objects.get(pk=member["ann"]).is_chief_warlord is True
    assert (started["status"], started["phase"]["turn"], started["phase"]["kind"]) == (
        "running", 1, "scout")
    assert gm.get(c + "setup-dice/")["all_match"] is True

    # --- turn 1, scout phase ------------------------------------------------------------------
    state = ann.get(c + "map/")
    ann_stack, bob_stack = stack_of(state, member["ann"]), stack_of(state, member["bob"])
    assert (ann_stack["hex"], bob_stack["hex"]) == ("A1", "A1")
    order = ann.post(c + "scout-orders/",
                     {"scout": unit_ids(ann_stack, "Scout 1")[0], "directions": TO_D4},
                     status=201)
    assert order["inspected_hexes"] == ["B1", "B2", "C3", "D3", "D4"]
    ann.post(c + "done/")
    bob.post(c + "done/")
    board = ann.get(c + "phase/")["open_phase"]
    assert [(p["membership"], p["done"]) for p in board["players"]] == [
        (member["ann"], True), (member["bob"], True)]
    move_phase = ann.post(c + "phase/end/", {"expected_phase": started["phase"]["id"],
                                             "reason": "All scouted."})
    assert (move_phase["turn"], move_phase["kind"]) == (1, "move_combat")
    state = ann.get(c + "map/")
    assert [(s["hex"], s["turn"]) for s in state["sightings"]] == [
        ("B1", 1), ("B2", 1), ("C3", 1), ("D3", 1), ("D4", 1)]

    # --- turn 1, the alliance's move/combat phase ------------------------------------------
    scouts = ann.post(c + f"stacks/{ann_stack['id']}/split/",
                      {"units": unit_ids(ann_stack, "Scout")}, status=201)["stack"]
    assert ([u["name"] for u in scouts["units"]], scouts["hex"]) == (["Scout 1", "Scout 2"],
                                                                      "A1")
    reachable = ann.get(c + f"stacks/{scouts['id']}/reachable/")
    assert {"hex": "D3", "cost": 4} in reachable["hexes"]
    assert ann.get(c + f"stacks/{scouts['id']}/path/?to=D3") == {
        "path": ["B1", "B2", "C3", "D3"], "cost": 4, "all_on_road": True}
    moved = ann.post(c + f"stacks/{scouts['id']}/move/", {"destination": "D3"})
    assert (moved["stack"]["hex"], moved["cost"], moved["ambushed"]) == ("D3", 4, False)
    targets = ann.get(c + f"stacks/{scouts['id']}/targets/")
    assert [(t["hex"], [u["name"] for u in t["units"]]) for t in targets] == [
        ("D4", ["Spearman 1", "Spearman 2", "Spearman 3", "Archer 1", "Archer 2"])]
    preview = ann.post(c + f"stacks/{scouts['id']}/attack/preview/", {"target": targets[0]["id"]})
    attack = ann.post(c + f"stacks/{scouts['id']}/attack/", {"target": targets[0]["id"]})
    combat = Event.objects.get(pk=attack["event"])
    # The answer is the stored report, and its outcome one the preview gave a chance.
    assert (combat.kind, attack["report"]) == ("combat", combat.payload)
    possible = {row["hits"] for row in preview["odds"]["hits_on_defender"] if row["chance"]}
    assert attack["report"]["result"]["hits_on_defender"] in possible
    assert ann.get(c + f"reports/{combat.pk}/")["payload"] == combat.payload
    bob_moved = bob.post(c + f"stacks/{bob_stack['id']}/move/", {"destination": "B1"})
    assert bob_moved["stack"]["hex"] == "B1"
    ann.post(c + "done/")
    bob.post(c + "done/")
    opposition_phase = ann.post(c + "phase/end/", {"expected_phase": move_phase["id"]})
    assert (opposition_phase["turn"], opposition_phase["kind"]) == (1, "opposition")

    # --- turn 1, the opposition phase: the GM's --------------------------------------------
    refused = bob.client.post(f"/api/v1/{c}stacks/{bob_stack['id']}/move/",
                              {"destination": "B2"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "wrong_side")
    # A stack with a commander (a stack of riders alone may not move, §2), never scouted.
    hidden = Stack.objects.filter(campaign_id=created["id"], side__kind="opposition",
                                  units__unit_type__name="Warlord").order_by("created_seq", "pk").first()
    assert hidden.hex not in {s["hex"] for s in state["sightings"]}
    go_to = gm.get(c + f"stacks/{hidden.pk}/reachable/")["hexes"][0]["hex"]
    gm_moved = gm.post(c + f"stacks/{hidden.pk}/move/", {"destination": go_to})
    assert gm_moved["stack"]["hex"] == go_to
    turn_2 = gm.post(c + "phase/end/", {"expected_phase": opposition_phase["id"],
                                        "reason": "The garrison is done."})
    assert (turn_2["turn"], turn_2["kind"]) == (2, "scout")

    # --- after the turn ------------------------------------------------------------------------
    state = ann.get(c + "map/")
    assert (state["turn"], state["phase"]["kind"]) == (2, "scout")
    assert sorted((s["hex"], len(s["units"])) for s in state["stacks"]) == sorted(
        (s.hex, s.units.count()) for s in Stack.objects.filter(
            campaign_id=created["id"], side__kind="alliance"))
    assert {s["side"] for s in state["stacks"]} == {"alliance"}
    # The GM's move is an event for the GM, not for the alliance.
    ann_events = [e["id"] for e in ann.get(c + "events/?since=0")["events"]]
    gm_events = [e["id"] for e in gm.get(c + "events/?since=0")["events"]]
    assert (gm_moved["event"] in gm_events, gm_moved["event"] in ann_events) == (True, False)
    later = ann.get(c + f"events/?since={combat.pk}")["events"]
    assert [e["id"] for e in later] == ann_events[ann_events.index(combat.pk) + 1:]
    # Every die of turn 1 re-derives from its revealed seed, by the API and the calculator.
    for phase in Phase.objects.filter(campaign_id=created["id"], turn__number=1):
        dice = ann.get(c + f"phases/{phase.pk}/dice/")
        assert (dice["revealed"], dice["commitment_ok"], dice["all_match"]) == (True, True, True)
    dice = ann.get(c + f"phases/{move_phase['id']}/dice/")
    assert [r["number"] for r in dice["rolls"]] == [
        r["number"] for r in attack["report"]["dice"]]
    verified = ann.post("rules/dice/verify/", {
        "seed": dice["seed"], "commitment": dice["commitment"],
        "rolls": [{k: r[k] for k in ("number", "purpose", "sides", "value")}
                  for r in dice["rolls"]]})
    assert (verified["commitment_ok"], verified["all_ok"]) == (True, True)
    # The players were told: their notifications, then all marked read.
    notes = ann.get("notifications/")
    assert [n["id"] for n in notes] == list(
        Notification.objects.filter(user=ann.user).order_by("-created_at", "-pk")
        .values_list("pk", flat=True))
    assert ann.post("notifications/mark-read/", {"ids": [n["id"] for n in notes]}) == {
        "marked": len(notes)}
    assert ann.get("notifications/unread-count/") == {"unread": 0}
    assert Membership.objects.get(pk=member["ann"]).is_chief_warlord is True
