"""Which cards each seat drew and played in a finished Conquest match, read from its events.

The definitions, with the rules text they follow, are on the rules page
(engine/conquest/site/rules.md, "Cards drawn and played"). In short:

- **drawn**: a card drawn into the hand: the draw that opens each Battle ("Everyone draws
  7 to open the Battle", C3) and card draws. A hand given back by a mulligan ("shuffle
  back and redraw 7") was never playable and does not count; cards that were already in
  hand from an earlier Battle stay counted. A card drawn again after the discard pile
  became the deck counts again.
- **played**: a unit placed at a Location (counted when the placement locks, face down:
  the player committed it there whether or not it is revealed later) and a Lightspeed
  card played in a response window. A Celestial is not drawn and not counted (it is the
  deck's commander, outside the 40 cards); a Black Energy Fragment that goes up to the
  Upload Zone is uploaded, not played.

Only a draw puts a card into the hand and a card played leaves the hand for the battle
zone or the discard pile, so every card played was drawn: ``played[c] <= drawn[c]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.core import CardUsage, Event


def card_usage(events: Sequence[Event], seats: int) -> list[CardUsage]:
    """Per seat, the cards drawn and played in the match whose events (opening events
    first, private ones included) are ``events``."""
    usage = [CardUsage() for _ in range(seats)]
    # The cards drawn since the Battle began, until its first Skirmish: a mulligan gives them back.
    opening: list[Counter[str] | None] = [None] * seats
    # A seat's picks of the placement being built: played when the placement locks.
    picks: list[list[str]] = [[] for _ in range(seats)]
    for event in events:
        kind = event.kind
        if kind == "draw":
            if event.private_to is None:
                continue  # the public "Seat 1 drew 7 cards"
            data = event.data
            seat = data["seat"]
            usage[seat].drawn.update(data["cards"])
            hand = opening[seat]
            if hand is not None:
                hand.update(data["cards"])
        elif kind == "pick":
            card = event.data.get("card") if event.data else None
            if card is not None and event.private_to is not None:
                picks[event.private_to].append(card)
        elif kind == "placed":
            seat = event.data["seat"]
            usage[seat].played.update(picks[seat])
            picks[seat] = []
        elif kind == "respond":
            usage[event.data["seat"]].played[event.data["card"]] += 1
        elif kind == "mulligan":
            seat = event.data["seat"]
            hand = opening[seat]
            if hand is not None:
                usage[seat].drawn -= hand
                hand.clear()
        elif kind == "battle":
            opening = [Counter() for _ in range(seats)]
        elif kind == "skirmish":
            opening = [None] * seats
    return usage
