"""The one match runner: seats bots, plays a match, returns outcome and replay.

Tests, the command line, Celery tasks and benchmarks all call :func:`play_match`.

A bot is any object with ``act(observation, seat, rng) -> Action``. It is handed an
:class:`Observation`, never the state itself: the observation answers only what the
seat may know (its legal actions, its view, and full states *sampled* consistently with
that view through ``determinize``). A bot that raises, answers with an illegal action or
overruns its time budget forfeits; the match never crashes.
"""

from __future__ import annotations

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

    __slots__ = ("__state", "seat", "game", "action_number")

    def __init__(self, state: State, seat: int, *, action_number: int = 0):
        self.__state = state
        self.seat = seat
        self.game = state.game
        self.action_number = action_number

    @property
    def num_seats(self) -> int:
        return self.__state.num_seats

    def to_act(self) -> tuple[int, ...]:
        return self.__state.to_act()

    def legal_actions(self) -> list[Action]:
        return self.__state.legal_actions(self.seat)

    def view(self) -> dict[str, Any]:
        return self.__state.view(self.seat)

    def determinize(self, rng: Rng) -> State:
        """A full state sampled from everything this seat cannot see."""
        return self.__state.determinize(self.seat, rng)


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

    ``decision_seconds``: a bot whose single decision takes longer forfeits.
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
    all_events: list[Event] | None = list(getattr(state, "opening_events", ())) if record_events else None

    def record(seat: int, action: Action) -> None:
        events = state.apply(seat, action)
        replay.actions.append((seat, action))
        if record_digests:
            replay.digests.append(state_digest(state))
        if all_events is not None:
            all_events.extend(events)
        if on_action is not None:
            on_action(len(replay.actions), state, events)

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
            started = time.perf_counter()
            failure = None
            try:
                action = bot.act(Observation(state, seat, action_number=number), seat, rngs[seat])
            except Exception as exc:  # a bot must never crash the match
                failure = f"raised {type(exc).__name__}" + (f" ({exc})" if str(exc) else "")
            elapsed = time.perf_counter() - started
            spent[seat] += elapsed
            counts[seat] += 1
            if failure is None and decision_seconds is not None and elapsed > decision_seconds:
                failure = f"exceeded its {decision_seconds:g} s decision budget ({elapsed:.2f} s)"
            if failure is None:
                if not isinstance(action, Action):
                    failure = f"returned {type(action).__name__}, not an Action"
                elif action.kind == CONCEDE:
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
