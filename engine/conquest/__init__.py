"""Conquest: the game of Battles, Skirmishes, Locations, Celestials and the Conquest Pool.

``GAME`` is the :class:`engine.core.Game` the registry serves as ``engine.games["conquest"]``.
:func:`match_the_twos` and :func:`break_ties` run the tiebreak (RULINGS.md C11) outside a
match, for tournaments and for matches created with ``tiebreak = "deferred"``.
"""

from engine.conquest.game import ConquestGame
from engine.conquest.params import Params
from engine.conquest.state import ConquestState
from engine.conquest.tiebreak import apply_tiebreaks, break_ties, match_the_twos, tiebreak_rng, tied_groups

GAME = ConquestGame()

__all__ = [
    "GAME",
    "ConquestGame",
    "ConquestState",
    "Params",
    "apply_tiebreaks",
    "break_ties",
    "match_the_twos",
    "tiebreak_rng",
    "tied_groups",
]
