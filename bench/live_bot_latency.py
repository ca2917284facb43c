"""How long a live bot's seat waits for its move while every match worker is busy.

Starts the stack as ``make serve`` does (honcho, the project's Procfile: web, worker,
live worker, periodic worker, beat), keeps the match worker busy with a stream of queued
bot matches (``--load`` of them waiting at all times), and has a scripted person play
whole live TempoFront matches against the ``greedy`` bot, answering each of their turns
at once. For every bot move that follows the person's move, it takes the time from the
person's move (when the bot's turn began) to the bot's move, both as stored in the live
match's log; greedy decides in about a millisecond, so this is the wait for the bot to
start. Prints one JSON summary with the percentiles.

    python bench/live_bot_latency.py --matches 6 --load 20              # embedded defaults
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/live_latency REDIS_URL=redis://127.0.0.1:6379/5 \\
        python bench/live_bot_latency.py --services --matches 6 --load 20

The person and the load run in one extra process beside the stack, on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from soak_embedded import (  # noqa: E402
    PYTHON,
    ROOT,
    free_port,
    manage,
    stack_env,
    start_stack,
    stop_stack,
    wait_healthy,
)

PLAYER = r"""
import json, random, statistics, sys, time
import django
django.setup()
from django.contrib.auth import get_user_model
from decks.demo import demo_deck
from decks.selectors import starter_decks
from live import challenges, moves, selectors
from live.models import LiveMatch
from matches.models import Match
from matches.services import match_challenge
from web.demo import DEMO_USERNAME

matches, load = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(7)
user = get_user_model().objects.get(username=DEMO_USERNAME)
deck = demo_deck(game="tempofront").latest_version
pair = [d.latest_version for d in starter_decks(game="tempofront").order_by("name")[:2]]
load_ids, seed = [], 50_000
busy_checks = busy_hits = 0

def top_up():
    global seed, busy_checks, busy_hits
    waiting = Match.objects.filter(pk__in=load_ids, status="queued").count()
    busy_checks += 1
    busy_hits += Match.objects.filter(pk__in=load_ids, status="running").exists()
    for _ in range(load - waiting):
        seed += 1
        load_ids.append(match_challenge(created_by=None, deck_versions=pair, best_of=1, seed=seed).pk)

top_up()
time.sleep(3)
waits, bot_moves, person_moves = [], 0, 0
for _ in range(matches):
    live = challenges.live_play_bot(user=user, deck_version=deck, bot="greedy", initial_ms=900_000, increment_ms=0)
    last_top_up = 0.0
    while True:
        if time.monotonic() - last_top_up > 1.0:
            top_up()
            last_top_up = time.monotonic()
        payload = selectors.opening_payload(match_id=live.match_id, seat=0)
        if payload["status"] != "active":
            break
        if payload["legal"]:
            moves.live_act(match_id=live.match_id, user=user, action_json=rng.choice(payload["legal"]),
                           expected_index=payload["index"])
            person_moves += 1
        else:
            time.sleep(0.01)
    log = LiveMatch.objects.get(match_id=live.match_id).log
    for before, entry in zip(log, log[1:]):
        if before[0] == 0 and entry[0] != 0:
            waits.append(entry[2] - before[2])
            bot_moves += 1
waits.sort()
def pct(p):
    return waits[min(len(waits) - 1, int(round(p / 100 * (len(waits) - 1))))]
print(json.dumps({
    "live_matches": matches, "bot_turns": bot_moves, "person_moves": person_moves,
    "load_matches_created": len(load_ids),
    "worker_busy_share": round(busy_hits / max(1, busy_checks), 3),
    "wait_ms": {"p50": pct(50), "p95": pct(95), "p99": pct(99), "max": waits[-1],
                "mean": round(statistics.mean(waits), 1)},
    "over_1s": sum(w > 1000 for w in waits),
}), flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="live matches the person plays")
    parser.add_argument("--load", type=int, default=20, help="bot matches kept waiting for the match worker")
    parser.add_argument("--services", action="store_true",
                        help="use DATABASE_URL and REDIS_URL from the environment instead of the embedded defaults")
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "live-bot-latency.log")
    args = parser.parse_args(argv)

    var_dir = Path(tempfile.mkdtemp(prefix="latency-var-"))
    port = free_port()
    env = stack_env(var_dir, port)
    if args.services:
        for name in ("DATABASE_URL", "REDIS_URL"):
            if not os.environ.get(name):
                parser.error(f"--services needs {name}")
            env[name] = os.environ[name]
        env.update(DJANGO_DEBUG="0", SECRET_KEY="bench-" + "k" * 50, ALLOWED_HOSTS="127.0.0.1,localhost",
                   DJANGO_SECURE_SSL_REDIRECT="0")
    manage(env, "migrate", "--noinput")
    manage(env, "load_demo", "--allow-production")
    with open(args.log, "w") as log:
        stack = start_stack(env, log)
        try:
            wait_healthy(stack, port, args.log)
            started = time.monotonic()
            result = subprocess.run([PYTHON, "-c", PLAYER, str(args.matches), str(args.load)], cwd=ROOT, env=env,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                print(result.stderr[-4000:], file=sys.stderr)
                return 1
            summary = json.loads(result.stdout.strip().splitlines()[-1])
            summary["seconds"] = round(time.monotonic() - started, 1)
            summary["stack"] = "PostgreSQL + Redis, DEBUG off" if args.services else "embedded defaults"
        finally:
            stop_stack(stack)
    print(json.dumps(summary, indent=2))
    return 0 if summary["over_1s"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
