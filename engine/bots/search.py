"""The search bot: information-set Monte Carlo tree search with determinization.

One tree is grown for the deciding seat's information set. Every iteration samples a full
state consistent with what the seat has seen (``observation.determinize``), walks the tree
along the actions that are legal in that sample, adds one node, values it with the game's
evaluation (after an optional short random playout) and backs the per-seat values up the
path. Statistics are keyed by actions, so they aggregate across samples; the decision is
the deciding seat's most visited action at the root.

- Selection is UCB1 with availability counts (Cowling, Powley and Whitehouse, 2012): an
  action's exploration term counts only the visits in which it was legal, because in
  another sample the opponent may hold other cards.
- Simultaneous choices (Conquest placement: several seats in ``to_act()``) are decoupled:
  each acting seat keeps its own statistics at the node and chooses without seeing the
  others' choices; the child is keyed by the joint choice.
- The tree is the deciding seat's: a child is keyed by what that seat sees of the others'
  actions. Where the evaluator says an action is partly secret (``observed``: a Conquest
  pick shows a face-down unit going to a Location, not which card), children are keyed by
  that, so one node gathers every sample in which the seat saw the same thing. Hidden
  choices already made by other seats are part of the sample, like any hidden card.
- Response windows need nothing special: the seat to act may be any seat, and each node
  stores statistics per acting seat, each maximising its own value.
- Rewards are per seat in [0, 1] (see engine/bots/evaluation.py), so multi-player matches
  are searched with every seat maximising its own normalised rank.
- Other seats either search too (each by its own statistics) or follow the evaluator's
  fast policy, where the evaluator declares that policy a fair model of a whole opponent
  (setting ``opponents``). Leaves are settled by the evaluator before they are scored.
- Optionally the root starts warm: each of the deciding seat's actions gets ``prior``
  virtual visits at its greedy value.

With an iteration budget and no wall-clock limit, a decision is a function of
(observation, rng): everything random is drawn from streams derived from ``rng``. The
search also stops at the observation's ``deadline`` (the caller's decision limit, see
``engine.runner.decide``) and answers with what it has found by then.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from engine.bots.evaluation import Evaluator, evaluator_for, outcome_values, state_values
from engine.bots.greedy import action_values
from engine.core import Action, Rng, State
from engine.runner import Observation

#: How other seats choose inside the tree: "search" (each by its own statistics), "policy"
#: (by the evaluator's fast policy), "auto" (policy when the evaluator says its policy
#: models a whole opponent, ``models_opponents``; else search).
OPPONENT_MODELS = ("auto", "search", "policy")


class _Stat:
    """One action's statistics at one node, for the seat that takes it."""

    __slots__ = ("visits", "total", "avail")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.avail = 0


class _Node:
    """Statistics per acting seat and per action, and children keyed by the joint choice."""

    __slots__ = ("stats", "children")

    def __init__(self) -> None:
        self.stats: dict[int, dict[Action, _Stat]] = {}
        self.children: dict[object, _Node] = {}


