"""Fixtures of the forum tests: a started campaign with its threads, hidden opposition units,
XSS payloads and web clients."""

from html.parser import HTMLParser

import pytest
from django.test import Client

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Side, SideKind, Thread, ThreadAudience, Unit
from tests.factories import started_campaign_factory

# A scout path from the entry A1 to the opposition's stack at D4 (tests/api/test_map.py).
TO_D4 = ["SE", "S", "SE", "SE", "S"]

# Known payloads: each must reach the page as text (or not at all), never as markup.
XSS_PAYLOADS = [
    "<script>alert('x1')</script>",
    "<img src=x onerror=alert('x2')>",
    "<svg/onload=alert('x3')>",
    "[click](javascript:alert('x4'))",
    "![img](javascript:alert('x5'))",
    "<a href=\"javascript:alert('x6')\">a</a>",
    "<iframe src=\"https://evil.example/\"></iframe>",
    "<div style=\"background:url(javascript:alert('x7'))\">s</div>",
    "[b](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "\"><script>alert('x8')</script>",
    "<<script>script>alert('x9')<</script>/script>",
    "<body onload=alert('x10')>",
]
_BAD_TAGS = {"script", "iframe", "svg", "body", "object", "embed", "style", "form", "math"}
_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href"}


class _Checker(HTMLParser):
    """Collects every tag and attribute that could run script or load a foreign page."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _BAD_TAGS:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.problems.append(f"{tag} {name}")
            scheme = "".join((value or "").split()).lower().split(":", 1)[0]
            if name in _URL_ATTRS and ":" in (value or "") and scheme not in (
                    "http", "https", "mailto"):
                self.problems.append(f"{tag} {name}={value}")


def assert_neutralized(html: str) -> None:
    """No element or attribute of the HTML can run script (text that merely reads like
    markup is fine: it is shown, not run)."""
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.problems == []


@pytest.fixture
def started():
    """(campaign, gm, [memberships]) of a started Broad Way campaign with two players."""
    return started_campaign_factory(players=2)


def thread_of(campaign, audience, side_kind=None):
    if audience == ThreadAudience.SIDE:
        side = Side.objects.get(campaign=campaign, kind=side_kind)
        return Thread.objects.get(campaign=campaign, audience=audience, side=side,
                                  is_default=True)
    return Thread.objects.get(campaign=campaign, audience=audience, is_default=True)


@pytest.fixture
def threads(started):
    campaign = started[0]
    return {
        "public": thread_of(campaign, ThreadAudience.PUBLIC),
        "alliance": thread_of(campaign, ThreadAudience.SIDE, SideKind.ALLIANCE),
        "opposition": thread_of(campaign, ThreadAudience.SIDE, SideKind.OPPOSITION),
        "gm": thread_of(campaign, ThreadAudience.GM),
    }


@pytest.fixture
def hidden(started):
    """The opposition's garrison at J10, never seen by the alliance: its units get unique
    names; returns every string that would betray them (names and the Gatekeeper type)."""
    campaign = started[0]
    units = list(Unit.objects.filter(campaign=campaign, stack__hex="J10"))
    for u in units:
        u.name = f"Secretunit{u.pk}x"
        u.save(update_fields=["name"])
    return ["Secretunit", "Gatekeeper"]


@pytest.fixture
def scouted(started):
    """Turn 1's scout phase played: player 1's scout looked at D4, then the phase closed."""
    campaign, gm, members = started
    scout_order_give(user=members[0].user, campaign=campaign,
                     scout=Unit.objects.get(owner=members[0], name="Scout 1"), directions=TO_D4)
    phase_end(user=gm, campaign=campaign)
    return started


@pytest.fixture
def client_as():
    def make(user=None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make


def finish(campaign, gm):
    """The alliance takes the victory hex: the campaign ends."""
    from campaigns.games.erfworld.engine import check_victory
    from campaigns.models import Fortification

    Fortification.objects.filter(campaign=campaign, hex=campaign.victory_hex).update(
        owner=Side.objects.get(campaign=campaign, kind="alliance"))
    check_victory(campaign=campaign, phase=None, actor=gm)
    campaign.refresh_from_db()


@pytest.fixture
def fought(scouted, hidden):
    """Turn 1: scouted D4, then attacked it; the GM wrote in the opposition's thread."""
    from campaigns.games.erfworld.move_combat import stack_attack
    from campaigns.services.forum import post_create
    from tests.campaigns.engine_setup import opposition_stack, own_stack, put

    campaign, gm, members = scouted
    p1 = members[0]
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                 target=opposition_stack(campaign, "D4"))
    post_create(user=gm, thread=thread_of(campaign, "side", "opposition"),
                body="The garrison at J10 holds.")
    return campaign, gm, members
