"""A PostgreSQL connection killed in the middle of an order: the API answers 503 JSON with
Retry-After, nothing of the order is saved, and the next request (a new connection) works."""

import pytest
from django.db import connection

from campaigns.models import Event, Stack
from tests.api.play_setup import url
from tests.campaigns.engine_setup import move_phase_campaign, own_stack

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("require_postgres")]


def test_a_killed_connection_mid_move_is_503_and_changes_nothing(client_for, monkeypatch):
    from campaigns.games.erfworld import move_combat

    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    events = Event.objects.count()
    real = move_combat.record_event

    def killed(**kwargs):
        # The stack has been saved in its new hex; then the server's connection dies.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return real(**kwargs)

    monkeypatch.setattr(move_combat, "record_event", killed)
    response = client_for(p1.user).post(url(campaign, f"stacks/{stack.pk}/move/"),
                                        {"path": ["B1"]}, format="json")
    assert (response.status_code, response["Retry-After"], response.json()) == (
        503, "5", {"code": "database_unavailable", "field": None,
                   "detail": "The database could not be reached; nothing was changed. "
                             "Try again in a few seconds."})
    monkeypatch.setattr(move_combat, "record_event", real)
    assert (Stack.objects.get(pk=stack.pk).hex, Event.objects.count()) == ("A1", events)
    again = client_for(p1.user).post(url(campaign, f"stacks/{stack.pk}/move/"),
                                     {"path": ["B1"]}, format="json")
    assert (again.status_code, Stack.objects.get(pk=stack.pk).hex) == (200, "B1")
