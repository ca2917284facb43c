"""Benchmark of the metagame on PostgreSQL (results in bench/RESULTS.md, "Metagame").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/meta_bench python bench/meta.py --matches 100000

Drops and recreates the database named in DATABASE_URL (it must be called ``meta_bench``),
migrates it, then:

1. fills it with ``--matches`` finished matches in one bulk insert per table: TempoFront
   (2 seats) and Conquest (2 to 4 seats), 80 % ladder and 20 % tournament, over the last
   60 days, between 40 decks a game (some decks with two versions, under two pilots),
   each match with one recorded game whose replay is one of a pool of real replays played
   by the engine's random bots with those decks (so card usage is real);
2. runs ``meta.services.meta_tick`` once over all of them (the catch-up a new
   installation does) and reports its time, then the engine's ``card_usage`` time per
   replay (what the tick pays per game when no two replays are alike);
3. serves the site under uvicorn in production mode (one process) and asks, one request
   at a time (``bench/ladder_load.py --concurrency 1``), for the metagame page of each
   game for 7 days, 30 days and all time, with one source and with all, and for each API
   list; prints median and p95 latency of each.

Prints one JSON object (progress goes to stderr); ``--write`` also puts the section
"Metagame pages" into bench/RESULTS.md (``make bench`` runs it so, when DATABASE_URL is set).
"""

from __future__ import annotations

import argparse
import json
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

DECKS_PER_GAME = 40
DAYS = 60
REPLAYS_PER_SHAPE = 12


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def recreate_database() -> None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres") or urlsplit(url).path.lstrip("/") != "meta_bench":
        raise SystemExit("set DATABASE_URL=postgres://.../meta_bench: this benchmark drops and recreates it")
    import psycopg

    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS meta_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE meta_bench")


