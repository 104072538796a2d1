"""The engine's own posts: each event the forum reports, written by the engine's services,
lands in the right thread(s) once, and links to the page that reports it in full."""

import pytest

from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.games.erfworld.turns import pop_points_grant, pop_points_share, pops_buy
from campaigns.markup import escape_markdown
from campaigns.models import Event, Fortification, Phase, Post, Stack
from campaigns.services.deadlines import sweep
from campaigns.services.forum import system_posts_for_event
from tests.campaigns.engine_setup import opposition_stack, own_stack, put, unit

pytestmark = [pytest.mark.django_db]

NAMES = ("public", "alliance", "opposition", "gm")


def where(threads, event):
    """{thread name: number of the engine's posts about the event in it}."""
    return {name: Post.objects.filter(thread=threads[name], event=event, author=None).count()
            for name in NAMES}


def only(threads, event, name):
    return Post.objects.get(thread=threads[name], event=event, author=None)


def last_event(campaign, kind):
    return Event.objects.filter(campaign=campaign, kind=kind).last()


def body(event, links):
    return escape_markdown(event.summary) + "\n\n" + " · ".join(
        f"[{label}]({path})" for label, path in links)


@pytest.fixture
def move_phase(started):
    """Turn 1's scout phase ended by the GM: the move/combat phase is open."""
    campaign, gm, members = started
    phase_end(user=gm, campaign=campaign)
    return started


def test_the_start_is_posted_publicly_with_a_link_to_the_map(started, threads):
    campaign = started[0]
    event = last_event(campaign, "campaign_started")
    assert where(threads, event) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert only(threads, event, "public").body == (
        "The campaign 'The Broad Way' has started; the alliance enters at A1. "
        "The setup dice are revealed when the campaign ends.\n\n"
        f"[The map](/campaigns/{campaign.pk}/map/)")


def test_phase_closed_is_public_and_links_to_its_dice_and_replay(move_phase, threads):
    campaign = move_phase[0]
    event = last_event(campaign, "phase_closed")
    c, p = campaign.pk, event.phase_id
    assert where(threads, event) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert only(threads, event, "public").body == body(event, [
        ("Verify the dice", f"/campaigns/{c}/dice/{p}/"),
        ("Replay the phase", f"/campaigns/{c}/replay/{p}/")])
    assert event.summary == ("Turn 1: the alliance scout phase is closed; its dice seed is "
                             "revealed.")


def test_the_next_phase_opening_is_public_and_links_to_its_commitment(move_phase, threads):
    campaign = move_phase[0]
    event = last_event(campaign, "phase_opened")
    assert where(threads, event) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert only(threads, event, "public").body == body(event, [
        ("Dice commitment", f"/campaigns/{campaign.pk}/dice/{event.phase_id}/")])


def test_the_deadline_reached_is_public_and_links_to_its_step_of_the_replay(started, threads):
    campaign = started[0]
    phase = Phase.objects.get(campaign=campaign, status="open")
    sweep(now=phase.deadline_at)
    event = last_event(campaign, "deadline_reached")
    assert where(threads, event) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert only(threads, event, "public").body == body(event, [
        ("Full report", f"/campaigns/{campaign.pk}/replay/{phase.pk}/?event={event.pk}")])


def test_a_hard_deadline_close_is_posted_with_the_deadline_and_the_close(started, threads):
    campaign = started[0]
    campaign.hard_deadline = True
    campaign.save(update_fields=["hard_deadline"])
    phase = Phase.objects.get(campaign=campaign, status="open")
    sweep(now=phase.deadline_at)
    kinds = list(Post.objects.filter(thread=threads["public"], event__phase=phase)
                 .order_by("id").values_list("event__kind", flat=True))
    assert kinds == ["phase_opened", "deadline_reached", "phase_closed", "phase_auto_closed"]


def test_a_combat_goes_to_both_sides_threads_with_its_full_report(move_phase, threads):
    campaign, _, members = move_phase
    stack = put(own_stack(members[0]), "D3")
    event = stack_attack(user=members[0].user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "D4"))
    assert where(threads, event) == {"public": 0, "alliance": 1, "opposition": 1, "gm": 0}
    for name in ("alliance", "opposition"):
        assert only(threads, event, name).body == body(event, [
            ("Full report", f"/campaigns/{campaign.pk}/reports/{event.pk}/")])


