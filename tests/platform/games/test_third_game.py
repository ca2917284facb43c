"""A third game is one package: Highcard (``tiny_game``, defined in these tests only) is
registered with ``engine.games`` and, with no platform edit, its decks are checked by the
site and the API, a bot match of it is played by a real Celery worker, its replay page is
shown, and a Swiss event of it runs to its end (issue 22, part 1)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import tiny_game
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.celery import app as celery_app
from decks.models import Deck
from decks.services import deck_register
from engine import games
from matches.models import Match
from matches.services import RUN_MATCH, match_challenge
from web import effects

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LOW = "Captain: Captain Red\n2 One\n2 Two\n2 Three\n"
HIGH = "Captain: captain blue\n2 three\n2 Four\n2 Five\n"


def _load_urls() -> None:
    """Import every view module first: what they read from the registry when imported
    (the API schema's lists of games) must not keep a game that only one test registers."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018


@pytest.fixture
def highcard():
    """Highcard registered for one test, removed afterwards, so that no other test sees a
    third game."""
    _load_urls()
    tiny_game.register()
    yield games["highcard"]
    tiny_game.unregister()


def deck(owner: User, text: str = LOW, name: str = "Low") -> Deck:
    return deck_register(owner=owner, game="highcard", name=name, decklist=text, pilot="random")


def player(name: str) -> User:
    return User.objects.create_user(name, password=f"pw-{name}-123")


@pytest.mark.django_db
def test_the_registry_lists_the_game_and_refuses_a_second_one_of_the_same_name(highcard):
    assert ("highcard", "Highcard") in games.choices()
    with pytest.raises(ValueError, match="taken"):
        games.register(tiny_game.HighcardGame())
    assert games["highcard"] is highcard


@pytest.mark.django_db
def test_decks_of_the_game_are_checked_by_its_own_rules(highcard, client):
    alice = player("alice")
    low = deck(alice)
    assert low.game == "highcard" and low.get_game_display() == "Highcard"
    # Names are resolved against the game's pool like any other game's.
    assert deck(alice, HIGH, "High").latest_version.decklist.splitlines()[0] == "Captain: Captain Blue"
    with pytest.raises(ValidationError) as caught:
        deck(alice, "Captain: Captain Red\n3 Five\n2 One\n", "Bad")
    assert "at most 2 copies of Five, not 3" in str(caught.value)
    assert "exactly 6 number cards, not 5" in str(caught.value)

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    made = api.post("/api/decks/", {"game": "highcard", "name": "Api", "decklist": LOW, "pilot": "random"},
                    format="json")
    assert made.status_code == 201, made.content
    refused = api.post("/api/decks/", {"game": "highcard", "name": "Api bad", "decklist": "Captain: Captain Red\n",
                                       "pilot": "random"}, format="json")
    assert refused.status_code == 400
    assert "exactly 6 number cards, not 0" in str(refused.json()["error"]["fields"]["decklist"])

    client.force_login(alice)
    page = client.get("/decks/new/")
    assert page.status_code == 200 and "Highcard" in page.content.decode()
    card = client.get("/cards/highcard/five/")
    assert card.status_code == 200 and "Worth 5 when played." in card.content.decode()


@pytest.mark.django_db
def test_its_rules_pages_are_its_own_and_borrow_nothing_from_another_game(highcard, client):
    """The rules index and the rules page of a game show its own parts (Highcard has a
    blurb and a lead, and no board diagram), never another game's."""
    index = client.get("/rules/").content.decode()
    assert "Highcard" in index and index.count("Two to four players, hidden placements") == 1
    page = client.get("/rules/highcard/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Highcard" in html
    for other in ("Two players share one clock", "Two to four players place units", "Conquest Pool", "Location"):
        assert other not in html, other


def _wait_for(match_id: int, log: Path, timeout: float = 90.0) -> Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = Match.objects.get(pk=match_id)
        if match.status in (Match.Status.DONE, Match.Status.FAILED):
            return match
        time.sleep(0.3)
    pytest.fail(f"match {match_id} not finished after {timeout:g} s:\n{log.read_text()[-4000:]}")


class Worker:
    """A ``celery worker`` subprocess on this run's database and broker, with its log."""

    def __init__(self, env: dict[str, str], queue: str, log_dir: Path):
        self.hostname = f"highcard-{uuid.uuid4().hex[:6]}@test"
        self.log_path = log_dir / "highcard-worker.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--hostname",
                 self.hostname, "--queues", queue, "--include", "tiny_game_registered", "--loglevel", "info",
                 "--without-mingle", "--without-gossip"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if f"{self.hostname} ready." in self.log():
                return
            if self.process.poll() is not None:
                pytest.fail(f"the worker exited ({self.process.returncode}):\n{self.log()[-4000:]}")
            time.sleep(0.2)
        pytest.fail(f"the worker was not ready within {timeout:g} s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.mark.django_db(transaction=True)
def test_a_bot_match_is_played_by_a_worker_and_its_replay_is_shown(highcard, client, tmp_path,
                                                                    service_env):
    """A worker started with ``--include tiny_game_registered`` knows Highcard, as a worker
    of a deployed game would import its package: the challenge is played there, to the end."""
    alice, bob = player("alice"), player("bob")
    queue = f"highcard-{uuid.uuid4().hex[:6]}"
    env = service_env()
    env["PYTHONPATH"] = os.pathsep.join((str(HERE), env["PYTHONPATH"]))
    worker = Worker(env, queue, tmp_path)
    try:
        worker.wait_ready()
        # The challenge's own message would go to the shared matches queue, which this
        # run's other workers (which do not know Highcard) serve: send it to this worker.
        with effects.recording(tasks=[RUN_MATCH]) as held:
            match = match_challenge(created_by=alice, deck_versions=[deck(alice).latest_version,
                                                                     deck(bob, HIGH, "High").latest_version],
                                    best_of=3, params={"rounds": 2})
        assert held.tasks_named(RUN_MATCH) == [[match.pk]]
        celery_app.send_task(RUN_MATCH, args=[match.pk], queue=queue)
        match = _wait_for(match.pk, worker.log_path)
    finally:
        worker.stop()
    assert match.status == Match.Status.DONE, match.error
    game = match.games.order_by("number").first()
    replay = game.load_replay()
    assert replay.game == "highcard" and len(replay.actions) == 4  # two rounds, two seats
    # Every card is public: the outcome's scores are the played numbers.
    assert sum(game.outcome["scores"]) > 0

    client.force_login(alice)
    page = client.get(f"/matches/{match.pk}/replay/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Highcard" in html and "plays" in html
    assert client.get(f"/matches/{match.pk}/verify/").status_code == 200


@pytest.mark.django_db
def test_a_swiss_event_of_the_game_runs_to_its_end(highcard, effects_recorded):
    from datetime import timedelta

    from django.utils import timezone

    from matches.tasks import run_match
    from tournaments.models import Tiebreak, Tournament
    from tournaments.selectors import standings_rows
    from tournaments.services import (
        tournament_advance,
        tournament_create,
        tournament_enter,
        tournament_start,
        tournament_tiebreak_resolve,
    )

    # Matches are played here, in the process that registered the game (``effects_recorded``:
    # no task is sent).

    organiser = player("orga")
    event = tournament_create(organiser=organiser, name="Highcard open", game="highcard", format="swiss",
                              rounds=2, best_of=1, starts_at=timezone.now() + timedelta(hours=1))
    for i in range(4):
        owner = player(f"p{i}")
        entry_deck = deck(owner, (LOW, HIGH)[i % 2], f"d{i}")
        tournament_enter(tournament_id=event.pk, player=owner, deck_id=entry_deck.pk)
    tournament_start(tournament_id=event.pk, by=organiser)
    for _ in range(20):
        event.refresh_from_db()
        if event.state != Tournament.State.RUNNING:
            break
        for match_id in Match.objects.filter(tournament_pairings__round__tournament=event,
                                             status=Match.Status.QUEUED).values_list("pk", flat=True):
            run_match.apply(args=[match_id])
        tournament_advance(tournament_id=event.pk)
        # A tie for first place waits for Match the Twos between the decklists (the worker's
        # task, not sent here): the game's own numbers decide it.
        for tiebreak in event.tiebreaks.filter(status=Tiebreak.Status.PENDING):
            tournament_tiebreak_resolve(tiebreak_id=tiebreak.pk)
    event.refresh_from_db()
    assert event.state == Tournament.State.FINISHED
    assert Match.objects.filter(game="highcard", status=Match.Status.DONE).count() == 4
    rows = standings_rows(tournament=event)
    assert len(rows) == 4 and rows[0]["rank"] == 1


@pytest.mark.django_db
def test_the_challenge_form_offers_as_many_opponents_as_the_game_seats(client):
    """A game of four (Highcard dealt to four, registered here) gets the extra opponent
    fields of the challenge form because it seats four, not because of its name."""

    class HighcardOfFour(tiny_game.HighcardGame):
        name = "highcard4"
        title = "Highcard of four"
        max_seats = 4

    _load_urls()
    games.register(HighcardOfFour())
    try:
        alice = player("alice")
        for game in ("highcard4", "tempofront"):
            text = LOW if game == "highcard4" else next(iter(games[game].starter_decks().values())).to_text("Leader")
            deck_register(owner=alice, game=game, name=f"Mine {game}", decklist=text, pilot="random")
        client.force_login(alice)
        html = client.get("/matches/new/").content.decode()
    finally:
        games.unregister("highcard4")
    four = re.search(r'<option value="\d+" data-game="highcard4" data-max-seats="(\d)"', html)
    two = re.search(r'<option value="\d+" data-game="tempofront" data-max-seats="(\d)"', html)
    assert four and four.group(1) == "4" and two and two.group(1) == "2"
    assert 'data-seats-needed="3"' in html and 'data-seats-needed="4"' in html
