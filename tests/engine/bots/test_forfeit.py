"""A bot never crashes a match: failures end it as a forfeit recorded in the result."""

from __future__ import annotations

import time

import pytest

from engine.core import Action
from engine.runner import play_match

from .helpers import GAME_NAMES, decks_for, load_game, small_bot


class _BrokenBot:
    """Plays at random, then fails in the chosen way at its ``at``-th decision."""

    def __init__(self, how: str, at: int = 3):
        self.name = "broken"
        self.how = how
        self.at = at
        self.calls = 0
        self.inner = small_bot("random")

    def act(self, observation, seat, rng):
        self.calls += 1
        if self.calls == self.at:
            if self.how == "raise":
                raise ValueError("evaluation went wrong")
            if self.how == "illegal":
                return Action.of("teleport", to="the moon")
            if self.how == "garbage":
                return "pass"
            if self.how == "slow":
                time.sleep(0.3)
        return self.inner.act(observation, seat, rng)


@pytest.mark.parametrize("how,words", [
    ("raise", "broken raised ValueError (evaluation went wrong) at action"),
    ("illegal", "broken chose an illegal action teleport(to='the moon')"),
    ("garbage", "broken returned str, not an Action at action"),
    ("slow", "broken exceeded its 0.1 s decision budget"),
])
@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_failing_bot_forfeits_and_the_failure_is_recorded(game_name, how, words):
    game = load_game(game_name)
    for broken_seat in (0, 1):
        # The opponent plays at random: its decisions take microseconds, far under the budget.
        bots = [small_bot("random"), small_bot("random")]
        bots[broken_seat] = _BrokenBot(how)
        result = play_match(game, decks_for(game, 2), bots, seed=11,
                            decision_seconds=0.1 if how == "slow" else None)
        assert len(result.errors) == 1
        error = result.errors[0]
        assert error.seat == broken_seat
        assert words in str(error)
        assert str(error).endswith(f"at action {error.action_number}")
        assert result.outcome.reason == "concession"
        assert result.outcome.winner == 1 - broken_seat
        last = result.replay.actions[-1]
        assert last[0] == broken_seat and last[1].kind == "concede"


@pytest.mark.parametrize("game_name", [n for n in GAME_NAMES if load_game(n).max_seats > 2])
def test_failing_bot_in_a_multiplayer_match_finishes_last(game_name):
    game = load_game(game_name)
    seats = game.max_seats
    bots = [small_bot("greedy") for _ in range(seats)]
    bots[1] = _BrokenBot("raise", at=2)
    result = play_match(game, decks_for(game, seats), bots, seed=2)
    assert [e.seat for e in result.errors] == [1]
    assert result.outcome.places[1] == seats


class _BrokenEvaluator:
    scale = 1.0

    def scores(self, state):
        raise ValueError("no evaluation today")


def test_registered_bot_whose_evaluation_raises_forfeits_with_its_name(monkeypatch):
    """The runner's record reads like "greedy raised ValueError (...) at action N"."""
    from engine.bots import evaluation

    from . import toy

    monkeypatch.setitem(evaluation._LOADED, toy.GAME.name, _BrokenEvaluator())
    for spec in ("greedy", "search:fast"):
        result = play_match(toy.GAME, decks_for(toy.GAME, 2), [small_bot("random"), small_bot(spec)], seed=1)
        [error] = result.errors
        assert str(error) == f"{spec} raised ValueError (no evaluation today) at action {error.action_number}"
        assert result.outcome.winner == 0
