"""Conquest's rules parameters: every default number of the rules text and RULINGS.md.

"Every number here is a default. A card's text can change it - even the number of
Battles." One :class:`Params` object lives in each match state; it is built from the match
params checked by :func:`check_params` (the organisers' range, :data:`SPECS`), and card
effects change it mid-match through :meth:`Params.change`.

Two kinds of bound, documented in engine/conquest/site/rules.md ("Rules parameters"):

- :data:`SPECS` holds the range organisers may choose from for a match (tournament and
  challenge parameters use exactly this range);
- :data:`SAFETY` holds the engine's safety bound on what card text can reach. A card
  changes a rules number at most once per match for each player (R-Param), so the most a
  match can reach is the organisers' range widened by the pool's changes times four seats;
  the pool loader refuses card data that could reach the safety bound, so no card clamps.
  Below the organisers' minimum, counts stop at their natural floor (no fewer than 0 cards
  drawn, no fewer than 1 Battle).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import ParamSpec, check_param_values

TIEBREAK_MODES = ("inline", "deferred")

#: The one declaration of every parameter (default, organisers' range, meaning).
SPECS: dict[str, ParamSpec] = {
    spec.name: spec
    for spec in (
        ParamSpec("battles", 3, 1, 10, help="Battles in the match (C2)", card_changeable=True),
        ParamSpec("draw_per_battle", 7, 0, 15, help="Cards each player draws at the start of every Battle (C3)",
                  card_changeable=True),
        ParamSpec("forward_locations", 4, 1, 5, help="Locations in the Forward Skirmish (numbered first)",
                  card_changeable=True),
        ParamSpec("rear_locations", 3, 1, 5, help="Locations in the Rear Skirmish (numbered after the Forward ones)",
                  card_changeable=True),
        ParamSpec("max_extra_locations", 3, 0, 4, help="Most Extra Locations one Battle may hold",
                  card_changeable=True),
        ParamSpec("mulligans", 1, 0, 2, help="Mulligans each player may take in a Battle that allows them",
                  card_changeable=True),
        ParamSpec("mulligan_battles", 1, 0, 10, help="Mulligans are allowed in the first this many Battles",
                  card_changeable=True),
        ParamSpec("responses_per_window", 1, 0, 2, help="Lightspeed cards each opponent may play in one "
                  "response window (C6)", card_changeable=True),
        ParamSpec("plague_value", -1, -10, 10, help="What a Plagued unit counts at scoring (C7)",
                  card_changeable=True),
        ParamSpec("deck_size", 40, 10, 100, help="Cards in a deck besides the Celestial (C1)"),
        ParamSpec("max_copies", 3, 1, 20, help="Copies of one card a deck may hold (C1)"),
        ParamSpec("tiebreak", "inline", choices=TIEBREAK_MODES, organiser=False,
                  help="Match the Twos inside the match (inline) or left to the platform (deferred)"),
    )
}

#: Parameters card text may change mid-match (deck rules and the tiebreak mode are fixed).
CARD_CHANGEABLE = tuple(name for name, spec in SPECS.items() if spec.card_changeable)

#: The engine's safety bound (low, high) for each card-changeable parameter. No card of
#: the pool can reach it (``reachable_range`` + the pool check in ``engine.conquest.pool``);
#: the low end is the count's natural floor. Why these numbers: engine/conquest/site/rules.md.
SAFETY: dict[str, tuple[int, int]] = {
    "battles": (1, 50),
    "draw_per_battle": (0, 60),
    "forward_locations": (0, 16),
    "rear_locations": (0, 16),
    "max_extra_locations": (0, 16),
    "mulligans": (0, 10),
    "mulligan_battles": (0, 50),
    "responses_per_window": (0, 10),
    "plague_value": (-40, 40),
}

#: Most seats in a match: each of them may apply each card's change once (R-Param).
MAX_SEATS = 4

_INT_NAMES = tuple(name for name, spec in SPECS.items() if spec.choices is None)


def check_params(values: Mapping[str, Any] | None) -> dict[str, Any]:
    """The complete match parameters for ``values``, each within the organisers' range.

    Raises ``ValueError`` naming the parameter and the bound; cheap (no game is set up)."""
    return check_param_values("Conquest", SPECS, values)


def reachable_range(name: str, pool_changes: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """The lowest and highest value card text can give ``name`` in one match.

    ``pool_changes[name]`` is (sum of the pool's decreases, sum of its increases) of one
    player applying every card once; every seat may do so (R-Param)."""
    spec = SPECS[name]
    down, up = pool_changes.get(name, (0, 0))
    return spec.minimum - MAX_SEATS * down, spec.maximum + MAX_SEATS * up  # type: ignore[operator]


class Params:
    """The rules parameters of one match. Mutable: card effects change them."""

    __slots__ = _INT_NAMES + ("tiebreak",)

    battles: int
    draw_per_battle: int
    forward_locations: int
    rear_locations: int
    max_extra_locations: int
    mulligans: int
    mulligan_battles: int
    responses_per_window: int
    plague_value: int
    deck_size: int
    max_copies: int
    tiebreak: str

    def __init__(self, values: Mapping[str, Any] | None = None):
        """Defaults overridden by ``values``, checked against the organisers' range
        (``ValueError`` naming the parameter and the bound)."""
        for name, value in check_params(values).items():
            setattr(self, name, value)

    @staticmethod
    def defaults() -> dict[str, Any]:
        return {name: spec.default for name, spec in SPECS.items()}

    @staticmethod
    def bounds(name: str) -> tuple[int, int]:
        """The organisers' range of ``name``."""
        spec = SPECS[name]
        return spec.minimum, spec.maximum  # type: ignore[return-value]

    def change(self, name: str, amount: int) -> int:
        """Add ``amount`` to a card-changeable parameter; returns the new value.

        The result stays within :data:`SAFETY`: the low end is the count's natural floor,
        the high end is out of reach of every card in the pool (checked when it loads)."""
        low, high = SAFETY[name]
        value = min(high, max(low, getattr(self, name) + amount))
        setattr(self, name, value)
        return value

    @property
    def total_locations(self) -> int:
        return self.forward_locations + self.rear_locations

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Params:
        """A saved state's parameters: card changes may have left the organisers' range,
        so values are checked against the safety bound (and defaults fill a missing name)."""
        params = cls.__new__(cls)
        for name, spec in SPECS.items():
            value = data.get(name, spec.default)
            if name in SAFETY:
                low, high = SAFETY[name]
                if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                    raise ValueError(f"parameter '{name}' must be between {low} and {high}, not {value!r}")
            else:
                spec.check(value)
            setattr(params, name, value)
        return params

    def clone(self) -> Params:
        other = Params.__new__(Params)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Params) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Params({self.to_json()})"
