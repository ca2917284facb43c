"""Matches played by real Celery worker processes through the real broker.

- a challenge is played to the end and its result is in the database;
- the same ``run_match`` delivered several times, to two workers at once, plays it once;
- a worker SIGKILLed mid-match leaves a lease that expires; beat's sweeper re-queues the
  match and another worker completes it from the first unplayed game;
- a tied Conquest game goes through the separate ``run_tiebreak`` task;
- with Redis, the match page's socket hears the worker's broadcasts live.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from match_helpers import make_deck, version

from config.celery import app as celery_app
from matches.models import Match, MatchGame
from matches.services import RUN_MATCH, match_challenge

ROOT = Path(__file__).resolve().parents[3]
TIED_CONQUEST = {"battles": 1, "draw_per_battle": 0}

pytestmark = pytest.mark.django_db(transaction=True)


class Process:
    """A worker or beat subprocess on this run's database and broker, with its log."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir: Path):
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args], cwd=ROOT,
                                            env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
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
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture
def spawn(service_env, tmp_path):
    """``spawn(name, queues, **env)``: start another worker; ``spawn.beat(**env)``: beat."""
    started: list[Process] = []

    def worker(name: str, queues: str = "live,periodic,tournaments,matches,ladder,default", *, include: str = "",
               **extra_env: str) -> Process:
        hostname = f"{name}-{uuid.uuid4().hex[:6]}@test"
        extra_args = ["--include", include] if include else []
        env = service_env(**extra_env)
        if include:  # test modules such as sleepy_bot live beside this file
            env["PYTHONPATH"] = os.pathsep.join((str(Path(__file__).resolve().parent), env["PYTHONPATH"]))
        process = Process(name, ["worker", "--pool", "solo", "--hostname", hostname, "--queues", queues,
                                 "--loglevel", "info", "--without-mingle", "--without-gossip", *extra_args],
                          env, tmp_path)
        process.hostname = hostname
        started.append(process)
        process.wait_for(f"{hostname} ready.")
        return process

    def beat(**extra_env: str) -> Process:
        process = Process("beat", ["beat", "--loglevel", "info", "--schedule", str(tmp_path / "beat-schedule")],
                          service_env(**extra_env), tmp_path)
        started.append(process)
        return process

    worker.beat = beat
    yield worker
    for process in reversed(started):
        process.stop()


def wait_for_match(match_id: int, *, status: str = "done", timeout: float = 90.0, logs=()) -> Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = Match.objects.get(pk=match_id)
        if match.status == status:
            return match
        if match.status == Match.Status.FAILED and status != "failed":
            pytest.fail(f"match {match_id} failed: {match.error}")
        time.sleep(0.2)
    tails = "\n".join(f"--- {p.name}\n{p.log()[-3000:]}" for p in logs)
    pytest.fail(f"match {match_id} still {Match.objects.get(pk=match_id).status} after {timeout:g} s\n{tails}")


def logged(read_logs, text: str, *, count: int = 1, timeout: float = 15.0) -> str:
    """The logs once ``text`` appears in them ``count`` times: a worker writes its log line
    just after committing, so the database may show the result a moment earlier."""
    return logged_until(read_logs, lambda logs: logs.count(text) >= count, timeout=timeout)


def logged_until(read_logs, ready, *, timeout: float = 15.0) -> str:
    """The logs once ``ready(logs)`` holds, or as they are at the timeout."""
    deadline = time.monotonic() + timeout
    logs = read_logs()
    while not ready(logs) and time.monotonic() < deadline:
        time.sleep(0.1)
        logs = read_logs()
    return logs


def challenge(decks, **kwargs) -> Match:
    return match_challenge(created_by=decks[0].owner, deck_versions=[version(d) for d in decks], **kwargs)


def test_a_challenge_is_played_by_the_worker_and_its_result_is_in_the_database(celery_worker_process, alice, bob):
    match = challenge([make_deck(alice, "tempofront", pilot="greedy"), make_deck(bob, "tempofront", index=1)],
                      best_of=3)
    match = wait_for_match(match.pk, logs=[celery_worker_process])
    assert match.attempts == 1 and match.lease_owner == "" and match.started <= match.finished
    games = list(match.games.order_by("number"))
    assert len(games) == match.progress >= 2
    assert [g.seat_order for g in games] == [[0, 1], [1, 0], [0, 1]][: len(games)]
    assert match.result["wins"] == [sum(g.winner_entry == e for g in games) for e in (0, 1)]
    assert f"match {match.pk}: done" in logged(lambda: celery_worker_process.log(tail=1_000_000),
                                               f"match {match.pk}: done")


