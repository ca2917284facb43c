"""Tournament platform benchmark: a 256-entry Swiss of 8 rounds, best of 1, random bots,
played by real Celery workers, on one and on two worker processes.

For each worker count it migrates and empties the database, registers the entries,
starts the workers (``celery -A config worker --pool solo``, every queue), starts the
event and waits until it is finished. It reports matches per second (wall clock from the
start to the last round), the speed-up of the second worker, and the platform's overhead
per match beside the engine's own time (every game replayed afterwards by the engine's
match runner alone, in this process, with the same decks, bots and seeds).

Runs in its own namespace (``config.settings_test`` with a run id: its own broker folder
or Redis key prefix). The database is ``DATABASE_URL`` (it is flushed!) or, without it, a
fresh SQLite file per run under var/. Results go to the "Tournament platform" section of
bench/RESULTS.md with the machine and the command.

Usage: ``python bench/tournament.py [--entries 256] [--rounds 8] [--workers 1,2] [--no-write]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## Tournament platform"


def child_env(run_id: str, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(DJANGO_SETTINGS_MODULE="config.settings_test", TEST_RUN_ID=run_id, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "platform"), str(ROOT), env.get("PYTHONPATH"))
                                          if p))
    env["DATABASE_URL"] = database_url or f"sqlite:///{ROOT / 'var' / f'test-{run_id}' / 'db.sqlite3'}"
    return env


# --------------------------------------------------------------------------- the driver (a child process)


def drive(entries: int, rounds: int, workers: int) -> dict:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.utils import timezone

    from decks.services import deck_register
    from engine import games
    from matches.models import Match
    from tournaments.models import Tournament
    from tournaments.services import tournament_create, tournament_enter, tournament_start

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    game = games["tempofront"]
    starters = list(game.starter_decks().values())
    organiser = User.objects.create_user("bench-organiser")
    event = tournament_create(organiser=organiser, game="tempofront", name="Bench Swiss", format="swiss",
                              rounds=rounds, best_of=1, starts_at=timezone.now() + timezone.timedelta(hours=1))
    for i in range(entries):
        user = User.objects.create_user(f"bench-{i}")
        deck = deck_register(owner=user, game="tempofront", name=f"bench {i}",
                             decklist=starters[i % len(starters)].to_text(game.commander_label), pilot="random")
        tournament_enter(tournament_id=event.pk, player=user, deck_id=deck.pk)

    from django.conf import settings

    log_dir = Path(settings.TEST_RUN_DIR)
    processes = []
    for n in range(workers):
        hostname = f"bench{n}-{os.getpid()}@bench"
        log = open(log_dir / f"worker-{n}.log", "wb")
        processes.append((subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--hostname", hostname,
             "--queues", "periodic,tournaments,matches,ladder,default",
             "--loglevel", os.environ.get("BENCH_LOGLEVEL", "warning"),
             "--without-mingle", "--without-gossip"], cwd=ROOT, env=dict(os.environ), stdout=log,
            stderr=subprocess.STDOUT), log))
    time.sleep(8)  # let every worker connect before the clock starts
    try:
        started = time.perf_counter()
        tournament_start(tournament_id=event.pk, by=organiser)
        while True:
            event.refresh_from_db()
            if event.state in (Tournament.State.FINISHED, Tournament.State.CANCELLED):
                break
            if time.perf_counter() - started > 3600:
                raise SystemExit("the event did not finish within an hour")
            time.sleep(0.2)
        wall = time.perf_counter() - started
    finally:
        for process, log in processes:
            process.terminate()
            process.wait(timeout=30)
            log.close()
    matches = list(Match.objects.filter(kind="tournament").prefetch_related("seats__deck_version", "games"))
    games_played = sum(len(m.games.all()) for m in matches)
    engine_seconds = engine_time(matches)
    return {"workers": workers, "entries": entries, "rounds": event.current_round, "state": event.state,
            "matches": len(matches), "games": games_played, "wall_seconds": wall,
            "engine_seconds": engine_seconds}


def engine_time(matches) -> float:
    """Seconds the engine's match runner alone takes to play every game of ``matches``
    again (same decks, bots and seeds), in this process."""
    from engine import games
    from engine.bots import make_bot
    from engine.runner import play_match
    from matches.play import game_params, game_seed
    from matches.scoring import seat_order

    total = 0.0
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        for row in match.games.all():
            order = seat_order(entries=len(seats), number=row.number)
            decks = [seats[e].deck_version.to_engine() for e in order]
            bots = [make_bot(seats[e].pilot) for e in order]
            began = time.perf_counter()
            play_match(games[match.game], decks, bots, seed=game_seed(match.seed, row.number),
                       params=game_params(match))
            total += time.perf_counter() - began
    return total


# --------------------------------------------------------------------------- the parent


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def section(results: list[dict], command: str, database: str, broker: str) -> str:
    base = next((r for r in results if r["workers"] == 1), results[0])
    lines = [
        SECTION, "",
        f"A {base['entries']}-entry Swiss of {base['rounds']} rounds, best of 1, random bots (TempoFront), played "
        f"by real Celery workers (`--pool solo`) from the start to the last result; database {database}, "
        f"broker {broker}. Machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{command}`.", "",
        "| workers | matches | wall (s) | matches/s | speed-up | engine per match (ms) "
        "| platform overhead per match (ms) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base_rate = base["matches"] / base["wall_seconds"]
    for r in results:
        rate = r["matches"] / r["wall_seconds"]
        engine_ms = 1000 * r["engine_seconds"] / r["matches"]
        # Worker time spent per match (every worker busy all along) minus the engine's share.
        overhead_ms = 1000 * r["wall_seconds"] * r["workers"] / r["matches"] - engine_ms
        lines.append(f"| {r['workers']} | {r['matches']} | {r['wall_seconds']:.1f} | {rate:.1f} | "
                     f"{rate / base_rate:.2f}x | {engine_ms:.1f} | {overhead_ms:.1f} |")
    lines += ["",
              "Engine per match: the same games replayed by `engine.runner.play_match` alone, in one process. "
              "Platform overhead per match: worker-seconds per match (wall time x workers / matches) minus the "
              "engine's time: claiming the match, writing games, replays and results, the signals, the advance "
              "task that pairs the next round, the broker's round trips, and the idle time at each round's end "
              "while the last match finishes (workers wait for the round barrier).", ""]
    return "\n".join(lines)


def write_section(text: str) -> None:
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    if SECTION in current:
        head, rest = current.split(SECTION, 1)
        after = rest.find("\n## ")
        tail = rest[after + 1:] if after >= 0 else ""
        current = head + text + ("\n" + tail if tail else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, comma-separated")
    parser.add_argument("--no-write", action="store_true", help="print the section instead of writing it")
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.drive:
        print("RESULT " + json.dumps(drive(args.entries, args.rounds, args.drive)), flush=True)
        return 0
    database_url = os.environ.get("DATABASE_URL")
    results = []
    for workers in [int(w) for w in args.workers.split(",")]:
        run_id = f"bench-{os.getpid()}-{workers}"
        (ROOT / "var" / f"test-{run_id}").mkdir(parents=True, exist_ok=True)
        out = subprocess.run([sys.executable, __file__, "--entries", str(args.entries), "--rounds", str(args.rounds),
                              "--drive", str(workers)], cwd=ROOT, env=child_env(run_id, database_url),
                             capture_output=True, text=True)
        shutil.rmtree(ROOT / "var" / f"test-{run_id}", ignore_errors=True)  # its broker folder and SQLite file
        line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
        if out.returncode or line is None:
            print(out.stdout[-3000:], out.stderr[-3000:], file=sys.stderr)
            return 1
        result = json.loads(line[len("RESULT "):])
        print(json.dumps(result), flush=True)
        results.append(result)
    env_prefix = "".join(f"{name}={os.environ[name]} " for name in ("DATABASE_URL", "REDIS_URL")
                         if os.environ.get(name))
    command = env_prefix + "python bench/tournament.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    database = "PostgreSQL" if (database_url or "").startswith("postgres") else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "the filesystem transport"
    text = section(results, command.strip(), database, broker)
    if args.no_write:
        print(text)
    else:
        write_section(text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
