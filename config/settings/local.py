"""The embedded default for `./dev up`: DEBUG, SQLite, filesystem broker, mails as files."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "local-development-only-not-secret-" + "x" * 20)
os.environ.setdefault("DJANGO_DEBUG", "true")
os.environ.setdefault("ACCOUNT_EMAIL_VERIFICATION", "optional")

from .base import *  # noqa: E402

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "0.0.0.0"])  # noqa: S104
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}

# Mails are written as files under var/mail/ (one per message), not to the console.
EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = VAR_DIR / "mail"
