"""Every bot decision has a hard time limit (``engine.runner.decide``): the built-in bots
answer by the deadline they are told, and a decision still running at the limit is stopped
there, not measured after it returns."""

from __future__ import annotations

import re
import threading
import time

import pytest

from engine.bots import make_bot
from engine.core import Action, Rng
from engine.runner import SOFT_SHARE, STOP_GRACE_SECONDS, DecisionOverrun, Observation, decide, play_match

from .helpers import decks_for, load_game, small_bot

#: Slack for a machine shared with other work: thread start-up, a busy core.
SLACK = 1.0


class Spinner:
    """Plays at random until its ``at``-th decision, which spins in pure Python forever."""

    def __init__(self, at: int = 1, *, ask: bool = False):
        self.name, self.at, self.ask, self.calls = "spinner", at, ask, 0
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def act(self, observation, seat, rng):
        self.calls += 1
        if self.calls < self.at:
            return rng.choice(observation.legal_actions())
        self.thread = threading.current_thread()
        n = 0
        try:
            while True:
                n += 1
                if self.ask:  # a bot that keeps sampling is stopped by its closed observation
                    observation.determinize(Rng(n))
        except DecisionOverrun:
            self.stopped.set()
            raise


def _opening(game_name: str = "conquest"):
    game = load_game(game_name)
    state = game.new_match(decks_for(game, 2), 5)
    return game, state


@pytest.mark.parametrize("ask", [False, True])
def test_a_decision_still_running_at_the_limit_is_stopped_there(ask):
    _, state = _opening()
    bot = Spinner(ask=ask)
    started = time.perf_counter()
    decision = decide(bot, state, state.to_act()[0], Rng(1), limit=0.3, action_number=1)
    waited = time.perf_counter() - started
    assert decision.action is None and decision.overrun
    # Stopped at the limit: the time it names is the limit plus the machine's delay in
    # waking the caller (a busy core can add a tenth of a second), not a time without end.
    stopped_at = re.fullmatch(r"exceeded its 0\.3 s decision budget \(stopped at (\d+\.\d\d) s\)", decision.failure)
    assert stopped_at, decision.failure
    assert 0.3 <= float(stopped_at.group(1)) < 0.3 + SLACK
    assert waited < 0.3 + STOP_GRACE_SECONDS + SLACK
    # Stopped, not abandoned: the spinning thread received the stop and ended.
    assert bot.stopped.wait(2.0)
    bot.thread.join(2.0)
    assert not bot.thread.is_alive()


def test_a_bot_match_with_a_spinning_bot_ends_at_the_limit_as_a_forfeit():
    game = load_game("tempofront")
    started = time.perf_counter()
    result = play_match(game, decks_for(game, 2), [Spinner(at=3), small_bot("random")], seed=3,
                        decision_seconds=0.3)
    assert time.perf_counter() - started < 0.3 + STOP_GRACE_SECONDS + SLACK
    assert [e.seat for e in result.errors] == [0]
    assert "spinner exceeded its 0.3 s decision budget" in str(result.errors[0])
    assert result.outcome.reason == "concession" and result.outcome.winner == 1


def test_a_sleeping_bot_is_let_go_after_the_grace_and_forfeits():
    class Sleeper:
        name = "sleeper"

        def act(self, observation, seat, rng):
            time.sleep(3)
            return observation.legal_actions()[0]

    _, state = _opening("tempofront")
    started = time.perf_counter()
    decision = decide(Sleeper(), state, state.to_act()[0], Rng(1), limit=0.2)
    assert time.perf_counter() - started < 0.2 + STOP_GRACE_SECONDS + SLACK
    assert decision.overrun and decision.action is None


@pytest.mark.parametrize("spec,settings", [("search:strong", {"iterations": 10**8}),
                                           ("greedy", {"samples": 10**6})])
@pytest.mark.parametrize("game_name", ["tempofront", "conquest"])
def test_built_in_bots_with_unbounded_settings_answer_by_the_deadline(game_name, spec, settings):
    game = load_game(game_name)
    state = game.new_match(decks_for(game, 2), 8)
    rng = Rng(8)
    answered = 0
    while answered < 3 and state.outcome is None:  # a few decisions with more than one choice
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            state.apply(seat, legal[0])
            continue
        # The bot is asked directly, with the deadline a limited decision gives it: with
        # these settings it would search for hours, so answering at all shows it stopped
        # at the deadline (no tight upper bound: a busy machine must not fail the test).
        started = time.perf_counter()
        observation = Observation(state, seat, deadline=started + 0.4)
        action = make_bot(spec, **settings).act(observation, seat, rng)
        seconds = time.perf_counter() - started
        assert isinstance(action, Action) and action in legal
        assert 0.4 <= seconds < 60, f"{spec} answered after {seconds:.2f} s"
        state.apply(seat, action)
        answered += 1
    assert answered == 3


def test_without_a_limit_the_bot_runs_in_the_callers_thread():
    _, state = _opening("tempofront")
    seen = []

    class Where:
        name = "where"

        def act(self, observation, seat, rng):
            seen.append((threading.current_thread(), observation.deadline))
            return observation.legal_actions()[0]

    assert decide(Where(), state, state.to_act()[0], Rng(1), limit=None).failure is None
    assert seen == [(threading.current_thread(), None)]


def test_a_limited_decision_tells_the_bot_its_deadline_before_the_limit():
    """``decide`` hands the bot a deadline at ``SOFT_SHARE`` of the limit, which the built-in
    bots stop at (above): they answer before the hard stop instead of forfeiting."""
    _, state = _opening("tempofront")
    seen = []

    class Watcher:
        name = "watcher"

        def act(self, observation, seat, rng):
            seen.append((time.perf_counter(), observation.deadline))
            return observation.legal_actions()[0]

    decision = decide(Watcher(), state, state.to_act()[0], Rng(1), limit=10.0)
    assert decision.failure is None and decision.action is not None
    (asked, deadline), = seen
    assert asked < deadline <= asked + SOFT_SHARE * 10.0
    assert deadline - asked > SOFT_SHARE * 10.0 - 2.0  # the soft share, less the time to get to the bot
