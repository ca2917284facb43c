"""Which cards each seat drew and played in a finished TempoFront match, read from its events.

The definitions, with the rules text they follow, are on the rules page
(engine/tempofront/site/rules.md, "Cards drawn and played"). In short:

- **drawn**: a card that entered its player's hand from the deck: the opening hand kept
  after the mulligans (T1), the Cycle draws (T2), card draws, and the card a Scout puts
  into the hand (Exact rule: Scout N). A hand given back by a mulligan was never
  playable and does not count; a Prepared card returning from the Reserve was already
  drawn.
- **played**: a card declared from hand or Reserve and paid for: an Entity deployed, a
  Tactic, Attachment or Site played, a Reaction in a response window, whether it then
  resolves, fizzles or is cancelled. Preparing a card moves it to the Reserve and is not
  a play; Leader abilities and activated abilities are not cards played.

No card leaves the deck except by these draws and no card returns to the hand once
played, so every card played was drawn: ``played[c] <= drawn[c]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.core import CardUsage, Event

#: The declared actions that play a card from hand or Reserve (``declare`` events' ``kind``).
PLAYED_KINDS = frozenset({"deploy", "tactic", "attach", "site", "reaction"})


def card_usage(events: Sequence[Event], seats: int = 2) -> list[CardUsage]:
    """Per seat, the cards drawn and played in the match whose events (opening events
    first, private ones included) are ``events``."""
    usage = [CardUsage() for _ in range(seats)]
    # The opening hand (and its redraws) until the first Cycle begins: a mulligan gives it back.
    opening: list[Counter[str] | None] = [Counter() for _ in range(seats)]
    for event in events:
        kind = event.kind
        if kind == "declare":
            data = event.data
            if data and data.get("kind") in PLAYED_KINDS:
                usage[data["seat"]].played[data["card"]] += 1
        elif kind == "draw":
            if event.private_to is None:
                continue  # the public "Seat 1 drew 2 cards"
            data = event.data
            seat = data["seat"]
            usage[seat].drawn.update(data["cards"])
            hand = opening[seat]
            if hand is not None:
                hand.update(data["cards"])
        elif kind == "scout":
            data = event.data
            # "You took ..." and "You scouted and took ...": private, with the card taken.
            if event.private_to is not None and data and "card" in data:
                usage[data["seat"]].drawn[data["card"]] += 1
        elif kind == "mulligan":
            data = event.data
            hand = opening[data["seat"]]
            if data.get("mulligan") and hand is not None:
                usage[data["seat"]].drawn -= hand
                hand.clear()
        elif kind == "cycle":
            opening = [None] * seats
    return usage
