"""Benchmark of the bot API (docs/bots-api.md): external bots over real WebSockets.

1. **Round trip under play**: ``--bots`` bots (default 50) with tokens, paired into
   ``--bots / 2`` live TempoFront matches played at once. Each bot holds its events socket
   (``/ws/notify/``) and its game's socket (``/ws/live/<id>/``, token in the header) and
   answers each view that offers it actions with a random legal one after ``--think``
   seconds on average (exponentially distributed; 0, the default: at once, as fast as the
   site takes frames, 10 a second a socket). Round trip = from the bot sending ``act`` to its
   receiving the next view that counts the action: the view sent to a bot, its action
   applied, the next view sent. Median, p95 and max over ``--seconds`` after ``--warmup``.
   ``--no-compression``: the bots do not offer permessage-deflate (the site then sends
   their frames uncompressed, as it does for any client that does not ask for it).
2. **Idle bots**: ``--idle`` more bots (default 500) connect their events socket and stay;
   the web process's resident memory is read (``/proc/<pid>/status``, VmRSS) before and
   after, with every socket held.

The script starts the site itself (``python -m web.serve``: one uvicorn process as the
Procfile's web, or ``--web-workers N`` as docker-compose's two) on the database and Redis
it is given, and stops it at the end; with several processes the memory is their sum::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/botbench REDIS_URL=redis://127.0.0.1:6379/9 \\
        python bench/bots_api.py [--bots 50] [--idle 500] [--seconds 30] [--think 0] [--web-workers 1] \\
        [--no-compression]

Prints one JSON object, from which the section "Bot API" of bench/RESULTS.md is written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

MIN_INTERVAL = 0.105


def setup(run: str, players: int, idle: int) -> tuple[list[tuple[int, str, str]], list[str]]:
    """Bots with tokens: ``players`` of them paired into live matches ((match id, token of
    seat 0, token of seat 1)), and ``idle`` more that only connect."""
    import django

    django.setup()
    from django.contrib.auth.models import User

    from accounts.services import bot_create, bot_token_create
    from decks.services import deck_register
    from engine import games
    from live import creation
    from live.creation import SeatSpec

    game = games["tempofront"]
    starters = list(game.starter_decks().values())
    owner = User.objects.create_user(f"bb-{run}")
    tokens, versions = [], []
    # One owner has at most 10 bots: the bench's bots belong to several owners.
    for number in range(players + idle):
        if number % 10 == 0:
            owner = User.objects.create_user(f"bb-{run}-{number // 10}")
        bot = bot_create(owner=owner, name=f"b{run}-{number}", games=["tempofront"])
        tokens.append(bot_token_create(bot=bot, owner=owner, name="bench")[1])
        if number < players:
            versions.append(deck_register(owner=bot.user, game="tempofront", name="bench",
                                          decklist=starters[number % len(starters)].to_text(game.commander_label),
                                          pilot="random").latest_version)
    matches = []
    for pair in range(players // 2):
        a, b = 2 * pair, 2 * pair + 1
        live = creation.live_create(seats=[SeatSpec(deck_version=versions[a], user=versions[a].deck.owner),
                                           SeatSpec(deck_version=versions[b], user=versions[b].deck.owner)],
                                    initial_ms=3_600_000, increment_ms=0)
        matches.append((live.match_id, tokens[a], tokens[b]))
    return matches, tokens[players:]


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and of its children (the web processes of ``web.serve``)."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total += int(line.split()[1])
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split() if (task / "children").exists() else []
        total += sum(rss_kib(int(child)) for child in children)
    return total


def cpu_ticks(pid: int) -> int:
    """CPU time (user + system, clock ticks) of ``pid`` and of its children (the web processes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    total = int(fields[11]) + int(fields[12])
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split() if (task / "children").exists() else []
        total += sum(cpu_ticks(int(child)) for child in children)
    return total


#: "deflate" (the websockets library's default: offer permessage-deflate) or None.
COMPRESSION: str | None = "deflate"


async def connect_bot(server: str, path: str, token: str):
    from websockets.asyncio.client import connect

    return await connect(f"ws://{server}{path}", additional_headers={"Authorization": f"Bearer {token}"},
                         open_timeout=120, max_size=2**22, compression=COMPRESSION)


async def play_seat(server, match_id, token, rtts, errors, window, rng, think: float) -> None:
    notify = await connect_bot(server, "/ws/notify/", token)
    socket = await connect_bot(server, f"/ws/live/{match_id}/", token)
    try:
        acted, waiting_for, sent_at, last = -1, None, None, 0.0
        while time.monotonic() < window["stop"]:
            try:
                frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
            except TimeoutError:
                await socket.send(json.dumps({"type": "view"}))
                continue
            if frame["type"] == "error":
                errors.append(frame["code"])
                waiting_for, acted = None, -1
                continue
            if frame["type"] != "view":
                continue
            if frame["status"] == "done":
                return
            count = frame.get("acted")
            if sent_at is not None and waiting_for is not None and count is not None and count >= waiting_for:
                if window["measuring"]:
                    rtts.append(time.perf_counter() - sent_at)
                sent_at = None
            if frame["legal"] and frame["index"] > acted and (waiting_for is None or count >= waiting_for):
                pause = max(last + MIN_INTERVAL - time.monotonic(), rng.expovariate(1 / think) if think else 0)
                if pause > 0:
                    await asyncio.sleep(pause)
                acted, waiting_for = frame["index"], count + 1
                last = time.monotonic()
                sent_at = time.perf_counter()
                await socket.send(json.dumps({"type": "act", "action": rng.choice(frame["legal"]),
                                              "index": frame["index"]}))
    finally:
        await asyncio.gather(socket.close(), notify.close(), return_exceptions=True)


async def measure(server: str, pid: int, matches, idle_tokens, seconds: float, warmup: float,
                  think: float) -> dict:
    rtts: list[float] = []
    errors: list[str] = []
    window = {"stop": float("inf"), "measuring": False}
    tasks = [asyncio.create_task(play_seat(server, m, tok, rtts, errors, window, random.Random(i * 2 + s), think))
             for i, (m, t0, t1) in enumerate(matches) for s, tok in enumerate((t0, t1))]
    window["stop"] = time.monotonic() + warmup + seconds
    await asyncio.sleep(warmup)
    window["measuring"] = True
    ticks = cpu_ticks(pid)
    await asyncio.sleep(seconds)
    ticks = cpu_ticks(pid) - ticks
    window["measuring"] = False
    await asyncio.gather(*tasks, return_exceptions=True)
    rtts.sort()
    play = {
        "bots": 2 * len(matches), "games": len(matches), "think_mean_s": think, "actions_measured": len(rtts),
        "actions_per_second": round(len(rtts) / seconds, 1),
        "rtt_ms": {"median": round(1000 * statistics.median(rtts), 1) if rtts else None,
                   "p95": round(1000 * rtts[int(0.95 * (len(rtts) - 1))], 1) if rtts else None,
                   "max": round(1000 * rtts[-1], 1) if rtts else None},
        "error_frames": len(errors),
        # The web processes' CPU over the measured window, per action measured.
        "web_cpu_ms_per_action": round(1000 * ticks / os.sysconf("SC_CLK_TCK") / len(rtts), 2) if rtts else None,
    }
    # Idle bots: each holds its events socket.
    before = rss_kib(pid)
    sockets = []
    for start in range(0, len(idle_tokens), 50):
        sockets += await asyncio.gather(*(connect_bot(server, "/ws/notify/", t)
                                          for t in idle_tokens[start:start + 50]))
    for socket in sockets:
        await socket.recv()  # the opening notice: the server holds the connection
    await asyncio.sleep(2)
    after = rss_kib(pid)
    await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)
    return {"play": play, "idle": {"bots": len(sockets), "rss_before_mib": round(before / 1024, 1),
                                   "rss_after_mib": round(after / 1024, 1),
                                   "added_mib": round((after - before) / 1024, 1)}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--port", type=int, default=28791)
    parser.add_argument("--think", type=float, default=0.0,
                        help="a bot's mean think time before each action, seconds (exponential; 0: none)")
    parser.add_argument("--web-workers", type=int, default=1, help="web processes (python -m web.serve --workers)")
    parser.add_argument("--no-compression", action="store_true",
                        help="the bots do not offer permessage-deflate (their frames go uncompressed)")
    args = parser.parse_args()
    global COMPRESSION
    COMPRESSION = None if args.no_compression else "deflate"
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        print("needs DATABASE_URL (PostgreSQL) and REDIS_URL", file=sys.stderr)
        return 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    env = dict(os.environ, DJANGO_DEBUG="0", SECRET_KEY=os.environ.get("SECRET_KEY", "bench-" + "x" * 50),
               ALLOWED_HOSTS="127.0.0.1,localhost", DATABASE_CONN_MAX_AGE="600", DJANGO_SECURE_SSL_REDIRECT="0",
               DJANGO_SECURE_COOKIES="0")
    server = subprocess.Popen([sys.executable, "-m", "web.serve", "config.asgi:application", "--host", "127.0.0.1",
                               "--port", str(args.port), "--lifespan", "off", "--log-level", "warning",
                               "--workers", str(args.web_workers)],
                              cwd=ROOT / "platform", env=env)
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/healthz", timeout=2)
                break
            except Exception:  # noqa: BLE001 (not up yet)
                time.sleep(0.5)
        run = f"{int(time.time()) % 100000}"
        matches, idle = setup(run, args.bots, args.idle)
        result = asyncio.run(measure(f"127.0.0.1:{args.port}", server.pid, matches, idle, args.seconds,
                                     args.warmup, args.think))
    finally:
        server.terminate()
        server.wait(timeout=30)
    result["web_processes"] = args.web_workers
    result["compression"] = COMPRESSION or "none"
    result["command"] = "python bench/bots_api.py " + " ".join(sys.argv[1:])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
