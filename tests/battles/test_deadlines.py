"""A battle's deadlines: the sweep reminds the sides that act, and at the deadline the server
gives the proxy's orders for the sides still acting, once, whatever sweeps run at once or a
player's order racing them."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection

from campaigns.errors import CampaignError
from campaigns.games.battle import services
from campaigns.models import (
    Battle,
    BattleEntry,
    Event,
    EventKind,
    Notification,
    Phase,
    PhaseStatus,
    PlayerPhaseStatus,
)
from campaigns.services.deadlines import sweep
from tests.battles.conftest import make_table, replay
from tests.campaigns.test_deadlines_concurrency import finish, start_sweeps


def _open(campaign) -> Phase:
    return Phase.objects.select_related("turn").get(campaign=campaign, status=PhaseStatus.OPEN)


@pytest.mark.django_db
def test_the_sweep_reminds_then_the_proxy_acts_at_the_deadline_once(fixed_seeds):
    table = make_table("elf_abas")
    campaign = table.campaign
    phase = _open(campaign)
    fremont = table.players["Fremont"]
    # An hour before the deadline: Fremont's player is reminded, nothing else.
    early = sweep(now=phase.deadline_at - timedelta(hours=1))
    assert [(a.event, a.user) for a in early] == [("reminder", "fremont_elf_abas")]
    assert BattleEntry.objects.filter(battle__campaign=campaign).count() == 1
    actions = sweep(now=phase.deadline_at)
    assert [(a.phase, a.event) for a in actions] == [(phase.pk, "proxy")]
    entry = BattleEntry.objects.filter(battle__campaign=campaign).order_by("number").last()
    assert (entry.side, entry.proxy, entry.by, entry.orders) == (
        "Fremont", True, None, [{"side": "Fremont", "kind": "end"}])
    phase.refresh_from_db()
    assert (phase.status, phase.deadline_processed_at is not None) == ("closed", True)
    assert list(PlayerPhaseStatus.objects.filter(phase=phase).values_list("late", flat=True)) == [
        True]
    reached = Event.objects.get(campaign=campaign, kind=EventKind.DEADLINE_REACHED)
    assert reached.summary == ("Step 1: the deadline has passed; Fremont late: the server acts "
                               "as proxy.")
    assert list(Notification.objects.filter(event=reached).values_list("user", flat=True)) == [
        fremont.pk]
    told = Event.objects.filter(campaign=campaign, kind=EventKind.BATTLE_ORDERS).last()
    assert told.summary.startswith("Fremont (the server as proxy, late): Fremont ends its "
                                   "activation.")
    # The next phase has its own deadline; sweeping the same moment again does nothing.
    assert sweep(now=phase.deadline_at) == []
    battle = Battle.objects.get(campaign=campaign)
    assert replay(battle) == battle.state


@pytest.mark.django_db
def test_the_proxy_answers_every_step_of_a_quad_draw(fixed_seeds):
    table = make_table("quad")
    campaign = table.campaign
    services.battle_orders(user=table.players["Red"], campaign=campaign,
                           orders=[{"kind": "draw", "take": False}])
    phase = _open(campaign)
    sweep(now=phase.deadline_at)
    entry = BattleEntry.objects.filter(battle__campaign=campaign).order_by("number").last()
    assert (entry.side, entry.proxy, entry.orders) == (
        "Blue", True, [{"side": "Blue", "kind": "draw", "take": True}])
    assert dict(PlayerPhaseStatus.objects.filter(phase=phase).values_list(
        "membership__side__name", "late")) == {"Red": False, "Blue": True}


# Each system at a step one side holds: (orders given first, the order that races the sweeps).
RACES = {
    "elf_abas": ([], {"kind": "end"}),
    "quad": ([("Red", {"kind": "draw", "take": True}), ("Blue", {"kind": "draw", "take": True})],
             {"kind": "release"}),
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("system", sorted(RACES))
def test_eight_sweeps_racing_a_players_order_give_one_step(require_postgres, system):
    table = make_table(system)
    campaign = table.campaign
    before, racing = RACES[system]
    for side, order in before:
        services.battle_orders(user=table.players[side], campaign=campaign, orders=[order])
    phase = _open(campaign)
    side = Battle.objects.get(campaign=campaign).window["acting"][0]
    first = BattleEntry.objects.filter(battle__campaign=campaign).count()
    processes = start_sweeps(phase.deadline_at.isoformat())
    refused: list[BaseException] = []

    def order_by_hand() -> None:
        try:
            services.battle_orders(user=table.players[side], campaign=campaign,
                                   orders=[racing])
        except CampaignError as exc:  # the proxy may have acted first
            refused.append(exc)
        finally:
            connection.close()

    manual = threading.Thread(target=order_by_hand)
    manual.start()
    actions = finish(processes)
    manual.join(timeout=120)
    entries = list(BattleEntry.objects.filter(battle__campaign=campaign, phase=phase))
    # Exactly one more entry in the step: the player's order or the proxy's.
    assert BattleEntry.objects.filter(battle__campaign=campaign).count() == first + 1
    assert entries[-1].proxy == (len(refused) == 1)
    # (The next phase, opened by whoever won, is within the reminders' reach: reminded once.)
    assert Counter(a["event"] for a in actions if a["event"] != "reminder") == (
        Counter({"proxy": 1}) if refused else Counter())
    assert Event.objects.filter(phase=phase, kind=EventKind.PHASE_CLOSED).count() == 1
    assert Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).count() == 1
    battle = Battle.objects.get(campaign=campaign)
    assert replay(battle) == battle.state
