"""TempoFront's rules parameters: every default number of RULINGS.md T1-T18 in one object.

A match is created from :func:`make_params` (the defaults merged with the match's own
parameters), and the rules read every number from it: no number of the rules is written
anywhere else in the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.core import ParamSpec, check_param_values


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


def _spec(name: str, minimum: int, maximum: int, help: str) -> ParamSpec:
    return ParamSpec(name, _FIELDS[name].default, minimum, maximum, help=help)


#: The one declaration of every parameter: default, the organisers' range and what it means.
#: Ranges and their reasons: engine/tempofront/site/rules.md ("Rules parameters"), checked by a test.
SPECS: dict[str, ParamSpec] = {
    spec.name: spec
    for spec in (
        _spec("integrity", 1, 60, "Integrity each Leader starts with (T16)"),
        _spec("timeline", 4, 24, "Length of the shared Timeline in Time (T3)"),
        _spec("dominion_to_win", 1, 12, "Dominion that wins at scoring (T10)"),
        _spec("fronts_for_dominion", 1, 3, "Fronts a player must lead to gain Dominion"),
        _spec("dominion_per_cycle", 0, 3, "Dominion gained per Cycle by leading enough Fronts"),
        _spec("focus_start", 0, 10, "Maximum Focus in Cycle 1 (T2)"),
        _spec("focus_growth", 0, 3, "Growth of maximum Focus each Cycle (T2)"),
        _spec("focus_max", 0, 15, "Cap on maximum Focus (T2); at least focus_start"),
        _spec("deck_size", 10, 60, "Cards in a deck besides the Leader (T1)"),
        _spec("max_copies", 1, 10, "Copies of one card a deck may hold (T1)"),
        _spec("opening_hand", 0, 10, "Cards in the opening hand (T1)"),
        _spec("mulligans", 0, 3, "Mulligans each player may take at setup (T1)"),
        _spec("draw_per_cycle", 0, 5, "Cards each player draws from Cycle 2 on (T2)"),
        _spec("strike_time", 1, 12, "Time cost of a Strike (T3)"),
        _spec("shift_time", 1, 12, "Time cost of a Shift (T3)"),
        _spec("shift_time_mobile", 0, 12, "Time cost of a Shift for a Mobile Entity"),
        _spec("prepare_time", 1, 12, "Time cost of Prepare (T3)"),
        _spec("max_reactions", 0, 4, "Reactions per response window (Counter-Response)"),
        _spec("cycle_cap", 1, 40, "Safety cap: the match ends after this Cycle (T10)"),
    )
}


def default_params() -> dict[str, int]:
    """The defaults as a plain mapping (what ``GAME.default_params()`` returns)."""
    return Params().to_json()


def check_params(values: Mapping[str, Any] | None) -> dict[str, int]:
    """The complete parameters for ``values``, each within its declared range.

    Raises ``ValueError`` naming the parameter and the bound; cheap (no game is set up)."""
    out = check_param_values("TempoFront", SPECS, values)
    if out["focus_max"] < out["focus_start"]:
        raise ValueError(f"parameter 'focus_max' must be at least focus_start ({out['focus_start']}), "
                         f"not {out['focus_max']}")
    return out  # type: ignore[return-value]


def make_params(overrides: Mapping[str, Any] | None = None) -> Params:
    """The defaults merged with ``overrides``, checked by :func:`check_params`."""
    if not overrides:
        return _DEFAULT
    return Params(**check_params(overrides))


_DEFAULT = Params()
