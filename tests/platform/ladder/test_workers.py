"""Ratings recorded by two real Celery workers at once lose nothing.

Twelve ladder matches all involve the same deck; two worker processes play them at the
same time through the real broker (PostgreSQL and Redis under CI). Every result must
move the shared deck's rating exactly once, each update starting from the one before:
the stored ratings are then exactly what replaying the results in order gives.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from ladder_helpers import make_deck

from ladder.models import Pool, Rating, RatingChange
from ladder.services import ratings_rebuild
from matches.models import Match
from matches.services import match_challenge

ROOT = Path(__file__).resolve().parents[3]
MATCHES = 12

pytestmark = pytest.mark.django_db(transaction=True)


class Worker:
    def __init__(self, name: str, env: dict[str, str], log_dir: Path):
        self.name = name
        self.hostname = f"{name}-{uuid.uuid4().hex[:6]}@test"
        self.log_path = log_dir / f"{name}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--hostname",
                 self.hostname, "--queues", "live,periodic,tournaments,matches,ladder,default", "--loglevel", "info",
                 "--without-mingle", "--without-gossip"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if f"{self.hostname} ready." in self.log():
                return
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited:\n{self.log()[-4000:]}")
            time.sleep(0.2)
        pytest.fail(f"{self.name} not ready within {timeout:g} s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture
def two_workers(service_env, tmp_path):
    workers = [Worker(name, service_env(), tmp_path) for name in ("worker-a", "worker-b")]
    try:
        for worker in workers:
            worker.wait_ready()
        yield workers
    finally:
        for worker in workers:
            worker.stop()


def test_two_workers_recording_results_of_the_same_deck_at_once_lose_no_rating_update(two_workers, alice, bob,
                                                                                     carol):
    shared = make_deck(alice, name="Shared", pilot="random")
    others = [make_deck(owner, index=i + 1, name=f"Opponent {i}", pilot="random")
              for i, owner in enumerate((bob, carol, bob))]
    ids = [
        match_challenge(created_by=None, deck_versions=[shared.latest_version, others[i % 3].latest_version],
                        best_of=1, kind=Match.Kind.LADDER).pk
        for i in range(MATCHES)
    ]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        statuses = list(Match.objects.filter(pk__in=ids).values_list("status", flat=True))
        if all(s in ("done", "failed") for s in statuses):
            break
        time.sleep(0.5)
    logs = "\n".join(f"--- {w.name}\n{w.log()[-3000:]}" for w in two_workers)
    assert list(Match.objects.filter(pk__in=ids, status="done").values_list("pk", flat=True).order_by("pk")) == ids, \
        logs
    played_by = {w.name: w.log().count("ladder") for w in two_workers}
    assert all(w.log().count(": done") >= 1 for w in two_workers), f"both workers should play: {played_by}\n{logs}"

    rating = Rating.objects.get(pool=Pool.BOTS, deck=shared)
    assert rating.games == MATCHES
    assert RatingChange.objects.filter(rating=rating).count() == MATCHES
    assert RatingChange.objects.count() == 2 * MATCHES
    # Each update started from the previous one: replaying the results in order gives
    # exactly the stored numbers (a lost update would leave a different chain).
    report = ratings_rebuild(write=False)
    assert report.differences == [] and report.matches == MATCHES
    chain = list(RatingChange.objects.filter(rating=rating).order_by("id"))
    for before, after in zip(chain, chain[1:], strict=False):
        assert (after.mu_before, after.sigma_before) == (before.mu, before.sigma)
