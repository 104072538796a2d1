"""Stacks, units and fortifications have random ids (issue: existence oracles): a new
stack's id does not tell how many stacks were made before it, so a side that sights an enemy
stack cannot count the other side's hidden splits. Their order of creation is kept apart
(`created_seq`, never shown), so armies, placements and the order of dice stay as they were;
migration 0021 keeps the old rows' ids and orders them by those ids."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from campaigns.games.erfworld import phase_end, stack_split, stacks_merge
from campaigns.models import Fortification, Stack, Unit
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def _not_a_sequence(ids):
    """Below 2^53 (exact in JavaScript), in creation order neither rising nor in steps of one."""
    return (all(0 < i < 2**53 for i in ids), ids == sorted(ids),
            any(b - a == 1 for a, b in zip(ids, ids[1:], strict=False)))


def test_stack_unit_and_fortification_ids_are_not_a_sequence():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)  # move/combat
    home = Stack.objects.get(campaign=campaign, side__kind="alliance", hex="A1")
    spears = list(home.units.filter(name__startswith="Spearman"))
    # Splits one unit off at a time: each makes a new stack.
    for unit in spears[:5]:
        stack_split(user=p1.user, campaign=campaign, stack=home, units=[unit])
    stacks = list(Stack.objects.filter(campaign=campaign).values_list("id", flat=True))
    units = list(Unit.objects.filter(campaign=campaign).values_list("id", flat=True))
    forts = list(Fortification.objects.filter(campaign=campaign).values_list("id", flat=True))
    assert (_not_a_sequence(stacks), _not_a_sequence(units), _not_a_sequence(forts)) == (
        (True, False, False),) * 3
    assert len(stacks) >= 10 and len(units) >= 13 and len(forts) >= 5


def test_creation_order_is_kept_where_it_is_read():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    # The army lists units as they were bought, and the stack placed them so.
    home = Stack.objects.get(campaign=campaign, side__kind="alliance", hex="A1")
    placed = [u.name for u in home.units.order_by("position")]
    listed = [u.name for u in Unit.objects.filter(owner=p1)]
    phase_end(user=gm, campaign=campaign)
    spear = home.units.get(name="Spearman 1")
    new = stack_split(user=p1.user, campaign=campaign, stack=home, units=[spear])
    stacks_merge(user=p1.user, campaign=campaign, stacks=[home, new])
    after = [s.pk for s in Stack.objects.filter(campaign=campaign, side__kind="alliance")]
    assert (placed, listed[:4], after) == (
        ["Warlord 1", "Scout 1", "Scout 2"] + [f"Spearman {i}" for i in range(1, 11)],
        ["Warlord 1", "Scout 1", "Scout 2", "Spearman 1"], [home.pk])


@pytest.mark.django_db(transaction=True)
def test_migration_0021_keeps_the_old_ids_and_orders_by_them():
    campaign, _, _ = started_campaign_factory(players=1)
    side = Stack.objects.filter(campaign=campaign).first().side_id
    before = [("campaigns", "0020_absence_extends")]
    after = [("campaigns", "0021_opaque_ids")]
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        old = executor.loader.project_state(before).apps.get_model("campaigns", "Stack")
        made = [old.objects.create(campaign_id=campaign.pk, side_id=side, hex=f"B{i}").pk
                for i in range(1, 4)]
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("campaigns", "Stack")
        kept = list(new.objects.filter(pk__in=made).order_by("created_seq")
                    .values_list("id", "created_seq"))
    finally:
        # Every later migration again, for the tests that follow on this database.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    later = Stack.objects.create(campaign=campaign, side_id=side, hex="C1")
    assert (kept, made == sorted(made), made[1] - made[0], later.created_seq > made[-1]) == (
        [(pk, pk) for pk in made], True, 1, True)
