"""The one match runner: seats bots, plays a match, returns outcome and replay.

Tests, the command line, Celery tasks and benchmarks all call :func:`play_match`.

A bot is any object with ``act(observation, seat, rng) -> Action``. It is handed an
:class:`Observation`, never the state itself: the observation answers only what the
seat may know (its legal actions, its view, and full states *sampled* consistently with
that view through ``determinize``). A bot that raises, answers with an illegal action or
overruns its time budget forfeits; the match never crashes.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.core import (
    CONCEDE,
    Action,
    Decklist,
    Event,
    Game,
    IllegalAction,
    Outcome,
    Replay,
    Rng,
    State,
    state_digest,
)


class Observation:
    """What one seat may know of a match, and nothing more.

    The state is held privately; the only doors are the methods below, each of which
    the games guarantee to depend on the seat's information alone.
    """

    __slots__ = ("__state", "seat", "game", "action_number", "deadline", "__closed")

    def __init__(self, state: State, seat: int, *, action_number: int = 0, deadline: float | None = None):
        self.__state = state
        self.seat = seat
        self.game = state.game
        self.action_number = action_number
        #: When the decision should be answered, in ``time.perf_counter()`` seconds (None:
        #: no limit). A bot that searches stops there and answers with what it has.
        self.deadline = deadline
        self.__closed = False

    def time_left(self) -> float | None:
        """Seconds until :attr:`deadline` (negative once passed); None without a deadline."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def close(self) -> None:
        """End the decision: every later question raises :class:`DecisionOverrun`."""
        self.__closed = True

    def __open(self) -> State:
        if self.__closed:
            raise DecisionOverrun("the decision's time limit has passed")
        return self.__state

    @property
    def num_seats(self) -> int:
        return self.__open().num_seats

    def to_act(self) -> tuple[int, ...]:
        return self.__open().to_act()

    def legal_actions(self) -> list[Action]:
        return self.__open().legal_actions(self.seat)

    def view(self) -> dict[str, Any]:
        return self.__open().view(self.seat)

    def determinize(self, rng: Rng) -> State:
        """A full state sampled from everything this seat cannot see."""
        return self.__open().determinize(self.seat, rng)


class Bot(Protocol):
    name: str

    def act(self, observation: Observation, seat: int, rng: Rng) -> Action: ...


class RandomBot:
    """Uniform over the legal actions, from the rng it is given."""

    name = "random"

    def act(self, observation: Observation, seat: int, rng: Rng) -> Action:
        return rng.choice(observation.legal_actions())


@dataclass
class BotError:
    seat: int
    bot: str
    action_number: int
    error: str

    def __str__(self) -> str:
        return f"{self.bot} {self.error} at action {self.action_number}"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "action_number": self.action_number,
                "error": self.error, "text": str(self)}


@dataclass
class MatchResult:
    outcome: Outcome
    replay: Replay
    errors: list[BotError] = field(default_factory=list)
    decision_seconds: list[float] = field(default_factory=list)  # per seat, summed
    decisions: list[int] = field(default_factory=list)  # per seat
    events: list[Event] | None = None

    @property
    def actions(self) -> int:
        return len(self.replay.actions)

    def to_json(self) -> dict[str, Any]:
        out = self.outcome.to_json()
        return {
            "seed": self.replay.seed,
            "winner": out["winner"],
            "ranking": out["ranking"],
            "places": out["places"],
            "scores": out["scores"],
            "reason": out["reason"],
            "actions": self.actions,
            "errors": [e.to_json() for e in self.errors],
        }


class DecisionOverrun(Exception):
    """Raised inside a bot whose decision is past its hard time limit: by every question to
    its closed :class:`Observation`, and injected into the thread that runs it."""


#: The share of a decision's hard limit a bot is told to answer within
#: (``Observation.deadline``): the built-in bots stop there and answer with what they have.
SOFT_SHARE = 0.8
#: After the hard limit, how long :func:`decide` waits for the stopped decision's thread to
#: end before it goes on (a bot blocked outside Python code, in a sleep for instance, only
#: sees the stop when that call returns).
STOP_GRACE_SECONDS = 0.5


@dataclass
class Decision:
    """What one bot decision came to: an ``action``, or a ``failure`` (in words, without the
    bot's name) after which the seat forfeits or its move is replaced; ``overrun`` when the
    failure is the time limit. ``seconds``: how long the caller waited."""

    action: Action | None
    failure: str | None
    seconds: float
    overrun: bool = False


