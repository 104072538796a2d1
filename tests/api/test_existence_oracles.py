"""No existence oracle: out of the side's own phases, an enemy stack that moved into a hex the
side scouted this turn answers every per-stack route exactly as an id that does not exist
(before: 403 for the hidden stack, 404 for the absent one), and both take the same queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.models import Membership, Stack
from tests.api.play_setup import scouted_move_phase, url
from tests.campaigns.engine_setup import opposition_stack, put

pytestmark = pytest.mark.django_db

GETS = ["reachable/", "targets/", "siege/targets/", "path/?to=C3"]
POSTS = {"attack/preview/": {"target": 1}, "move/": {"path": ["C3"]}, "split/": {"units": [1]}, "reorder/": {"units": [1]},
         "attack/": {"target": 1}, "siege/": {"fortification": 1}}


def opposition_phase_with_a_stack_moved_into_a_scouted_hex():
    campaign, gm, members = scouted_move_phase()
    for member in Membership.objects.filter(campaign=campaign, role="player"):
        orders_mark_done(user=member.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    # The GM's G7 stack walks into C3, which Scout 1 inspected this turn.
    moved = put(opposition_stack(campaign, "G7"), "C3")
    return campaign, members[0], moved


def answers(client, campaign, stack_id):
    out = []
    for tail in GETS:
        r = client.get(url(campaign, f"stacks/{stack_id}/{tail}"))
        out.append((tail, r.status_code, r.content.decode().replace(str(stack_id), "N")))
    for tail, body in POSTS.items():
        r = client.post(url(campaign, f"stacks/{stack_id}/{tail}"), body, format="json")
        out.append((tail, r.status_code, r.content.decode().replace(str(stack_id), "N")))
    return out


def test_a_hidden_stack_and_an_absent_id_answer_alike_in_the_opposition_phase(client_for):
    campaign, p1, moved = opposition_phase_with_a_stack_moved_into_a_scouted_hex()
    absent = Stack.objects.order_by("-pk").first().pk + 1000
    client = client_for(p1.user)
    hidden_answers = answers(client, campaign, moved.pk)
    assert hidden_answers == answers(client, campaign, absent)
    assert {status for _, status, _ in hidden_answers} == {404}


def test_a_hidden_stack_and_an_absent_id_cost_the_same_queries(client_for):
    campaign, p1, moved = opposition_phase_with_a_stack_moved_into_a_scouted_hex()
    absent = Stack.objects.order_by("-pk").first().pk + 1000
    client = client_for(p1.user)
    counts = []
    for stack_id in (moved.pk, absent):
        with CaptureQueriesContext(connection) as queries:
            client.get(url(campaign, f"stacks/{stack_id}/reachable/"))
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_gm_still_reaches_the_moved_stack(client_for):
    campaign, _, moved = opposition_phase_with_a_stack_moved_into_a_scouted_hex()
    gm = Membership.objects.get(campaign=campaign, role="gm").user
    assert client_for(gm).get(url(campaign, f"stacks/{moved.pk}/targets/")).status_code == 200
