"""The replay moves the counters event by event (from the stored events, not only the phase
openings' snapshots), and a slider runs over the whole campaign as each viewer knows it."""

import pytest
from django.test import Client

from campaigns.exports.mapimage import map_picture, replayed_stacks
from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.move_combat import stack_move, stack_split
from campaigns.models import Phase, Stack
from campaigns.selectors.forum import phase_event_rows
from tests.campaigns.engine_setup import move_phase_campaign, own_stack

pytestmark = [pytest.mark.django_db]

OPENING = [
    {"id": 1, "hex": "A1", "side": "alliance", "units": [{"id": 11}, {"id": 12}, {"id": 13}]},
    {"id": 2, "hex": "D4", "side": "opposition", "units": [{"id": 21}, {"id": 22}]},
]


@pytest.mark.parametrize(("events", "expected"), [
    ([], [("A1", "alliance", 3), ("D4", "opposition", 2)]),
    ([("stack_moved", {"stack": 1, "from": "A1", "to": "B2"})],
     [("B2", "alliance", 3), ("D4", "opposition", 2)]),
    # A split leaves two stacks; the new one moves on alone.
    ([("stack_split", {"from": 1, "new": 3, "units": [13]}),
      ("stack_moved", {"stack": 3, "from": "A1", "to": "B1"})],
     [("A1", "alliance", 2), ("D4", "opposition", 2), ("B1", "alliance", 1)]),
    ([("stack_split", {"from": 1, "new": 3, "units": [13]}),
      ("stacks_merged", {"into": 1, "merged": [3]})],
     [("A1", "alliance", 3), ("D4", "opposition", 2)]),
    # A fight: croaked units leave; a stack with none left is gone.
    ([("combat", {"casualties": [{"unit": 21, "croaked": True}, {"unit": 11,
                                                                  "croaked": False}],
                  "stacks_gone": []})],
     [("A1", "alliance", 3), ("D4", "opposition", 1)]),
    ([("ambush", {"casualties": [{"unit": 21, "croaked": True}, {"unit": 22, "croaked": True}],
                  "stacks_gone": [2]})],
     [("A1", "alliance", 3)]),
    # A move of a stack the viewer did not see at the opening changes nothing.
    ([("stack_moved", {"stack": 9, "from": "J10", "to": "J9"})],
     [("A1", "alliance", 3), ("D4", "opposition", 2)]),
])
def test_the_openings_stacks_after_each_event(events, expected):
    assert replayed_stacks(OPENING, events) == expected


@pytest.fixture
def moved():
    """Turn 1's move/combat phase: the player split a scout off at A1, moved it to B2, then
    the phase closed."""
    campaign, gm, (p1,) = move_phase_campaign(players=1)
    stack = own_stack(p1)
    scout = stack.units.get(name="Scout 1")
    new = stack_split(user=p1.user, campaign=campaign, stack=stack, units=[scout])
    stack_move(user=p1.user, campaign=campaign, stack=new, path=["B1", "B2"])
    phase = Phase.objects.get(campaign=campaign, status="open")
    phase_end(user=gm, campaign=campaign)
    return campaign, gm, p1, phase, stack


def test_the_picture_follows_the_players_events(moved):
    campaign, gm, p1, phase, stack = moved
    rows = phase_event_rows(user=p1.user, campaign=campaign, phase=phase)
    kinds = [row["kind"] for _, row in rows]
    split, move = kinds.index("stack_split"), kinds.index("stack_moved")
    size = Stack.objects.get(pk=stack.pk).units.count()

    def own_after(step):
        events = [(row["kind"], row["payload"]) for _, row in rows[:step]]
        picture = map_picture(viewer=p1.user, campaign=campaign, phase=phase, events=events)
        return sorted(s for s in picture.stacks if s[1] == "alliance")

    assert own_after(split) == [("A1", "alliance", size + 1)]
    assert own_after(split + 1) == [("A1", "alliance", 1), ("A1", "alliance", size)]
    assert own_after(move + 1) == [("A1", "alliance", size), ("B2", "alliance", 1)]


def test_the_replay_page_and_the_campaign_slider(moved):
    campaign, gm, p1, phase, _ = moved
    client = Client()
    client.force_login(p1.user)
    rows = phase_event_rows(user=p1.user, campaign=campaign, phase=phase)
    page = client.get(f"/campaigns/{campaign.pk}/replay/{phase.pk}/?step=2").content.decode()
    assert f'src="/campaigns/{campaign.pk}/map.svg?phase={phase.pk}&amp;step=2' in page
    phases = list(Phase.objects.filter(campaign=campaign).order_by("opened_at", "id"))
    counts = [len(phase_event_rows(user=p1.user, campaign=campaign, phase=p)) for p in phases]
    index = phases.index(phase)
    assert (f'max="{sum(counts)}" value="{sum(counts[:index]) + 2}"') in page
    jump = client.get(f"/campaigns/{campaign.pk}/replay/?at={sum(counts[:index]) + len(rows)}")
    assert jump["Location"] == f"/campaigns/{campaign.pk}/replay/{phase.pk}/?step={len(rows)}"
    svg = client.get(f"/campaigns/{campaign.pk}/map.svg?phase={phase.pk}&step={len(rows)}")
    assert (svg.status_code, "after " in svg.content.decode()) == (200, True)
