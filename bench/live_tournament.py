"""A live Swiss of scripted people: how long after a round starts every player has their board.

Starts the stack as ``make serve`` does (honcho, the project's Procfile: web, worker, live
worker, periodic worker, beat; ``bench/soak_embedded.py``), creates ``--players`` players,
each with a TempoFront starter deck and a session, and a people-only Swiss live event
(no check-in) that they all enter. The players are scripted clients in ``--clients``
processes (asyncio and ``websockets``, authenticated by their session cookie): each keeps
``/ws/notify/`` open as every page of the site does, and when told ``notify.match`` (or
finding the match listed when its notify socket connects again) opens the match's board
socket ``/ws/live/<id>/`` and plays random legal actions, thinking ``--think`` seconds on
average per decision (exponentially distributed: most decisions are quick, a few long),
until the game ends (by the rules, the clocks, or the round's time limit). When every
notify socket is open, this process starts the event (``tournament_start``, as the
organiser's button does); the workers pair every later round.

Measured, per player and round: **board open**, from the round's start
(``Round.starts_at``, the moment the round's transaction began) to the arrival of the
player's first seat view on the board socket (one machine, one clock), split into
pairing (start to the match's creation in the round's transaction), notice (creation to
``notify.match`` arriving) and board (notice to first view). Checked at the end: every
table of every round has exactly one finished live match per game played (no table
without its match: lost; no live match of these players that no table holds: doubled),
and every player of every round got their board. Prints one JSON summary.

To say where a slow round start spends its time, the summary also has: round 1's parts in
this process, which pairs it (time inside ``live_plan`` and ``live_create_many``, the commit, the notice reads,
the channel-layer and task sends after commit, from wrappers put around them for that one
call); the CPU seconds of each process (web, workers, this one, the clients, PostgreSQL,
Redis) from each round's start to its last board; and one board open at a time on the
quiet server afterwards. ``--web-workers 2`` runs the stack with two web processes;
``--raw`` keeps every player's boards (times of notice, connection and first view).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/livetournament REDIS_URL=redis://127.0.0.1:6379/7 \\
        python bench/live_tournament.py --services --players 256 --rounds 2

The database is not flushed: each run makes players of its own (``lt<run>-<n>``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
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

#: The event's live settings: short, so that a round fits in minutes. With a 5 s mean think
#: time a game would last far longer than the round limit, so the limit ends every round
#: (``live_adjudicate``), as a long round would end its slowest tables; a clock of 300 s
#: (+5 s a move) does not run out in a 2-minute round, so people, not bots, play throughout.
SETTINGS = {"round_limit_minutes": 2, "no_show_minutes": 1, "clock_initial": 300, "clock_increment": 5,
            "check_in_minutes": 0, "spectator_delay": 0}
#: A view awaited longer than this counts as a stall; the client asks for the view again.
#: The answer tells a missed view (the position had moved on: a view was not delivered)
#: from a long wait (nothing had happened: with a 5 s mean think time, 1 in 400 thinks
#: is longer than 30 s).
STALL_SECONDS = 30.0
#: Notify sockets opened at once, at most, before the event (the handshakes of a crowd
#: arriving; the board sockets of a round start are opened all at once, as people would).
HANDSHAKES = 50


# --------------------------------------------------------------------------- scripted players (client process)


class Player:
    """One scripted person: a notify socket and the boards it was sent to."""

    def __init__(self, spec: dict, server: str, think: float, rng: random.Random, rtts: list[float]) -> None:
        self.user = spec["user"]
        self.cookie = spec["cookie"]
        self.server = server
        self.think = think
        self.rng = rng
        self.rtts = rtts
        self.boards: dict[int, dict] = {}
        self.tasks: set[asyncio.Task] = set()
        self.ready = asyncio.Event()
        self.notify_connects = 0
        self.failures: list[str] = []

    def headers(self) -> dict:
        return {"origin": f"http://{self.server}", "additional_headers": {"Cookie": self.cookie},
                "open_timeout": 120, "max_size": 2**22}

    async def notify(self, gate: asyncio.Semaphore) -> None:
        """Keep /ws/notify/ open (again after a drop); open each announced board."""
        from websockets.asyncio.client import connect

        while True:
            try:
                async with gate:
                    socket = await connect(f"ws://{self.server}/ws/notify/", **self.headers())
                self.notify_connects += 1
                async with socket:
                    async for text in socket:
                        frame = json.loads(text)
                        now = time.time()
                        if frame["type"] == "notify.matches":
                            # On (re)connect: matches already waiting, e.g. announced while it was down.
                            for match in frame["matches"]:
                                self.open_board(match["id"], notified=now, via="list")
                            self.ready.set()
                        elif frame["type"] == "notify.match":
                            self.open_board(frame["match"]["id"], notified=now, via="notify")
                        elif frame["type"] == "error":
                            self.failures.append(f"notify: {frame.get('code')}")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a dropped socket: counted, and opened again
                self.failures.append(f"notify {type(exc).__name__}: {exc}"[:200])
                self.ready.set()
                await asyncio.sleep(1.0)

    def open_board(self, match_id: int, *, notified: float, via: str) -> None:
        if match_id in self.boards:
            return
        self.boards[match_id] = {"notified": notified, "via": via, "first_view": None, "connected": None,
                                 "actions": 0, "errors": [], "stalls": 0, "missed": 0, "final": None}
        task = asyncio.create_task(self.board(match_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def board(self, match_id: int) -> None:
        from websockets.asyncio.client import connect

        record = self.boards[match_id]
        try:
            async with await connect(f"ws://{self.server}/ws/live/{match_id}/", **self.headers()) as socket:
                record["connected"] = time.time()
                await self.play(socket, record)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            record["errors"].append(f"{type(exc).__name__}: {exc}"[:200])

    async def next_view(self, socket, record: dict, after: int, *, same_ok: bool = False) -> dict:
        """The next seat view newer than index ``after`` (or as new, with ``same_ok``)."""
        stalled = False
        while True:
            try:
                text = await asyncio.wait_for(socket.recv(), STALL_SECONDS)
            except TimeoutError:
                record["stalls"] += 1
                record["errors"].append(f"stall after index {after}")
                await socket.send(json.dumps({"type": "view"}))
                same_ok = stalled = True
                continue
            frame = json.loads(text)
            if frame["type"] == "view":
                if record["first_view"] is None:
                    record["first_view"] = time.time()
                if stalled and frame["index"] > after:
                    record["missed"] += 1  # the position had moved on without a view reaching us
                stalled = False
                # A game decided at the round's limit ends without a move: its last view
                # keeps the index of the one before.
                if frame["index"] > after or (same_ok and frame["index"] >= after) or frame["status"] != "active":
                    return frame
            elif frame["type"] == "error":
                record["errors"].append(frame.get("code"))
                # A refused action: ask for the position as it is now.
                await socket.send(json.dumps({"type": "view"}))
                same_ok = True

    async def play(self, socket, record: dict) -> None:
        view = await self.next_view(socket, record, -1)
        while view["status"] == "active":
            legal = [a for a in view["legal"] if a.get("kind") != "concede"]
            if not legal:
                view = await self.next_view(socket, record, view["index"])
                continue
            # Think, while still reading: an opponent's move meanwhile changes the position.
            deadline = time.monotonic() + self.rng.expovariate(1.0 / self.think) if self.think > 0 else 0.0
            newer = None
            while (left := deadline - time.monotonic()) > 0:
                try:
                    newer = await asyncio.wait_for(self.next_view(socket, record, view["index"]), left)
                    break
                except TimeoutError:
                    break
            if newer is not None:
                view = newer
                continue
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "act", "action": self.rng.choice(legal), "index": view["index"]}))
            view = await self.next_view(socket, record, view["index"])
            self.rtts.append(time.perf_counter() - sent)
            record["actions"] += 1
        record["final"] = {"status": view["status"], "reason": (view.get("outcome") or {}).get("reason")}

    def report(self) -> dict:
        return {"user": self.user, "boards": self.boards, "notify_connects": self.notify_connects,
                "failures": self.failures[:5]}


async def run_client(spec: dict) -> dict:
    rtts: list[float] = []
    players = [Player(p, spec["server"], spec["think"], random.Random(spec["seed"] * 100_003 + p["user"]), rtts)
               for p in spec["players"]]
    gate = asyncio.Semaphore(HANDSHAKES)
    notifiers = [asyncio.create_task(p.notify(gate)) for p in players]
    await asyncio.gather(*(p.ready.wait() for p in players))
    print(f"ready {sum(p.notify_connects > 0 for p in players)}", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # the driver says when to stop
    for task in notifiers + [t for p in players for t in p.tasks]:
        task.cancel()
    await asyncio.gather(*notifiers, *(t for p in players for t in p.tasks), return_exceptions=True)
    return {"players": [p.report() for p in players], "rtts": rtts}


def client_main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    result = asyncio.run(run_client(spec))
    print(json.dumps(result), flush=True)
    return 0


# --------------------------------------------------------------------------- the event (driver, Django)


def create_event(*, players: int, rounds: int, run: str) -> tuple[int, list[dict], dict]:
    """The players (each a starter deck and a session), the event, the entries: returns the
    event's id, ``[{user, cookie}]`` and the settings it was created with."""
    import datetime as dt

    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from decks.services import deck_register
    from engine import games
    from tournaments.services import tournament_create, tournament_enter

    game = games["tempofront"]
    starters = list(game.starter_decks().items())
    users = get_user_model().objects
    organiser = users.create_user(f"lt{run}-organiser")
    settings = {"game": "tempofront", "format": "swiss", "rounds": rounds, "best_of": 1, "entrants": "people",
                **SETTINGS}
    event = tournament_create(organiser=organiser, name=f"Live Swiss bench {run}",
                              starts_at=timezone.now() + dt.timedelta(hours=1), **settings)
    out = []
    for number in range(players):
        user = users.create_user(f"lt{run}-{number}")
        name, decklist = starters[number % len(starters)]
        deck = deck_register(owner=user, game="tempofront", name=name,
                             decklist=decklist.to_text(game.commander_label), pilot="random")
        tournament_enter(tournament_id=event.pk, player=user, deck_id=deck.pk)
        client = Client()
        client.force_login(user)
        out.append({"user": user.pk, "cookie": f"sessionid={client.cookies['sessionid'].value}"})
    return event.pk, out, settings


