"""Position evaluation shared by the greedy and search bots.

A game's evaluator turns a full state (in a bot, always a *determinized* one) into a
heuristic score per seat, in points of that game. This module turns scores into values
in [0, 1] per seat, the same scale as the rewards of finished matches:

- a finished match is worth its normalised rank: (seats - average place) / (seats - 1),
  where tied seats share the average of the places they occupy (a two-player draw is 0.5);
- an unfinished one is worth, for each seat, the mean over its opponents of
  ``sigmoid((score[seat] - score[opponent]) / scale)``: the expected share of opponents it
  will finish ahead of, which is what the normalised rank counts.

An evaluator may also *settle* a position before scoring it (a ``settle(state)`` method):
play it forward in place with a fast rule-of-thumb policy until what is pending (a declared
action waiting in a response window, face-down units not yet revealed) has resolved, so
that the score sees the effect of a decision and not only its cost. :func:`play_out` is
the loop. Chance inside the settling comes from the state's own random stream, which a
determinized sample has already resampled.

Evaluators are registered per game name and imported on first use, like the games.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from typing import Protocol

from engine.core import Action, Outcome, State

#: Most policy steps one settling may take (a safety net; stages end long before).
SETTLE_LIMIT = 400


class Evaluator(Protocol):
    """A hand-written evaluation for one game.

    Optional members: ``settle(state)`` (play pending things out in place, see above),
    ``policy(state, seat, legal) -> Action`` (a fast deterministic choice),
    ``models_opponents`` (True when that policy is a fair model of a whole opponent, which
    lets the search have other seats follow it) and ``observed(actor, action)`` (what the
    other seats see of ``actor`` taking ``action``, for actions that are partly secret,
    such as a face-down pick; the search keys its tree by it).
    """

    #: Score difference that counts as one logistic unit (about 73% against 27%).
    scale: float

    def scores(self, state: State) -> list[float]:
        """A heuristic score per seat of an unfinished state: higher is better."""


class NeutralEvaluator:
    """For a game without an evaluator: every unfinished position is even."""

    scale = 1.0

    def scores(self, state: State) -> list[float]:
        return [0.0] * state.num_seats


_MODULES = {
    "tempofront": "engine.bots.eval_tempofront",
    "conquest": "engine.bots.eval_conquest",
}
_LOADED: dict[str, Evaluator] = {}


def register_evaluator(game: str, evaluator: Evaluator) -> None:
    """Use ``evaluator`` for the game named ``game`` (replaces any earlier one)."""
    _LOADED[game] = evaluator


def evaluator_for(game: str) -> Evaluator:
    """The evaluator of a game; a neutral one when the game has none."""
    found = _LOADED.get(game)
    if found is None:
        module = _MODULES.get(game)
        found = importlib.import_module(module).EVALUATOR if module else NeutralEvaluator()
        _LOADED[game] = found
    return found


def outcome_values(outcome: Outcome) -> list[float]:
    """Normalised rank per seat: 1 alone in first place, 0 alone in last, ties share."""
    places = outcome.places
    n = len(places)
    if n < 2:
        return [1.0] * n
    values = []
    for place in places:
        tied = sum(1 for p in places if p == place)
        # Tied seats occupy places place .. place + tied - 1 (competition ranking).
        average = place + (tied - 1) / 2
        values.append((n - average) / (n - 1))
    return values


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def score_values(scores: Sequence[float], scale: float) -> list[float]:
    """Values in [0, 1] from heuristic scores (see the module docstring)."""
    n = len(scores)
    if n < 2:
        return [0.5] * n
    values = []
    for seat in range(n):
        mine = scores[seat]
        total = 0.0
        for other in range(n):
            if other != seat:
                total += _sigmoid((mine - scores[other]) / scale)
        values.append(total / (n - 1))
    return values


def play_out(
    state: State,
    policy: Callable[[State, int, list[Action]], Action],
    keep_going: Callable[[State], bool],
    limit: int = SETTLE_LIMIT,
) -> State:
    """Play ``state`` forward in place with ``policy`` while ``keep_going(state)`` holds.

    Every seat in ``to_act()`` acts in turn, as in the match runner. Stops when the match
    ends or after ``limit`` rounds. Returns ``state``.
    """
    rounds = 0
    while state.outcome is None and rounds < limit and keep_going(state):
        for seat in state.to_act():
            if state.outcome is not None:
                break
            state.apply(seat, policy(state, seat, state.legal_actions(seat)))
        rounds += 1
    return state


def state_values(state: State, evaluator: Evaluator) -> list[float]:
    """Per-seat values of a state: the outcome's when finished, else the evaluation's.

    The state is first settled by the evaluator, in place: pass a copy you can spare.
    """
    settle = getattr(evaluator, "settle", None)
    if settle is not None:
        settle(state)
    outcome = state.outcome
    if outcome is not None:
        return outcome_values(outcome)
    return score_values(evaluator.scores(state), evaluator.scale)
