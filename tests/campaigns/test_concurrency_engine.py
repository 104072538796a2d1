"""Two actions on one stack at the same instant end in one consistent outcome (real Postgres,
threads, committed transactions)."""

import threading

import pytest
from django.db import connection

from campaigns.errors import CampaignError
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.models import Event, Stack, Unit
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("require_postgres")]


def race(*actions):
    barrier = threading.Barrier(len(actions))
    outcomes = [None] * len(actions)

    def run(i, action):
        try:
            barrier.wait()
            outcomes[i] = ("ok", action())
        except CampaignError as exc:
            outcomes[i] = ("refused", exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_two_players_moving_one_stack_at_once_make_one_move():
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    stack = own_stack(p1)
    outcomes = race(
        lambda: stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B1", "B2"]),
        lambda: stack_move(user=p2.user, campaign=campaign, stack=stack, path=["B1", "B2"]),
    )
    assert sorted(o[0] for o in outcomes) == ["ok", "refused"]
    assert Stack.objects.get(pk=stack.pk).hex == "B2"
    assert Event.objects.filter(kind="stack_moved").count() == 1
    assert set(Unit.objects.filter(stack=stack).values_list("movement_used", flat=True)) == {2}


def test_an_attack_racing_a_move_of_the_same_stack_ends_consistently():
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "D3")
    target = opposition_stack(campaign, "D4")
    outcomes = race(
        lambda: stack_attack(user=p1.user, campaign=campaign, stack=stack, target=target),
        lambda: stack_move(user=p1.user, campaign=campaign, stack=stack, path=["C4", "C5"]),
    )
    attacked = Event.objects.filter(kind="combat").count()
    moved = Event.objects.filter(kind="stack_moved").count()
    assert (attacked, moved) == tuple(1 if o[0] == "ok" else 0 for o in outcomes)
    survivor = Stack.objects.filter(pk=stack.pk).first()
    if survivor is not None and moved and attacked:
        # Whichever went first, the other saw its result: a move after the attack is only
        # one hex (§2), an attack after the move needs the target adjacent.
        assert survivor.hex in {"C4", "D3"}


def test_two_alliance_players_drawing_at_once_resolve_the_opposition_s_combats_once():
    from campaigns.games.erfworld import phase_end
    from campaigns.games.erfworld.phases import phase_draw
    from campaigns.models import Phase
    from campaigns.services.deadlines import sweep
    from tests.campaigns.test_alliance_draw import opposition_phase

    campaign, gm, (p1, p2), mine, theirs = opposition_phase(players=2)
    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    phase = phase_end(user=gm, campaign=campaign)
    outcomes = race(
        lambda: phase_draw(user=p1.user, campaign=campaign, draw="one", expected_phase=phase),
        lambda: phase_draw(user=p2.user, campaign=campaign, draw="two", expected_phase=phase),
        # The draw's deadline passing at the same instant: the server draws only if nobody has.
        lambda: sweep(now=phase.deadline_at),
    )
    players, swept = outcomes[:2], outcomes[2]
    assert all(o == ("refused", "no_draw_waiting") or o[0] == "ok" for o in players)
    server_drew = [a.event for a in swept[1]] == ["drawn_by_server"]
    # Exactly one draw was made: one player's, or the server's when it came first.
    assert sum(o[0] == "ok" for o in players) + server_drew == 1
    assert Event.objects.filter(kind="combat").count() == 1
    assert Event.objects.filter(kind="alliance_drew").count() == 1
    assert Phase.objects.get(pk=phase.pk).alliance_draw in (("",) if server_drew
                                                            else ("one", "two"))
    assert Phase.objects.filter(campaign=campaign, status="open").get().turn.number == 2