class _Job:
    """One decision running in a thread of its own."""

    def __init__(self, bot: Any, observation: Observation, seat: int, rng: Rng):
        self.bot, self.observation, self.seat, self.rng = bot, observation, seat, rng
        self.action: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.lock = threading.Lock()
        #: True while the bot's ``act`` may be on the thread's stack: only then may a stop
        #: be raised in the thread (a stop raised before the job starts, or after it ends,
        #: would land in the thread's wait for its next job).
        self.running = False
        #: When the bot began and ended deciding (``time.perf_counter()``): the limit counts
        #: from the start of the bot's own work, not from a thread hand-over delayed by a
        #: busy machine.
        self.began: float | None = None
        self.ended: float | None = None

    def run(self) -> None:
        try:
            try:
                with self.lock:
                    self.running = True
                self.began = time.perf_counter()
                self.action = self.bot.act(self.observation, self.seat, self.rng)
            except BaseException as exc:  # reported to the caller, never raised in this thread
                self.error = exc
            finally:
                self.ended = time.perf_counter()
                with self.lock:
                    self.running = False
                self.done.set()
        except DecisionOverrun:  # the stop arrived as the decision ended: nothing left to stop
            pass

    def stop(self, thread: threading.Thread) -> None:
        """Raise :class:`DecisionOverrun` inside the thread if the bot is still deciding."""
        self.observation.close()
        with self.lock:
            if self.running and thread.ident is not None:
                _raise_in(thread.ident, DecisionOverrun)


def _raise_in(thread_id: int, exc_type: type[BaseException]) -> None:
    """Make ``exc_type`` raised in thread ``thread_id`` at its next Python instruction
    (CPython's ``PyThreadState_SetAsyncExc``; elsewhere the closed observation does it)."""
    try:
        import ctypes

        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc_type))
    except (ImportError, AttributeError):  # not CPython
        pass


def _raised(exc: BaseException) -> str:
    return f"raised {type(exc).__name__}" + (f" ({exc})" if str(exc) else "")


def _overrun(limit: float, seconds: float) -> str:
    return f"exceeded its {limit:g} s decision budget (stopped at {seconds:.2f} s)"