def test_an_ambush_goes_to_both_sides_threads(move_phase, threads):
    campaign, _, members = move_phase
    # D4's garrison was not scouted: entering it from D3 is an ambush from D4.
    stack = put(own_stack(members[0]), "C3")
    stack_move(user=members[0].user, campaign=campaign, stack=stack, path=["D3", "D4"])
    event = last_event(campaign, "ambush")
    assert where(threads, event) == {"public": 0, "alliance": 1, "opposition": 1, "gm": 0}
    assert only(threads, event, "alliance").body.endswith(
        f"[Full report](/campaigns/{campaign.pk}/reports/{event.pk}/)")


def test_pops_and_pop_points_are_posted_where_their_event_is_seen(move_phase, threads):
    campaign, gm, members = move_phase
    p1 = members[0]
    spear = unit(p1, "Spearman 1")
    pop_points_grant(user=gm, campaign=campaign, points=20)
    granted = last_event(campaign, "pop_points_granted")
    pop_points_share(user=p1.user, campaign=campaign, shares={p1.pk: 15})
    pops_buy(user=p1.user, campaign=campaign, unit_type=spear.unit_type, count=2, hex="B10")
    for m in members:
        orders_mark_done(user=m.user, campaign=campaign)
    phase_end(user=p1.user, campaign=campaign)
    phase_end(user=gm, campaign=campaign)  # the opposition phase: turn 2 opens, pops appear
    placed = last_event(campaign, "pops_placed")
    assert where(threads, granted) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert where(threads, placed) == {"public": 0, "alliance": 1, "opposition": 0, "gm": 0}
    assert only(threads, placed, "alliance").body == (
        "Turn 2: 2 popped units appear in B10.\n\n"
        f"[The map](/campaigns/{campaign.pk}/map/)")


def test_victory_is_posted_publicly_with_links_to_the_report_and_the_history(move_phase,
                                                                             threads):
    campaign, _, members = move_phase
    p1 = members[0]
    Stack.objects.filter(campaign=campaign, hex="J10").delete()
    Fortification.objects.filter(campaign=campaign, hex="J10").update(hits=0)
    stack_move(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "I10"), path=["J10"])
    event = last_event(campaign, "campaign_finished")
    assert where(threads, event) == {"public": 1, "alliance": 0, "opposition": 0, "gm": 0}
    assert only(threads, event, "public").body == (
        "The Alliance wins: it holds the fortification of J10. The campaign is finished; "
        "its setup dice are revealed.\n\n"
        f"[The fog lifts: after-action report](/campaigns/{campaign.pk}/after-action/) · "
        f"[History](/campaigns/{campaign.pk}/history/)")
    closed = last_event(campaign, "phase_closed")
    assert where(threads, closed)["public"] == 1


def test_every_system_post_links_to_a_page(move_phase, threads):
    campaign, gm, members = move_phase
    stack_attack(user=members[0].user, campaign=campaign,
                 stack=put(own_stack(members[0]), "D3"), target=opposition_stack(campaign, "D4"))
    phase_end(user=gm, campaign=campaign)
    posts = Post.objects.filter(thread__campaign=campaign, author=None)
    assert posts.count() == Post.objects.filter(thread__campaign=campaign, author=None,
                                                body__regex=r"\]\(/campaigns/").count()
    # Ten (the Chief Warlord's appointment among them), and for each of the two players who
    # gave no orders in turn 1's two alliance phases, the post that the Chief Warlord now
    # commands their stacks.
    assert (posts.count(), posts.filter(body__contains="has missed 2 phases in a row").count()
            ) == (12, 2)


def test_a_system_post_is_written_once_per_thread(move_phase, threads):
    event = last_event(move_phase[0], "phase_closed")
    again = system_posts_for_event(event)
    assert [p.thread_id for p in again] == [threads["public"].pk]
    assert Post.objects.filter(event=event).count() == 1


def test_bookkeeping_events_are_not_posted(move_phase, threads):
    campaign, _, members = move_phase
    orders_mark_done(user=members[0].user, campaign=campaign)
    event = last_event(campaign, "orders_done")
    assert (event.kind, Post.objects.filter(event=event).count()) == ("orders_done", 0)
