"""Load benchmark of live matches: N concurrent TempoFront matches played by scripted clients
over real WebSockets, from this process, against a running site.

Start the site first (uvicorn workers, Redis channel layer, PostgreSQL), on the same
database this script writes to::

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/liveload REDIS_URL=redis://127.0.0.1:6379/8
    python manage.py migrate
    DJANGO_DEBUG=0 SECRET_KEY=... ALLOWED_HOSTS=127.0.0.1 DATABASE_CONN_MAX_AGE=600 \
        uvicorn config.asgi:application --workers 2 --port 8765 --lifespan off --log-level warning &
    python bench/live_load.py --matches 500 --think 5 --seconds 60 --server 127.0.0.1:8765

The script creates the players, their sessions and N live matches, opens two sockets per
match (one per seat), and in each match the seat to act plays a random legal action after
thinking: ``--think`` seconds on average per decision (``--think-dist exponential`` or
``uniform`` on [0, 2 x think]; ``--think 0`` acts as soon as the view arrives, which
measures the saturation point rather than people; a socket never sends more than the
server's 10 frames a second either way). It reports the sockets held, the
actions per second, and the round trip of an action: from sending ``act`` to receiving
the acting seat's next view (median, p95, max), with the error frames and failed
connections, as one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def setup_matches(count: int, run: str) -> list[tuple[int, str, str]]:
    """Create ``count`` live matches between fresh players; returns (match id, cookie 0, cookie 1)."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.test import Client

    from decks.services import deck_register
    from engine import games
    from live import creation
    from live.creation import SeatSpec

    game = games["tempofront"]
    starters = list(game.starter_decks().values())
    owner = User.objects.create_user(f"bench-{run}-owner")
    versions = [deck_register(owner=owner, game="tempofront", name=f"bench {run} {i}",
                              decklist=starters[i].to_text(game.commander_label), pilot="random").latest_version
                for i in range(2)]
    out = []
    for number in range(count):
        users = [User.objects.create_user(f"bench-{run}-{number}-{seat}") for seat in range(2)]
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}")
        live = creation.live_create(seats=[SeatSpec(deck_version=versions[s], user=users[s]) for s in range(2)],
                                    initial_ms=3_600_000, increment_ms=0)
        out.append((live.match_id, cookies[0], cookies[1]))
    return out


#: A view awaited longer than this counts as lost (a stall), and the client asks again.
STALL_SECONDS = 30.0
#: Least time between two actions of one socket: the server refuses more than 10 frames a
#: second per connection (live.consumers.RATE).
MIN_INTERVAL = 0.105


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.actions = 0
        self.open = 0
        self.peak = 0
        self.error_frames: list[str] = []
        self.failures: list[str] = []
        self.finished = 0
        self.stalls = 0
        self.measuring = False

    def opened(self, n: int = 1) -> None:
        self.open += n
        self.peak = max(self.peak, self.open)


def think_time(rng: random.Random, mean: float, dist: str) -> float:
    if mean <= 0:
        return 0.0
    if dist == "uniform":
        return rng.uniform(0.0, 2.0 * mean)
    return rng.expovariate(1.0 / mean)


async def play(server: str, match_id: int, cookies: tuple[str, str], stats: Stats, window: dict,
               rng: random.Random, started: asyncio.Event, gate: asyncio.Semaphore, think: float,
               dist: str) -> None:
    from websockets.asyncio.client import connect

    origin = f"http://{server}"
    url = f"ws://{server}/ws/live/{match_id}/"
    opened = 0
    try:
        async with gate:  # a bounded number of handshakes at a time
            s0 = await connect(url, origin=origin, additional_headers={"Cookie": cookies[0]}, open_timeout=120,
                               max_size=2**22)
            s1 = await connect(url, origin=origin, additional_headers={"Cookie": cookies[1]}, open_timeout=120,
                               max_size=2**22)
        sockets = {0: s0, 1: s1}
        opened = 2
        stats.opened(2)

        async def next_view(seat: int, after: int) -> dict:
            while True:
                try:
                    text = await asyncio.wait_for(sockets[seat].recv(), STALL_SECONDS)
                except TimeoutError:
                    # A view never came (the channel layer dropped it): counted, and the
                    # client asks for the current view, as the board page does.
                    stats.stalls += 1
                    await sockets[seat].send(json.dumps({"type": "view"}))
                    continue
                frame = json.loads(text)
                if frame["type"] == "error":
                    stats.error_frames.append(frame["code"])
                    continue
                if frame["type"] == "view" and frame["index"] > after:
                    return frame

        try:
            views = {seat: await next_view(seat, -1) for seat in (0, 1)}
            await started.wait()
            last_act = {0: 0.0, 1: 0.0}
            while time.monotonic() < window["stop"] and views[0]["status"] != "done":
                actor = views[0]["to_act"][0]
                # Never faster than the server's limit of frames per socket (10 a second).
                pause = max(think_time(rng, think, dist), last_act[actor] + MIN_INTERVAL - time.monotonic())
                if pause > 0:
                    await asyncio.sleep(pause)
                last_act[actor] = time.monotonic()
                action = rng.choice(views[actor]["legal"])
                index = views[actor]["index"]
                sent = time.perf_counter()
                await sockets[actor].send(json.dumps({"type": "act", "action": action, "index": index}))
                views[actor] = await next_view(actor, index)
                if stats.measuring:
                    stats.rtts.append(time.perf_counter() - sent)
                    stats.actions += 1
                views[1 - actor] = await next_view(1 - actor, index)
            if views[0]["status"] == "done":
                stats.finished += 1
        finally:
            stats.open -= opened
            opened = 0
            await asyncio.gather(s0.close(), s1.close(), return_exceptions=True)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a refused or dropped connection is counted, not fatal
        stats.open -= opened
        stats.failures.append(f"{type(exc).__name__}: {exc}"[:200])


