"""The engine state of a live match, rebuilt from its log and cached per process.

The log is the state: ``(game, seed, decks, params, log)`` rebuilds it exactly, so any web
process or worker can serve any move. Rebuilding costs one engine replay, so each process
keeps the states it built, keyed by match and log length: the next move of the same match
in the same process applies one action to the cached state instead of replaying them all.

The opening of a match (its state before any action, and the events of the deal) is kept
per process as well (:func:`opening`): every rebuild and every board opened starts from a
copy of it instead of reading the match's seats and decks and dealing again.

Callers use :func:`state_of` as a context manager, which holds the match's in-process lock
while the state is used; writers hold the match row's database lock as well, so a cached
state is only ever changed by the one transaction that appends to the log. A writer whose
transaction fails calls :func:`forget` so the next caller rebuilds from the stored log.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine import games as engine_games
from engine.core import Action, Event, Replay, State
from matches.play import game_seed as match_game_seed

#: How many matches' states one process keeps.
CACHE_SIZE = 512

_lock = threading.Lock()
_cache: OrderedDict[int, tuple[int, State]] = OrderedDict()
_match_locks: dict[int, threading.RLock] = {}
#: match id -> (the live match's creation time, the opening state (never changed: copies
#: are handed out), the events of the deal)
_openings: OrderedDict[int, tuple[Any, State, list[Event]]] = OrderedDict()


def _match_lock(match_id: int) -> threading.RLock:
    with _lock:
        return _match_locks.setdefault(match_id, threading.RLock())


def new_state(match, decks: list | None = None) -> State:
    """The opening state of ``match`` (a ``matches.Match`` with its seats); ``decks``: its
    seats' engine decklists in seat order, when the caller has read them already."""
    if decks is None:
        seats = sorted(match.seats.select_related("deck_version__deck"), key=lambda s: s.seat)
        decks = [s.deck_version.to_engine() for s in seats]
    return engine_games[match.game].new_match(decks, game_seed(match), match.params or {})


def keep_opening(live, match, decks: list) -> None:
    """Deal and keep the opening of ``live``'s ``match`` in this process, from its seats'
    engine decklists (in seat order) read by the caller, unless it is kept already."""
    with _lock:
        kept = _openings.get(live.match_id)
        if kept is not None and kept[0] == live.created:
            return
    _keep(live, new_state(match, decks))


def _keep(live, state: State) -> tuple[Any, State, list[Event]]:
    # Stamped with the live match's creation time: a match id used again (SQLite gives a
    # rolled-back row's id to the next one) is not served another match's opening.
    kept = (live.created, state, list(state.opening_events))
    with _lock:
        _openings[live.match_id] = kept
        _openings.move_to_end(live.match_id)
        while len(_openings) > CACHE_SIZE:
            _openings.popitem(last=False)
    return kept


def opening(live) -> tuple[State, list[Event]]:
    """A new state of ``live``'s match before any action (a copy of the one this process
    keeps, dealt on first use), and the events of the deal."""
    with _lock:
        kept = _openings.get(live.match_id)
        if kept is not None:
            _openings.move_to_end(live.match_id)
    if kept is None or kept[0] != live.created:
        kept = _keep(live, new_state(live.match))
    _, state, events = kept
    return state.clone(), events


def game_seed(match) -> int:
    """The seed the live game is dealt from: game 1's seed of the match, as in every match."""

    return match_game_seed(match.seed, 1)


def apply_entry(state: State, entry: list[Any]) -> list[Event]:
    seat, action_json = entry[0], entry[1]
    return state.apply(int(seat), Action.from_json(action_json))


@contextmanager
def state_of(live) -> Iterator[State]:
    """The state after every action in ``live.log``; holds the match's process lock."""
    match_id = live.match_id
    length = len(live.log)
    with _match_lock(match_id):
        with _lock:
            cached = _cache.get(match_id)
            if cached is not None:
                _cache.move_to_end(match_id)
        state = None
        if cached is not None and cached[0] <= length:
            state = cached[1]
            try:
                for entry in live.log[cached[0]:length]:
                    apply_entry(state, entry)
            except Exception:
                state = None
        if state is None:
            state, _ = opening(live)
            for entry in live.log:
                apply_entry(state, entry)
        _store(match_id, length, state)
        yield state


def remember(match_id: int, length: int, state: State) -> None:
    """Record that ``state`` is the match's state after ``length`` actions."""
    _store(match_id, length, state)


def _store(match_id: int, length: int, state: State) -> None:
    with _lock:
        _cache[match_id] = (length, state)
        _cache.move_to_end(match_id)
        while len(_cache) > CACHE_SIZE:
            old, _ = _cache.popitem(last=False)
            _match_locks.pop(old, None)


def forget(match_id: int) -> None:
    """Drop the state kept for the match (the next caller rebuilds it from its opening)."""
    with _lock:
        _cache.pop(match_id, None)


def placement_choices(state: State, seat: int) -> dict[str, Any] | None:
    """The choices of the decision ``seat`` builds in several actions, all at once, as its
    game lays them out (``Game.decision_steps``: a placement of one card per Location, in
    the shape the board's chooser reads); None when its next decision is one action. It
    tells of the seat's own hand: it belongs in that seat's view only."""
    return engine_games[state.game].decision_steps(state, seat)


def history(live, *, upto: int | None = None) -> tuple[State, list[tuple[int, Event]]]:
    """A fresh state after the first ``upto`` actions (all by default) and every event
    so far, each with the index of the action that caused it (-1: the opening)."""
    entries = live.log if upto is None else live.log[:upto]
    state, dealt = opening(live)
    events = [(-1, e) for e in dealt]
    for index, entry in enumerate(entries):
        events.extend((index, e) for e in apply_entry(state, entry))
    return state, events


def replay_of(live, outcome) -> Replay:
    match = live.match
    seats = sorted(match.seats.select_related("deck_version__deck"), key=lambda s: s.seat)
    game = engine_games[match.game]
    return Replay(
        game=match.game,
        rules_version=str(game.rules_version),
        seed=game_seed(match),
        decks=[s.deck_version.to_engine() for s in seats],
        params=dict(match.params or {}),
        actions=[(int(seat), Action.from_json(action)) for seat, action, *_ in live.log],
        outcome=outcome,
    )
