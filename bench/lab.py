"""Benchmark of the deck lab on PostgreSQL and Redis with real workers (results in
bench/RESULTS.md, section "Deck lab").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lab_bench REDIS_URL=redis://127.0.0.1:6379/4 \\
        python bench/lab.py --matches 1000 --workers 1,2

Drops and recreates the database named in DATABASE_URL (it must be called ``lab_bench``)
and migrates it. Then, for each worker count: starts that many ``celery -A config worker
--queues lab --pool solo`` processes (production mode, ``DJANGO_DEBUG=0``), waits until
they are ready, starts a lab of ``--matches`` random-pilot TempoFront matches (a starter
deck against the other starter deck) through ``lab.services.lab_start``, and times it from
the start to the run's ``done`` (its page's figures then read once, as the page does).
Last, the engine alone plays the same games (same decks, seeds and pilots, with the
usage read from the recorded events, as the worker does) in this process, once with
nothing else running: the engine's time.

Printed (and, with ``--write``, recorded in RESULTS.md): wall time, wall per match, the
engine's time per match as the workers measured it while they played (each worker logs,
per chunk, its time in the task and the engine's part of it), the platform's cost per
match (worker-seconds per match minus that engine time) and the part of it inside the
tasks, the speed-up of the second worker, and the load average before each run. The
engine's time in a separate process afterwards is given beside it, with and without the
decision limit.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform as host_platform
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "lab-bench-" + "x" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")

RESULTS = ROOT / "bench" / "RESULTS.md"
CHUNK_LINE = re.compile(r"lab chunk \d+: (?P<matches>\d+) matches in (?P<task>[\d.]+) s, (?P<engine>[\d.]+) s of them")
SECTION = "## Deck lab"


def recreate_database() -> None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres") or urlsplit(url).path.lstrip("/") != "lab_bench":
        raise SystemExit("set DATABASE_URL=postgres://.../lab_bench: this benchmark drops and recreates it")
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("set REDIS_URL: the workers take their chunks from Redis")
    import psycopg

    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS lab_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE lab_bench")


def setup() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def decks():
    from django.contrib.auth.models import User

    from decks.services import deck_register
    from engine import games

    game = games["tempofront"]
    texts = [d.to_text(game.commander_label) for d in game.starter_decks().values()][:2]
    site = User.objects.create_user(f"site-{uuid.uuid4().hex[:6]}")
    starter = deck_register(owner=site, game="tempofront", name="Bench starter", decklist=texts[1], pilot="random",
                            is_starter=True)
    return texts[0], starter


class Workers:
    """``count`` lab workers, started and waited for (their start-up is not timed)."""

    def __init__(self, count: int, log_dir: Path):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]), PYTHONUNBUFFERED="1")
        self.processes = []
        self.logs = []
        for i in range(count):
            hostname = f"lab{i}-{uuid.uuid4().hex[:4]}@bench"
            log = log_dir / f"{hostname}.log"
            with open(log, "wb") as out:
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues", "lab", "--pool", "solo",
                     "--hostname", hostname, "--loglevel", "info", "--without-mingle", "--without-gossip"],
                    cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
            self.logs.append((hostname, log))
        from config.celery import app

        deadline = time.monotonic() + 120
        names = {hostname for hostname, _ in self.logs}
        while time.monotonic() < deadline:
            answered = {name for reply in (app.control.ping(timeout=1.0) or []) for name in reply}
            if names <= answered:
                return
        raise SystemExit(f"workers not ready: {names - answered}")

    def chunk_times(self) -> tuple[float, float, int]:
        """Summed over the workers' log lines of ``lab.tasks.run_chunk``: seconds in the
        tasks, seconds of them in the engine, matches."""
        task = engine = 0.0
        matches = 0
        for _hostname, log in self.logs:
            for found in CHUNK_LINE.finditer(log.read_text(encoding="utf-8", errors="replace")):
                matches += int(found["matches"])
                task += float(found["task"])
                engine += float(found["engine"])
        return task, engine, matches

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def run_lab(workers: int, matches: int, log_dir: Path) -> dict:
    from django.contrib.auth.models import User

    from decks.permissions import DeckVisibility
    from decks.services import deck_register
    from lab.models import LabRun
    from lab.selectors import lab_summary
    from lab.services import lab_start

    text, _starter = decks()
    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:6]}")
    deck = deck_register(owner=owner, game="tempofront", name="Bench subject", decklist=text, pilot="random")
    pool = Workers(workers, log_dir)
    try:
        load = os.getloadavg()
        began = time.perf_counter()
        run = lab_start(owner=owner, deck=deck, n=matches, field_kind="starters", pilot="random")
        while True:
            status = LabRun.objects.filter(pk=run.pk).values_list("status", flat=True).get()
            if status not in ("queued", "running"):
                break
            time.sleep(0.02)
        wall = time.perf_counter() - began
        run.refresh_from_db()
        if run.status != "done":
            raise SystemExit(f"lab run {run.pk} ended {run.status}: {run.error}")
        read = time.perf_counter()
        summary = lab_summary(run=run, visibility=DeckVisibility(owner))
        page_read = time.perf_counter() - read
    finally:
        pool.stop()
    task_s, engine_s, logged = pool.chunk_times()
    if logged != matches:
        raise SystemExit(f"the workers' logs account for {logged} matches, not {matches}")
    return {"workers": workers, "run": run.pk, "matches": run.matches.count(), "chunks": run.chunks.count(),
            "wall_s": wall, "task_s": task_s, "engine_s": engine_s, "page_read_s": page_read,
            "load_before": [round(x, 2) for x in load], "win_rate": summary["overall"]["win_rate"]}


def engine_time(run_id: int, decision_seconds: float | None) -> float:
    """The engine alone on the run's games: seconds for all of them, with the worker's
    decision limit (each decision on the runner's decision thread) or without one."""
    from engine import games
    from engine.bots import make_bot
    from engine.runner import play_match
    from lab.models import LabRun
    from lab.play import deck_seat, match_seed, opponent_index

    run = LabRun.objects.get(pk=run_id)
    from decks.models import DeckVersion

    game = games[run.game]
    deck = run.deck_version.to_engine()
    field = [DeckVersion.objects.get(pk=pk).to_engine() for pk in run.field_versions]
    began = time.perf_counter()
    for number in range(1, run.matches_wanted + 1):
        seat = deck_seat(number)
        opponent = field[opponent_index(number, len(field))]
        pair = [deck, opponent] if seat == 0 else [opponent, deck]
        result = play_match(game, pair, [make_bot("random"), make_bot("random")], seed=match_seed(run.seed, number),
                            decision_seconds=decision_seconds, record_events=True)
        game.card_usage(result.replay, events=result.events)
    return time.perf_counter() - began


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return host_platform.processor() or host_platform.machine()


def report(results: list[dict], engine_s: float, bare_s: float, matches: int, command: str) -> str:
    alone_ms = 1000 * engine_s / matches
    lines = [
        SECTION, "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {cpu_model()} ({os.cpu_count()} cores), "
        f"PostgreSQL and Redis on the same machine, workers in production mode (`DJANGO_DEBUG=0`); the machine is "
        f"shared, its load average before each run is in the last column.",
        f"Command: `{command}`", "",
        f"A lab of {matches} random-pilot TempoFront matches (best of 1, a starter deck against the other, the "
        "worker's decision limit of 30 s), timed from `lab_start` to the run's `done`. Each worker logs, per chunk, "
        "its time in the task and the engine's part of it (playing the match and reading its usage), so the engine's "
        "time is measured in the same processes at the same moment as the rest. Worker-time per match = wall x "
        "workers / matches; platform cost per match = worker-time per match minus the engine's time per match (all "
        "the platform adds: claiming, writing, the broadcast, Celery, idle waits); of it, inside the tasks = task "
        "time minus engine time, per match.", "",
        "| Lab workers | Chunks | Wall | Wall per match | Worker-time per match | Engine per match (in the workers) | "
        "Platform cost per match | of it inside the tasks | Speed-up | Load average before (1, 5, 15 min) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    base = next((r["wall_s"] for r in results if r["workers"] == 1), None)
    for r in results:
        per = 1000 * r["wall_s"] / matches
        worker_time = per * r["workers"]
        engine_ms = 1000 * r["engine_s"] / matches
        inside = 1000 * (r["task_s"] - r["engine_s"]) / matches
        speedup = f"{base / r['wall_s']:.2f}x" if base else "-"
        lines.append(f"| {r['workers']} | {r['chunks']} | {r['wall_s']:.2f} s | {per:.2f} ms | {worker_time:.2f} ms | "
                     f"{engine_ms:.2f} ms | {worker_time - engine_ms:.2f} ms | {inside:.2f} ms | {speedup} | "
                     f"{', '.join(str(x) for x in r['load_before'])} |")
    lines += ["", f"The engine alone in one process afterwards, on the same games: {alone_ms:.2f} ms a match with the "
              f"decision limit, {1000 * bare_s / matches:.2f} ms without one (each decision in the playing thread "
              f"instead of the runner's decision thread: the limit's thread hand-over is most of a random match's "
              f"time).", "",
              f"The run's figures (every table of its page) are read in {1000 * results[-1]['page_read_s']:.0f} ms "
              f"for {matches} matches.", ""]
    return "\n".join(lines)


def write_section(text: str) -> None:
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    if SECTION in current:
        head, rest = current.split(SECTION, 1)
        tail = rest.split("\n## ", 1)
        current = head + text + ("\n## " + tail[1] if len(tail) > 1 else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(current, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, comma-separated")
    parser.add_argument("--write", action="store_true", help="record the results in bench/RESULTS.md")
    args = parser.parse_args()
    recreate_database()
    setup()
    log_dir = ROOT / "var" / "lab-bench"
    log_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for count in [int(x) for x in args.workers.split(",")]:
        results.append(run_lab(count, args.matches, log_dir))
        print(json.dumps(results[-1]), flush=True)
    from matches.conf import decision_seconds

    engine_s = engine_time(results[-1]["run"], decision_seconds())
    bare_s = engine_time(results[-1]["run"], None)
    print(json.dumps({"engine_ms_per_match": 1000 * engine_s / args.matches,
                      "bare_engine_ms_per_match": 1000 * bare_s / args.matches}), flush=True)
    command = "python bench/lab.py " + " ".join(sys.argv[1:])
    text = report(results, engine_s, bare_s, args.matches, command)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
