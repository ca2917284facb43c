"""Celery: routing policy, and tasks sent from Django running on a real worker process."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery

from config.celery import HEARTBEAT_SECONDS
from config.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]


ROUTING_KEYS = ("task_queues", "task_routes", "task_default_queue", "task_default_exchange", "task_default_routing_key")


@pytest.fixture
def routing_probe_app(tmp_path):
    """A Celery app with the project's queues and routes on the configured broker, in a
    namespace of its own, so that the suite's running worker cannot take its messages."""
    from django.conf import settings

    options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    if settings.CELERY_BROKER_URL.startswith("filesystem:"):
        for key in ("data_folder_in", "data_folder_out", "control_folder"):
            options[key] = str(tmp_path)
    else:
        options["global_keyprefix"] = f"routing-probe-{uuid.uuid4().hex}:"
    app = Celery("routing-probe", set_as_current=False)
    app.conf.update(
        broker_url=settings.CELERY_BROKER_URL,
        broker_transport_options=options,
        **{key: celery_app.conf[key] for key in ROUTING_KEYS},
    )
    with app.connection_for_write() as conn:
        for queue in app.conf.task_queues:
            queue.bind(conn.default_channel).declare()
    yield app
    with app.connection_for_write() as conn:
        for queue in app.conf.task_queues:
            queue.bind(conn.default_channel).purge()
    if "global_keyprefix" in options:
        import redis

        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        stale = list(client.scan_iter(match=f"{options['global_keyprefix']}*"))
        if stale:
            client.delete(*stale)


def queue_sizes(app: Celery) -> dict[str, int]:
    with app.connection_for_write() as conn:
        return {q.name: q.bind(conn.default_channel).queue_declare().message_count for q in app.conf.task_queues}


def test_delivery_policy_is_at_least_once_one_task_at_a_time():
    conf = celery_app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert [q.name for q in conf.task_queues] == [
        "live", "periodic", "tournaments", "matches", "ladder", "default", "lab"]


@pytest.mark.parametrize(("task_name", "queue"), [
    ("matches.run_match", "matches"),
    ("matches.sweep", "periodic"),
    ("web.heartbeat", "periodic"),
    ("live.bot_act", "live"),
    ("live.check_clock", "live"),
    ("live.tick", "periodic"),
    ("lab.play_chunk", "lab"),
    ("lab.sweep", "periodic"),
    ("web.something_else", "default"),
])
def test_task_lands_in_its_queue_and_only_there(routing_probe_app, task_name, queue):
    """A live bot's move and a live clock's check go to ``live``, which has a worker of its
    own; beat's tasks go to ``periodic``, ahead of every match; ``matches.*`` tasks to the
    matches queue, every other task to default; a message is never copied into two queues."""
    routing_probe_app.send_task(task_name, kwargs={"probe": uuid.uuid4().hex})
    expected = {name: 0 for name in ("live", "periodic", "tournaments", "matches", "ladder", "default", "lab")}
    expected[queue] = 1
    assert queue_sizes(routing_probe_app) == expected


@pytest.mark.parametrize(("queue"), ["tournaments", "matches", "ladder"])
def test_a_task_sent_to_a_named_queue_lands_there_only(routing_probe_app, queue):
    """Match services send ``run_match`` to the queue of the match's kind."""
    routing_probe_app.send_task("matches.run_match", kwargs={"probe": uuid.uuid4().hex}, queue=queue)
    expected = {name: 0 for name in ("live", "periodic", "tournaments", "matches", "ladder", "default", "lab")}
    expected[queue] = 1
    assert queue_sizes(routing_probe_app) == expected


def test_beat_schedules_the_heartbeat():
    entry = celery_app.conf.beat_schedule["site-heartbeat"]
    assert entry["task"] == "web.heartbeat"
    assert entry["schedule"] == HEARTBEAT_SECONDS


def wait_for_heartbeat(worker: str, *, beats: int = 1, timeout: float = 30.0):
    from web.models import Heartbeat
    from web.services import SITE_HEARTBEAT

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = Heartbeat.objects.filter(name=SITE_HEARTBEAT, worker=worker, beats__gte=beats).first()
        if row is not None:
            return row
        time.sleep(0.2)
    return None


@pytest.mark.django_db(transaction=True)
def test_task_sent_from_django_runs_on_a_real_worker_and_its_result_reaches_the_database(celery_worker_process):
    from web.tasks import heartbeat

    heartbeat.delay()
    row = wait_for_heartbeat(celery_worker_process.hostname)
    assert row is not None, f"no heartbeat row written by the worker:\n{celery_worker_process.log()}"
    assert row.beats == 1

    heartbeat.delay()
    row = wait_for_heartbeat(celery_worker_process.hostname, beats=2)
    assert row is not None and row.beats == 2


@pytest.mark.django_db(transaction=True)
def test_the_suites_worker_takes_no_task_between_the_tests_that_hold_it(celery_worker_process, worker_consuming):
    """A test that plays a match in-process must not be raced for it by the session's worker
    left over from an earlier test (a CI run failed so: the worker claimed the match first)."""
    from web.tasks import heartbeat

    worker_consuming(celery_worker_process, False)
    heartbeat.delay()
    assert wait_for_heartbeat(celery_worker_process.hostname, timeout=3.0) is None, "released, the worker took a task"

    worker_consuming(celery_worker_process, True)
    row = wait_for_heartbeat(celery_worker_process.hostname)
    assert row is not None and row.beats == 1, f"taken again, the worker ran no task:\n{celery_worker_process.log()}"


@pytest.mark.django_db(transaction=True)
def test_beat_process_schedules_heartbeats_that_the_worker_records(celery_worker_process, service_env, tmp_path):
    """The process model of ``make run``: beat sends, the broker carries, the worker writes."""
    env = service_env(HEARTBEAT_SECONDS="1")
    log = tmp_path / "beat.log"
    with open(log, "wb") as out:
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "info",
             "--schedule", str(tmp_path / "celerybeat-schedule")],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        row = wait_for_heartbeat(celery_worker_process.hostname, beats=2, timeout=45)
        assert row is not None, f"beat log:\n{log.read_text()[-3000:]}\nworker log:\n{celery_worker_process.log()}"
    finally:
        beat.terminate()
        beat.wait(timeout=15)