class Timings:
    """Time spent in named functions of this process (count, seconds), by wrapping them in
    place for the duration of one call: how round 1's transaction and its after-commit
    work divide their time. Nested calls are counted in both (the task sends are inside the
    after-commit batch)."""

    def __init__(self) -> None:
        self.spent: dict[str, list] = {}
        self.undo: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)
        spent = self.spent.setdefault(label, [0, 0.0])

        def timed(*args, **kwargs):
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[0] += 1
                spent[1] += time.perf_counter() - begin

        setattr(owner, name, timed)
        self.undo.append((owner, name, original))

    def restore(self) -> dict:
        for owner, name, original in reversed(self.undo):
            setattr(owner, name, original)
        return {label: {"calls": n, "seconds": round(t, 3), "ms_per_call": round(1000 * t / n, 2) if n else None}
                for label, (n, t) in self.spent.items()}


def start_timed(event_id: int) -> dict:
    """Start the event (round 1 is paired in this process), timing its parts."""
    from django.db import connections

    from live import creation, notify

    # The organiser's button is served by a web process that has its URLs loaded already:
    # load them here too, so that the first reverse() of the round is not timed as its own.
    from live.models import LiveMatch
    from tournaments.models import Round, Tournament
    from tournaments.services import tournament_start
    from web import effects

    LiveMatch(match_id=1).get_absolute_url()
    timings = Timings()
    timings.wrap(creation, "live_plan", "live_plan (per match: checked and dealt, in the transaction)")
    timings.wrap(creation, "live_create_many", "live_create_many (the round's matches written, in the transaction)")
    timings.wrap(type(connections["default"]), "commit", "commit")
    timings.wrap(notify, "_notices", "notices read after commit (the round's, in one query)")
    timings.wrap(effects, "_send_task", "Celery send_task after commit (one broker connection)")
    timings.wrap(effects, "_flush", "after-commit batch: channel-layer sends together, then the tasks")
    began = time.time()
    try:
        tournament_start(tournament_id=event_id, by=Tournament.objects.get(pk=event_id).organiser)
    finally:
        parts = timings.restore()
    returned = time.time()
    start = Round.objects.get(tournament_id=event_id, number=1).starts_at.timestamp()
    return {"called_to_round_start_s": round(start - began, 3), "round_start_to_return_s": round(returned - start, 3),
            "parts": parts}


