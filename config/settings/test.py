"""Settings for pytest: the suite sets DATABASE_URL/REDIS_URL when it found the servers."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-secret-" + "y" * 30)
os.environ.setdefault("ACCOUNT_EMAIL_VERIFICATION", "mandatory")

from .base import *  # noqa: E402

DEBUG = False
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
# Serve static files straight from the source folders (no collectstatic in the suite).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Tasks fired by the code under test run at once, in-process (the Celery round-trip and the
# end-to-end deadline tests start real workers on their own apps instead).
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