async def run(server: str, matches: list[tuple[int, str, str]], seconds: float, seed: int, think: float,
              dist: str, warmup: float, handshakes: int) -> dict:
    stats = Stats()
    started = asyncio.Event()
    window = {"stop": float("inf")}
    gate = asyncio.Semaphore(handshakes)
    tasks = [asyncio.create_task(play(server, m, (c0, c1), stats, window, random.Random(seed + i), started, gate,
                                      think, dist))
             for i, (m, c0, c1) in enumerate(matches)]
    # Wait until every socket is open (or failed), then play: ``warmup`` seconds unmeasured
    # (the matches' first decisions spread out), then ``seconds`` measured.
    opening = time.monotonic()
    deadline = opening + 300
    while stats.open + 2 * len(stats.failures) < 2 * len(matches) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    open_seconds = time.monotonic() - opening
    held_at_start = stats.open
    # Play goes on a little past the measured window, so that the sockets still held at
    # its end are counted before the clients start closing them.
    window["stop"] = time.monotonic() + warmup + seconds + 5
    started.set()
    await asyncio.sleep(warmup)
    stats.measuring = True
    begin = time.monotonic()
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.monotonic() - begin
    held_at_end = stats.open
    actions, rtts = stats.actions, sorted(stats.rtts)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "matches": len(matches),
        "think_seconds": think,
        "think_distribution": dist if think > 0 else None,
        "seconds_to_open_all": round(open_seconds, 1),
        "sockets_held_at_start": held_at_start,
        "sockets_held_at_end": held_at_end,
        "sockets_peak": stats.peak,
        "seconds": round(elapsed, 1),
        "actions": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "rtt_median_ms": round(statistics.median(rtts) * 1000, 1) if rtts else None,
        "rtt_p95_ms": round(rtts[int(0.95 * (len(rtts) - 1))] * 1000, 1) if rtts else None,
        "rtt_p99_ms": round(rtts[int(0.99 * (len(rtts) - 1))] * 1000, 1) if rtts else None,
        "rtt_max_ms": round(rtts[-1] * 1000, 1) if rtts else None,
        "matches_finished": stats.finished,
        "stalls": stats.stalls,
        "error_frames": len(stats.error_frames),
        "failed_matches": len(stats.failures),
        "first_errors": (stats.error_frames + stats.failures)[:5],
    }


def raise_file_limit(needed: int) -> int:
    """Raise this process's open-file limit (soft, up to the hard limit) to hold the sockets."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft = want
    return soft


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=10.0, help="unmeasured seconds of play before")
    parser.add_argument("--think", type=float, default=5.0,
                        help="mean seconds a player takes per decision (0: act at once)")
    parser.add_argument("--think-dist", choices=["exponential", "uniform"], default="exponential")
    parser.add_argument("--handshakes", type=int, default=50, help="sockets opened at once, at most")
    parser.add_argument("--server", default="127.0.0.1:8765", help="host:port of the running site")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    limit = raise_file_limit(2 * args.matches + 256)
    if limit < 2 * args.matches + 64:
        print(f"the open-file limit ({limit}) is too low for {2 * args.matches} sockets", file=sys.stderr)
        return 2
    run_id = f"{int(time.time())}"
    matches = setup_matches(args.matches, run_id)
    main_coroutine = run(args.server, matches, args.seconds, args.seed, args.think, args.think_dist, args.warmup,
                         args.handshakes)
    try:
        import uvloop
    except ImportError:
        result = asyncio.run(main_coroutine)
    else:
        result = uvloop.run(main_coroutine)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
