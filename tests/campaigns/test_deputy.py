"""The Chief Warlord's deputy: chosen by the Chief Warlord or the GM among the other alliance
players; stands in (proxy orders, ending the alliance's phases) only while the Chief Warlord
is away or has gone quiet."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.errors import NotAllowedError, RuleViolationError
from campaigns.games.erfworld import deputy_choose, phase_end, scout_order_give
from campaigns.models import Membership, PhaseStatus, Unit
from campaigns.services.absences import absence_declare
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def _deputies(campaign):
    return list(Membership.objects.filter(campaign=campaign, is_deputy=True)
                .values_list("pk", flat=True))


def test_the_chief_or_the_gm_chooses_one_deputy():
    campaign, gm, (chief, p2, p3) = started_campaign_factory(players=3)
    deputy_choose(user=chief.user, campaign=campaign, membership=p2)
    first = _deputies(campaign)
    deputy_choose(user=gm, campaign=campaign, membership=p3)
    with pytest.raises(NotAllowedError):
        deputy_choose(user=p2.user, campaign=campaign, membership=p2)
    with pytest.raises(RuleViolationError, match="cannot be their own deputy"):
        deputy_choose(user=gm, campaign=campaign, membership=chief)
    assert (first, _deputies(campaign)) == ([p2.pk], [p3.pk])


def test_the_deputy_stands_in_only_while_the_chief_is_away():
    campaign, gm, (chief, p2, p3) = started_campaign_factory(players=3)
    deputy_choose(user=chief.user, campaign=campaign, membership=p2)
    scout = Unit.objects.get(owner=p3, name="Scout 1")
    now = timezone.now()
    campaign.phases.filter(status=PhaseStatus.OPEN).update(  # p3 is late
        opened_at=now - timedelta(hours=73), deadline_at=now - timedelta(hours=1))
    with pytest.raises(NotAllowedError) as refused:
        scout_order_give(user=p2.user, campaign=campaign, scout=scout, directions=["SE"],
                         on_behalf_of=p3)
    today = timezone.now().date().isoformat()
    absence_declare(user=chief.user, campaign=campaign, starts_on=today, ends_on=today)
    order = scout_order_give(user=p2.user, campaign=campaign, scout=scout, directions=["SE"],
                             on_behalf_of=p3)
    phase_end(user=p2.user, campaign=campaign)  # the deputy ends the phase
    assert (refused.value.code, order.proxied_by_id,
            campaign.phases.get(status=PhaseStatus.OPEN).kind) == (
        "chief_warlord_only", p2.pk, "move_combat")


def test_the_overview_offers_the_choice_to_the_chief(client):
    campaign, _, (chief, p2) = started_campaign_factory(players=2)
    client.force_login(chief.user)
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    done = client.post(f"/campaigns/{campaign.pk}/deputy/", {"membership": p2.pk}, follow=True)
    client.force_login(p2.user)
    other = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert ('data-key="deputy-choose"' in page,
            f"{p2.user.public_name} is the deputy" in done.content.decode(),
            'data-key="deputy-choose"' in other, "(deputy)" in other) == (True, True, False, True)


def test_the_phase_bar_follows_absences_and_the_deputy(client):
    campaign, gm, (chief, p2, p3) = started_campaign_factory(players=3)
    deputy_choose(user=gm, campaign=campaign, membership=p2)
    today = timezone.now().date().isoformat()
    absence_declare(user=p3.user, campaign=campaign, starts_on=today, ends_on=today)
    from campaigns.games.erfworld import orders_mark_done

    orders_mark_done(user=chief.user, campaign=campaign)
    orders_mark_done(user=p2.user, campaign=campaign)
    client.force_login(chief.user)
    chief_bar = client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()
    client.force_login(p2.user)
    deputy_bar = client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()
    absence_declare(user=chief.user, campaign=campaign, starts_on=today, ends_on=today)
    standing_in = client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()
    assert ("away: the Chief Warlord may give their orders" in chief_bar,
            f"{p3.user.public_name} is away:" in chief_bar, ">End phase</button>" in chief_bar,
            ">End phase</button>" in deputy_bar, ">End phase</button>" in standing_in) == (
        True, True, True, False, True)
