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
    rng = Rng(seed).fork("match-the-twos", tuple(sorted(decks)))
    lists = _card_lists(decks)
    if game == "conquest":
        from engine.conquest.tiebreak import match_the_twos

        return match_the_twos(lists, rng)
    from engine.tempofront.cards import BY_NAME

    return _match_the_twos_by({name: card.time for name, card in BY_NAME.items()}, lists, rng)


def _match_the_twos_by(printed: Mapping[str, int | None], lists: Mapping[int, list[str]], rng: Rng) -> dict[str, Any]:
    """The engine's Match the Twos rounds with another printed number per card."""
    seats = sorted(lists)
    piles: dict[int, list[str]] = {}
    for seat in seats:
        cards = sorted(lists[seat])  # a canonical order first, so that the list's order cannot matter
        rng.shuffle(cards)
        piles[seat] = cards
    remaining, order, rounds, top = list(seats), [], [], 0
    while len(remaining) > 1 and all(len(piles[s]) - top >= 2 for s in remaining):
        reveals, best, best_seats = [], None, []
        for seat in remaining:
            first, second = piles[seat][top], piles[seat][top + 1]
            a, b = printed.get(first), printed.get(second)
            matched = a if a is not None and a == b else None
            reveals.append({"seat": seat, "cards": [first, second], "matched_cq": matched})
            if matched is not None:
                if best is None or matched > best:
                    best, best_seats = matched, [seat]
                elif matched == best:
                    best_seats.append(seat)
        top += 2
        winner = best_seats[0] if len(best_seats) == 1 else None
        rounds.append({"round": len(rounds) + 1, "reveals": reveals, "winner": winner})
        if winner is not None:
            order.append(winner)
            remaining.remove(winner)
    if len(remaining) == 1:
        order.append(remaining.pop())
    return {"seats": seats, "order": order, "shared": remaining, "rounds": rounds}
