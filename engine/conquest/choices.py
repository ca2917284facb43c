"""Conquest's placement as one decision: the choices of every Location at once.

Simultaneous placement (engine/conquest/site/rules.md) is a run of ``place`` actions, one per
Location of the seat, each a ``card`` (or ``"empty"``) at the next ``location``. A person
chooses the whole placement on the board and the board sends the picks one by one;
:func:`placement_choices` lays out what the engine will accept, so that the board never
offers a pick the engine refuses. ``ConquestGame.decision_steps`` answers with it.
"""

from __future__ import annotations

from typing import Any

from engine.conquest.state import EMPTY
from engine.core import Action, Event, State


def _placing(actions: list[Action]) -> bool:
    return bool(actions) and all(a.kind == "place" and a.get("location") is not None and a.get("card") is not None
                                 for a in actions)


def _confirmed(events: list[Event], seat: int) -> bool:
    """True when ``events`` (of one pick) include the seat's placement being confirmed."""
    return any(e.kind == "confirm" and (e.data or {}).get("seat") == seat for e in events)


def placement_choices(state: State, seat: int) -> dict[str, Any] | None:
    """What ``seat`` may place at each Location it still has to fill, when its decision is a
    placement (every legal action a ``place`` of a ``card``, or ``"empty"``, at the next
    ``location``); else None.

    ``{"locations": [{"location": 1, "cards": ["shieldbearer", ...]}, ...],
    "copies": {"shieldbearer": 2, ...}}``: the cards the engine accepts at each Location
    (every earlier one left empty), and at how many of these Locations each card can go in
    all (its copies in hand not yet picked). Both come from the engine's legal actions on
    clones of ``state``, which is not changed: a client that offers a card at a Location
    only where it is listed, and while it is chosen fewer than ``copies`` times elsewhere,
    sends only placements the engine accepts. It tells of the seat's own hand: it belongs
    in that seat's view only.
    """
    legal = state.legal_actions(seat)
    if not _placing(legal):
        return None
    locations: list[dict[str, Any]] = []
    probe, options = state.clone(), legal
    while True:
        number = options[0].get("location")
        locations.append({"location": number, "cards": [a.get("card") for a in options if a.get("card") != EMPTY]})
        empty = next((a for a in options if a.get("card") == EMPTY), None)
        if empty is None:
            break
        events = probe.apply(seat, empty)
        if probe.outcome is not None or seat not in probe.to_act() or _confirmed(events, seat):
            # That was the last Location: the placement is submitted. The seat may be to act
            # again at once (the last seat to confirm an empty placement starts the next
            # Skirmish's), but those Locations belong to another decision.
            break
        options = probe.legal_actions(seat)
        if not _placing(options) or options[0].get("location") == number:
            break
    cards = list(dict.fromkeys(card for loc in locations for card in loc["cards"]))
    copies: dict[str, int] = {}
    for card in cards:
        # Put this card at every Location that takes it, in order, until the engine refuses it.
        probe, count = state.clone(), 0
        for position in range(len(locations)):
            options = probe.legal_actions(seat)
            pick = next((a for a in options if a.get("card") == card), None)
            count += pick is not None
            if position == len(locations) - 1:
                break
            step = pick or next((a for a in options if a.get("card") == EMPTY), None)
            if step is None:
                break
            probe.apply(seat, step)
        copies[card] = count
    return {"locations": locations, "copies": copies}
