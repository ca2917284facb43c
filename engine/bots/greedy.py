"""The greedy bot: one step of look-ahead with the game's hand-written evaluation.

For each legal action it applies the action to a few determinized copies of the match
(the same copies for every action, so that actions are compared on equal luck) and keeps
the action whose resulting positions are worth most to its seat on average. Ties are
broken with the rng it is given, so a decision is a function of (observation, rng).
"""

from __future__ import annotations

import time

from engine.bots.evaluation import evaluator_for, state_values
from engine.core import Action, Rng
from engine.runner import Observation

# Values closer than this are ties: sums of floats in different orders differ by rounding.
TIE = 1e-9


def pick_best(actions: list[Action], values: list[float], rng: Rng) -> Action:
    """The action of highest value; among equals, one drawn from ``rng``."""
    best = max(values)
    tied = [a for a, v in zip(actions, values, strict=True) if v >= best - TIE]
    return tied[0] if len(tied) == 1 else tied[rng.randrange(len(tied))]


def action_values(observation: Observation, seat: int, legal: list[Action], samples: int, rng: Rng) -> list[float]:
    """Each legal action's mean value for ``seat`` one step ahead, over ``samples`` samples.

    The same determinized samples serve every action. Draws one number from ``rng`` per
    sample. Past the observation's ``deadline`` (``engine.runner.decide``) it stops: the
    values are the means over the samples finished by then, and if the first is not
    finished, the actions not yet evaluated are worth -1 (below every value).
    """
    evaluator = evaluator_for(observation.game)
    deadline = getattr(observation, "deadline", None)
    totals = [0.0] * len(legal)
    done = 0
    while done < samples:
        sample = observation.determinize(Rng(rng.next64()))
        for i, action in enumerate(legal):
            if deadline is not None and done == 0 and i and time.perf_counter() >= deadline:
                return [totals[j] if j < i else -1.0 for j in range(len(legal))]
            after = sample.clone()
            after.apply(seat, action)
            totals[i] += state_values(after, evaluator)[seat]
        done += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return [total / done for total in totals]


class GreedyBot:
    """One-step look-ahead averaged over ``samples`` determinizations."""

    def __init__(self, *, name: str = "greedy", version: str = "1", samples: int = 2):
        if samples < 1:
            raise ValueError("greedy needs samples >= 1")
        self.name = name
        self.version = version
        self.samples = samples

    def act(self, observation: Observation, seat: int, rng: Rng) -> Action:
        legal = observation.legal_actions()
        if len(legal) == 1:
            return legal[0]
        stream = Rng(rng.next64())
        return pick_best(legal, action_values(observation, seat, legal, self.samples, stream), stream)
