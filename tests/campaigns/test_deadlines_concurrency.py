"""Concurrent sweeps (separate processes) and a person ending the phase: one transition."""

import json
import os
import subprocess
import sys
import threading
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Count

from campaigns.games.erfworld import phase_end
from campaigns.models import Event, EventKind, Notice, Notification, Phase, PhaseStatus
from config.settings.base import BASE_DIR
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db(transaction=True)]

PROCESSES = 8


def start_sweeps(now: str) -> list[subprocess.Popen[str]]:
    db = connection.settings_dict
    url = (f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
           f"{db['NAME']}")
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    return [
        subprocess.Popen([sys.executable, "manage.py", "process_deadlines", "--now", now],
                         cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for _ in range(PROCESSES)
    ]


def finish(processes: list[subprocess.Popen[str]]) -> list[dict]:
    lines = []
    for p in processes:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        lines += [json.loads(line) for line in out.splitlines()]
    return lines


def test_eight_concurrent_sweeps_reach_the_deadline_exactly_once(require_postgres):
    campaign, gm, members = started_campaign_factory(players=3)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    actions = finish(start_sweeps(phase.deadline_at.isoformat()))
    assert actions == [{"campaign": campaign.pk, "phase": phase.pk, "event": "deadline_reached"}]
    [event] = Event.objects.filter(campaign=campaign, kind=EventKind.DEADLINE_REACHED)
    assert Notice.objects.filter(event=event).count() == 1
    recipients = Counter(Notification.objects.filter(event=event).values_list("user", flat=True))
    assert recipients == Counter({m.user_id: 1 for m in members} | {gm.pk: 1})


def test_sweeps_racing_a_manual_end_give_one_transition(require_postgres):
    campaign, gm, _ = started_campaign_factory(players=3)
    campaign.hard_deadline = True
    campaign.save(update_fields=["hard_deadline"])
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    processes = start_sweeps(phase.deadline_at.isoformat())
    errors: list[BaseException] = []

    def end_by_hand() -> None:
        try:
            phase_end(user=gm, campaign=campaign, reason="ending it myself", expected_phase=phase)
        except Exception as exc:  # the phase may already be closed by a sweep
            errors.append(exc)
        finally:
            connection.close()

    manual = threading.Thread(target=end_by_hand)
    manual.start()
    actions = finish(processes)
    manual.join(timeout=120)
    closed = Event.objects.filter(campaign=campaign, kind=EventKind.PHASE_CLOSED, phase=phase)
    assert closed.count() == 1
    assert Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).count() == 1
    assert Phase.objects.filter(campaign=campaign).count() == 2
    auto = [a for a in actions if a["event"] == "auto_closed"]
    if closed.get().actor_id == gm.pk:
        assert auto == []
        assert errors == []
    else:
        assert len(auto) == 1
        assert [getattr(e, "code", None) for e in errors] == ["phase_already_closed"]
    assert len([a for a in actions if a["event"] == "deadline_reached"]) <= 1
    duplicates = (Notification.objects.values("event", "user").order_by()
                  .annotate(n=Count("id")).filter(n__gt=1))
    assert list(duplicates) == []
