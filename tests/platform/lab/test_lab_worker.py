"""Each lab match is played and recorded exactly once, even when a worker is killed.

With PostgreSQL, Redis and real ``celery worker`` processes serving the ``lab`` queue: a
worker is killed with SIGKILL while it plays a chunk (nothing of the chunk is written),
its lease expires, the sweeper hands the chunk on, and another worker plays it. The run
ends done with every match once: the ``(run, number)`` unique constraint would refuse a
second write, and the count and the numbers are checked.

The test runs its workers on a broker namespace of its own, so the suite's session worker
(which also serves ``lab``) never takes these chunks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import celery
import pytest
from django.db import connection
from django.utils import timezone
from lab_helpers import make_deck

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


class Worker:
    def __init__(self, name: str, env: dict[str, str], log_dir: Path):
        self.hostname = f"{name}-{uuid.uuid4().hex[:6]}@test"
        self.log_path = log_dir / f"{name}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--hostname",
                 self.hostname, "--queues", "lab", "--loglevel", "info", "--without-mingle", "--without-gossip"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if f"{self.hostname} ready." in self.log():
                return
            if self.process.poll() is not None:
                pytest.fail(f"{self.hostname} exited ({self.process.returncode}):\n{self.log()[-4000:]}")
            time.sleep(0.2)
        pytest.fail(f"{self.hostname} not ready within {timeout:g} s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def test_a_killed_worker_loses_no_match_and_doubles_none(alice, service_env, tmp_path, settings):
    if connection.vendor != "postgresql":
        reason = "needs PostgreSQL (DATABASE_URL): several worker processes write the same run"
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    from config.celery import app as celery_app
    from lab.models import LabChunk, LabMatch, LabRun
    from lab.services import PLAY_CHUNK, lab_start, lab_sweep_expired
    from web import effects

    run_id = f"{settings.TEST_RUN_ID}-lab-{uuid.uuid4().hex[:6]}"
    broker = celery.Celery("lab-worker-test", broker=settings.CELERY_BROKER_URL, set_as_current=False)
    broker.conf.update(
        broker_transport_options={**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": f"test-{run_id}:"},
        task_queues=celery_app.conf.task_queues, task_default_queue=celery_app.conf.task_default_queue,
    )

    def forward(tasks) -> None:
        for name, args, queue, _ in tasks:
            broker.send_task(name, args=args, queue=queue)

    env = service_env(LAB_LEASE_SECONDS="3", TEST_RUN_ID=run_id)
    workers: list[Worker] = []
    try:
        # Greedy pilots: a chunk of 10 matches takes a second or more, time to kill its worker mid-chunk.
        settings.LAB_CHUNK_MATCHES = 10
        # A chunk left queued this long has its task sent again (a message lost in transit,
        # or held unacknowledged by the killed worker until Redis's visibility timeout):
        # 5 s here instead of 10 minutes.
        settings.LAB_RESEND_SECONDS = 5
        deck = make_deck(alice)
        make_deck(alice, index=1, starter=True)
        doomed = Worker("doomed", env, tmp_path)
        workers.append(doomed)
        doomed.wait_ready()
        with effects.recording(tasks=[PLAY_CHUNK]) as held:
            run = lab_start(owner=alice, deck=deck, n=30, field_kind="starters", pilot="greedy")
        assert len(held.tasks_named(PLAY_CHUNK)) == 3
        forward(held.tasks)

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            taken = LabChunk.objects.filter(run=run, status="running", lease_owner__startswith=doomed.hostname).first()
            if taken is not None:
                break
            time.sleep(0.05)
        assert taken is not None, doomed.log()[-3000:]
        os.kill(doomed.process.pid, signal.SIGKILL)
        doomed.process.wait(timeout=10)
        # Killed mid-chunk: nothing of it was written.
        assert not LabMatch.objects.filter(run=run, number__in=list(taken.numbers)).exists()

        rescuer = Worker("rescuer", env, tmp_path)
        workers.append(rescuer)
        rescuer.wait_ready()
        # The sweeper (beat's lab.sweep) hands the chunk on once its lease has expired.
        deadline = time.monotonic() + 30
        requeued: list[int] = []
        while not requeued and time.monotonic() < deadline:
            time.sleep(0.5)
            with effects.recording(tasks=[PLAY_CHUNK]) as held:
                requeued = lab_sweep_expired(now=timezone.now()).requeued
            forward(held.tasks)
        assert requeued == [taken.pk]

        # Beat keeps sweeping while the run goes on: a chunk whose message the killed worker
        # had already taken (prefetched, unacknowledged) is sent again once it has waited
        # LAB_RESEND_SECONDS; no other lease expires.
        deadline = time.monotonic() + 180
        while LabRun.objects.get(pk=run.pk).status != "done" and time.monotonic() < deadline:
            time.sleep(1)
            with effects.recording(tasks=[PLAY_CHUNK]) as held:
                assert lab_sweep_expired(now=timezone.now()).requeued == []
            forward(held.tasks)
        run.refresh_from_db()
        assert run.status == "done", rescuer.log()[-3000:]
        numbers = list(LabMatch.objects.filter(run=run).order_by("number").values_list("number", flat=True))
        assert numbers == list(range(1, 31)) and run.progress == 30
        taken.refresh_from_db()
        assert taken.status == "done" and taken.attempts == 2
        assert "lab.play_chunk" in rescuer.log()
    finally:
        for worker in workers:
            worker.stop()
