"""Conquest's rules parameters: every default number of the rules text and RULINGS.md.

"Every number here is a default. A card's text can change it - even the number of
Battles." One :class:`Params` object lives in each match state; it is built from
``GAME.default_params()`` merged with the match params, and card effects change it
mid-match through :meth:`Params.change`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# name -> (default, minimum, maximum); every parameter except ``tiebreak`` is an integer.
_INT_PARAMS: dict[str, tuple[int, int, int]] = {
    "battles": (3, 1, 12),  # C2: 3 Battles by default
    "draw_per_battle": (7, 0, 20),  # C3: "Everyone draws 7"
    "forward_locations": (4, 1, 6),  # Forward Skirmish: Locations 1-4
    "rear_locations": (3, 1, 6),  # Rear Skirmish: Locations 5-7
    "max_extra_locations": (3, 0, 6),  # how many Extra Locations one Battle may hold
    "mulligans": (1, 0, 3),  # "On the first Battle only, you may mulligan once"
    "deck_size": (40, 1, 200),  # C1: exactly 40 cards
    "max_copies": (3, 1, 40),  # C1: at most 3 copies of a card
    "plague_value": (-1, -10, 10),  # C7: a Plagued unit counts -1 at scoring
}

TIEBREAK_MODES = ("inline", "deferred")

# Parameters card text may change mid-match (the others fix the board or the deck rules).
CARD_CHANGEABLE = ("battles", "draw_per_battle", "max_extra_locations")


class Params:
    """The rules parameters of one match. Mutable: card effects change them."""

    __slots__ = tuple(_INT_PARAMS) + ("tiebreak",)

    battles: int
    draw_per_battle: int
    forward_locations: int
    rear_locations: int
    max_extra_locations: int
    mulligans: int
    deck_size: int
    max_copies: int
    plague_value: int
    tiebreak: str

    def __init__(self, values: Mapping[str, Any] | None = None):
        """Defaults overridden by ``values``; raises ``ValueError`` naming a bad parameter."""
        for name, (default, _, _) in _INT_PARAMS.items():
            setattr(self, name, default)
        self.tiebreak = "inline"
        for name, value in (values or {}).items():
            self._set_checked(name, value)

    def _set_checked(self, name: str, value: Any) -> None:
        if name == "tiebreak":
            if value not in TIEBREAK_MODES:
                raise ValueError(f"parameter 'tiebreak' must be one of {', '.join(TIEBREAK_MODES)}, not {value!r}")
            self.tiebreak = value
            return
        if name not in _INT_PARAMS:
            known = ", ".join(sorted((*_INT_PARAMS, "tiebreak")))
            raise ValueError(f"unknown Conquest parameter '{name}' (known: {known})")
        _, low, high = _INT_PARAMS[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"parameter '{name}' must be an integer, not {value!r}")
        if not low <= value <= high:
            raise ValueError(f"parameter '{name}' must be between {low} and {high}, not {value}")
        setattr(self, name, value)

    @staticmethod
    def defaults() -> dict[str, Any]:
        out: dict[str, Any] = {name: spec[0] for name, spec in _INT_PARAMS.items()}
        out["tiebreak"] = "inline"
        return out

    @staticmethod
    def bounds(name: str) -> tuple[int, int]:
        _, low, high = _INT_PARAMS[name]
        return low, high

    def change(self, name: str, amount: int) -> int:
        """Add ``amount`` to an integer parameter, clamped to its bounds; returns the new value."""
        _, low, high = _INT_PARAMS[name]
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
        return cls(data)

    def clone(self) -> Params:
        other = Params.__new__(Params)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Params) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Params({self.to_json()})"
