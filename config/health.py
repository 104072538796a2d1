"""Health checks of the database and the Celery broker (/healthz, container healthcheck)."""

import os
from pathlib import Path

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .celery_app import app as celery_app


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return f"down: {type(exc).__name__}"
    return "ok"


def broker_state() -> str:
    try:
        with celery_app.connection_for_write() as conn:
            if conn.transport_cls == "filesystem":
                # The filesystem transport "connects" without touching disk: check its folders.
                for key in ("data_folder_in", "data_folder_out", "processed_folder"):
                    folder = Path(conn.transport_options[key])
                    if not (folder.is_dir() and os.access(folder, os.W_OK)):
                        return f"down: {key} {folder} is not a writable folder"
            else:
                conn.ensure_connection(max_retries=1, interval_start=0, timeout=3)
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return f"down: {type(exc).__name__}"
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": database_state(), "broker": broker_state()}
    down = [name for name, state in checks.items() if state != "ok"]
    status = "ok" if not down else "unavailable: " + ", ".join(down)
    return JsonResponse({"status": status, **checks}, status=503 if down else 200)
