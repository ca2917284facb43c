"""TempoFront's rules parameters: every default number of RULINGS.md T1-T17 in one object.

A match is created from :func:`make_params` (the defaults merged with the match's own
parameters), and the rules read every number from it: no number of the rules is written
anywhere else in the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Params:
    """The numbers of the rules. Field names are the public parameter names."""

    integrity: int = 20  # T16 / Exact rule: Integrity
    timeline: int = 12  # Exact rule: Timeline, T3
    dominion_to_win: int = 6  # Exact rule: Dominion
    fronts_for_dominion: int = 2  # Exact rule: Dominion ("at least two Fronts")
    dominion_per_cycle: int = 1  # Exact rule: Dominion
    focus_start: int = 3  # Exact rule: Focus, T2
    focus_growth: int = 1  # T2
    focus_max: int = 8  # T2
    deck_size: int = 30  # T1
    max_copies: int = 2  # T1
    opening_hand: int = 5  # T1
    mulligans: int = 1  # T1
    draw_per_cycle: int = 2  # T2 (from Cycle 2 on)
    strike_time: int = 2  # T3
    shift_time: int = 2  # T3, Exact rule: Shift
    shift_time_mobile: int = 1  # Exact rule: Mobile
    prepare_time: int = 1  # T3, Exact rule: Prepare
    max_reactions: int = 2  # Exact rule: Counter-Response ("at most two Reactions")
    cycle_cap: int = 30  # T10 safety cap

    def to_json(self) -> dict[str, int]:
        return asdict(self)


_FIELDS = {f.name: f for f in fields(Params)}

#: Lower bounds that keep a match meaningful (a 0-card deck or a 0-Time Timeline is no game).
_MINIMUM = {
    "integrity": 1,
    "timeline": 1,
    "dominion_to_win": 1,
    "fronts_for_dominion": 1,
    "dominion_per_cycle": 0,
    "focus_start": 0,
    "focus_growth": 0,
    "focus_max": 0,
    "deck_size": 1,
    "max_copies": 1,
    "opening_hand": 0,
    "mulligans": 0,
    "draw_per_cycle": 0,
    "strike_time": 0,
    "shift_time": 0,
    "shift_time_mobile": 0,
    "prepare_time": 0,
    "max_reactions": 0,
    "cycle_cap": 1,
}


def default_params() -> dict[str, int]:
    """The defaults as a plain mapping (what ``GAME.default_params()`` returns)."""
    return Params().to_json()


def make_params(overrides: Mapping[str, Any] | None = None) -> Params:
    """The defaults merged with ``overrides``.

    Raises ``ValueError`` naming the parameter when a name is unknown, a value is not an
    integer, or it is below the parameter's minimum.
    """
    if not overrides:
        return _DEFAULT
    values: dict[str, int] = {}
    for name, value in overrides.items():
        if name not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise ValueError(f"unknown TempoFront parameter '{name}' (known: {known})")
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"TempoFront parameter '{name}' must be an integer, not {value!r}")
        if value < _MINIMUM[name]:
            raise ValueError(f"TempoFront parameter '{name}' must be at least {_MINIMUM[name]}, not {value}")
        values[name] = value
    params = Params(**values)
    if params.focus_max < params.focus_start:
        raise ValueError("TempoFront parameter 'focus_max' must be at least 'focus_start'")
    return params


_DEFAULT = Params()
