"""TempoFront: the rules, the card pool (``cards/*.toml``) and the starter decks (``decks/*.txt``).

``GAME`` is the engine's :class:`~engine.core.Game` for TempoFront; ``TempoState`` is a
match; ``positions.position`` builds small positions for tests from card names.
"""

from engine.tempofront.cards import BY_NAME, CARDS, Card
from engine.tempofront.game import GAME, TempoFrontGame, deck_problems
from engine.tempofront.params import Params, default_params, make_params
from engine.tempofront.state import TempoState

__all__ = [
    "BY_NAME",
    "CARDS",
    "Card",
    "GAME",
    "Params",
    "TempoFrontGame",
    "TempoState",
    "deck_problems",
    "default_params",
    "make_params",
]
