"""Database constraints back the engine's invariants up (PostgreSQL)."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.models import Membership, Phase, PhaseKind, Turn
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_a_campaign_has_at_most_one_open_phase():
    campaign, _, _ = started_campaign_factory(players=1)
    turn = Turn.objects.get(campaign=campaign)
    now = timezone.now()
    with pytest.raises(IntegrityError, match="phase_one_open_per_campaign"), transaction.atomic():
        Phase.objects.create(campaign=campaign, turn=turn, kind=PhaseKind.MOVE_COMBAT,
                             opened_at=now, deadline_at=now, dice_seed="x", dice_commitment="y")


def test_a_campaign_has_at_most_one_chief_warlord():
    campaign, _, (_cw, p2) = started_campaign_factory(players=2)
    with pytest.raises(IntegrityError, match="membership_one_chief_warlord"), \
            transaction.atomic():
        Membership.objects.filter(pk=p2.pk).update(is_chief_warlord=True)


def test_a_closed_phase_needs_its_closing_time():
    campaign, _, _ = started_campaign_factory(players=1)
    with pytest.raises(IntegrityError, match="phase_closed_at_iff_closed"), transaction.atomic():
        Phase.objects.filter(campaign=campaign).update(status="closed")
