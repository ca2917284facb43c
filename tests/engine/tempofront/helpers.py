"""Small helpers for the TempoFront rule tests: apply actions by name, let windows pass."""

from __future__ import annotations

from engine.core import Action, Event
from engine.tempofront.positions import position, unit_at  # noqa: F401  (re-exported for the tests)
from engine.tempofront.state import TempoState


def act(state: TempoState, seat: int, kind: str, **params) -> list[Event]:
    """Apply one action; it must be listed by legal_actions (a test bug otherwise)."""
    action = Action.of(kind, **params)
    assert action in state.legal_actions(seat), f"{action} is not legal for seat {seat}: {state.legal_actions(seat)}"
    return state.apply(seat, action)


def settle(state: TempoState) -> list[Event]:
    """Let every open response window pass; returns the events of the resolution."""
    events: list[Event] = []
    while state.phase in ("response", "counter"):
        events += state.apply(state.to_act()[0], Action.of("pass"))
    return events


def play(state: TempoState, seat: int, kind: str, **params) -> list[Event]:
    """Apply a main action and let it resolve with no Reaction."""
    return act(state, seat, kind, **params) + settle(state)


def end_cycle(state: TempoState) -> list[Event]:
    """Both players pass until the Cycle ends; returns the events."""
    events: list[Event] = []
    cycle = state.cycle
    while state.cycle == cycle and state.outcome is None:
        events += state.apply(state.to_act()[0], Action.of("pass"))
        events += settle(state)
    return events


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


def kinds(actions: list[Action]) -> set[str]:
    return {a.kind for a in actions}
