"""Match the Twos (RULINGS.md C11): Conquest's tiebreak, also usable on its own.

Each tied player shuffles their 40-card list into a tiebreak pile with a random stream
derived from the match seed alone, ``Rng(seed).fork("match-the-twos", tied_seats)``, so
that the platform can run the tiebreak outside the match state (``tiebreak = "deferred"``)
and get exactly what the state would have decided itself (``tiebreak = "inline"``).

Rounds: every player still tied reveals the top two cards of their pile; a player
*matches* when both cards print the same CQ (only units print a CQ: docs/rules/conquest.md,
ruling R-Twos-1). The one matching player, or the one with the strictly highest matched
CQ, takes the best open place and leaves; the rest go on revealing from where they are
(R-Twos-2). When a pile cannot show two more cards the remaining players share the place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Decklist, Outcome, Rng


def tiebreak_rng(seed: int, tied_seats: Sequence[int]) -> Rng:
    """The random stream of one tied group: a function of the match seed and the seats."""
    return Rng(seed).fork("match-the-twos", tuple(sorted(tied_seats)))


def _printed_cq() -> dict[str, int | None]:
    from engine.conquest.pool import POOL  # cycle: engine.conquest.pool's package imports this module

    return {card.name: card.cq for card in POOL}


def match_the_twos(
    card_lists_by_seat: Mapping[int, Sequence[str]], rng: Rng, *, printed: Mapping[str, int | None] | None = None
) -> dict[str, Any]:
    """Break one tie between the seats of ``card_lists_by_seat`` (seat -> card names).

    Two cards match when they print the same number: a Conquest unit's CQ by default, or
    the number ``printed`` gives each card name (tournaments of a game whose cards print
    no CQ compare another printed number the same way).

    Returns a JSON-able record: ``seats`` (the tied seats), ``order`` (seats that won a
    place, best first), ``shared`` (seats still tied when the piles ran out: they share
    the place after ``order``), ``rounds`` (every reveal: per round, each seat's two
    cards and its matched CQ or null, and the round's winner or null). Raises
    ``ValueError`` for a card name the pool does not know.
    """
    printed = _printed_cq() if printed is None else printed
    seats = sorted(int(s) for s in card_lists_by_seat)
    from engine.conquest.cards import slug  # cycle: engine.conquest.cards's package imports this module

    piles: dict[int, list[str]] = {}
    for seat in seats:
        cards = list(card_lists_by_seat[seat])
        for name in cards:
            if name not in printed:
                raise ValueError(f"Match the Twos: unknown card '{name}' in seat {seat}'s list")
        cards.sort(key=slug)  # canonical order first, so that the list's order cannot matter
        rng.shuffle(cards)
        piles[seat] = cards
    remaining = list(seats)
    order: list[int] = []
    rounds: list[dict[str, Any]] = []
    top = 0
    while len(remaining) > 1:
        if any(len(piles[s]) - top < 2 for s in remaining):
            break
        reveals = []
        best: int | None = None
        best_seats: list[int] = []
        for seat in remaining:
            first, second = piles[seat][top], piles[seat][top + 1]
            a, b = printed[first], printed[second]
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


def tied_groups(places: Sequence[int]) -> list[list[int]]:
    """Groups of seats sharing a place, best place first, seats ascending."""
    by_place: dict[int, list[int]] = {}
    for seat, place in enumerate(places):
        by_place.setdefault(place, []).append(seat)
    return [by_place[p] for p in sorted(by_place) if len(by_place[p]) > 1]


def apply_tiebreaks(outcome: Outcome, results: Sequence[Mapping[str, Any]]) -> Outcome:
    """The final outcome from an outcome whose only ties are those ``results`` broke.

    Each result is a :func:`match_the_twos` record for one tied group: its ``order``
    takes the group's places one by one, ``shared`` share the next. ``detail`` gains
    ``match_the_twos`` (the records) and loses ``tiebreak_pending``.
    """
    places = list(outcome.places)
    for result in results:
        group = result["seats"]
        base = min(places[s] for s in group)
        for i, seat in enumerate(result["order"]):
            places[seat] = base + i
        for seat in result["shared"]:
            places[seat] = base + len(result["order"])
    detail = {k: v for k, v in outcome.detail.items() if k != "tiebreak_pending"}
    detail["match_the_twos"] = [dict(r) for r in results]
    return Outcome(places=tuple(places), scores=outcome.scores, reason=outcome.reason, detail=detail)


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
