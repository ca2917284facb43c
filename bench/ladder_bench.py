"""Benchmarks of the ladder on PostgreSQL (results in bench/RESULTS.md).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ladder_bench \\
        python bench/ladder_bench.py record --results 10000 --processes 2
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ladder_bench \\
        python bench/ladder_bench.py leaderboard --decks 100000 --requests 1000 --concurrency 4

Both drop and recreate the database named in DATABASE_URL (it must be called
``ladder_bench``), then migrate it.

- ``record``: 200 decks, ``--results`` running matches with their game written, then
  ``matches.services.match_complete`` for each (the worker's own last write: the result
  and, through ``match_finished``, the rating update, in one transaction), from
  ``--processes`` processes at once on random pairs of decks, so rating rows are
  contended. The match page broadcast after commit is switched off (it is not part of
  recording). Checks afterwards that every result moved both ratings and that the
  rebuild reproduces the stored ratings exactly. Prints results per second. Runs in
  production mode (``DJANGO_DEBUG=0``), as a worker does.
- ``profile``: as ``record``, in one process: the SQL statements of one result, then
  ``match_complete`` under cProfile for ``--results`` results.
- ``leaderboard``: ``--decks`` rated TempoFront decks (1 % of them archived, then
  ``VACUUM ANALYZE``), then a real uvicorn on a free port of 127.0.0.1 in production mode
  (``DJANGO_DEBUG=0``, static files collected, ``--workers`` processes as
  docker-compose.yml runs it, the cache in Redis when ``REDIS_URL`` is set) and
  ``bench/ladder_load.py`` in a second process, bounded in requests and time, against
  the leaderboard page and its API: first page, a deep page, a search (one URL each,
  cached after its first request), then random pages over the whole board and random
  searches for parts of deck names (URLs that mostly miss the cache). Prints median and
  p95 latency per run. ``--requests 0`` only fills the database; ``--reuse`` only
  loads the one a previous run filled.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def recreate_database() -> str:
    url = os.environ.get("DATABASE_URL", "")
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not url.startswith("postgres") or name != "ladder_bench":
        raise SystemExit("set DATABASE_URL=postgres://.../ladder_bench: this benchmark drops and recreates it")
    import psycopg

    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS ladder_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE ladder_bench")
    return url


def setup_django() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_decks(count: int, *, owners: int, versions: bool):
    from django.contrib.auth.models import User

    from decks.models import Deck, DeckVersion
    from engine import games

    game = games["tempofront"]
    text = next(iter(game.starter_decks().values())).to_text(game.commander_label)
    users = User.objects.bulk_create([User(username=f"player{i:05}") for i in range(owners)])
    decks = Deck.objects.bulk_create(
        [Deck(owner=users[i % owners], game="tempofront", name=f"Deck {i:06}", pilot="random") for i in range(count)],
        batch_size=5000,
    )
    if versions:
        DeckVersion.objects.bulk_create(
            [DeckVersion(deck=d, number=1, decklist=text, commander="", pilot="random") for d in decks], batch_size=5000
        )
    return decks


# --------------------------------------------------------------------------- record


def _record_slice(match_ids: list[int], queue) -> None:
    from django import db

    db.connections.close_all()
    from matches import services

    services.match_update = lambda *, match_id: None  # no broadcast: not part of recording a result
    # The ladder's part (the match_finished receiver) timed on its own, to tell it apart.
    from ladder import services as ladder_services

    rate = ladder_services.rating_record_match
    spent = [0.0]

    def timed_rate(*, match):
        began = time.perf_counter()
        try:
            return rate(match=match)
        finally:
            spent[0] += time.perf_counter() - began

    ladder_services.rating_record_match = timed_rate
    began = time.perf_counter()
    for match_id in match_ids:
        services.match_complete(match_id=match_id, worker="bench")
    queue.put((len(match_ids), time.perf_counter() - began, spent[0]))


def prepare_record(results: int, decks_count: int) -> list[int]:
    """A fresh database with ``results`` running ladder matches, each with its one game written."""
    recreate_database()
    setup_django()
    from django import db
    from django.utils import timezone

    from matches.models import Match, MatchGame, MatchSeat

    decks = make_decks(decks_count, owners=20, versions=True)
    versions = {v.deck_id: v for v in __import__("decks.models", fromlist=["DeckVersion"]).DeckVersion.objects.all()}
    rng = random.Random(2026)
    now = timezone.now()
    matches = Match.objects.bulk_create(
        [Match(game="tempofront", kind="ladder", status="running", best_of=1, seed=i, lease_owner="bench",
               lease_expires=now + timezone.timedelta(days=1), started=now) for i in range(results)],
        batch_size=2000,
    )
    seats, games = [], []
    for match in matches:
        first, second = rng.sample(decks, 2)
        seats += [MatchSeat(match=match, seat=0, deck_version=versions[first.pk], pilot="random"),
                  MatchSeat(match=match, seat=1, deck_version=versions[second.pk], pilot="random")]
        places = rng.choice([[1, 2], [2, 1], [1, 2], [2, 1], [1, 1]])
        games.append(MatchGame(match=match, number=1, seat_order=[0, 1], outcome={"places": places,
                                                                                 "entry_places": places},
                               replay=b"", actions=0))
    MatchSeat.objects.bulk_create(seats, batch_size=5000)
    MatchGame.objects.bulk_create(games, batch_size=5000)
    ids = [m.pk for m in matches]
    db.connections.close_all()
    return ids



def bench_record(results: int, processes: int, decks_count: int = 200) -> dict:
    ids = prepare_record(results, decks_count)
    from ladder.models import RatingChange
    from ladder.services import ratings_rebuild
    from matches.models import Match

    queue = multiprocessing.get_context("fork").Queue()
    workers = [multiprocessing.get_context("fork").Process(target=_record_slice, args=(ids[i::processes], queue))
               for i in range(processes)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    reports = [queue.get() for _ in workers]
    done = sum(n for n, _, _ in reports)
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - start
    changes = RatingChange.objects.count()
    report = ratings_rebuild(write=False)
    return {
        "results": done, "processes": processes, "decks": decks_count, "seconds": round(seconds, 2),
        "results_per_second": round(done / seconds, 1), "rating_changes": changes,
        # per process: wall time of match_complete per result, and of the ladder's part of it
        "ms_per_result": round(1000 * sum(t for _, t, _ in reports) / done, 2),
        "ladder_ms_per_result": round(1000 * sum(t for _, _, t in reports) / done, 2),
        "done_matches": Match.objects.filter(status="done").count(),
        "rebuild_differences": len(report.differences),
    }


def bench_profile(results: int, decks_count: int = 200) -> dict:
    """``match_complete`` as ``record`` calls it, in this process: the SQL statements of
    one result (CaptureQueriesContext), then cProfile over ``results`` results."""
    import cProfile
    import io
    import pstats

    ids = prepare_record(results + 1, decks_count)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches import services

    services.match_update = lambda *, match_id: None  # no broadcast, as in record
    with CaptureQueriesContext(connection) as captured:
        services.match_complete(match_id=ids[0], worker="bench")
    profile = cProfile.Profile()
    began = time.perf_counter()
    profile.enable()
    for match_id in ids[1:]:
        services.match_complete(match_id=match_id, worker="bench")
    profile.disable()
    seconds = time.perf_counter() - began
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(30)
    return {"statements": [q["sql"][:300] for q in captured.captured_queries], "results": results,
            "ms_per_result_profiled": round(1000 * seconds / results, 2), "profile": out.getvalue()}


# --------------------------------------------------------------------------- leaderboard


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def bench_leaderboard(decks_count: int, requests: int, concurrency: int, max_seconds: float,
                      reuse: bool = False, workers: int = 2) -> dict:
    if reuse:  # the database a previous run filled: only the load
        import django

        django.setup()
        results = _load(requests, concurrency, max_seconds, workers, decks_count)
        return {"decks": decks_count, "reused": True, "results": results}
    recreate_database()
    setup_django()
    from django.db import connection

    from ladder.models import Rating

    decks = make_decks(decks_count, owners=1000, versions=False)
    rng = random.Random(2026)
    rows = []
    for deck in decks:
        mu, sigma = rng.gauss(25, 5), rng.uniform(1.0, 8.3)
        games = rng.randint(1, 200)
        wins = rng.randint(0, games)
        rows.append(Rating(pool="bots", game="tempofront", deck=deck, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
                           games=games, wins=wins, losses=games - wins, form="WLWDL", recent=[1.0, 2.0]))
    Rating.objects.bulk_create(rows, batch_size=5000)
    from decks.models import Deck

    Deck.objects.filter(pk__in=[d.pk for d in decks[::100]]).update(archived=True)  # 1 % deleted decks
    connection.close()
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")  # what autovacuum does for a table that stopped growing

    if not requests:
        return {"decks": decks_count, "filled": True}
    return {"decks": decks_count, "results": _load(requests, concurrency, max_seconds, workers, decks_count)}


def _load(requests: int, concurrency: int, max_seconds: float, workers: int, decks_count: int) -> list[dict]:
    port = free_port()
    # Production mode as docker-compose.yml deploys it: DEBUG off (no SQL kept per request),
    # TLS left to the proxy, the cache in Redis (REDIS_URL, if set) shared by the web workers,
    # hashed static files collected first.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
               DJANGO_SETTINGS_MODULE="config.settings", DJANGO_DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost",
               SECRET_KEY="ladder-bench-" + os.urandom(24).hex(), DJANGO_SECURE_SSL_REDIRECT="0",
               DJANGO_SECURE_COOKIES="0", DJANGO_SECURE_HSTS_SECONDS="0")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"], cwd=ROOT, env=env,
                   check=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off", "--log-level", "warning", "--no-access-log", "--workers", str(workers)],
        cwd=ROOT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        # The hot pages (one URL each, served from the cache after its first request)...
        runs = [(path, [path]) for path in (
            "/ladder/tempofront/",
            "/ladder/tempofront/?page=2000",
            "/ladder/tempofront/?q=Deck+0420",
            "/api/ladders/tempofront/",
            "/api/ladders/tempofront/?page=2000",
            "/api/ladders/tempofront/?q=Deck+0420",
        )]
        # ...and varied URLs, as many visitors ask: random pages over the whole board and
        # random searches for parts of deck names, so that most requests miss the cache.
        listed = decks_count - decks_count // 100
        rng = random.Random(7)
        terms = [f"{rng.randrange(decks_count):06}"[rng.randrange(3):] for _ in range(2000)]  # 4-6 digits
        runs += [
            ("random pages", [f"/ladder/tempofront/?page={rng.randint(1, -(-listed // 25))}" for _ in range(4000)]),
            ("random searches", [f"/ladder/tempofront/?q=Deck+{t}" for t in terms]),
            ("API random pages", [f"/api/ladders/tempofront/?page={rng.randint(1, -(-listed // 20))}"
                                  for _ in range(4000)]),
            ("API random searches", [f"/api/ladders/tempofront/?q=Deck+{t}" for t in terms]),
        ]
        out = []
        with tempfile.TemporaryDirectory() as folder:
            for label, paths in runs:
                urllib.request.urlopen(base + paths[0], timeout=30).read()  # warm up
                paths_file = Path(folder) / "paths.json"
                paths_file.write_text(json.dumps(paths))
                load = subprocess.run(
                    [sys.executable, str(ROOT / "bench" / "ladder_load.py"), "--base", base, "--paths-file",
                     str(paths_file), "--label", label, "--requests", str(requests), "--concurrency",
                     str(concurrency), "--max-seconds", str(max_seconds)],
                    capture_output=True, text=True, check=True,
                )
                out.append(json.loads(load.stdout))
    finally:
        server.terminate()
        server.wait(timeout=15)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    record = sub.add_parser("record")
    record.add_argument("--results", type=int, default=10_000)
    record.add_argument("--processes", type=int, default=2)
    profile = sub.add_parser("profile")
    profile.add_argument("--results", type=int, default=1000)
    board = sub.add_parser("leaderboard")
    board.add_argument("--decks", type=int, default=100_000)
    board.add_argument("--requests", type=int, default=1000)
    board.add_argument("--concurrency", type=int, default=4)
    board.add_argument("--max-seconds", type=float, default=120.0)
    board.add_argument("--reuse", action="store_true", help="load the database a previous run filled")
    board.add_argument("--workers", type=int, default=2, help="uvicorn worker processes (docker-compose.yml: 2)")
    args = parser.parse_args()
    if args.command in ("record", "profile"):
        # A worker in production mode: DEBUG off, so Django neither keeps nor formats the
        # SQL of every statement (with DEBUG on that alone was a quarter of a result's time).
        os.environ.update(DJANGO_DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost",
                          SECRET_KEY="ladder-bench-" + os.urandom(24).hex())
    if args.command == "record":
        print(json.dumps(bench_record(args.results, args.processes)))
    elif args.command == "profile":
        report = bench_profile(args.results)
        print(report.pop("profile"))
        print(json.dumps(report, indent=1))
    else:
        print(json.dumps(bench_leaderboard(args.decks, args.requests, args.concurrency, args.max_seconds,
                                           args.reuse, args.workers), indent=1))


if __name__ == "__main__":
    main()