def test_the_same_task_delivered_three_times_to_two_workers_plays_the_match_once(celery_worker_process, spawn,
                                                                                 alice, bob):
    """Two workers consume the matches queue; three deliveries of ``run_match`` for one
    match (the challenge's own and two duplicates) race for it. One claims it, the others
    find it held or done and play nothing."""
    other = spawn("second-worker")
    # A fixed seed: the same deals and decisions every run, so only the race varies.
    # Greedy pilots: the race is over the claim, which the duplicates lose whether the
    # match is still being played (held) or already over (done) when they arrive.
    match = challenge([make_deck(alice, "conquest", pilot="greedy"),
                       make_deck(bob, "conquest", index=1, pilot="greedy")], best_of=5, seed=11)
    for _ in range(2):
        celery_app.send_task(RUN_MATCH, args=[match.pk])
    match = wait_for_match(match.pk, timeout=300, logs=[celery_worker_process, other])
    # Played once: one delivery finished it, or its deciding game tied and Match the Twos
    # (the run_tiebreak task) completed it; never two finishes. The task that played writes
    # its closing line after its commit, its broadcast and its lease thread's end, so the
    # database shows the match done a moment before that line: wait for all three lines.
    def ended(logs: str) -> int:
        return logs.count(f"match {match.pk}: done") + logs.count(f"match {match.pk}: game ")  # "game N tied: …"

    logs = logged_until(lambda: celery_worker_process.log(tail=1_000_000) + other.log(),
                        lambda logs: logs.count(f"match {match.pk}: not claimed") >= 2 and ended(logs) >= 1,
                        timeout=60)
    assert logs.count(f"match {match.pk}: not claimed") == 2, logs[-4000:]
    finished = logs.count(f"match {match.pk}: done")
    assert finished <= 1 and ended(logs) >= 1, logs[-4000:]
    match.refresh_from_db()
    assert match.attempts == 1
    numbers = list(MatchGame.objects.filter(match=match).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, match.progress + 1))


