"""/healthz reports the database and the broker; 503 names the part that is down."""

import pytest
from django.db.utils import OperationalError
from django.urls import reverse

from config import health
from config.celery_app import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(monkeypatch):
    """Point the Celery app at another broker for one test."""

    def use(url: str, options: dict | None = None) -> None:
        monkeypatch.setitem(celery_app.conf, "broker_url", url)
        monkeypatch.setitem(celery_app.conf, "broker_transport_options", options or {})

    return use


def test_healthz_ok_with_filesystem_broker(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


def test_healthz_503_when_redis_broker_is_down(client, broker):
    broker("redis://127.0.0.1:1/0", {"socket_connect_timeout": 1})
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable: broker"
    assert body["database"] == "ok"
    assert body["broker"] == "down: OperationalError"


def test_healthz_503_when_filesystem_queue_folder_is_missing(client, broker, tmp_path):
    missing = tmp_path / "gone"
    broker(
        "filesystem://",
        {"data_folder_in": str(missing), "data_folder_out": str(missing),
         "processed_folder": str(tmp_path)},
    )
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["broker"] == f"down: data_folder_in {missing} is not a writable folder"


def test_healthz_503_when_database_is_down(client, monkeypatch):
    def broken_cursor():
        raise OperationalError("connection refused")

    monkeypatch.setattr(health.connection, "cursor", broken_cursor)
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable: database",
        "database": "down: OperationalError",
        "broker": "ok",
    }


def test_healthz_ok_with_redis_broker(client, broker, redis_url):
    broker(redis_url, {"socket_connect_timeout": 3})
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json()["broker"] == "ok"


def test_healthz_refuses_post(client):
    assert client.post(reverse("healthz")).status_code == 405
