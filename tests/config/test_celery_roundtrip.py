"""A real Celery worker process answers a task through the filesystem transport and Redis."""

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from celery import Celery

from config.settings.base import BASE_DIR, filesystem_broker_options


def start_worker(env: dict[str, str], queue: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config.celery_app", "worker",
         "--pool=solo", "--loglevel=WARNING", "-Q", queue, "--without-gossip",
         "--without-mingle", "--without-heartbeat", "-n", f"{queue}@%h"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_worker(worker: subprocess.Popen[bytes]) -> str:
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        out, _ = worker.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        out, _ = worker.communicate()
    return out.decode(errors="replace")


def worker_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "CELERY_FS_DIR"}}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env.update(extra)
    return env


def round_trip(client_app: Celery, env: dict[str, str]) -> str:
    queue = f"roundtrip-{uuid.uuid4().hex[:8]}"
    worker = start_worker(env, queue)
    try:
        result = client_app.send_task("warcamp.ping", args=["hello"], queue=queue)
        answer = result.get(timeout=60)
    finally:
        log = stop_worker(worker)
    assert answer == "pong:hello", log
    return answer


def test_round_trip_through_filesystem_transport(tmp_path: Path):
    options = filesystem_broker_options(tmp_path)
    app = Celery(
        "client",
        broker="filesystem://",
        backend=f"file://{tmp_path / 'results'}",
        broker_transport_options=options,
        accept_content=["json"],
        task_serializer="json",
    )
    assert round_trip(app, worker_env(CELERY_FS_DIR=str(tmp_path))) == "pong:hello"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "control", "processed", "queue", "results"
    ]
    assert list((tmp_path / "processed").iterdir()), "the consumed message is kept in processed/"


def test_round_trip_through_redis(redis_url: str):
    app = Celery("client", broker=redis_url, backend=redis_url,
                 accept_content=["json"], task_serializer="json")
    assert round_trip(app, worker_env(REDIS_URL=redis_url)) == "pong:hello"


def test_celery_app_configuration():
    from config.celery_app import app

    assert app.conf.accept_content == ["json"]
    assert app.conf.task_serializer == "json"
    assert app.conf.result_serializer == "json"
    assert app.conf.task_acks_late is True
    assert app.conf.task_time_limit == 300
    assert app.conf.task_soft_time_limit == 240
    assert app.conf.broker_url == "filesystem://"
    options = app.conf.broker_transport_options
    assert set(options) >= {"data_folder_in", "data_folder_out", "processed_folder", "control_folder"}
    assert all(Path(options[k]).is_absolute() and Path(options[k]).is_dir()
               for k in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"))
    assert app.conf.result_backend.startswith("file:///")
