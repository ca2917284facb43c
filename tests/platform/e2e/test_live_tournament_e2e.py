"""Live events end to end, on the real stack: the ASGI server (uvicorn), a real Celery worker
serving the tournaments and live queues, PostgreSQL and the Redis channel layer.

People are scripted clients (``bench/live_tournament.Player``): each signs in through the
login form (a session cookie), keeps ``/ws/notify/`` open as every page of the site does,
and when told ``notify.match`` opens the match's board socket and plays random legal
actions with a short think time. Everything else a person does goes through the HTTP API
with that session: the organiser creates and starts the event, entrants enter, check in,
drop, and ask ``my-match`` what they play.

1. A people-only Swiss of three rounds where one entrant never shows up: their opponent
   wins round 1 by forfeit once the no-show time has passed, they forfeit round 2 too and
   are dropped ("absent 2 rounds in a row"), and round 3 is played without them.
2. A mixed event (bot cap "greedy") of three people and one bot entry, whose seat the live
   worker plays; a pilot stronger than the cap is refused at entry; one person drops
   through the API once round 1 is over and is not paired in round 3.

Each test checks at the end that the event finished, every table of every round has its
result, no live match is left active and every live game's replay verifies. The no-show
test does not wait out the one-minute no-show time: it moves each round's start a minute
back and advances the event, as the round's own countdown would a minute later.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import random
import re
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.contrib.auth.models import User
from django.utils import timezone

from decks.services import deck_register
from engine import games
from engine.core import Replay, verify_replay
from live.models import LiveMatch, LiveSeat
from matches.models import Match

ROOT = Path(__file__).resolve().parents[3]
#: Mean seconds a scripted person thinks per decision: a TempoFront game of random play
#: (about 130 decisions) lasts some 15 s, well inside the no-show time and the round limit.
#: A person waits for the view that counts their action before thinking again, so with
#: the round trip a socket stays near the server's 10 frames a second, and its burst of 20
#: covers a run of quick thinks (``check_finished_event`` fails on any ``rate_limited``).
THINK = 0.08
#: The event's live settings: the shortest no-show time and a round limit that only a
#: stuck game would reach.
LIVE = {"check_in_minutes": 0, "no_show_minutes": 1, "round_limit_minutes": 3, "clock_initial": 300,
        "clock_increment": 5, "spectator_delay": 0}
ROUND_TIMEOUT = 150.0


@functools.cache
def _bench_players():
    """``bench/live_tournament.py``, the scripted people of the live Swiss benchmark."""
    spec = importlib.util.spec_from_file_location("bench_live_tournament", ROOT / "bench" / "live_tournament.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- people


class Person:
    """A signed-in person's HTTP session against the running server (login form, then the
    API with the session cookie and its CSRF token)."""

    def __init__(self, server, user: User, password: str) -> None:
        self.server = server
        self.user = user
        self.http = requests.Session()
        page = self.http.get(server.url("/accounts/login/"), timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        signed_in = self.http.post(server.url("/accounts/login/"), timeout=30, allow_redirects=False,
                                   data={"username": user.username, "password": password,
                                         "csrfmiddlewaretoken": token})
        assert signed_in.status_code == 302, f"{user.username} could not sign in: {signed_in.status_code}"
        assert "sessionid" in self.http.cookies

    @property
    def cookie(self) -> str:
        return f"sessionid={self.http.cookies['sessionid']}"

    def call(self, method: str, path: str, body: dict | None = None, *, expect: int = 200):
        response = self.http.request(method, self.server.url(path), json=body, timeout=30,
                                     headers={"X-CSRFToken": self.http.cookies.get("csrftoken", "")})
        assert response.status_code == expect, f"{method} {path} as {self.user.username}: " \
                                               f"{response.status_code} {response.text[:600]}"
        return response.json() if response.content else None

    def my_match(self, event: int) -> dict:
        return self.call("GET", f"/api/tournaments/{event}/my-match/")


class Crowd:
    """Scripted people on one event loop in a thread of its own: each keeps its notify
    socket open and plays every board it is sent to (``bench/live_tournament.Player``)."""

    def __init__(self, server, *, seed: int) -> None:
        self.bench = _bench_players()
        self.server = f"127.0.0.1:{server.port}"
        self.seed = seed
        self.players = {}
        self.tasks: list[asyncio.Task] = []
        self.rtts: list[float] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="scripted-people", daemon=True)
        self.thread.start()
        self.gate = None

    def _run(self, coroutine, timeout: float = 60.0):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def join(self, person: Person) -> None:
        """``person`` opens the notify socket (as any page of the site does); returns once
        the server has listed the matches waiting for them."""

        async def join():
            if self.gate is None:
                self.gate = asyncio.Semaphore(10)
            player = self.bench.Player({"user": person.user.pk, "cookie": person.cookie}, self.server, THINK,
                                       random.Random(f"{self.seed}:{person.user.username}"), self.rtts)
            self.players[person.user.pk] = player
            self.tasks.append(asyncio.create_task(player.notify(self.gate)))
            await asyncio.wait_for(player.ready.wait(), 30)
            return player.notify_connects, list(player.failures)

        connects, failures = self._run(join())
        assert connects == 1 and not failures, f"{person.user.username}'s notify socket: {failures}"

    def boards(self, user: User) -> dict[int, dict]:
        """What ``user``'s client saw of each board it opened, by match id."""

        async def copy():
            player = self.players[user.pk]
            return {int(m): dict(b, errors=list(b["errors"])) for m, b in player.boards.items()}, list(player.failures)

        boards, failures = self._run(copy())
        assert not failures, f"{user.username}'s notify socket failed: {failures}"
        return boards

    def close(self) -> None:
        async def stop():
            tasks = self.tasks + [t for p in self.players.values() for t in p.tasks]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self._run(stop(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()


@pytest.fixture
def crowd(asgi_server):
    made: list[Crowd] = []

    def make(seed: int) -> Crowd:
        made.append(Crowd(asgi_server, seed=seed))
        return made[-1]

    yield make
    for one in made:
        one.close()


def make_person(server, name: str) -> Person:
    password = f"pw-{name}-e2e-42"
    return Person(server, User.objects.create_user(name, password=password), password)


def make_deck(user: User, *, index: int, pilot: str = "random") -> int:
    game = games["tempofront"]
    starter = list(game.starter_decks().values())[index % len(game.starter_decks())]
    return deck_register(owner=user, game="tempofront", name=f"{user.username} deck {index}",
                         decklist=starter.to_text(game.commander_label), pilot=pilot).pk


# --------------------------------------------------------------------------- waiting on the event


def wait_for(what: str, ready, worker, timeout: float = ROUND_TIMEOUT):
    """Poll ``ready()`` until it returns something true; fail naming ``what``, with the
    worker's log, after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = ready()
        if value:
            return value
        if worker.process.poll() is not None:
            pytest.fail(f"the worker exited while waiting for {what}:\n{worker.log()}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {timeout:g} s\n{worker.log(tail=6000)}")
        time.sleep(0.5)


def event_detail(person: Person, event: int) -> dict:
    return person.call("GET", f"/api/tournaments/{event}/")


def round_detail(person: Person, event: int, number: int) -> dict:
    return person.call("GET", f"/api/tournaments/{event}/rounds/{number}/")


def wait_for_round(person: Person, event: int, number: int, worker) -> dict:
    """Round ``number`` once paired (the event advanced to it, or finished after it)."""

    def paired():
        detail = event_detail(person, event)
        return detail if detail["current_round"] >= number or detail["state"] == "finished" else None

    wait_for(f"round {number}", paired, worker)
    return round_detail(person, event, number)


def no_show_time_passes(event: int, number: int) -> None:
    """The no-show time of round ``number`` passes at once: the round's start (and the
    creation of its live games, from which a later game of a series counts) is moved
    back past the event's no-show time, and the event is advanced, as the countdown the
    round set at its start would do at that time. Nothing else about the round changes."""
    from django.db.models import F

    from config.celery import app as celery_app
    from tournaments import conf
    from tournaments.models import Round

    back = timedelta(minutes=LIVE["no_show_minutes"], seconds=1)
    Round.objects.filter(tournament_id=event, number=number).update(starts_at=F("starts_at") - back)
    LiveMatch.objects.filter(match__tournament_pairings__round__tournament_id=event,
                             match__tournament_pairings__round__number=number).update(created=F("created") - back)
    celery_app.send_task(conf.ADVANCE, args=[event], queue=conf.QUEUE)


def table_of(rnd: dict, entry: int) -> dict | None:
    return next((p for p in rnd["pairings"] if entry in [e["id"] for e in p["entries"]]), None)


def entries_by_player(person: Person, event: int) -> dict[str, dict]:
    body = person.call("GET", f"/api/tournaments/{event}/entries/")
    return {e["player"]: e for e in body["results"]}


def check_finished_event(organiser: Person, event: int, crowd: Crowd, people: list[Person], rounds: int) -> None:
    """The event finished; every table of every round has its result; every live match of
    the event is over and its replays verify; each person who showed up got a first view
    of each of their boards, and the board saw the game end."""
    detail = event_detail(organiser, event)
    assert detail["state"] == "finished" and detail["current_round"] == rounds, detail
    assert detail["winner"] is not None
    matches: list[int] = []
    for number in range(1, rounds + 1):
        rnd = round_detail(organiser, event, number)
        assert rnd["finished"], f"round {number} has no end time"
        for table in rnd["pairings"]:
            assert table["status"] == "done", (number, table)
            if table["bye"]:
                continue
            assert table["result"] and len(table["result"]["places"]) == len(table["entries"]), (number, table)
            assert table["series"] and table["live"] is not None and not table["live"]["active"], (number, table)
            matches += [game["match"] for game in table["series"]]
    lives = {lm.match_id: lm for lm in LiveMatch.objects.filter(match_id__in=matches)}
    assert sorted(lives) == sorted(matches), "every table's game is a live match"
    for match_id, live in lives.items():
        assert live.status == LiveMatch.Status.DONE and live.finished is not None, match_id
        assert verify_replay(Replay.from_json(live.replay)) == [], f"live match {match_id}'s replay"
        match = Match.objects.get(pk=match_id)
        assert match.status == Match.Status.DONE, match_id
        stored = list(match.games.all())
        assert len(stored) == 1, f"match {match_id} stores {len(stored)} games"
        assert verify_replay(stored[0].load_replay()) == [], f"match {match_id}'s stored game replay"
    users = [p.user.pk for p in people]
    assert not LiveMatch.objects.filter(seats__user_id__in=users, status=LiveMatch.Status.ACTIVE).exists(), \
        "a live match of the event's players is still active"
    for person in people:
        if person.user.pk not in crowd.players:
            continue
        boards = crowd.boards(person.user)
        seated = set(LiveSeat.objects.filter(live__match_id__in=matches, user=person.user)
                     .values_list("live__match_id", flat=True))
        assert seated <= set(boards), f"{person.user.username} was never sent to {seated - set(boards)}"
        for match_id in seated:
            board = boards[match_id]
            assert board["first_view"] is not None, (person.user.username, match_id, board["errors"])
            assert board["final"] and board["final"]["status"] == "done", (person.user.username, match_id, board)
            assert "rate_limited" not in board["errors"], (person.user.username, match_id, board["errors"])


# --------------------------------------------------------------------------- 1. people, a no-show


@pytest.mark.slow
@pytest.mark.redis
def test_a_live_swiss_of_four_people_with_a_no_show_who_is_dropped(asgi_server, celery_worker_process, crowd):
    organiser = make_person(asgi_server, "orga")
    ann, ben, cat, dan = people = [make_person(asgi_server, name) for name in ("ann", "ben", "cat", "dan")]
    decks = {p.user.pk: make_deck(p.user, index=i) for i, p in enumerate(people)}
    created = organiser.call("POST", "/api/tournaments/", {
        "game": "tempofront", "name": "Tuesday live Swiss", "format": "swiss", "rounds": 3, "best_of": 1,
        "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), "entrants": "people", **LIVE,
    }, expect=201)
    event = created["id"]
    assert created["entrants"] == "people"
    entry = {p.user.pk: p.call("POST", f"/api/tournaments/{event}/entries/", {"deck": decks[p.user.pk]},
                               expect=201)["id"] for p in people}
    for person in people:
        mine = person.my_match(event)
        assert (mine["status"], mine["text"], mine["plays"]) == ("waiting", "The event has not started yet.", "person")
    # Dan never opens a page of the site nor his board: he does not show up.
    scripted = crowd(seed=1)
    for person in (ann, ben, cat):
        scripted.join(person)

    organiser.call("POST", f"/api/tournaments/{event}/start/")
    round_one = round_detail(organiser, event, 1)
    assert len(round_one["pairings"]) == 2
    for person in people:
        mine = person.my_match(event)
        table = table_of(round_one, entry[person.user.pk])
        assert (mine["status"], mine["round"], mine["table"]) == ("playing", 1, table["table"]), mine
        assert mine["board_url"] == table["live"]["url"] == f"/live/{table['match']}/"
        assert [o["id"] for o in mine["opponents"]] == [e["id"] for e in table["entries"]
                                                        if e["id"] != entry[person.user.pk]]
    absent_table = table_of(round_one, entry[dan.user.pk])
    (opponent,) = [p for p in people if p is not dan and table_of(round_one, entry[p.user.pk]) is absent_table]
    others = [p for p in people if p not in (dan, opponent)]

    # The other table finishes its game well inside the no-show time: its players wait
    # for the table where Dan is awaited.
    wait_for("round 1's played table to finish",
             lambda: table_of(round_detail(organiser, event, 1), entry[others[0].user.pk])["status"] == "done",
             celery_worker_process)
    for person in others:
        mine = person.my_match(event)
        if mine["round"] == 1:
            assert mine["status"] == "done" and "waiting for the other tables" in mine["text"], mine
    if event_detail(organiser, event)["current_round"] == 1:
        assert opponent.my_match(event)["status"] == "playing"
        assert dan.my_match(event)["status"] == "playing"

    # The no-show time passes: Dan forfeits and round 2 is paired.
    no_show_time_passes(event, 1)
    round_two = wait_for_round(organiser, event, 2, celery_worker_process)
    round_one = round_detail(organiser, event, 1)
    absent_table = table_of(round_one, entry[dan.user.pk])
    assert absent_table["result"]["forfeit"] == [entry[dan.user.pk]], absent_table["result"]
    assert absent_table["winner"] == entry[opponent.user.pk]
    assert absent_table["series"][0]["forfeit"] == [entry[dan.user.pk]]
    assert table_of(round_one, entry[others[0].user.pk])["result"].get("forfeit") is None
    first_game = LiveMatch.objects.get(match_id=absent_table["match"])
    rnd_one_start = first_game.match.tournament_pairings.get().round.starts_at
    assert first_game.finished - rnd_one_start >= timedelta(minutes=1), "the forfeit came before the no-show time"
    assert first_game.outcome["forfeited"] and first_game.seats.get(user=dan.user).connected_at is None
    assert first_game.seats.get(user=opponent.user).connected_at is not None
    mine = dan.my_match(event)
    assert (mine["status"], mine["round"], mine["absences"], mine["dropped"]) == ("playing", 2, 1, False), mine

    # Absent again in round 2: a second forfeit drops him, and round 3 is paired without him.
    no_show_time_passes(event, 2)
    round_three = wait_for_round(organiser, event, 3, celery_worker_process)
    round_two = round_detail(organiser, event, 2)
    assert table_of(round_two, entry[dan.user.pk])["result"]["forfeit"] == [entry[dan.user.pk]]
    assert table_of(round_three, entry[dan.user.pk]) is None, "a dropped player was paired in round 3"
    assert len(round_three["pairings"]) == 2 and sum(p["bye"] for p in round_three["pairings"]) == 1
    listed = entries_by_player(organiser, event)["dan"]
    assert (listed["dropped"], listed["dropped_round"], listed["drop_reason"], listed["absences"]) == \
        (True, 2, "absent 2 rounds in a row", 2)
    mine = dan.my_match(event)
    assert (mine["status"], mine["drop_reason"]) == ("dropped", "absent 2 rounds in a row"), mine
    assert mine["text"] == "Your entry dropped: absent 2 rounds in a row."
    bye_entry = next(p for p in round_three["pairings"] if p["bye"])["entries"][0]["id"]
    (bye_person,) = [p for p in people if entry[p.user.pk] == bye_entry]
    if event_detail(organiser, event)["state"] == "running":
        assert bye_person.my_match(event)["status"] == "bye"

    wait_for("the event to finish", lambda: event_detail(organiser, event)["state"] == "finished",
             celery_worker_process)
    check_finished_event(organiser, event, scripted, people, rounds=3)
    standings = {row["entry"]["id"]: row for row in organiser.call("GET", f"/api/tournaments/{event}/standings/")}
    dan_row = standings[entry[dan.user.pk]]
    assert (dan_row["points"], dan_row["losses"], dan_row["matches"]) == (0, 2, 2), dan_row
    assert dan_row["entry"]["drop_reason"] == "absent 2 rounds in a row"
    assert standings[entry[opponent.user.pk]]["wins"] >= 1
    for person in people:
        mine = person.my_match(event)
        expected = "dropped" if person is dan else "over"
        assert mine["status"] == expected, (person.user.username, mine)


# --------------------------------------------------------------------------- 2. people and a bot


@pytest.mark.slow
@pytest.mark.redis
def test_a_mixed_live_swiss_of_three_people_and_a_bot_with_a_drop(asgi_server, celery_worker_process, crowd):
    organiser = make_person(asgi_server, "host")
    eve, fay, gus = people = [make_person(asgi_server, name) for name in ("eve", "fay", "gus")]
    hal = make_person(asgi_server, "hal")  # enters his deck's bot pilot
    created = organiser.call("POST", "/api/tournaments/", {
        "game": "tempofront", "name": "Mixed live Swiss", "format": "swiss", "rounds": 3, "best_of": 1,
        "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(), "entrants": "mixed",
        "bot_cap": "greedy", **LIVE, "check_in_minutes": 10,
    }, expect=201)
    event = created["id"]

    # A pilot stronger than the cap is refused, naming both; nothing is entered.
    strong = make_deck(hal.user, index=0, pilot="search:strong")
    refused = hal.call("POST", f"/api/tournaments/{event}/entries/", {"deck": strong, "plays": "bot"}, expect=400)
    message = str(refused)
    assert "search:strong" in message and "cap 'greedy'" in message, refused
    assert entries_by_player(organiser, event) == {}
    bot_entry = hal.call("POST", f"/api/tournaments/{event}/entries/",
                         {"deck": make_deck(hal.user, index=1, pilot="greedy"), "plays": "bot"}, expect=201)
    assert bot_entry["plays"] == "bot"
    entry = {bot_entry["player"]: bot_entry["id"]}
    for index, person in enumerate(people):
        entered = person.call("POST", f"/api/tournaments/{event}/entries/",
                              {"deck": make_deck(person.user, index=index + 2)}, expect=201)
        assert entered["plays"] == "person"
        entry[person.user.username] = entered["id"]
        # The check-in window is open (the event starts in five minutes): people check in.
        assert person.my_match(event)["check_in"]["open"] is True
        checked = person.call("POST", f"/api/tournaments/{event}/check-in/")
        assert checked["checked_in"] is not None and checked["status"] == "waiting"
    scripted = crowd(seed=2)
    for person in people:
        scripted.join(person)

    organiser.call("POST", f"/api/tournaments/{event}/start/")
    round_one = round_detail(organiser, event, 1)
    assert len(round_one["pairings"]) == 2 and not any(p["bye"] for p in round_one["pairings"])
    bot_table = table_of(round_one, bot_entry["id"])
    live = LiveMatch.objects.get(match_id=bot_table["match"])
    (bot_seat,) = live.seats.filter(user__isnull=True)
    assert bot_seat.bot == "greedy"
    assert hal.my_match(event)["plays"] == "bot"

    # Once round 1 is over, Gus drops (he plays out his round 2 game, then leaves).
    wait_for_round(organiser, event, 2, celery_worker_process)
    gus.call("DELETE", f"/api/tournaments/{event}/entries/", expect=204)
    round_three = wait_for_round(organiser, event, 3, celery_worker_process)
    assert table_of(round_three, entry["gus"]) is None, "a dropped player was paired in round 3"
    assert sum(p["bye"] for p in round_three["pairings"]) == 1
    listed = entries_by_player(organiser, event)["gus"]
    assert (listed["dropped"], listed["dropped_round"]) == (True, 2)
    assert gus.my_match(event)["status"] == "dropped"

    wait_for("the event to finish", lambda: event_detail(organiser, event)["state"] == "finished",
             celery_worker_process)
    check_finished_event(organiser, event, scripted, people, rounds=3)
    # Gus's round 2 game stands.
    gus_table = table_of(round_detail(organiser, event, 2), entry["gus"])
    assert gus_table["status"] == "done" and not gus_table["result"].get("forfeit")
    # Every game with the bot entry was played by the live worker: its seat moved.
    for number in (1, 2, 3):
        table = table_of(round_detail(organiser, event, number), bot_entry["id"])
        if table is None or table["bye"]:
            continue
        live = LiveMatch.objects.get(match_id=table["match"])
        seat = live.seats.get(user__isnull=True)
        assert seat.bot == "greedy" and any(move[0] == seat.seat for move in live.log), (number, live.log[:5])
        assert not (live.outcome or {}).get("forfeited")
    assert hal.my_match(event)["status"] == "over"
