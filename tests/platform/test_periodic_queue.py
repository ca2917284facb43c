"""The sweeper never waits behind match tasks (issue 11).

``matches.sweep`` used to go to the ``matches`` queue, so with every worker busy a lease
that had expired was re-queued only when a worker finished its match (48 s later in the
report). Beat's tasks now go to the ``periodic`` queue, and the deployment runs a small
worker that serves only that queue beside the match workers (Procfile, docker-compose.yml,
docs/architecture.md): a match worker (solo pool, one task at a time, prefetch 1) cannot
pick up anything while it plays, whatever the queue order.

Here, with Redis and real processes: the only match worker is busy with a long match and
more matches wait behind it; a match whose worker died (expired lease) is re-queued by
the periodic worker's sweep while the match worker is still busy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import celery
import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from engine import games

ROOT = Path(__file__).resolve().parents[2]
MATCH_TESTS = ROOT / "tests" / "platform" / "matches"  # sleepy_bot: a pilot that thinks for a while
MATCH_QUEUES = "tournaments,matches,ladder,default"

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


class Celery:
    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir: Path):
        self.name, self.log_path = name, log_dir / f"{name}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args], cwd=ROOT,
                                            env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, text: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log():
                return
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited ({self.process.returncode}):\n{self.log()[-4000:]}")
            time.sleep(0.2)
        pytest.fail(f"{self.name}: no '{text}' within {timeout:g} s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def starter(game: str, index: int) -> str:
    engine_game = games[game]
    return list(engine_game.starter_decks().values())[index].to_text(engine_game.commander_label)


def test_an_expired_lease_is_requeued_while_every_match_worker_is_busy(service_env, tmp_path):
    from config.celery import app as celery_app
    from decks.services import deck_register
    from matches.models import Match, MatchSeat
    from matches.services import RUN_MATCH, match_challenge
    from web import effects

    started: list[Celery] = []
    # A broker namespace of this test's own: the suite's session worker (if another test
    # started it) must not play these matches or run these sweeps.
    run_id = f"{settings.TEST_RUN_ID}-sweep-{uuid.uuid4().hex[:6]}"
    # Not the current app: later tests' `task.delay()` must still go through the suite's broker.
    broker = celery.Celery("periodic-queue-test", broker=settings.CELERY_BROKER_URL, set_as_current=False)
    broker.conf.update(
        broker_transport_options={**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": f"test-{run_id}:"},
        task_queues=celery_app.conf.task_queues, task_default_queue=celery_app.conf.task_default_queue,
    )

    def send_to_own_broker(tasks) -> None:
        for name, args, queue, _ in tasks:
            broker.send_task(name, args=args, queue=queue)

    # No decision budget: the slow pilot must not forfeit while the test watches.
    env = service_env(MATCHES_LEASE_SECONDS="60", MATCHES_DECISION_SECONDS="0", TEST_RUN_ID=run_id)
    env["PYTHONPATH"] = os.pathsep.join((str(MATCH_TESTS), env["PYTHONPATH"]))

    def worker(name: str, queues: str, *extra: str) -> Celery:
        hostname = f"{name}-{uuid.uuid4().hex[:6]}@test"
        process = Celery(name, ["worker", "--pool", "solo", "--hostname", hostname, "--queues", queues,
                                "--loglevel", "info", "--without-mingle", "--without-gossip", *extra], env, tmp_path)
        started.append(process)
        process.wait_for(f"{hostname} ready.")
        return process

    try:
        alice = User.objects.create_user(f"sweep-a-{uuid.uuid4().hex[:6]}", password="pw-sweep-123")
        bob = User.objects.create_user(f"sweep-b-{uuid.uuid4().hex[:6]}", password="pw-sweep-123")
        decks = [deck_register(owner=owner, game="tempofront", name=f"d{i}", decklist=starter("tempofront", i),
                               pilot="random") for i, owner in enumerate((alice, bob))]
        versions = [d.latest_version for d in decks]

        busy_worker = worker("match-worker", MATCH_QUEUES, "--include", "sleepy_bot")
        # The periodic worker and beat, sweeping every 2 s (nothing to sweep yet).
        sweeper = worker("periodic-worker", "periodic")
        beat = Celery("beat", ["beat", "--loglevel", "info", "--schedule", str(tmp_path / "beat-schedule")],
                      service_env(MATCHES_SWEEP_SECONDS="2", HEARTBEAT_SECONDS="3600", LADDER_TICK_SECONDS="3600",
                                  LIVE_TICK_SECONDS="3600", TOURNAMENTS_TICK_SECONDS="3600", TEST_RUN_ID=run_id),
                      tmp_path)
        started.append(beat)

        # The long match: its first decision takes 90 s, so the only match worker is busy.
        # Its task is held back, and sent (to this test's broker, as every run_match here)
        # once the slow pilot is in place.
        with effects.recording(tasks=[RUN_MATCH]) as held:
            long_match = match_challenge(created_by=alice, deck_versions=versions, best_of=1)
        assert held.tasks_named(RUN_MATCH) == [[long_match.pk]]
        MatchSeat.objects.filter(match=long_match, seat=0).update(pilot="sleepy/seconds=90")
        send_to_own_broker(held.tasks)
        deadline = time.monotonic() + 90
        while Match.objects.get(pk=long_match.pk).status != Match.Status.RUNNING and time.monotonic() < deadline:
            time.sleep(0.2)
        assert Match.objects.get(pk=long_match.pk).status == Match.Status.RUNNING, busy_worker.log()[-3000:]
        # More matches wait behind it in the match queues.
        with effects.recording(tasks=[RUN_MATCH]) as held:
            waiting = [match_challenge(created_by=alice, deck_versions=versions, best_of=1) for _ in range(2)]
            # A match whose worker died: running (below), its lease expired long ago.
            dead = match_challenge(created_by=bob, deck_versions=versions[::-1], best_of=1)
        assert held.tasks_named(RUN_MATCH) == [[m.pk] for m in (*waiting, dead)]
        send_to_own_broker(held.tasks)
        Match.objects.filter(pk=dead.pk).update(status=Match.Status.RUNNING, lease_owner="ghost@gone", attempts=1,
                                                lease_expires=timezone.now() - timedelta(minutes=5))

        try:
            sweeper.wait_for(f"re-queued [{dead.pk}]", timeout=60)
        except BaseException:
            rows = {m.pk: (m.status, m.lease_owner) for m in Match.objects.order_by("pk")}
            print(f"matches: {rows}\n--- match worker\n{busy_worker.log()[-3000:]}")
            raise
        requeued = Match.objects.get(pk=dead.pk)
        assert requeued.status == Match.Status.QUEUED and requeued.lease_owner == ""
        # ... while the match worker was still on the long match, the others still waiting.
        assert Match.objects.get(pk=long_match.pk).status == Match.Status.RUNNING
        assert all(Match.objects.get(pk=m.pk).status == Match.Status.QUEUED for m in waiting)
        assert "Task matches.sweep[" not in busy_worker.log()
    finally:
        for process in reversed(started):
            process.stop()
        shutil.rmtree(Path(settings.VAR_DIR) / f"test-{run_id}", ignore_errors=True)
        server = redis.Redis.from_url(settings.REDIS_URL)
        keys = list(server.scan_iter(match=f"test-{run_id}*", count=500))
        if keys:
            server.delete(*keys)