def fill(matches: int) -> dict:
    """Decks, replays and ``matches`` finished matches, bulk-inserted."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.utils import timezone

    from decks.models import Deck, DeckVersion
    from engine import games
    from engine.runner import RandomBot, play_match
    from matches.models import Match, MatchGame, MatchSeat

    call_command("migrate", verbosity=0)
    began = time.perf_counter()
    rng = random.Random(2026)
    users = User.objects.bulk_create([User(username=f"meta{i:03}") for i in range(40)])
    versions: dict[str, list[DeckVersion]] = {}
    by_list: dict[tuple[str, int], list[DeckVersion]] = {}
    starters: dict[str, list] = {}
    for game_name in ("tempofront", "conquest"):
        game = games[game_name]
        lists = list(game.starter_decks().values())
        starters[game_name] = lists
        decks = Deck.objects.bulk_create([
            Deck(owner=users[i % len(users)], game=game_name, name=f"{game.title} deck {i:02}", pilot="random")
            for i in range(DECKS_PER_GAME)])
        rows = []
        for i, deck in enumerate(decks):
            text = lists[i % len(lists)].to_text(game.commander_label)
            rows.append(DeckVersion(deck=deck, number=1, decklist=text, commander=lists[i % len(lists)].commander,
                                    pilot="random"))
            if i % 4 == 0:  # a quarter of the decks changed pilot: a second version
                rows.append(DeckVersion(deck=deck, number=2, decklist=text,
                                        commander=lists[i % len(lists)].commander, pilot="greedy"))
        versions[game_name] = DeckVersion.objects.bulk_create(rows)
        for version in versions[game_name]:
            index = decks.index(version.deck) % len(lists)
            by_list.setdefault((game_name, index), []).append(version)

    # Real replays: the random bots with the starter lists, per game and seat count.
    pool: dict[tuple[str, int], list[tuple[bytes, list[int], list[int]]]] = {}
    shapes = [("tempofront", 2), ("conquest", 2), ("conquest", 3), ("conquest", 4)]
    for game_name, seats in shapes:
        game = games[game_name]
        lists = starters[game_name]
        made = []
        for n in range(REPLAYS_PER_SHAPE):
            picks = [n % len(lists)] + [(n + k) % len(lists) for k in range(1, seats)]
            result = play_match(game, [lists[p] for p in picks], [RandomBot() for _ in picks], seed=n + 1)
            made.append((MatchGame.compress(result.replay), picks, list(result.outcome.places)))
        pool[(game_name, seats)] = made

    now = timezone.now()
    match_rows, plans = [], []
    for i in range(matches):
        game_name, seats = shapes[0] if i % 5 < 3 else rng.choice(shapes[1:])
        blob, picks, places = rng.choice(pool[(game_name, seats)])
        # Entries: deck versions whose list is the replay's starter list, different decks.
        chosen, used = [], set()
        for p in picks:
            options = [v for v in by_list[(game_name, p)] if v.deck_id not in used]
            version = rng.choice(options or [v for v in versions[game_name] if v.deck_id not in used])
            used.add(version.deck_id)
            chosen.append(version)
        finished = now - timezone.timedelta(seconds=rng.randrange(DAYS * 86400))
        kind = Match.Kind.TOURNAMENT if i % 5 == 4 else Match.Kind.LADDER
        winners = [e for e, p in enumerate(places) if p == 1]
        match_rows.append(Match(game=game_name, kind=kind, status=Match.Status.DONE, best_of=1, seed=i,
                                finished=finished, started=finished, progress=1,
                                winner_seat=winners[0] if len(winners) == 1 else None,
                                result={"places": places, "wins": [int(p == 1) for p in places], "draws": 0,
                                        "games": 1}))
        plans.append((chosen, blob, places))
    # COPY, with the ids given here (the database is new): the ORM's bulk_create of the
    # same rows took three minutes.
    for number, match in enumerate(match_rows, start=1):
        match.pk = number
        match.created = match.finished
    seats_rows, game_rows = [], []
    for match, (chosen, blob, places) in zip(match_rows, plans, strict=True):
        seats_rows += [MatchSeat(match_id=match.pk, seat=e, deck_version_id=v.pk, pilot=v.pilot)
                       for e, v in enumerate(chosen)]
        game_rows.append(MatchGame(match_id=match.pk, number=1, seat_order=list(range(len(chosen))),
                                   outcome={"places": places, "entry_places": places}, replay=blob, actions=0,
                                   created=match.finished))
    for model, rows in ((Match, match_rows), (MatchSeat, seats_rows), (MatchGame, game_rows)):
        copy_rows(model, rows)
    from django.db import connection

    connection.close()
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    return {"matches": matches, "decks": 2 * DECKS_PER_GAME, "replays": sum(len(p) for p in pool.values()),
            "fill_seconds": round(time.perf_counter() - began, 1)}


def copy_rows(model, objects) -> None:
    """``COPY`` model instances into their table (every concrete column, ids included),
    then move the id sequence past them."""
    from django.db import connection, models
    from psycopg.types.json import Jsonb

    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and getattr(objects[0], f.attname) is None)]
    table = model._meta.db_table
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    json_fields = {f.attname for f in fields if isinstance(f, models.JSONField)}
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for obj in objects:
                copy.write_row([Jsonb(getattr(obj, f.attname)) if f.attname in json_fields
                                and getattr(obj, f.attname) is not None else getattr(obj, f.attname)
                                for f in fields])
        cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")


def tick() -> dict:
    from engine import games
    from matches.models import MatchGame
    from meta.models import MetaCard, MetaEntry, MetaMatchup
    from meta.services import meta_tick

    began = time.perf_counter()
    report = meta_tick()
    seconds = time.perf_counter() - began
    # What a replay's usage costs when it is computed (the tick above met each pool replay once).
    blobs = list(MatchGame.objects.values_list("match__game", "replay").order_by("?")[:40])
    usage_began = time.perf_counter()
    for game_name, blob in blobs:
        games[game_name].card_usage(MatchGame(replay=blob).load_replay())
    usage_ms = 1000 * (time.perf_counter() - usage_began) / len(blobs)
    counted = sum(report.counted.values())
    return {"tick_seconds": round(seconds, 1), "counted": report.counted,
            "tick_matches_per_second": round(counted / seconds), "card_usage_ms_per_replay": round(usage_ms, 2),
            "rows": {"entries": MetaEntry.objects.count(), "matchups": MetaMatchup.objects.count(),
                     "cards": MetaCard.objects.count()}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_and_measure(requests: int) -> list[dict]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
               DJANGO_SETTINGS_MODULE="config.settings", DJANGO_DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost",
               SECRET_KEY="meta-bench-" + os.urandom(24).hex(), DJANGO_SECURE_SSL_REDIRECT="0",
               DJANGO_SECURE_COOKIES="0", DJANGO_SECURE_HSTS_SECONDS="0")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"], cwd=ROOT, env=env,
                   check=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off", "--log-level", "warning", "--no-access-log"], cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    paths = []
    for game in ("tempofront", "conquest"):
        paths += [f"/meta/{game}/", f"/meta/{game}/?period=30", f"/meta/{game}/?period=all",
                  f"/meta/{game}/?period=30&source=tournament"]
    paths += ["/api/meta/tempofront/matchups/?period=30", "/api/meta/tempofront/cards/?period=30&ordering=improvement",
              "/api/meta/conquest/pilots/?period=all", "/api/meta/conquest/decks/?period=all"]
    out = []
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with tempfile.TemporaryDirectory():
            for path in paths:
                began = time.perf_counter()
                urllib.request.urlopen(base + path, timeout=30).read()  # sums the tables, keeps them
                first_ms = round(1000 * (time.perf_counter() - began), 1)
                load = subprocess.run(
                    [sys.executable, str(ROOT / "bench" / "ladder_load.py"), "--base", base, "--path", path,
                     "--requests", str(requests), "--concurrency", "1", "--max-seconds", "60"],
                    capture_output=True, text=True, check=True)
                out.append({**json.loads(load.stdout), "first_ms": first_ms})
                log(out[-1])
    finally:
        server.terminate()
        server.wait(timeout=15)
    return out


SECTION = "Metagame pages (100,000 matches)"


def markdown(result: dict | None, machine_line: str, shown: str, problem: str = "") -> str:
    """The RESULTS.md section of one run (or of why there is none)."""
    lines = [f"## {SECTION}", "",
             "`/meta/<game>/` and its API on PostgreSQL, over finished matches bulk-inserted with real replays, "
             "after one `meta.tick` over all of them; uvicorn in production mode (one process), one request at "
             "a time, the page's sums kept in the cache under the tick's generation (`META_CACHE_SECONDS`). "
             "\"First\" is each URL's first request, which sums the aggregate tables (what the first page "
             "after a tick that counted something pays); the others read the sums from the cache. " + machine_line, ""]
    if result is None:
        return "\n".join(lines + [f"`{shown}`: {problem}"]) + "\n"
    lines += [f"Command: `{shown}`. {result['matches']:,} matches, {result['decks']} decks; filled in "
              f"{result['fill_seconds']} s; the tick counted them in {result['tick_seconds']} s "
              f"({result['tick_matches_per_second']} matches/s, each game's card usage computed once: "
              f"{result['card_usage_ms_per_replay']} ms a replay; the bench's replays repeat, so most games "
              f"reuse a usage computed earlier in the tick); aggregate rows: {result['rows']['entries']:,} "
              f"entries, {result['rows']['matchups']:,} matchup cells, {result['rows']['cards']:,} card days. "
              f"Load average while measuring: {result.get('load', '?')}.", "",
              "| URL | First | Requests | Median | p95 | Max |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in result["pages"]:
        lines.append(f"| `{row['path']}` | {row.get('first_ms', '?')} ms | {row['requests']} | {row['median_ms']} ms "
                     f"| {row['p95_ms']} ms "
                     f"| {row['max_ms']} ms |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=100, help="requests per URL, one at a time")
    parser.add_argument("--write", action="store_true", help="write the section into bench/RESULTS.md")
    args = parser.parse_args()
    recreate_database()
    log(f"filling {args.matches} matches ...")
    result = fill(args.matches)
    log(result)
    log("meta tick over every match ...")
    result.update(tick())
    log({k: v for k, v in result.items() if k != "pages"})
    from django.db import connections

    connections.close_all()
    result["pages"] = serve_and_measure(args.requests)
    result["load"] = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(json.dumps(result))
    if args.write:
        sys.path.insert(0, str(ROOT / "bench"))
        import run as bench_run

        machine = bench_run.machine_info()
        shown = "DATABASE_URL=postgres://.../meta_bench python bench/meta.py " + " ".join(sys.argv[1:])
        section = markdown(result, bench_run.machine_line(machine), shown)
        existing = bench_run.RESULTS.read_text(encoding="utf-8") if bench_run.RESULTS.exists() else ""
        bench_run.RESULTS.write_text(bench_run.merge(existing, {SECTION: section}), encoding="utf-8")


if __name__ == "__main__":
    main()
