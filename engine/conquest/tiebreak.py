"""Match the Twos (RULINGS.md C11) as Conquest plays it: two cards match when they print
the same CQ (only units print a CQ: engine/conquest/site/rules.md, ruling R-Twos-1).

The procedure itself is the engine's, for every game (:mod:`engine.tiebreaks`); this
module gives it Conquest's numbers and runs the tiebreaks a match created with
``tiebreak = "deferred"`` left pending (:func:`break_ties`), which yields exactly what the
state decides itself with ``tiebreak = "inline"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import tiebreaks
from engine.core import Decklist, Outcome, Rng
from engine.tiebreaks import apply_tiebreaks, tiebreak_rng, tied_groups

__all__ = ["apply_tiebreaks", "break_ties", "deck_card_names", "match_the_twos", "tiebreak_rng", "tied_groups"]


def _printed_cq() -> dict[str, int | None]:
    from engine.conquest.pool import POOL  # cycle: engine.conquest.pool's package imports this module

    return {card.name: card.cq for card in POOL}


def match_the_twos(
    card_lists_by_seat: Mapping[int, Sequence[str]], rng: Rng, *, printed: Mapping[str, int | None] | None = None
) -> dict[str, Any]:
    """:func:`engine.tiebreaks.match_the_twos` comparing a Conquest unit's printed CQ, or
    the numbers ``printed`` gives. Raises ``ValueError`` for a card the pool does not know."""
    return tiebreaks.match_the_twos(card_lists_by_seat, rng, printed=_printed_cq() if printed is None else printed)


def deck_card_names(deck: Decklist) -> list[str]:
    """A decklist's cards (not its Celestial), one name per copy."""
    return [name for name, n in deck.cards for _ in range(n)]


def break_ties(outcome: Outcome, decks: Sequence[Decklist], seed: int) -> Outcome:
    """Run the tiebreaks a ``tiebreak = "deferred"`` match left pending.

    Yields exactly the outcome the same match would have reached with ``"inline"``.
    An outcome with nothing pending is returned unchanged.
    """
    if not outcome.detail.get("tiebreak_pending"):
        return outcome
    groups = outcome.detail.get("tied_groups") or tied_groups(outcome.places)
    results = [
        match_the_twos({s: deck_card_names(decks[s]) for s in group}, tiebreak_rng(seed, group))
        for group in groups
    ]
    return apply_tiebreaks(outcome, results)