async def probe_board_opens(server: str, match_id: int, cookies: list[str], times: int) -> dict:
    """One at a time, on a quiet server: open the board socket of ``match_id`` and wait for
    the first view; and the notify socket and its first frame."""
    from websockets.asyncio.client import connect

    boards, notices = [], []
    for n in range(times):
        options = {"origin": f"http://{server}", "additional_headers": {"Cookie": cookies[n % len(cookies)]},
                   "max_size": 2**22}
        begin = time.perf_counter()
        async with connect(f"ws://{server}/ws/live/{match_id}/", **options) as socket:
            await socket.recv()
        boards.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        async with connect(f"ws://{server}/ws/notify/", **options) as socket:
            await socket.recv()
        notices.append(time.perf_counter() - begin)
    return {"board_open_s": percentiles(boards), "notify_open_s": percentiles(notices)}


def probe(server: str, run: str, times: int = 30) -> dict:
    """The cost of one board open with nothing else going on: over the sockets, and the
    opening view built in this process from the stored log (no cached state)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from decks.services import deck_register
    from engine import games
    from live import engine_state, selectors
    from live.creation import SeatSpec, live_create
    from live.endings import live_adjudicate

    game = games["tempofront"]
    name, decklist = next(iter(game.starter_decks().items()))
    seats, cookies = [], []
    for n in range(2):
        user = get_user_model().objects.create_user(f"lt{run}-probe{n}")
        deck = deck_register(owner=user, game="tempofront", name=name, decklist=decklist.to_text(game.commander_label),
                             pilot="random")
        seats.append(SeatSpec(deck_version=deck.latest_version, user=user))
        client = Client()
        client.force_login(user)
        cookies.append(f"sessionid={client.cookies['sessionid'].value}")
    live = live_create(seats=seats, initial_ms=600_000, increment_ms=0)
    try:
        result = asyncio.run(probe_board_opens(server, live.match_id, cookies, times))
        builds = []
        for n in range(times):
            engine_state.forget(live.match_id)
            begin = time.perf_counter()
            selectors.opening_payload(match_id=live.match_id, seat=n % 2)
            builds.append(time.perf_counter() - begin)
        result["opening_view_built_in_process_s"] = percentiles(builds)
    finally:
        live_adjudicate(match_id=live.match_id, reason="benchmark probe over")
    return result


class CpuSampler:
    """CPU seconds used so far by each part of the machine's work, sampled every quarter
    second from /proc (Linux): the stack's processes by their Procfile line, this
    process (which pairs round 1), the client processes, and PostgreSQL and Redis (all of
    their processes: other work on the machine counts there too).

    It samples in a child process of its own (``start``, ``stop``): a thread would hold
    the interpreter lock of the process that pairs round 1 while it reads /proc."""

    def __init__(self, stack_pid: int, clients: list[int]) -> None:
        import multiprocessing

        self.stack_pid, self.clients = stack_pid, clients
        self.me = os.getpid()
        self.args: dict[int, str] = {}
        self.samples: list[tuple[float, dict[int, tuple[str, float]]]] = []
        self.tick = os.sysconf("SC_CLK_TCK")
        context = multiprocessing.get_context("fork")
        self.stopped = context.Event()
        self.receiver, self.sender = context.Pipe(duplex=False)
        self.process = context.Process(target=self.run, daemon=True)

    def start(self) -> None:
        self.process.start()

    def stop(self) -> None:
        self.stopped.set()
        self.samples = self.receiver.recv()
        self.process.join(timeout=10)

    def part(self, pid: int, args: str, parents: dict[int, int]) -> str | None:
        if pid == self.me:
            return "pairing process (round 1)"
        if pid in self.clients:
            return "scripted players (clients)"
        if args.startswith("postgres"):
            return "postgresql"
        if "redis-server" in args:
            return "redis"
        ancestor, line = pid, []
        while ancestor in parents and ancestor not in (self.stack_pid, 1):
            line.append(ancestor)
            ancestor = parents[ancestor]
        if ancestor != self.stack_pid or "web.keepalive" in args:
            return None
        if any(("uvicorn" in self.args.get(p, "") or "web.serve" in self.args.get(p, ""))
               and "web.keepalive" not in self.args.get(p, "") for p in line):
            return "web (uvicorn)"  # with --workers, its worker processes too
        for marker, name in (("--queues live", "live worker"), ("--queues periodic", "periodic worker"),
                             (" beat", "beat"), ("worker --pool solo", "worker (pairs later rounds)")):
            if marker in args:
                return name
        return None

    def sample(self) -> dict[int, tuple[str, float]]:
        """Each counted process's part and CPU seconds so far, by pid."""
        rows, parents = [], {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                args = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rows.append((int(entry), args, (int(fields[11]) + int(fields[12])) / self.tick))
        self.args = {pid: args for pid, args, _ in rows}
        out: dict[int, tuple[str, float]] = {}
        for pid, args, seconds in rows:
            name = self.part(pid, args, parents)
            if name:
                out[pid] = (name, seconds)
        return out

    def run(self) -> None:
        """In the child: sample until stopped, then hand the samples to the parent."""
        while not self.stopped.wait(0.25):
            self.samples.append((time.time(), self.sample()))
        self.sender.send(self.samples)

    def between(self, begin: float, end: float) -> dict[str, float]:
        """CPU seconds each part used from ``begin`` to ``end`` (wall-clock times).

        Counted process by process: a process started in the window counts whole, and one
        that ended in it (a closed PostgreSQL connection's backend) is left out rather than
        taking its earlier CPU off its part's sum."""
        before = next((s for t, s in reversed(self.samples) if t <= begin), self.samples[0][1] if self.samples else {})
        after = next((s for t, s in self.samples if t >= end), self.samples[-1][1] if self.samples else {})
        used: dict[str, float] = {}
        for pid, (name, seconds) in after.items():
            earlier = before.get(pid)
            start = earlier[1] if earlier and earlier[0] == name else 0.0
            used[name] = used.get(name, 0.0) + seconds - start
        return dict(sorted(((k, round(v, 2)) for k, v in used.items() if round(v, 2) > 0), key=lambda kv: -kv[1]))


def percentiles(values: list[float]) -> dict | None:
    if not values:
        return None
    ordered = sorted(values)

    def at(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))], 3)

    return {"n": len(ordered), "p50": at(50), "p95": at(95), "max": round(ordered[-1], 3),
            "mean": round(statistics.mean(ordered), 3)}


