"""Match the Twos (RULINGS.md C11): a tie between decklists broken by revealing their cards.

The procedure is the same for every game; what a game says is which number each card
prints (``Game.twos_numbers``). Each tied player shuffles their card list into a tiebreak
pile with a random stream derived from the match seed alone (:func:`tiebreak_rng`), so
that a platform can run the tiebreak outside the match state and get exactly what the
state would have decided itself.

Rounds: every player still tied reveals the top two cards of their pile; a player
*matches* when both cards print the same number (a card that prints none matches
nothing). The one matching player, or the one with the strictly highest matched number,
takes the best open place and leaves; the rest go on revealing from where they are. When
a pile cannot show two more cards the remaining players share the place.

This module imports no game package and nothing of ``engine.core`` at run time, so that
``engine.core.Game`` can use it directly.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.core import Outcome, Rng


def tiebreak_rng(seed: int, tied_seats: Sequence[int]) -> Rng:
    """The random stream of one tied group: a function of the match seed and the seats."""
    from engine.core import Rng  # cycle: engine.core imports this module at its top

    return Rng(seed).fork("match-the-twos", tuple(sorted(tied_seats)))


def card_key(name: str) -> str:
    """A card name's canonical sort key (its id: lower case, other runs one '-'): a pile is
    put in this order before it is shuffled, so the order of a list cannot matter."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def match_the_twos(
    card_lists_by_seat: Mapping[int, Sequence[str]], rng: Rng, *, printed: Mapping[str, int | None]
) -> dict[str, Any]:
    """Break one tie between the seats of ``card_lists_by_seat`` (seat -> card names).

    Two cards match when they print the same number, the one ``printed`` gives each card
    name (``Game.twos_numbers``; None matches nothing).

    Returns a JSON-able record: ``seats`` (the tied seats), ``order`` (seats that won a
    place, best first), ``shared`` (seats still tied when the piles ran out: they share
    the place after ``order``), ``rounds`` (every reveal: per round, each seat's two
    cards and its matched number or null, under the key ``matched_cq`` that stored
    records use, and the round's winner or null). Raises ``ValueError`` for a card name
    ``printed`` does not know.
    """
    seats = sorted(int(s) for s in card_lists_by_seat)
    piles: dict[int, list[str]] = {}
    for seat in seats:
        cards = list(card_lists_by_seat[seat])
        for name in cards:
            if name not in printed:
                raise ValueError(f"Match the Twos: unknown card '{name}' in seat {seat}'s list")
        cards.sort(key=card_key)
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
    return dataclasses.replace(outcome, places=tuple(places), detail=detail)
