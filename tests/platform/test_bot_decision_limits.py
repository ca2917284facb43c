"""Bounded bots on the platform: one check of every bot spec that enters it, and a hard
limit on every bot decision, whatever the path (a live bot's move, a bot match, the games a
match plays after a Match the Twos tiebreak).

A live bot with unbounded settings (``search:strong/iterations=100000000``) was accepted
and its moves had no time limit: four such games held the live worker's threads and the
match worker, and a plain challenge waited 93 s.
"""

from __future__ import annotations

import shlex
import threading
import time
from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client

from decks.services import deck_problems, deck_register
from engine import games
from engine.bots import REGISTRY, BotSpec
from engine.runner import STOP_GRACE_SECONDS, DecisionOverrun

ROOT = Path(__file__).resolve().parents[2]
UNBOUNDED = "search:strong/iterations=100000000"
#: Slack for a machine shared with other work.
SLACK = 1.5
LIMIT = 0.5


class SpinnerBot:
    """A test pilot that spins in pure Python on every decision until it is stopped."""

    stopped = 0

    def __init__(self, *, name: str, version: str):
        self.name, self.version = name, version

    def act(self, observation, seat, rng):
        n = 0
        try:
            while True:
                n += 1
        except DecisionOverrun:
            SpinnerBot.stopped += 1
            raise


@pytest.fixture
def spinner(monkeypatch):
    monkeypatch.setitem(REGISTRY, "spinner", BotSpec(name="spinner", version="1", factory=SpinnerBot,
                                                     description="Never answers."))
    SpinnerBot.stopped = 0
    return "spinner"


def starter(game: str, index: int) -> str:
    engine_game = games[game]
    return list(engine_game.starter_decks().values())[index].to_text(engine_game.commander_label)


def user(name: str) -> User:
    return User.objects.create_user(name, password=f"pw-{name}-123")


def deck(owner: User, game: str, index: int = 0, *, pilot: str = "random", starter_deck: bool = False):
    return deck_register(owner=owner, game=game, name=f"{owner.username} {game} {index}",
                         decklist=starter(game, index), pilot=pilot, is_starter=starter_deck)


def spinner_first(spinner: str, bot_deck, person_deck, person: User):
    """A live TempoFront match in which the spinner's seat (0) is the first to act."""
    from live.creation import SeatSpec, live_create, live_plan

    seats = [SeatSpec(deck_version=bot_deck, bot=spinner), SeatSpec(deck_version=person_deck, user=person)]
    seed = next(seed for seed in range(1, 100) if 0 in live_plan(seats=seats, seed=seed).state.to_act())
    return live_create(seats=seats, seed=seed)


class LiveTasks:
    """The live tasks of a recording, as (name, args), read when compared."""

    def __init__(self, record):
        self.record = record

    def __iter__(self):
        return iter([(name, list(args)) for name, args, _, _ in self.record.tasks if name.startswith("live.")])

    def __eq__(self, other) -> bool:
        return list(self) == other

    def __repr__(self) -> str:
        return repr(list(self))


@pytest.fixture
def live_sent(effects_recorded):
    """The live services' tasks and views, recorded instead of sent."""
    return LiveTasks(effects_recorded)


@pytest.fixture
def match_sent(effects_recorded):
    """The match services' tasks, recorded instead of sent."""
    return effects_recorded


# --------------------------------------------------------------------------- one check of every bot spec


@pytest.mark.django_db(transaction=True)
def test_the_api_refuses_an_unbounded_live_bot_with_400_naming_the_bound_and_creates_nothing(live_sent):
    from live.models import LiveMatch
    from matches.models import Match

    alice = user("alice")
    deck(user("site"), "conquest", 1, starter_deck=True)
    mine = deck(alice, "conquest")
    client = Client()
    client.force_login(alice)
    before = (LiveMatch.objects.count(), Match.objects.count())
    response = client.post("/api/live/bot/", {"deck": mine.pk, "bot": UNBOUNDED}, content_type="application/json")
    assert response.status_code == 400, response.content
    message = response.json()["error"]["fields"]["bot"][0]
    assert "iterations=100000000" in message and "2500 iterations" in message and "search:strong" in message
    assert (LiveMatch.objects.count(), Match.objects.count()) == before
    assert live_sent == []


@pytest.mark.parametrize("spec", [UNBOUNDED, "greedy/samples=500", "search:fast/seconds=3600", "oracle",
                                  "search:huge"])
