"""Schemathesis against the app's own OpenAPI schema, through WSGI (no server): every
operation, a bounded and reproducible number of generated requests, as the Chief Warlord of
a started campaign (token authentication). No answer may be a 5xx or differ from the schema.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.services import api_token_create
from campaigns.models import (
    Event,
    Fortification,
    Phase,
    Post,
    ScoutOrder,
    Stack,
    Thread,
    Unit,
    UnitType,
)
from rules.registry import RULESETS, get_ruleset

EXAMPLES_PER_OPERATION = 15

CONFIG = schemathesis.Config.from_dict({
    "seed": 20260101,
    "generation": {"max-examples": EXAMPLES_PER_OPERATION, "deterministic": True,
                   "database": "none"},
    # Coverage would add hundreds of boundary cases per operation; the budget is ~60 s.
    "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
})

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), config=CONFIG)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]

DICE_COMMANDS = ("verify", "commit")


class Seeded:
    """The campaign every request is aimed at, and ids of each kind that exist in it (the
    caller's own, their allies', and hidden opposition ones)."""

    def __init__(self) -> None:
        from campaigns.games.erfworld import phase_end, scout_order_give
        from campaigns.services.forum import post_create, threads_ensure
        from tests.factories import started_campaign_factory

        campaign, gm, (chief, ally) = started_campaign_factory(players=2)
        scout = Unit.objects.get(owner=chief, name="Scout 1")
        scout_order_give(user=chief.user, campaign=campaign, scout=scout,
                         directions=["SE", "S", "SE", "SE", "S"])
        phase_end(user=gm, campaign=campaign, reason="schemathesis")
        threads_ensure(campaign=campaign)
        for thread in Thread.objects.filter(campaign=campaign):
            post_create(user=gm, thread=thread, body="Welcome.")
        self.campaign_id = campaign.pk
        self.token = api_token_create(user=chief.user)
        phases = Phase.objects.filter(campaign=campaign)
        self.ids: dict[str, list[int]] = {
            "campaign_id": [campaign.pk],
            "stack_id": list(Stack.objects.filter(campaign=campaign).values_list("pk", flat=True)),
            "unit_id": list(Unit.objects.filter(campaign=campaign).values_list("pk", flat=True)),
            "type_id": list(UnitType.objects.filter(campaign=campaign)
                            .values_list("pk", flat=True)),
            "phase_id": list(phases.values_list("pk", flat=True)),
            "order_id": list(ScoutOrder.objects.filter(phase__in=phases)
                             .values_list("pk", flat=True)),
            "event_id": list(Event.objects.filter(campaign=campaign).values_list("pk", flat=True)),
            "fort_id": list(Fortification.objects.filter(campaign=campaign)
                            .values_list("pk", flat=True)),
            "thread_id": list(Thread.objects.filter(campaign=campaign)
                              .values_list("pk", flat=True)),
            "post_id": list(Post.objects.filter(thread__campaign=campaign)
                            .values_list("pk", flat=True)),
        }

    def aim(self, path_parameters: dict[str, Any]) -> None:
        """Turn generated path ids into ids of the seeded campaign, deterministically, so that
        requests reach the views' logic instead of stopping at 404."""
        for name, value in path_parameters.items():
            pool = sorted(self.ids.get(name, []))
            if pool and isinstance(value, int):
                path_parameters[name] = pool[value % len(pool)]
        ruleset = path_parameters.get("ruleset")
        if isinstance(ruleset, str):
            rulesets = [*sorted(RULESETS), "dice"]
            chosen = rulesets[zlib.crc32(ruleset.encode()) % len(rulesets)]
            commands = sorted(DICE_COMMANDS if chosen == "dice"
                              else get_ruleset(chosen).calculators())
            command = str(path_parameters.get("command", ""))
            path_parameters["ruleset"] = chosen
            path_parameters["command"] = commands[zlib.crc32(command.encode()) % len(commands)]


@pytest.fixture(scope="module")
def seeded(django_db_setup: None, django_db_blocker: Any) -> Iterator[Seeded]:
    """One campaign for the whole module, rolled back at its end. Django's WSGI handler
    closes "old" connections around each request, which inside a test's transaction would
    break it: the test client disconnects that handler too."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield Seeded()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.usefixtures("require_postgres")
@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_the_api_answers_as_its_schema_says(case: Any, seeded: Seeded) -> None:
    seeded.aim(case.path_parameters)
    cache.clear()  # no example may be throttled by the ones before it
    with transaction.atomic():
        # Every example meets the campaign as seeded: its changes are rolled back.
        # Identity: the WSGI transport hands schemathesis the body as the app wrote it, and
        # the GZip middleware would compress it for the "gzip, deflate" it sends by default
        # (tests/api/test_map.py checks the compression).
        case.call_and_validate(headers={"Authorization": f"Token {seeded.token}",
                                        "Accept-Encoding": "identity"},
                               checks=CHECKS)
        transaction.set_rollback(True)
