"""Secrets handed to a user once and stored as their SHA-256 only (API, calendar and share
tokens): a new random key and the digest that finds it again."""

from __future__ import annotations

import hashlib
import secrets


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str]:
    """(key, digest): 43 URL-safe characters (256 random bits) and its SHA-256."""
    key = secrets.token_urlsafe(32)
    return key, token_digest(key)
