"""Helpers of the engine II tests: a campaign in its move/combat phase and quick placements."""

from campaigns.games.erfworld import phase_end
from campaigns.models import Phase, Stack, Unit
from tests.factories import started_campaign_factory

SEED = "0" * 64


def move_phase_campaign(players: int = 1):
    """Broad Way, started, scout phase ended: the move/combat phase of turn 1 is open, with a
    fixed dice seed so that combats are repeatable. Returns (campaign, gm, members)."""
    campaign, gm, members = started_campaign_factory(players=players)
    phase_end(user=gm, campaign=campaign)
    Phase.objects.filter(campaign=campaign, status="open").update(dice_seed=SEED)
    campaign.refresh_from_db()
    return campaign, gm, members


def own_stack(member):
    return Stack.objects.get(units__owner=member, units__name="Warlord 1")


def unit(member, name):
    return Unit.objects.get(owner=member, name=name)


def put(stack, hex_label):
    Stack.objects.filter(pk=stack.pk).update(hex=hex_label)
    stack.refresh_from_db()
    return stack


def opposition_stack(campaign, hex_label):
    return Stack.objects.filter(campaign=campaign, hex=hex_label, side__kind="opposition").order_by("created_seq", "pk").first()


def open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status="open")
