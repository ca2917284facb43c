"""Highcard, a tiny third game that lives in the tests only: the worked example of the
Game contract and of a game's own package (docs/games.md, "Adding a game").

Each player brings a Captain and six number cards (One to Five, at most two copies of a
card). Both decks are shuffled from the match seed and each player draws three cards;
the players then take turns playing one card from their hand, ``rounds`` times each
(a rules parameter, 1 to 3, default 3), drawing a card after each play. The highest
total of played numbers wins; equal totals share the place. Every card is public, so
``view`` shows everything and ``determinize`` is a copy.

Card usage (``Game.card_usage``, for the deck lab): a card is *drawn* when it enters a
hand (the three of the opening hand, one after each play) and *played* when it is played
from the hand; both are read from the game's public ``draw`` and ``play`` events.

Its looks are in this package's ``site/`` folder, found by the platform with no edit of
its own: the rules page (``site/rules.md``), a glossary (``site/glossary.toml``), the
rules index's blurb (``site/templates/highcard/guide/blurb.html``) and a board renderer
with its styles (``site/static/highcard/board.js``, ``highcard.css``).

:func:`register` makes it ``engine.games["highcard"]``; a worker started with
``--include tiny_game_registered`` (and ``tests/platform/games`` on its ``PYTHONPATH``)
knows it too. Importing this package registers nothing, so that collecting the tests
leaves the other tests with the two real games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import engine
from engine.core import (
    Action,
    CardUsage,
    DeckError,
    Decklist,
    Event,
    Game,
    IllegalAction,
    Outcome,
    ParamSpec,
    Rng,
    places_from_scores,
)

NAME = "highcard"
VALUES = {"One": 1, "Two": 2, "Three": 3, "Four": 4, "Five": 5}
CAPTAINS = ("Captain Red", "Captain Blue")
DECK_SIZE = 6
COPIES = 2
HAND = 3


class HighcardState:
    """One match of Highcard (the :class:`engine.core.State` contract)."""

    game = NAME

    def __init__(self, *, decks: list[list[str]], hands: list[list[str]], played: list[list[str]],
                 turn: int, rounds: int, rng: Rng):
        self.decks, self.hands, self.played = decks, hands, played
        self.turn, self.rounds, self.rng = turn, rounds, rng
        self.num_seats = len(decks)
        self.opening_events: list[Event] = []

    def to_act(self) -> tuple[int, ...]:
        return () if self.outcome is not None else (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        return [Action.of("play", card=card) for card in sorted(set(self.hands[seat]))]

    def apply(self, seat: int, action: Action) -> list[Event]:
        if self.outcome is not None:
            raise IllegalAction("the match is over", "Highcard end")
        if action.kind == "concede":
            self.played[seat] = ["concede"]
            return [Event("concede", f"Seat {seat} concedes")]
        if seat not in self.to_act():
            raise IllegalAction(f"it is seat {self.turn}'s turn, not seat {seat}'s", "Highcard turns")
        card = action.get("card")
        if action.kind != "play" or card not in self.hands[seat]:
            raise IllegalAction(f"seat {seat} cannot play {card!r}", "Highcard play")
        self.hands[seat].remove(card)
        self.played[seat].append(card)
        events = [Event("play", f"Seat {seat} plays {card}", {"seat": seat, "card": card})]
        if self.decks[seat]:
            events.append(_draw(self, seat))
        self.turn = (self.turn + 1) % self.num_seats
        return events

    @property
    def outcome(self) -> Outcome | None:
        conceded = [s for s, cards in enumerate(self.played) if cards == ["concede"]]
        if conceded:
            places = tuple(2 if s in conceded else 1 for s in range(self.num_seats))
            return Outcome(places=places, scores=(0,) * self.num_seats, reason="concession")
        if any(len(cards) < self.rounds for cards in self.played):
            return None
        scores = tuple(sum(VALUES[c] for c in cards) for cards in self.played)
        return Outcome(places=places_from_scores(scores), scores=scores, reason="highest total")

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"game": NAME, "turn": self.turn, "rounds": self.rounds,
                "seats": [{"hand": list(h), "played": list(p), "deck": len(d)}
                          for h, p, d in zip(self.hands, self.played, self.decks, strict=True)]}

    def clone(self) -> HighcardState:
        return HighcardState.from_json(self.to_json())

    def determinize(self, seat: int, rng: Rng) -> HighcardState:
        return self.clone()

    def to_json(self) -> dict[str, Any]:
        return {"decks": [list(d) for d in self.decks], "hands": [list(h) for h in self.hands],
                "played": [list(p) for p in self.played], "turn": self.turn, "rounds": self.rounds,
                "rng": self.rng.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HighcardState:
        return cls(decks=[list(d) for d in data["decks"]], hands=[list(h) for h in data["hands"]],
                   played=[list(p) for p in data["played"]], turn=int(data["turn"]), rounds=int(data["rounds"]),
                   rng=Rng.from_json(data["rng"]))


def _draw(state: HighcardState, seat: int) -> Event:
    card = state.decks[seat].pop()
    state.hands[seat].append(card)
    return Event("draw", f"Seat {seat} draws {card}", {"seat": seat, "card": card})


def _card_id(name: str) -> str:
    """A card's id, as ``cards()`` and the card pages name it."""
    return name.lower().replace(" ", "-")


