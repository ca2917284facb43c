"""Demo challenges from ``load_demo``, and a bot's forfeit recorded with its game."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from match_helpers import make_deck, version

from matches.models import Match
from matches.services import match_challenge
from matches.tasks import run_match


@pytest.mark.django_db
def test_load_demo_queues_one_challenge_per_game_once(effects_recorded, settings):
    settings.DEBUG = True
    for _ in range(2):
        call_command("load_demo", stdout=io.StringIO())
    # The showcase challenges between starter decks (the demo player's own matches are
    # tested in tests/platform/newcomer/).
    matches = list(Match.objects.filter(best_of=3).order_by("game"))
    assert [m.game for m in matches] == ["conquest", "tempofront"]
    assert all(m.status == Match.Status.QUEUED and m.best_of == 3 and m.created_by.username == "demo"
               for m in matches)
    assert all(seat.deck_version.deck.is_starter for m in matches for seat in m.seats.all())


@pytest.mark.django_db
def test_a_bot_over_its_decision_budget_forfeits_and_the_error_is_kept(alice, bob, effects_recorded, settings, client):
    settings.MATCHES_DECISION_SECONDS = 1e-9
    match = match_challenge(created_by=alice, best_of=1, seed=4,
                            deck_versions=[version(make_deck(alice, "tempofront", pilot="greedy")),
                                           version(make_deck(bob, "tempofront", index=1, pilot="greedy"))])
    run_match.apply(args=[match.pk])
    game = Match.objects.get(pk=match.pk).games.get()
    (error,) = game.bot_errors
    assert error["bot"] == "greedy" and "decision budget" in error["error"] and error["action_number"] >= 1
    assert game.outcome["reason"] == "concession"
    assert game.winner_entry == 1 - game.seat_order[error["seat"]]  # the other deck wins
    body = client.get(f"/api/matches/{match.pk}/").json()
    assert body["games"][0]["bot_errors"] == [error]
    assert "decision budget" in client.get(f"/matches/{match.pk}/").content.decode()