@pytest.mark.django_db(transaction=True)
def test_pilots_and_live_bots_are_refused_by_the_same_check_with_the_same_words(spec, live_sent):
    import decks.services
    import engine.bots
    import live.creation
    from live.challenges import live_play_bot
    from live.creation import SeatSpec, live_create
    from live.models import LiveMatch

    assert decks.services.clean_platform_spec is live.creation.clean_platform_spec is engine.bots.clean_platform_spec
    alice = user("alice")
    deck(user("site"), "tempofront", 1, starter_deck=True)
    mine = deck(alice, "tempofront")
    pilot_problems = deck_problems(pilot=spec)["pilot"]
    with pytest.raises(ValidationError) as live_bot:
        live_play_bot(user=alice, deck_version=mine.latest_version, bot=spec)
    assert live_bot.value.message_dict["bot"] == pilot_problems
    # A bot seat of any live match (an event's bot entry plays through live_create too).
    with pytest.raises(ValidationError) as seat:
        live_create(seats=[SeatSpec(deck_version=mine.latest_version, user=alice),
                           SeatSpec(deck_version=mine.latest_version, bot=spec)])
    assert seat.value.message_dict["seats"] == pilot_problems
    with pytest.raises(ValidationError):
        deck_register(owner=alice, game="tempofront", name="unbounded", decklist=starter("tempofront", 0), pilot=spec)
    assert LiveMatch.objects.count() == 0


@pytest.mark.django_db
def test_every_registered_level_is_accepted_in_both_places():
    from engine.bots import bot_specs

    for spec in bot_specs():
        assert deck_problems(pilot=spec) == {}


# --------------------------------------------------------------------------- the hard limit on every path


@pytest.mark.django_db(transaction=True)
def test_a_live_bot_still_deciding_at_the_limit_is_stopped_and_a_random_legal_move_replaces_it(
        spinner, live_sent, settings):
    from live import engine_state, tasks
    from live.models import LiveMatch

    settings.LIVE_BOT_DECISION_SECONDS = LIMIT
    alice = user("alice")
    mine = deck(alice, "tempofront").latest_version
    theirs = deck(alice, "tempofront", 1).latest_version
    live = spinner_first(spinner, theirs, mine, alice)
    live = LiveMatch.objects.select_related("match").get(pk=live.pk)
    with engine_state.state_of(live) as state:
        assert 0 in state.to_act()
        legal = [a.to_json() for a in state.legal_actions(0)]
    started = time.perf_counter()
    assert tasks.bot_act(live.match_id, 0, 0) == "acted"
    waited = time.perf_counter() - started
    assert waited < LIMIT + STOP_GRACE_SECONDS + SLACK
    assert SpinnerBot.stopped == 1  # stopped at the limit, not left running
    live.refresh_from_db()
    assert live.status == LiveMatch.Status.ACTIVE
    seat, action, *_ = live.log[0]
    assert seat == 0 and action in legal and action["kind"] != "concede"


@pytest.mark.django_db(transaction=True)
def test_a_bot_match_decision_still_running_at_the_limit_forfeits_the_game_there(spinner, match_sent, settings):
    from matches.models import Match
    from matches.services import match_challenge
    from matches.tasks import run_match

    settings.MATCHES_DECISION_SECONDS = LIMIT
    alice, bob = user("alice"), user("bob")
    versions = [deck(alice, "tempofront", pilot=spinner).latest_version, deck(bob, "tempofront", 1).latest_version]
    match = match_challenge(created_by=alice, deck_versions=versions, best_of=1, seed=3)
    started = time.perf_counter()
    assert run_match.apply(args=[match.pk]).get().startswith("done")
    assert time.perf_counter() - started < LIMIT + STOP_GRACE_SECONDS + SLACK + 5  # + the game's own writes
    match.refresh_from_db()
    game = match.games.get()
    assert match.status == Match.Status.DONE and game.winner_entry == 1
    [error] = game.bot_errors
    assert error["bot"] == "spinner" and f"exceeded its {LIMIT:g} s decision budget" in error["error"]
    assert SpinnerBot.stopped == 1


