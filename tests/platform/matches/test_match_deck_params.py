"""Decks are checked against a challenge's own rules parameters before anything is queued.

A TempoFront challenge with ``deck_size`` 20 used to be accepted with 30-card decks: the
platform checked TempoFront decks against the default rules only, and every game then
failed in the worker with ``DeckError``. Now the refusal is a 400 naming the parameter,
with no match written and nothing enqueued; a deck that fits non-default parameters is
accepted and its match is played to the end by the real worker.
"""

from __future__ import annotations

import time

import pytest
from match_helpers import make_deck
from rest_framework.test import APIClient

from decks.services import deck_register
from engine import games
from matches.models import Match

DECK_SIZE_CASES = [
    ("tempofront", 30, "30 cards; deck_size is 20 here, so a deck has exactly 20"),
    ("conquest", 40, "40 cards; deck_size is 20 here, so a deck has exactly 20"),
]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def singleton_text(game: str, index: int = 0) -> str:
    """A legal deck of ``game`` (default rules) holding every card once: starter deck
    ``index``'s cards first, then other cards of the pool up to the deck size."""
    engine_game = games[game]
    starter = list(engine_game.starter_decks().values())[index]
    size = engine_game.default_params()["deck_size"]
    commanders = {"tempofront": "leader", "conquest": "celestial"}[game]
    names = [name for name, _ in starter.cards]
    names += [c["name"] for c in engine_game.cards() if c["type"] != commanders and c["name"] not in names]
    lines = [f"{engine_game.commander_label}: {starter.commander}"] + [f"1 {name}" for name in names[:size]]
    return "\n".join(lines) + "\n"


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "size", "problem"), DECK_SIZE_CASES)
def test_a_challenge_whose_deck_size_the_decks_do_not_fit_is_400_naming_deck_size(
        alice, bob, effects_recorded, django_capture_on_commit_callbacks, game, size, problem):
    mine, theirs = make_deck(alice, game, name="Iron Tide"), make_deck(bob, game, index=1, name="Ash Court")
    assert mine.latest_version.to_engine().size == size
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk], "best_of": 3,
                                                            "params": {"deck_size": 20}}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert any(m.startswith(f"deck 'Iron Tide': {problem}") for m in error["fields"]["decks"]), error
    assert any(m.startswith(f"deck 'Ash Court': {problem}") for m in error["fields"]["decks"]), error
    assert Match.objects.count() == 0
    assert effects_recorded.tasks == []


@pytest.mark.django_db
def test_a_challenge_whose_max_copies_a_deck_breaks_is_400_naming_max_copies(
        alice, bob, effects_recorded, django_capture_on_commit_callbacks):
    mine, theirs = make_deck(alice, "tempofront", name="Iron Tide"), make_deck(bob, "tempofront", index=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk],
                                                            "params": {"max_copies": 1}}, format="json")
    assert response.status_code == 400, response.content
    problems = response.json()["error"]["fields"]["decks"]
    assert any(m.startswith("deck 'Iron Tide': 2 copies of ") and "max_copies is 1 here, so at most 1 allowed" in m
               for m in problems), problems
    assert Match.objects.count() == 0 and effects_recorded.tasks == []


@pytest.mark.django_db
def test_a_challenge_under_the_default_rules_still_takes_registered_decks(alice, bob, effects_recorded,
                                                                        django_capture_on_commit_callbacks):
    mine, theirs = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk]}, format="json")
    assert response.status_code == 201, response.content
    assert effects_recorded.task_names() == ["matches.run_match"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_decks_that_fit_non_default_params_are_accepted_and_the_worker_plays_the_match(celery_worker_process,
                                                                                       alice, bob, game):
    """Every card once fits ``max_copies`` 1 (the starter decks do not): the challenge is
    accepted, and the worker plays it to the end with those parameters."""
    decks = [deck_register(owner=owner, game=game, name=f"{owner.username} singles", pilot="greedy",
                           decklist=singleton_text(game, index)) for index, owner in enumerate((alice, bob))]
    params = {"max_copies": 1}
    starter = make_deck(bob, game, index=1, name="Starter")
    refused = client_for(alice).post("/api/matches/", {"decks": [decks[0].pk, starter.pk], "params": params},
                                     format="json")
    assert refused.status_code == 400, refused.content
    response = client_for(alice).post("/api/matches/", {"decks": [d.pk for d in decks], "params": params},
                                      format="json")
    assert response.status_code == 201, response.content
    match = wait_for_match(response.json()["id"], worker=celery_worker_process)
    assert match.status == Match.Status.DONE, match.error
    assert match.params == params
    played = list(match.games.order_by("number"))
    assert played and all(g.load_replay().params["max_copies"] == 1 for g in played)


def wait_for_match(match_id: int, *, worker, timeout: float = 180.0) -> Match:
    """The match once the worker has finished with it (done or failed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = Match.objects.get(pk=match_id)
        if match.status in (Match.Status.DONE, Match.Status.FAILED):
            return match
        time.sleep(0.2)
    pytest.fail(f"match {match_id} still {Match.objects.get(pk=match_id).status} after {timeout:g} s\n"
                f"{worker.log()[-3000:]}")