def test_a_worker_killed_mid_match_is_replaced_after_its_lease_expires(celery_worker_process, spawn, alice, bob):
    """Worker A (lease 2 s) plays a best-of-5 of search bots (``search:fast``: a game takes
    about a second, long enough to be killed in the middle of game 2) and is SIGKILLed
    after game 1. Its lease expires; beat runs the sweeper every second, which re-queues the
    match; another worker (a fresh one, or the suite's) goes on from the first unplayed
    game and completes it."""
    from django.utils import timezone

    from web import effects

    queue = f"matches-kill-{uuid.uuid4().hex[:6]}"
    doomed = spawn("doomed-worker", queues=queue, MATCHES_LEASE_SECONDS="2")
    decks = [make_deck(alice, "tempofront", pilot="search:fast"),
             make_deck(bob, "tempofront", index=1, pilot="search:fast")]
    # Its task held back from the usual queue, then sent to worker A's private queue alone.
    with effects.recording(tasks=[RUN_MATCH]) as held:
        match = challenge(decks, best_of=5, seed=99)
    assert held.tasks == [(RUN_MATCH, [match.pk], "matches", None)]
    celery_app.send_task(RUN_MATCH, args=[match.pk], queue=queue)

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        row = Match.objects.get(pk=match.pk)
        if row.progress >= 1:
            break
        time.sleep(0.05)
    assert row.status == Match.Status.RUNNING and row.lease_owner.startswith(doomed.hostname), row.lease_owner
    os.kill(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait(timeout=10)
    killed_at = timezone.now()
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING

    replacement = spawn("replacement-worker", MATCHES_LEASE_SECONDS="5")
    beat = spawn.beat(MATCHES_SWEEP_SECONDS="1")
    match = wait_for_match(match.pk, timeout=360, logs=[doomed, replacement, beat, celery_worker_process])
    assert match.attempts == 2
    survivors = logged(lambda: replacement.log() + celery_worker_process.log(tail=1_000_000),
                       f"match {match.pk}: done")
    assert f"match {match.pk}: done" in survivors and f"match {match.pk}: done" not in doomed.log()
    assert f"re-queued [{match.pk}]" in survivors
    assert "Sending due task matches-sweep (matches.sweep)" in beat.log()
    games = list(match.games.order_by("number"))
    assert [g.number for g in games] == list(range(1, match.progress + 1))
    assert games[0].created < killed_at < games[-1].created  # game 1 by A, the rest by its successor


def test_a_bot_that_thinks_longer_than_the_lease_keeps_the_lease(spawn, alice, bob):
    """Issue 11: "a healthy worker must not lose its lease during a long setup or a long
    decision". The worker's lease is 1.5 s and its bot thinks for 4 s on its first
    decision, while beat runs the sweeper every second on another worker: the lease is
    renewed by the worker's renewer thread, so the match is played once, by that worker."""
    from matches.models import MatchSeat
    from web import effects

    queue = f"matches-sleepy-{uuid.uuid4().hex[:6]}"
    sleepy = spawn("sleepy-worker", queues=queue, include="sleepy_bot", MATCHES_LEASE_SECONDS="1.5")
    sweeper = spawn("sweeper-worker", queues="periodic")
    beat = spawn.beat(MATCHES_SWEEP_SECONDS="1")
    with effects.recording(tasks=[RUN_MATCH]) as held:  # sent below, to the sleepy worker alone
        match = challenge([make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)], best_of=1)
    assert held.tasks_named(RUN_MATCH) == [[match.pk]]
    MatchSeat.objects.filter(match=match, seat=0).update(pilot="sleepy/seconds=4")
    beat.wait_for("Sending due task matches-sweep (matches.sweep)", timeout=90)
    sweeper.wait_for("matches.sweep", timeout=60)  # the sweeper runs before the match starts
    celery_app.send_task(RUN_MATCH, args=[match.pk], queue=queue)

    match = wait_for_match(match.pk, timeout=90, logs=[sleepy, sweeper, beat])
    assert match.attempts == 1 and match.lease_owner == ""
    assert match.games.get().bot_errors == []
    assert "sleepy/seconds=4" in match.seats.get(seat=0).pilot
    logs = logged(lambda: sleepy.log(), f"match {match.pk}: done")
    assert f"match {match.pk}: done" in logs and "lease lost" not in logs
    assert f"re-queued [{match.pk}]" not in sweeper.log()


def test_a_tied_conquest_game_is_broken_by_the_run_tiebreak_task(celery_worker_process, alice, bob):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=1,
                      params=TIED_CONQUEST)
    match = wait_for_match(match.pk, logs=[celery_worker_process])
    game = match.games.get()
    assert game.tiebreak == MatchGame.Tiebreak.DONE
    assert game.outcome["detail"]["match_the_twos"][0]["seats"] == [0, 1]
    assert game.load_replay().meta["match_the_twos"] == game.outcome["detail"]["match_the_twos"]
    log = logged(lambda: celery_worker_process.log(tail=1_000_000), "Task matches.run_tiebreak[")
    assert "Task matches.run_tiebreak[" in log and f"match {match.pk}: game 1 tied: waiting for its tiebreak" in log


@pytest.mark.redis
def test_the_match_socket_hears_the_worker_live_over_redis(asgi_server, celery_worker_process, alice, bob):
    from websockets.sync.client import connect

    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=3,
                      params={"battles": 1})
    seen = []
    with connect(asgi_server.ws_url(f"/ws/matches/{match.pk}/"), origin=asgi_server.origin,
                 open_timeout=10) as socket:
        while True:
            event = json.loads(socket.recv(timeout=60))
            seen.append(event)
            if event["type"] == "match.update" and event["match"]["status"] == "done":
                break
    statuses = [e["match"]["status"] for e in seen if e["type"] == "match.update"]
    assert statuses[-1] == "done" and "running" in statuses
    assert seen[-1]["match"]["games"] and seen[-1]["match"]["winner"] == Match.objects.get(pk=match.pk).winner_seat
