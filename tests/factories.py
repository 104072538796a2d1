"""factory-boy factories shared by the test suite."""

import factory
from allauth.account.models import EmailAddress

from accounts.models import User


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def verified_email(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()
            EmailAddress.objects.create(user=self, email=self.email, verified=True, primary=True)


# ---------------------------------------------------------------------------
# Campaigns: built through the services, so every factory-made campaign is a valid one.

# A small army every test player can afford: (name, stats, count).
STANDARD_ARMY = [
    ("Warlord", {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["commander"]}, 1),
    ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}, 2),
    ("Spearman", {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": []}, 10),
]


def campaign_factory(*, gm=None, scenario_key: str = "broad_way", name: str = ""):
    """A Broad Way campaign in setup, created by `gm` (a new staff user by default)."""
    from campaigns.games.erfworld import campaign_create_from_scenario

    gm = gm or UserFactory(is_staff=True)
    return campaign_create_from_scenario(gm=gm, scenario_key=scenario_key, name=name)


def player_factory(*, campaign, user=None):
    """A user who joined `campaign` with its invite code; returns the Membership."""
    from campaigns.games.erfworld import campaign_join

    return campaign_join(user=user or UserFactory(), invite_code=campaign.invite_code)


def army_factory(*, membership, army=STANDARD_ARMY, ready: bool = True):
    """Design and buy `army` for a player (and mark it ready); returns {type name: UnitType}."""
    from campaigns.games.erfworld import army_mark_ready, unit_type_create, units_buy

    types = {}
    for name, stats, count in army:
        types[name] = unit_type_create(
            user=membership.user, campaign=membership.campaign, name=name, **stats
        )
        if count:
            units_buy(user=membership.user, unit_type=types[name], count=count)
    if ready:
        army_mark_ready(user=membership.user, campaign=membership.campaign)
    return types


def started_campaign_factory(*, players: int = 3):
    """A Broad Way campaign with `players` ready armies, the first player Chief Warlord,
    started: turn 1's scout phase is open. Returns (campaign, gm, [memberships])."""
    from campaigns.games.erfworld import campaign_start, chief_warlord_appoint

    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    members = [player_factory(campaign=campaign) for _ in range(players)]
    for m in members:
        army_factory(membership=m)
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    campaign_start(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    for m in members:
        m.refresh_from_db()
    return campaign, gm, members
