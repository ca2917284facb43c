"""Match the Twos between registered decklists, for ties that matter in a tournament.

The game says what two revealed cards compare (``Game.twos_numbers``: a number each card
prints; docs/tournaments.md, "Tiebreaks") and runs the engine's procedure
(``Game.match_the_twos``, :mod:`engine.tiebreaks`). The random stream is the
tournament seed's, forked for the tied entries, so the tiebreak can be run again and
gives the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import games
from engine.core import Decklist, Rng


def _card_lists(decks: Mapping[int, Decklist]) -> dict[int, list[str]]:
    return {entry: [name for name, n in deck.cards for _ in range(n)] for entry, deck in decks.items()}


def run_match_the_twos(*, game: str, decks: Mapping[int, Decklist], seed: int) -> dict[str, Any]:
    """The Match the Twos record between ``decks`` (entry id -> decklist): ``seats`` (entry
    ids), ``order`` (best first), ``shared`` (still tied when the piles ran out), ``rounds``
    (every reveal)."""
    rng = Rng(seed).fork("match-the-twos", tuple(sorted(decks)))
    return games[game].match_the_twos(_card_lists(decks), rng)