@pytest.mark.django_db(transaction=True)
def test_after_a_match_the_twos_tiebreak_the_next_game_holds_the_limit_too(spinner, match_sent, settings):
    from matches.models import Match, MatchGame, MatchSeat
    from matches.services import match_challenge, match_tiebreak_resolve
    from matches.tasks import run_match

    settings.MATCHES_DECISION_SECONDS = LIMIT
    alice, bob = user("alice"), user("bob")
    versions = [deck(alice, "conquest").latest_version, deck(bob, "conquest", 1).latest_version]
    match = match_challenge(created_by=alice, deck_versions=versions, best_of=3, seed=7,
                            params={"battles": 1, "draw_per_battle": 0})
    assert "tiebreak" in run_match.apply(args=[match.pk]).get()
    first = match.games.get()
    assert first.tiebreak == MatchGame.Tiebreak.PENDING
    match_tiebreak_resolve(game_id=first.pk)  # what matches.run_tiebreak does
    # From here on entry 0's pilot never answers: the games after the tiebreak cut it off.
    MatchSeat.objects.filter(match=match, seat=0).update(pilot=spinner)
    started = time.perf_counter()
    run_match.apply(args=[match.pk])
    assert time.perf_counter() - started < 2 * (LIMIT + STOP_GRACE_SECONDS) + SLACK + 10
    match.refresh_from_db()
    later = list(match.games.filter(number__gt=1).order_by("number"))
    assert later, "no game was played after the tiebreak"
    for game in later:
        [error] = game.bot_errors
        assert error["bot"] == "spinner" and f"exceeded its {LIMIT:g} s decision budget" in error["error"]
        assert game.outcome["entry_places"][0] == 2
    assert match.status == Match.Status.DONE and match.winner_seat == 1
    assert SpinnerBot.stopped == len(later)


# --------------------------------------------------------------------------- no queue blocks another's


def _workers() -> dict[str, dict[str, set[str]]]:
    """Per deployment (Procfile, compose), each celery worker's queues (None: all)."""
    from config.celery import QUEUES

    def queues(command: list[str]) -> set[str]:
        return set(command[command.index("--queues") + 1].split(",")) if "--queues" in command else set(QUEUES)

    procfile = {}
    for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines():
        if line.strip():
            name, command = line.split(":", 1)
            args = shlex.split(command)
            args = args[args.index("--") + 1:] if "--" in args else args
            if args[:4] == ["celery", "-A", "config", "worker"]:
                procfile[name] = queues(args)
    compose = {name: queues(service["command"])
               for name, service in yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"].items()
               if service.get("command", [])[:4] == ["celery", "-A", "config", "worker"]}
    return {"Procfile": procfile, "docker-compose.yml": compose}


def test_no_worker_serves_both_live_moves_and_matches():
    """A match worker that also took ``live`` messages was held by slow live bots (the
    93 s wait); a live worker that took matches would hold a person's bot behind them."""
    for where, workers in _workers().items():
        assert any(q == {"live"} for q in workers.values()), where
        for name, served in workers.items():
            assert "live" not in served or served == {"live"}, f"{where}: {name} serves {sorted(served)}"
            if served & {"tournaments", "matches", "ladder"}:
                assert not served & {"live", "periodic"}, f"{where}: {name} serves {sorted(served)}"


@pytest.mark.django_db(transaction=True)
def test_slow_live_bots_release_the_live_threads_at_the_limit_while_a_challenge_plays(
        spinner, live_sent, match_sent, settings):
    """Five slow live bots at once (one more than the live worker's four threads) each
    give their thread back at the limit; a challenge played meanwhile on the match path is
    not held by them (it never waits for a live thread)."""
    from live import tasks
    from live.models import LiveMatch
    from matches.models import Match
    from matches.services import match_challenge
    from matches.tasks import run_match

    settings.LIVE_BOT_DECISION_SECONDS = LIMIT
    alice, bob = user("alice"), user("bob")
    mine = deck(alice, "tempofront").latest_version
    theirs = deck(alice, "tempofront", 1).latest_version
    lives = [spinner_first(spinner, theirs, mine, alice) for _ in range(5)]
    match = match_challenge(created_by=alice, deck_versions=[mine, deck(bob, "tempofront", 1).latest_version],
                            best_of=1, seed=5)
    results: dict[int, tuple[str, float]] = {}

    def live_thread(match_id: int) -> None:
        from django.db import connection

        started = time.perf_counter()
        try:
            results[match_id] = (tasks.bot_act(match_id, 0, 0), time.perf_counter() - started)
        finally:
            connection.close()

    threads = [threading.Thread(target=live_thread, args=(live.match_id,)) for live in lives[:4]]
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    assert run_match.apply(args=[match.pk]).get().startswith("done")
    challenge_seconds = time.perf_counter() - started
    for thread in threads:
        thread.join(30)
    live_thread(lives[4].match_id)  # the fifth, on the first thread to come free
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE
    assert {outcome for outcome, _ in results.values()} == {"acted"}, results
    assert max(seconds for _, seconds in results.values()) < LIMIT + STOP_GRACE_SECONDS + SLACK + 3
    assert all(len(LiveMatch.objects.get(pk=live.pk).log) == 1 for live in lives)
    assert challenge_seconds < 30
