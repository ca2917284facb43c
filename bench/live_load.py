"""Load benchmark of live matches: N concurrent TempoFront matches played by scripted clients
over real WebSockets, from this process, against a running site.

Start the site first (uvicorn workers, Redis channel layer, PostgreSQL), on the same
database this script writes to::

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/h8 REDIS_URL=redis://127.0.0.1:6379/0
    python manage.py migrate
    uvicorn config.asgi:application --workers 2 --port 8765 --lifespan off --log-level warning &
    python bench/live_load.py --matches 100 --seconds 60 --server 127.0.0.1:8765

The script creates the players, their sessions and N live matches, opens two sockets per
match (one per seat), and in each match the seat to act plays a random legal action as soon
as its view arrives. It reports the sockets held, the actions per second, and the round trip
of an action: from sending ``act`` to receiving the acting seat's next view (median, p95,
max), as one JSON object on stdout.
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
    from live import services
    from live.services import SeatSpec

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
        live = services.live_create(seats=[SeatSpec(deck_version=versions[s], user=users[s]) for s in range(2)],
                                    initial_ms=3_600_000, increment_ms=0)
        out.append((live.match_id, cookies[0], cookies[1]))
    return out


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.actions = 0
        self.open = 0
        self.peak = 0
        self.errors: list[str] = []
        self.finished = 0

    def opened(self, n: int = 1) -> None:
        self.open += n
        self.peak = max(self.peak, self.open)


async def play(server: str, match_id: int, cookies: tuple[str, str], stats: Stats, window: dict,
               rng: random.Random, started: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    origin = f"http://{server}"
    url = f"ws://{server}/ws/live/{match_id}/"
    try:
        async with connect(url, origin=origin, additional_headers={"Cookie": cookies[0]}, open_timeout=60,
                           max_size=2**22) as s0, \
                connect(url, origin=origin, additional_headers={"Cookie": cookies[1]}, open_timeout=60,
                        max_size=2**22) as s1:
            stats.opened(2)
            sockets = {0: s0, 1: s1}

            async def next_view(seat: int, after: int) -> dict:
                while True:
                    frame = json.loads(await sockets[seat].recv())
                    if frame["type"] == "error":
                        stats.errors.append(frame["code"])
                        continue
                    if frame["type"] == "view" and frame["index"] > after:
                        return frame

            views = {seat: await next_view(seat, -1) for seat in (0, 1)}
            await started.wait()
            while time.monotonic() < window["stop"] and views[0]["status"] != "done":
                actor = views[0]["to_act"][0]
                action = rng.choice(views[actor]["legal"])
                index = views[actor]["index"]
                sent = time.perf_counter()
                await sockets[actor].send(json.dumps({"type": "act", "action": action, "index": index}))
                views[actor] = await next_view(actor, index)
                stats.rtts.append(time.perf_counter() - sent)
                stats.actions += 1
                views[1 - actor] = await next_view(1 - actor, index)
            if views[0]["status"] == "done":
                stats.finished += 1
            stats.open -= 2
    except Exception as exc:  # a refused or dropped connection is counted, not fatal
        stats.errors.append(f"{type(exc).__name__}: {exc}"[:200])


async def run(server: str, matches: list[tuple[int, str, str]], seconds: float, seed: int) -> dict:
    stats = Stats()
    started = asyncio.Event()
    window = {"stop": float("inf")}
    tasks = [asyncio.create_task(play(server, m, (c0, c1), stats, window, random.Random(seed + i), started))
             for i, (m, c0, c1) in enumerate(matches)]
    # Wait until every socket is open (or failed), then measure for ``seconds``.
    deadline = time.monotonic() + 120
    while stats.open + len(stats.errors) < 2 * len(matches) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    held = stats.open
    begin = time.monotonic()
    window["stop"] = begin + seconds
    started.set()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - begin
    actions, rtts = stats.actions, sorted(stats.rtts)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "matches": len(matches),
        "sockets_held": held,
        "sockets_peak": stats.peak,
        "seconds": round(elapsed, 1),
        "actions": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "rtt_median_ms": round(statistics.median(rtts) * 1000, 1) if rtts else None,
        "rtt_p95_ms": round(rtts[int(0.95 * (len(rtts) - 1))] * 1000, 1) if rtts else None,
        "rtt_max_ms": round(rtts[-1] * 1000, 1) if rtts else None,
        "matches_finished": stats.finished,
        "errors": len(stats.errors),
        "first_errors": stats.errors[:5],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--server", default="127.0.0.1:8765", help="host:port of the running site")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    run_id = f"{int(time.time())}"
    matches = setup_matches(args.matches, run_id)
    result = asyncio.run(run(args.server, matches, args.seconds, args.seed))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
