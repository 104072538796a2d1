"""Deployment checks of our own (`manage.py check --deploy`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register

# The placeholders of .env.example: a server started with one of them is not secret at all.
PLACEHOLDER_MARK = "change-me"


@register(Tags.security, deploy=True)
def placeholder_secrets(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors = []
    if PLACEHOLDER_MARK in str(settings.SECRET_KEY):
        errors.append(Error(
            "DJANGO_SECRET_KEY is the placeholder of .env.example.",
            hint="Generate one: python -c \"import secrets; print(secrets.token_urlsafe(64))\"",
            id="warcamp.E001"))
    database = settings.DATABASES["default"]
    if PLACEHOLDER_MARK in str(database.get("PASSWORD", "")):
        errors.append(Error("The database password is the placeholder of .env.example "
                            "(POSTGRES_PASSWORD).", id="warcamp.E002"))
    return errors
