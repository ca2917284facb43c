"""Small helpers shared by the Conquest tests: act by card name, read event texts."""

from __future__ import annotations

from collections.abc import Mapping

from engine.conquest import GAME
from engine.conquest.cards import slug
from engine.conquest.state import ConquestState
from engine.core import Action, Decklist, Event, Rng


def respond(state: ConquestState, seat: int, name: str) -> list[Event]:
    return state.apply(seat, Action.of("respond", card=slug(name)))


def pass_(state: ConquestState, seat: int) -> list[Event]:
    return state.apply(seat, Action.of("pass"))


def place(state: ConquestState, seat: int, picks: Mapping[int, str]) -> list[Event]:
    """Fill the seat's whole placement: ``picks`` maps Location numbers to card names."""
    events: list[Event] = []
    when = (state.battle, state.skirmish)
    while state.phase == "placement" and (state.battle, state.skirmish) == when and seat in state.to_act():
        number = state.legal_actions(seat)[0]["location"]
        card = slug(picks[number]) if number in picks else "empty"
        events += state.apply(seat, Action.of("place", card=card, location=number))
    return events


# A card in hand that makes its seat place in the next Placement, so that a position stops
# there instead of running on to the End of Battle.
STOPPER = "Recruit of the Line"


def public(events: list[Event]) -> list[str]:
    return [e.text for e in events if e.private_to is None]


def kinds(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def hand_names(state: ConquestState, seat: int) -> list[str]:
    return [c["name"] for c in state.view(seat)["hand"]]


def starters(n: int, offset: int = 0) -> list[Decklist]:
    decks = list(GAME.starter_decks().values())
    return [decks[(offset + i) % len(decks)] for i in range(n)]


def play_randomly(state: ConquestState, rng: Rng, *, until=None, max_actions: int = 20_000) -> list[Event]:
    """Apply random legal actions until the match ends or ``until(state)`` holds."""
    events: list[Event] = []
    for _ in range(max_actions):
        if state.outcome is not None or (until is not None and until(state)):
            return events
        seat = state.to_act()[0]
        events += state.apply(seat, rng.choice(state.legal_actions(seat)))
    raise AssertionError("a random playout did not end")
