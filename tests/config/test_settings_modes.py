"""Every settings mode loads; production passes `check --deploy` with the documented variables."""

import os
import subprocess
import sys

import pytest

from config.settings.base import BASE_DIR

PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": "k" * 10 + "production-secret-with-enough-entropy-1234567890!@#",
    "DJANGO_ALLOWED_HOSTS": "warcamp.example.org",
    "DATABASE_URL": "postgres://warcamp:pw@db:5432/warcamp",
    "REDIS_URL": "redis://redis:6379/0",
    "EMAIL_URL": "smtp+tls://mailer:pw@smtp.example.org:587",
}


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "EMAIL_", "ACCOUNT_"))}
    base["CELERY_FS_DIR"] = os.environ.get("CELERY_FS_DIR", str(BASE_DIR / "var" / "test-celery"))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, env={**base, **env},
        capture_output=True, text=True, timeout=120,
    )


SHOW = (
    "import django; from django.conf import settings as s; django.setup(); "
    "print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL.split(':')[0], "
    "s.ACCOUNT_EMAIL_VERIFICATION, s.EMAIL_BACKEND.rsplit('.', 2)[-2])"
)


@pytest.mark.parametrize(
    ("module", "extra", "expected"),
    [
        ("config.settings.local", {}, "True django.db.backends.sqlite3 filesystem optional filebased"),
        ("config.settings.test", {}, "False django.db.backends.sqlite3 filesystem mandatory locmem"),
        ("config.settings.production", PRODUCTION_ENV,
         "False django.db.backends.postgresql redis mandatory smtp"),
    ],
)
def test_settings_mode_loads(module, extra, expected):
    result = run_python(SHOW, {"DJANGO_SETTINGS_MODULE": module, **extra})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "DJANGO_SECRET_KEY"}
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "Set the DJANGO_SECRET_KEY environment variable" in result.stderr


def test_check_deploy_is_clean_under_production_settings():
    result = run_python(
        "import sys; from django.core.management import execute_from_command_line; "
        "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'DEBUG'])",
        PRODUCTION_ENV,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


def test_check_deploy_fails_on_the_env_example_placeholders():
    placeholders = {}
    for line in (BASE_DIR / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            placeholders[key] = value
    env = {**PRODUCTION_ENV, "DJANGO_SECRET_KEY": placeholders["DJANGO_SECRET_KEY"],
           "DATABASE_URL": f"postgres://warcamp:{placeholders['POSTGRES_PASSWORD']}@db:5432/w"}
    result = run_python(
        "import sys; from django.core.management import execute_from_command_line; "
        "execute_from_command_line(['manage.py', 'check', '--deploy'])", env)
    assert result.returncode == 1
    assert ("(warcamp.E001) DJANGO_SECRET_KEY is the placeholder of .env.example." in
            result.stderr)
    assert ("(warcamp.E002) The database password is the placeholder of .env.example "
            "(POSTGRES_PASSWORD)." in result.stderr)
