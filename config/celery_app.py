"""The Celery application: settings under the CELERY_ namespace, tasks autodiscovered."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("warcamp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="warcamp.ping")
def ping(payload: str = "") -> str:
    """Answer with the payload; used to check a round trip through broker and results."""
    return f"pong:{payload}"
