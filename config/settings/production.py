"""Production: settings only from the environment; HTTPS, SMTP, mandatory email verification."""

import os

os.environ.setdefault("ACCOUNT_EMAIL_VERIFICATION", "mandatory")

from .base import *  # noqa: E402

DEBUG = False
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="smtp://localhost:25")
vars().update(EMAIL_CONFIG)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# The container healthcheck calls /healthz over plain HTTP from inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

EMAIL_TIMEOUT = 10

# One cache for all gunicorn workers (the API's throttle counters live in it): with a cache
# per process each caller could make the throttle rate once per worker.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "config.cache.FailOpenRedisCache",
                          "LOCATION": REDIS_URL, "KEY_PREFIX": "warcamp"}}