class HighcardGame(Game):
    """Highcard's metadata, rules parameters, pool, deck rules and the contract's hooks."""

    name = NAME
    title = "Highcard"
    rules_version = "1"
    min_seats = 2
    max_seats = 2
    commander_label = "Captain"
    hidden_information = False
    art_hue = 130
    art_dots = "value"
    card_stats = (("value", "Value", "V"),)
    card_type_order = ("captain", "number")

    def param_specs(self) -> dict[str, ParamSpec]:
        return {"rounds": ParamSpec("rounds", 3, minimum=1, maximum=3, help="cards each player plays")}

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, Any] | None = None
                  ) -> HighcardState:
        rules = self.check_params(params)
        if len(decks) != 2:
            raise ValueError(f"Highcard is played by 2 players, not {len(decks)}")
        problems = [f"seat {seat}: {p}" for seat, deck in enumerate(decks) for p in self.validate_deck(deck, params)]
        if problems:
            raise DeckError(problems)
        rng = Rng(seed)
        piles = []
        for deck in decks:
            pile = sorted(name for name, n in deck.cards for _ in range(n))
            rng.shuffle(pile)
            piles.append(pile)
        state = HighcardState(decks=piles, hands=[[], []], played=[[], []], turn=0, rounds=rules["rounds"],
                              rng=rng)
        state.opening_events = [_draw(state, seat) for seat in range(2) for _ in range(HAND)]
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> HighcardState:
        return HighcardState.from_json(data)

    def card_names(self) -> list[str]:
        return [*CAPTAINS, *VALUES]

    def cards(self) -> list[dict[str, Any]]:
        captains = [{"id": _card_id(name), "name": name, "type": "captain",
                     "text": "Leads a Highcard deck."} for name in CAPTAINS]
        numbers = [{"id": _card_id(name), "name": name, "type": "number", "value": value,
                    "text": f"Worth {value} when played."} for name, value in VALUES.items()]
        return captains + numbers

    def starter_decks(self) -> dict[str, Decklist]:
        return {
            "Low Road": Decklist(commander="Captain Red", cards=(("One", 2), ("Two", 2), ("Three", 2)),
                                 name="Low Road"),
            "High Road": Decklist(commander="Captain Blue", cards=(("Three", 2), ("Four", 2), ("Five", 2)),
                                  name="High Road"),
        }

    def validate_deck(self, decklist: Decklist, params: Mapping[str, Any] | None = None) -> list[str]:
        self.check_params(params)
        problems = []
        if decklist.commander not in CAPTAINS:
            problems.append(f"a deck needs a Captain ({' or '.join(CAPTAINS)})")
        if decklist.size != DECK_SIZE:
            problems.append(f"a deck has exactly {DECK_SIZE} number cards, not {decklist.size}")
        for card, count in decklist.counts().items():
            if card not in VALUES:
                problems.append(f"'{card}' is not a number card")
            elif count > COPIES:
                problems.append(f"at most {COPIES} copies of {card}, not {count}")
        return problems

    def twos_numbers(self) -> dict[str, int | None]:
        return dict(VALUES)

    def card_usage_from_events(self, decks: Sequence[Decklist], events: Sequence[Event]) -> list[CardUsage]:
        """Drawn: entered the hand (``draw`` events); played: played from it (``play`` events)."""
        usage = [CardUsage() for _ in decks]
        for event in events:
            if event.kind == "draw":
                usage[event.data["seat"]].drawn[_card_id(event.data["card"])] += 1
            elif event.kind == "play":
                usage[event.data["seat"]].played[_card_id(event.data["card"])] += 1
        return usage


GAME = HighcardGame()


def register() -> None:
    """Make Highcard one of ``engine.games`` (again harmless)."""
    if NAME not in engine.games:
        engine.games.register(GAME)


def unregister() -> None:
    engine.games.unregister(NAME)