class SearchBot:
    """ISMCTS with a budget of ``iterations`` and an optional wall-clock limit ``seconds``.

    Settings: ``iterations`` (per decision), ``seconds`` (stop earlier when reached; makes
    decisions depend on the machine's speed), ``exploration`` (UCB constant), ``batch``
    (iterations per determinization), ``playout`` (random actions played before the
    evaluation at a leaf), ``prior`` (virtual visits given to each root action at its
    greedy value before the search, 0 for none), ``prior_samples`` (determinized
    samples for those greedy values) and ``opponents`` (see ``OPPONENT_MODELS``).
    """

    def __init__(
        self,
        *,
        name: str = "search",
        version: str = "1",
        iterations: int = 200,
        seconds: float | None = None,
        exploration: float = 0.3,
        batch: int = 1,
        playout: int = 0,
        prior: int = 0,
        prior_samples: int = 2,
        opponents: str = "auto",
    ):
        if iterations < 1:
            raise ValueError("search needs iterations >= 1")
        if batch < 1:
            raise ValueError("search needs batch >= 1")
        if playout < 0:
            raise ValueError("search needs playout >= 0")
        if seconds is not None and seconds <= 0:
            raise ValueError("search needs seconds > 0 when given")
        if prior < 0 or prior_samples < 1:
            raise ValueError("search needs prior >= 0 and prior_samples >= 1")
        if opponents not in OPPONENT_MODELS:
            raise ValueError(f"search opponents must be one of {', '.join(OPPONENT_MODELS)}, not {opponents!r}")
        self.name = name
        self.version = version
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.batch = batch
        self.playout = playout
        self.prior = prior
        self.prior_samples = prior_samples
        self.opponents = opponents
        #: Iterations run by the last decision (for tests and benchmarks).
        self.last_iterations = 0

    # ------------------------------------------------------------------ the decision

    def act(self, observation: Observation, seat: int, rng: Rng) -> Action:
        legal = observation.legal_actions()
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        return self._decide(self.search(observation, rng), seat, legal)

    def search(self, observation: Observation, rng: Rng) -> _Node:
        """Grow the tree for ``observation`` within the budget and return its root."""
        stream = Rng(rng.next64())
        evaluator = evaluator_for(observation.game)
        root = _Node()
        if self.prior:
            self._warm_start(root, observation, stream)
        policy = self._opponent_policy(evaluator)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        given = getattr(observation, "deadline", None)  # the caller's limit (engine.runner.decide)
        if given is not None:
            deadline = given if deadline is None else min(deadline, given)
        sample: State | None = None
        done = 0
        while done < self.iterations:
            if done % self.batch == 0:
                sample = observation.determinize(Rng(stream.next64()))
                state = sample if self.batch == 1 else sample.clone()
            else:
                state = sample.clone()
            self._iterate(root, state, stream, evaluator, observation.seat, policy)
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        return root

    def _warm_start(self, root: _Node, observation: Observation, rng: Rng) -> None:
        """Give each root action ``prior`` virtual visits at its greedy value (progressive bias)."""
        seat = observation.seat
        legal = observation.legal_actions()
        table = root.stats[seat] = {}
        for action, value in zip(legal, action_values(observation, seat, legal, self.prior_samples, rng), strict=True):
            stat = table[action] = _Stat()
            stat.visits = stat.avail = self.prior
            stat.total = self.prior * value

    def root_statistics(self, observation: Observation, rng: Rng) -> dict[int, list[tuple[Action, int, float]]]:
        """Search, then per seat acting at the root: (action, visits, mean value), most visited first."""
        root = self.search(observation, rng)
        out = {}
        for actor, table in root.stats.items():
            rows = [(a, st.visits, st.total / st.visits if st.visits else 0.0) for a, st in table.items()]
            out[actor] = sorted(rows, key=lambda row: -row[1])
        return out

    def _decide(self, root: _Node, seat: int, legal: list[Action]) -> Action:
        """Most visited; then best mean; then the first in the game's order."""
        table = root.stats.get(seat, {})
        best = legal[0]
        best_key = (-1, -1.0)
        for action in legal:
            stat = table.get(action)
            key = (0, 0.0) if stat is None else (stat.visits, stat.total / stat.visits if stat.visits else 0.0)
            if key > best_key:
                best, best_key = action, key
        return best

    # ------------------------------------------------------------------ one iteration

    def _iterate(self, root: _Node, state: State, rng: Rng, evaluator: Evaluator, me: int,
                 policy: Callable[[State, int, list[Action]], Action] | None) -> None:
        """One iteration on the sample ``state``: select and expand, evaluate, back up.

        ``me`` is the deciding seat; when ``policy`` is given, the other seats follow it.
        """
        node = root
        path: list[tuple[int, _Stat]] = []
        seen = getattr(evaluator, "observed", None)
        while True:
            if state.outcome is not None:
                values = outcome_values(state.outcome)
                break
            joint: list[object] = []
            for actor in state.to_act():
                if state.outcome is not None:
                    break
                if policy is not None and actor != me:
                    action = policy(state, actor, state.legal_actions(actor))
                else:
                    table = node.stats.get(actor)
                    if table is None:
                        table = node.stats[actor] = {}
                    action, stat = self._select(table, state.legal_actions(actor), rng)
                    path.append((actor, stat))
                state.apply(actor, action)
                joint.append(action if actor == me or seen is None else seen(actor, action))
            key: object = joint[0] if len(joint) == 1 else tuple(joint)
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                values = self._leaf(state, rng, evaluator)
                break
            node = child
        for actor, stat in path:
            stat.visits += 1
            stat.total += values[actor]

    def _opponent_policy(self, evaluator: Evaluator) -> Callable[[State, int, list[Action]], Action] | None:
        """The policy other seats follow in the tree, or None when they search too."""
        if self.opponents == "search":
            return None
        policy = getattr(evaluator, "policy", None)
        if self.opponents == "auto" and not getattr(evaluator, "models_opponents", False):
            return None
        return policy

    def _select(self, table: dict[Action, _Stat], legal: list[Action], rng: Rng) -> tuple[Action, _Stat]:
        """An untried legal action at random, else UCB1 with availability counts."""
        untried: list[tuple[Action, _Stat]] = []
        for action in legal:
            stat = table.get(action)
            if stat is None:
                stat = table[action] = _Stat()
            stat.avail += 1
            if stat.visits == 0:
                untried.append((action, stat))
        if untried:
            return untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
        c = self.exploration
        best: tuple[Action, _Stat] | None = None
        best_score = -math.inf
        for action in legal:
            stat = table[action]
            score = stat.total / stat.visits + c * math.sqrt(math.log(stat.avail) / stat.visits)
            if score > best_score:
                best, best_score = (action, stat), score
        assert best is not None
        return best

    def _leaf(self, state: State, rng: Rng, evaluator: Evaluator) -> list[float]:
        """Per-seat values of a new node, after ``playout`` random actions."""
        for _ in range(self.playout):
            if state.outcome is not None:
                break
            actor = state.to_act()[0]
            state.apply(actor, rng.choice(state.legal_actions(actor)))
        return state_values(state, evaluator)
