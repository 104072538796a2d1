"""End to end: Celery beat's task, run by a real worker over Redis, reaches a deadline."""

import pytest
from celery.contrib.testing.worker import start_worker

from campaigns.models import Event, EventKind, Phase, PhaseStatus
from campaigns.tasks import sweep_deadlines
from config.celery_app import app
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db(transaction=True)]


def forget_connections() -> None:
    """Drop the app's cached result backend and producer pool, built from the old settings."""
    app._local.__dict__.pop("backend", None)
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def redis_app(redis_url, monkeypatch):
    url = redis_url.rsplit("/", 1)[0] + "/15"  # a database of its own
    for key, value in {"broker_url": url, "result_backend": url, "task_always_eager": False,
                       "broker_transport_options": {"visibility_timeout": 3600}}.items():
        monkeypatch.setitem(app.conf, key, value)
    forget_connections()
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            yield app
    finally:
        monkeypatch.undo()
        forget_connections()


def test_a_worker_runs_the_sweep_and_reaches_the_deadline(redis_app, monkeypatch):
    campaign, _, _ = started_campaign_factory(players=2)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    Phase.objects.filter(pk=phase.pk).update(
        opened_at=phase.opened_at.replace(year=2020), deadline_at=phase.deadline_at.replace(year=2020)
    )
    assert sweep_deadlines.apply_async(ignore_result=False).get(timeout=60) == 1
    assert Event.objects.filter(campaign=campaign, kind=EventKind.DEADLINE_REACHED).count() == 1
    assert sweep_deadlines.apply_async(ignore_result=False).get(timeout=60) == 0
