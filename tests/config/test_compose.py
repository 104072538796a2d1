"""The production compose file's structure: services, shared definition, env, healthchecks."""

from pathlib import Path

import pytest
import yaml

from config.settings.base import BASE_DIR

COMPOSE = BASE_DIR / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_services(compose):
    assert sorted(compose["services"]) == ["beat", "postgres", "redis", "web", "worker"]
    assert compose["services"]["postgres"]["image"] == "postgres:16"
    assert compose["services"]["redis"]["image"] == "redis:7"


def test_app_services_share_one_anchor():
    text = COMPOSE.read_text()
    assert "x-app: &app" in text
    assert text.count("<<: *app") == 3


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_app_service_definition(compose, name):
    service = compose["services"][name]
    assert service["image"] == "warcamp:latest"
    assert service["build"] == "."
    env = service["environment"]
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert env["DATABASE_URL"].startswith("postgres://warcamp:")
    assert env["DATABASE_URL"].endswith("@postgres:5432/warcamp")
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert service["env_file"] == ".env"
    assert service["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert "healthcheck" in service


def test_commands(compose):
    services = compose["services"]
    web = services["web"]["command"]
    assert web.index("manage.py migrate --noinput") < web.index("gunicorn config.wsgi:application")
    assert services["worker"]["command"][:5] == ["celery", "-A", "config.celery_app", "worker",
                                                 "--loglevel=INFO"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config.celery_app", "beat"]


def test_web_healthcheck_uses_healthz(compose):
    test = compose["services"]["web"]["healthcheck"]["test"]
    assert "http://127.0.0.1:8000/healthz" in " ".join(test)


def test_every_service_has_a_healthcheck(compose):
    assert all("healthcheck" in s for s in compose["services"].values())


def test_named_volumes(compose):
    assert sorted(compose["volumes"]) == ["beat-data", "postgres-data", "redis-data"]
    assert compose["services"]["postgres"]["volumes"] == ["postgres-data:/var/lib/postgresql/data"]
    assert compose["services"]["redis"]["volumes"] == ["redis-data:/data"]


def test_env_example_documents_what_compose_needs():
    example = (BASE_DIR / ".env.example").read_text()
    keys = {line.split("=", 1)[0] for line in example.splitlines()
            if line and not line.startswith("#")}
    assert {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "POSTGRES_PASSWORD", "EMAIL_URL"} <= keys


def test_dockerfile_is_conventional():
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    assert dockerfile.startswith("# ")
    assert "FROM python:3.11-slim" in dockerfile
    assert "collectstatic --noinput" in dockerfile
    assert "USER warcamp" in dockerfile
    assert Path(BASE_DIR / ".dockerignore").read_text().splitlines()[0] == ".venv"
