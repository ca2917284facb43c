"""Match the Twos between registered decklists, for ties that matter in a tournament.

Conquest decks use the engine's own procedure (``engine.conquest.tiebreak``: a pair of
revealed units matches when both print the same CQ). TempoFront cards print no CQ, so
for TempoFront events the same procedure compares each card's printed Time cost
(docs/tournaments.md, "Tiebreaks"). The random stream is the tournament seed's, forked
for the tied entries, so the tiebreak can be run again and gives the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Decklist, Rng


def _card_lists(decks: Mapping[int, Decklist]) -> dict[int, list[str]]:
    return {entry: [name for name, n in deck.cards for _ in range(n)] for entry, deck in decks.items()}


def run_match_the_twos(*, game: str, decks: Mapping[int, Decklist], seed: int) -> dict[str, Any]:
    """The Match the Twos record between ``decks`` (entry id -> decklist): ``seats`` (entry
    ids), ``order`` (best first), ``shared`` (still tied when the piles ran out), ``rounds``
    (every reveal)."""
    from engine.conquest.tiebreak import match_the_twos

    rng = Rng(seed).fork("match-the-twos", tuple(sorted(decks)))
    lists = _card_lists(decks)
    if game == "conquest":
        return match_the_twos(lists, rng)
    from engine.tempofront.cards import BY_NAME

    return match_the_twos(lists, rng, printed={name: card.time for name, card in BY_NAME.items()})
