"""Set-ups of the play API tests: a move/combat phase with D4 scouted, URLs, and the proof
that a refused order changed nothing (the campaign tests' `unchanged` fixture)."""

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Phase, Unit
from tests.campaigns.conftest import fingerprint
from tests.campaigns.engine_setup import SEED
from tests.factories import started_campaign_factory

TO_D4 = ["SE", "S", "SE", "SE", "S"]


def url(campaign, tail):
    return f"/api/v1/campaigns/{campaign.pk}/{tail}"


def scouted_move_phase(players: int = 1):
    """Broad Way in turn 1's move/combat phase after Scout 1 of the first player inspected
    B1, B2, C3, D3 and D4 (so the D4 garrison is known), with a fixed dice seed."""
    campaign, gm, members = started_campaign_factory(players=players)
    scout_order_give(user=members[0].user, campaign=campaign,
                     scout=Unit.objects.get(owner=members[0], name="Scout 1"),
                     directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    Phase.objects.filter(campaign=campaign, status="open").update(dice_seed=SEED)
    campaign.refresh_from_db()
    return campaign, gm, members


def assert_unchanged(campaign, before):
    assert fingerprint(campaign.pk) == before