class Decisions:
    """Runs bot decisions within their limit (:func:`decide`), one at a time, on one thread
    that it keeps for the next decision (a match asks hundreds: starting a thread for each
    would cost more than a random bot's whole decision). A decision stopped at its limit
    retires that thread; the next decision gets a new one. Use as a context manager, or
    call :meth:`close`, so the thread ends with the match."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._jobs: queue.SimpleQueue | None = None

    def __enter__(self) -> Decisions:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._jobs is not None:
            self._jobs.put(None)
        self._thread = self._jobs = None

    def _worker(self) -> tuple[threading.Thread, queue.SimpleQueue]:
        if self._thread is None or self._jobs is None:
            self._jobs = queue.SimpleQueue()
            self._thread = threading.Thread(target=_serve, args=(self._jobs,), name="bot-decisions", daemon=True)
            self._thread.start()
        return self._thread, self._jobs

    def decide(self, bot: Any, state: State, seat: int, rng: Rng, *, limit: float | None,
               action_number: int = 0) -> Decision:
        """See :func:`decide`."""
        started = time.perf_counter()
        deadline = None if limit is None else started + SOFT_SHARE * limit
        observation = Observation(state, seat, action_number=action_number, deadline=deadline)
        if limit is None:
            try:
                action = bot.act(observation, seat, rng)
            except Exception as exc:  # a bot must never crash its caller
                return Decision(None, _raised(exc), time.perf_counter() - started)
            return _answer(action, time.perf_counter() - started)
        job = _Job(bot, observation, seat, rng)
        thread, jobs = self._worker()
        jobs.put(job)
        while True:
            remaining = (job.began or started) + limit - time.perf_counter()
            if remaining <= 0 or job.done.wait(remaining):
                break
        if not job.done.is_set():
            job.stop(thread)
            self.close()  # the thread ends once the stopped decision has
            seconds = time.perf_counter() - (job.began or started)
            thread.join(STOP_GRACE_SECONDS)
            return Decision(None, _overrun(limit, seconds), seconds, overrun=True)
        seconds = job.ended - (job.began or started)
        if seconds > limit:
            return Decision(None, _overrun(limit, seconds), seconds, overrun=True)
        if job.error is not None:
            if isinstance(job.error, DecisionOverrun):
                return Decision(None, _overrun(limit, seconds), seconds, overrun=True)
            if not isinstance(job.error, Exception):  # KeyboardInterrupt, SystemExit: not the bot's to swallow
                raise job.error
            return Decision(None, _raised(job.error), seconds)
        return _answer(job.action, seconds)


def _serve(jobs: queue.SimpleQueue) -> None:
    """A decision thread: runs the jobs it is given until it is given None."""
    while True:
        try:
            job = jobs.get()
            if job is None:
                return
            job.run()
        except DecisionOverrun:  # a stop that arrived as its decision ended: nothing to stop
            continue


def decide(bot: Any, state: State, seat: int, rng: Rng, *, limit: float | None,
           action_number: int = 0) -> Decision:
    """Ask ``bot`` for seat ``seat``'s decision in ``state``, within ``limit`` seconds.

    The one door of every bot decision (the match runner, a live match's bot seat): call it
    (or :meth:`Decisions.decide`, for many decisions in a row) rather than ``bot.act`` so
    that no decision escapes its limit. ``state`` is not changed.

    With a ``limit`` the decision is hard-limited:

    - the bot's observation carries a deadline, ``SOFT_SHARE`` of the limit, which every
      built-in bot honours: it stops searching and answers with the best it has found;
    - the bot runs in a thread of its own; at the limit the caller stops waiting, the
      observation is closed (every question the bot asks raises :class:`DecisionOverrun`)
      and ``DecisionOverrun`` is raised inside the thread, so pure-Python work stops at
      its next instruction; the caller waits at most ``STOP_GRACE_SECONDS`` more for the
      thread to end (a bot blocked in a sleep or in C code stops when that call returns,
      after the caller has gone on) and reports an overrun;
    - a decision that returns after the limit all the same is an overrun too.

    A bot that raises, or answers with something that is not an :class:`Action`, fails;
    legality is the caller's to check. Without a limit the bot runs in the caller's thread.
    """
    with Decisions() as decisions:
        return decisions.decide(bot, state, seat, rng, limit=limit, action_number=action_number)


def _answer(action: Any, seconds: float) -> Decision:
    if not isinstance(action, Action):
        return Decision(None, f"returned {type(action).__name__}, not an Action", seconds)
    return Decision(action, None, seconds)


class MatchTooLong(RuntimeError):
    """The engine did not finish within ``max_actions``: always an engine bug."""


def _bot_name(bot: Any) -> str:
    return getattr(bot, "name", type(bot).__name__)


def play_match(
    game: Game,
    decks: Sequence[Decklist],
    bots: Sequence[Any],
    *,
    seed: int,
    params: Mapping[str, Any] | None = None,
    decision_seconds: float | None = None,
    max_actions: int = 100_000,
    record_digests: bool = False,
    record_events: bool = False,
    on_action: Callable[[int, State, list[Event]], None] | None = None,
) -> MatchResult:
    """Play one match between ``bots`` (one per seat) and return outcome and replay.

    ``decision_seconds``: every decision's hard limit (:func:`decide`); a decision stopped
    at the limit, or that returns later, forfeits the seat.
    ``on_action(n, state, events)`` is called after every applied action (progress,
    live broadcast); it must not change the state.
    """
    if len(bots) != len(decks):
        raise ValueError(f"{len(decks)} decks but {len(bots)} bots")
    state = game.new_match(decks, seed, params)
    replay = Replay(
        game=game.name,
        rules_version=str(game.rules_version),
        seed=seed,
        decks=list(decks),
        params=dict(params or {}),
        digests=[] if record_digests else None,
    )
    rngs = [Rng(seed).fork("bot", seat) for seat in range(len(bots))]
    errors: list[BotError] = []
    spent = [0.0] * len(bots)
    counts = [0] * len(bots)
    all_events: list[Event] | None = list(state.opening_events) if record_events else None

    def record(seat: int, action: Action) -> None:
        events = state.apply(seat, action)
        replay.actions.append((seat, action))
        if record_digests:
            replay.digests.append(state_digest(state))
        if all_events is not None:
            all_events.extend(events)
        if on_action is not None:
            on_action(len(replay.actions), state, events)

    with Decisions() as decisions:
        while state.outcome is None:
            if len(replay.actions) >= max_actions:
                raise MatchTooLong(f"{game.name} match with seed {seed} did not end in {max_actions} actions")
            seats = state.to_act()
            if not seats:
                raise MatchTooLong(f"{game.name} match with seed {seed}: no seat to act but no outcome")
            for seat in seats:
                if state.outcome is not None:
                    break
                bot = bots[seat]
                number = len(replay.actions) + 1
                decision = decisions.decide(bot, state, seat, rngs[seat], limit=decision_seconds,
                                            action_number=number)
                spent[seat] += decision.seconds
                counts[seat] += 1
                failure, action = decision.failure, decision.action
                if failure is None:
                    if action.kind == CONCEDE:
                        pass
                    else:
                        try:
                            record(seat, action)
                            continue
                        except IllegalAction as exc:
                            failure = f"chose an illegal action {action} ({exc})"
                if failure is not None:
                    errors.append(BotError(seat, _bot_name(bot), number, failure))
                    record(seat, Action.of(CONCEDE, reason=f"{_bot_name(bot)} {failure} at action {number}"))
                else:
                    record(seat, action)
    return MatchResult(
        outcome=_finish(state, replay),
        replay=replay,
        errors=errors,
        decision_seconds=spent,
        decisions=counts,
        events=all_events,
    )


def _finish(state: State, replay: Replay) -> Outcome:
    replay.outcome = state.outcome
    return state.outcome
