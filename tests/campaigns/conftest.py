"""Fixtures of the campaign tests: a way to prove that a refused action changed nothing."""

import pytest

from campaigns import models


def fingerprint(campaign_id: int) -> dict:
    """Every row a campaign service could change, as comparable values."""
    rows = {}
    for model in (
        models.Campaign, models.Membership, models.UnitType, models.Unit, models.Stack,
        models.Turn, models.Phase, models.PlayerPhaseStatus, models.ScoutOrder,
        models.Sighting, models.DiceRoll, models.Event, models.PhaseSnapshot,
        models.Notification, models.Fortification, models.Thread, models.Post,
        models.ThreadParticipant, models.Mute, models.Declaration, models.Battle,
        models.BattleEntry,
    ):
        qs = model.objects.all() if model is models.Campaign else model.objects.all()
        key = "pk" if model is models.Campaign else None
        if key:
            qs = qs.filter(pk=campaign_id)
        elif model is models.PlayerPhaseStatus or model is models.ScoutOrder or model is models.PhaseSnapshot:
            qs = qs.filter(phase__campaign_id=campaign_id)
        elif model is models.BattleEntry:
            qs = qs.filter(battle__campaign_id=campaign_id)
        elif model is models.Post or model is models.ThreadParticipant:
            qs = qs.filter(thread__campaign_id=campaign_id)
        else:
            qs = qs.filter(campaign_id=campaign_id)
        rows[model.__name__] = list(qs.order_by("pk").values())
    return rows


@pytest.fixture
def unchanged():
    """`with unchanged(campaign): <refused action>` fails unless no row changed."""
    from contextlib import contextmanager

    @contextmanager
    def check(campaign):
        before = fingerprint(campaign.pk)
        yield
        assert fingerprint(campaign.pk) == before

    return check