def check_event(event_id: int, reports: list[dict], cpu: CpuSampler | None = None) -> dict:
    """Every table's games against the live matches that exist, and each player's boards."""
    from live.models import LiveMatch
    from matches.models import Match
    from tournaments.models import Entry, Pairing, Round, Tournament

    event = Tournament.objects.get(pk=event_id)
    boards = {p["user"]: p["boards"] for p in reports}
    player_of = dict(Entry.objects.filter(tournament=event).values_list("pk", "player_id"))
    users = list(player_of.values())
    mine = set(LiveMatch.objects.filter(seats__user_id__in=users).values_list("match_id", flat=True).distinct())
    live_rows = {lm.match_id: lm for lm in LiveMatch.objects.filter(match_id__in=mine)}
    match_status = dict(Match.objects.filter(pk__in=mine).values_list("pk", "status"))
    referenced: dict[int, int] = {}
    lost, unfinished, missing_boards, rounds_out = [], [], [], []
    latencies_all: list[float] = []
    forfeits = adjudicated = 0
    for rnd in Round.objects.filter(tournament=event).order_by("number"):
        start = rnd.starts_at.timestamp()
        lat, pairing_s, notice_s, board_s, via_list = [], [], [], [], 0
        created = []
        for pairing in Pairing.objects.filter(round=rnd).order_by("table"):
            if len(pairing.entries) < 2:
                continue
            games = [g["match"] for g in pairing.series] or ([pairing.match_id] if pairing.match_id else [])
            if pairing.match_id and pairing.match_id not in games:
                games.append(pairing.match_id)
            if not games:
                lost.append({"round": rnd.number, "table": pairing.table, "why": "no match"})
                continue
            for match_id in games:
                referenced[match_id] = referenced.get(match_id, 0) + 1
                live = live_rows.get(match_id)
                if live is None:
                    lost.append({"round": rnd.number, "table": pairing.table, "match": match_id,
                                 "why": "no live match"})
                    continue
                if live.status != LiveMatch.Status.DONE or match_status.get(match_id) != Match.Status.DONE:
                    unfinished.append({"round": rnd.number, "table": pairing.table, "match": match_id,
                                       "live": live.status, "match_status": match_status.get(match_id)})
                outcome = live.outcome or {}
                forfeits += bool(outcome.get("forfeited"))
                adjudicated += outcome.get("reason") == "adjudicated" or "adjudicated" in (outcome.get("detail") or {})
            first = live_rows.get(games[0])
            if first is not None:
                created.append(first.created.timestamp())
            for entry in pairing.entries:
                record = boards.get(player_of.get(entry), {}).get(str(games[0]))
                if record is None or record.get("first_view") is None:
                    missing_boards.append({"round": rnd.number, "table": pairing.table, "user": player_of.get(entry),
                                           "notified": record is not None,
                                           "errors": (record or {}).get("errors", [])[:3]})
                    continue
                lat.append(record["first_view"] - start)
                via_list += record["via"] == "list"
                if first is not None:
                    pairing_s.append(first.created.timestamp() - start)
                    notice_s.append(record["notified"] - first.created.timestamp())
                    board_s.append(record["first_view"] - record["notified"])
        latencies_all += lat
        views = [b["first_view"] for p in reports for m, b in p["boards"].items()
                 if int(m) in {pr.match_id for pr in rnd.pairings.all()} and b.get("first_view")]
        rounds_out.append({
            "round": rnd.number, "tables": sum(1 for p in rnd.pairings.all() if len(p.entries) >= 2),
            "boards": len(lat), "board_open_s": percentiles(lat),
            "split_s": {"start_to_match_created": percentiles(pairing_s),
                        "created_to_notice": percentiles(notice_s),
                        "notice_to_first_view": percentiles(board_s)},
            "last_match_created_after_start_s": round(max(created) - start, 3) if created else None,
            "opened_from_list_not_notice": via_list,
            "cpu_s_from_start_to_last_board": cpu.between(start, max(views)) if cpu and views else None,
            "window_s": round(max(views) - start, 2) if views else None,
        })
    doubled = sorted(m for m in mine if m not in referenced) + sorted(m for m, n in referenced.items() if n > 1)
    return {"state": event.state, "rounds": rounds_out, "board_open_s": percentiles(latencies_all),
            "matches": len(mine), "lost": len(lost), "doubled": len(doubled), "unfinished": len(unfinished),
            "boards_missing": len(missing_boards), "forfeited_matches": forfeits, "adjudicated_matches": adjudicated,
            "problems": {"lost": lost[:5], "doubled": doubled[:5], "unfinished": unfinished[:5],
                         "boards_missing": missing_boards[:5]}}


def wait_finished(event_id: int, timeout: float, stack: subprocess.Popen, log: Path) -> None:
    from tournaments.models import Tournament

    deadline = time.monotonic() + timeout
    seen = None
    while True:
        state, current = Tournament.objects.filter(pk=event_id).values_list("state", "current_round").get()
        if (state, current) != seen:
            print(f"  {time.strftime('%H:%M:%S')} event {state}, round {current}", file=sys.stderr, flush=True)
            seen = (state, current)
        if state in (Tournament.State.FINISHED, Tournament.State.CANCELLED):
            return
        if stack.poll() is not None:
            raise RuntimeError(f"the stack exited with {stack.returncode}; see {log}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the event did not finish within {timeout:.0f} s (state {state}, round {current})")
        time.sleep(1.0)


def start_stack_with(env: dict[str, str], log, var_dir: Path, web_workers: int) -> subprocess.Popen:
    """The Procfile's stack with ``web_workers`` web processes (a copy of the Procfile whose
    web line gets ``--workers``), to see what a second web process changes."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    procfile = var_dir / "Procfile"
    procfile.write_text("\n".join(f"{line} --workers {web_workers}" if line.startswith("web:") else line
                                  for line in lines) + "\n")
    serve = ["-c", "import sys, honcho.manager as m; from honcho.command import main; m.KILL_WAIT = 60.0; "
             "sys.argv[0] = 'honcho'; main()", "start", "-f", str(procfile), "-d", str(ROOT)]
    return subprocess.Popen([PYTHON, *serve], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, default=2, help="client processes the players are spread over")
    parser.add_argument("--think", type=float, default=5.0,
                        help="mean seconds a player thinks per decision (exponentially distributed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--services", action="store_true",
                        help="use DATABASE_URL and REDIS_URL from the environment instead of the embedded defaults")
    parser.add_argument("--web-workers", type=int, default=1,
                        help="web processes (uvicorn --workers); 1 is the Procfile as it is")
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "live-tournament.log")
    parser.add_argument("--raw", type=Path, help="also write every player's boards (JSON) here")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        return client_main(args.client)

    started = time.monotonic()
    load_before = round(os.getloadavg()[0], 2)
    var_dir = Path(tempfile.mkdtemp(prefix="live-tournament-var-"))
    port = free_port()
    env = stack_env(var_dir, port)
    if args.services:
        for name in ("DATABASE_URL", "REDIS_URL"):
            if not os.environ.get(name):
                parser.error(f"--services needs {name}")
            env[name] = os.environ[name]
        # Production settings, with connections kept between requests as a deployment keeps them.
        env.update(DJANGO_DEBUG="0", SECRET_KEY="bench-" + "k" * 50, ALLOWED_HOSTS="127.0.0.1,localhost",
                   DJANGO_SECURE_SSL_REDIRECT="0", DATABASE_CONN_MAX_AGE="600")
    manage(env, "migrate", "--noinput")
    os.environ.clear()
    os.environ.update(env)
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    import django

    django.setup()
    from tournaments.models import Tournament

    run = f"{int(time.time()) % 10**7}"
    clients: list[subprocess.Popen] = []
    with open(args.log, "w") as log:
        stack = start_stack(env, log) if args.web_workers == 1 else start_stack_with(env, log, var_dir,
                                                                                    args.web_workers)
        try:
            wait_healthy(stack, port, args.log)
            setup_started = time.monotonic()
            event_id, specs, settings = create_event(players=args.players, rounds=args.rounds, run=run)
            setup_seconds = time.monotonic() - setup_started
            print(f"  event {event_id}: {args.players} players entered in {setup_seconds:.0f} s; settings {settings}",
                  file=sys.stderr, flush=True)
            for n in range(args.clients):
                spec_path = var_dir / f"client-{n}.json"
                spec_path.write_text(json.dumps({"server": f"127.0.0.1:{port}", "think": args.think,
                                                 "seed": args.seed + n, "players": specs[n::args.clients]}))
                clients.append(subprocess.Popen([PYTHON, __file__, "--client", str(spec_path)], cwd=ROOT, env=env,
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
            cpu = CpuSampler(stack.pid, [c.pid for c in clients])
            cpu.start()
            for client in clients:
                line = client.stdout.readline()
                if not line.startswith("ready"):
                    raise RuntimeError(f"a client process did not get ready: {line!r}")
            print(f"  {args.players} notify sockets open; starting the event", file=sys.stderr, flush=True)
            event_started = time.monotonic()
            round_one = start_timed(event_id)
            limit = settings["round_limit_minutes"] * 60
            wait_finished(event_id, args.rounds * (limit + 90) + 120, stack, args.log)
            event_seconds = time.monotonic() - event_started
            time.sleep(3)  # the last views of the last round reach their boards
            reports, rtts = [], []
            for client in clients:
                out, _ = client.communicate("stop\n", timeout=120)
                result = json.loads(out.strip().splitlines()[-1])
                reports += result["players"]
                rtts += result["rtts"]
            clients = []
            cpu.stop()
            checked = check_event(event_id, reports, cpu)
            quiet = probe(f"127.0.0.1:{port}", run)
        finally:
            for client in clients:
                client.kill()
            stop_stack(stack)
    summary = {"players": args.players, "rounds_asked": args.rounds, "web_processes": args.web_workers,
               "think_mean_s": args.think,
               "think_distribution": "exponential", "client_processes": args.clients,
               "stack": "PostgreSQL + Redis, DEBUG off" if args.services else "embedded defaults",
               "settings": settings, "event": event_id, **checked,
               "round_1_in_this_process": round_one, "one_board_open_on_a_quiet_server": quiet,
               "action_round_trip_s": percentiles(rtts),
               "actions": sum(b["actions"] for p in reports for b in p["boards"].values()),
               "stalls": sum(b["stalls"] for p in reports for b in p["boards"].values()),
               "stalls_with_a_missed_view": sum(b["missed"] for p in reports for b in p["boards"].values()),
               "error_frames": sum(len(b["errors"]) for p in reports for b in p["boards"].values())
               - sum(b["stalls"] for p in reports for b in p["boards"].values()),
               "errors_by_code": dict(Counter(str(e).split(" after")[0] for p in reports
                                              for b in p["boards"].values() for e in b["errors"]).most_common(8)),
               "notify_reconnects": sum(max(0, p["notify_connects"] - 1) for p in reports),
               "setup_s": round(setup_seconds, 1), "event_s": round(event_seconds, 1),
               "wall_s": round(time.monotonic() - started, 1),
               "load_average_1min": {"before": load_before, "after": round(os.getloadavg()[0], 2)}}
    if args.raw:
        args.raw.write_text(json.dumps(reports))
    print(json.dumps(summary, indent=2))
    ok = summary["lost"] == 0 and summary["doubled"] == 0 and summary["boards_missing"] == 0 \
        and summary["unfinished"] == 0 and summary["state"] == Tournament.State.FINISHED
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
