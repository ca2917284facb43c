"""Lanterns: a tiny hidden-information card game that exercises every bot code path.

It stands in for TempoFront and Conquest in the bot tests: hidden hands and decks, face-down
cards, simultaneous placement, a response window in which the seat to act is not the one
that revealed, a seeded random stream, 2 to 4 seats and concession, all on the contract of
engine/core.py.

Rules. Every seat has a deck of numbered cards (values 1 to 9, from its decklist: the card
named "Lantern 7" is worth 7). Everyone draws 3. Each of ``rounds`` rounds:

1. Placement (simultaneous): every seat places one card from hand face down.
2. Reveal: all placed cards turn face up. The highest value leads; ties lead together.
3. Response window: every seat that does not lead, in seat order, may boost once (discard
   a card from hand to add 2 to its placed card) or pass.
4. Scoring: the seats with the highest final value score 1 point each; every seat draws 1.

After the last round, seats rank by points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import (
    CONCEDE,
    Action,
    Decklist,
    Event,
    Game,
    IllegalAction,
    Outcome,
    Rng,
    places_from_scores,
)

CARD_VALUES = {f"Lantern {v}": v for v in range(1, 10)}
PLACE, BOOST, PASS = "place", "boost", "pass"


class LanternsState:
    """One Lanterns match. Hidden: hands, decks (including one's own order), face-down cards."""

    game = "lanterns"

    def __init__(self, num_seats: int, rounds: int, rng: Rng):
        self.num_seats = num_seats
        self.rounds = rounds
        self.round = 1
        self.phase = PLACE
        self.rng = rng
        self.hands: list[list[int]] = [[] for _ in range(num_seats)]
        self.decks: list[list[int]] = [[] for _ in range(num_seats)]
        self.placed: list[int | None] = [None] * num_seats
        self.boosted: list[bool] = [False] * num_seats
        self.responded: list[bool] = [False] * num_seats
        self.points: list[int] = [0] * num_seats
        self.discards: list[list[int]] = [[] for _ in range(num_seats)]
        self._outcome: Outcome | None = None
        self.opening_events: list[Event] = []

    # ------------------------------------------------------------------ queries

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    def _leaders(self) -> list[int]:
        best = max(v for v in self.placed if v is not None)
        return [s for s, v in enumerate(self.placed) if v == best]

    def _responders(self) -> list[int]:
        leaders = self._leaders()
        return [s for s in range(self.num_seats) if s not in leaders and not self.responded[s] and self.hands[s]]

    def to_act(self) -> tuple[int, ...]:
        if self._outcome is not None:
            return ()
        if self.phase == PLACE:
            return tuple(s for s in range(self.num_seats) if self.placed[s] is None)
        responders = self._responders()
        return (responders[0],) if responders else ()

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        cards = sorted(set(self.hands[seat]))
        if self.phase == PLACE:
            return [Action.of(PLACE, card=f"Lantern {v}") for v in cards]
        return [Action.of(PASS)] + [Action.of(BOOST, card=f"Lantern {v}") for v in cards]

    # ------------------------------------------------------------------ moves

    def apply(self, seat: int, action: Action) -> list[Event]:
        if action.kind == CONCEDE:
            if self._outcome is not None or not 0 <= seat < self.num_seats:
                raise IllegalAction("the match is over", "concession")
            order = sorted((s for s in range(self.num_seats) if s != seat), key=lambda s: -self.points[s])
            places = [0] * self.num_seats
            ranked = order + [seat]
            for place, s in enumerate(ranked, start=1):
                places[s] = place
            self._outcome = Outcome(tuple(places), tuple(self.points), "concession",
                                    {"seat": seat, "reason": action.get("reason", "")})
            return [Event("concede", f"Seat {seat} conceded")]
        if action not in self.legal_actions(seat):
            raise IllegalAction(f"{action} is not legal for seat {seat} now", "Lanterns turn order")
        value = CARD_VALUES[action["card"]] if action.kind != PASS else 0
        events: list[Event] = []
        if action.kind == PLACE:
            self.hands[seat].remove(value)
            self.placed[seat] = value
            events.append(Event("place", f"Seat {seat} placed a card face down"))
            if all(v is not None for v in self.placed):
                self.phase = BOOST
                events.append(Event("reveal", f"Revealed {self.placed}"))
                if not self._responders():
                    events += self._score()
        else:
            self.responded[seat] = True
            if action.kind == BOOST:
                self.hands[seat].remove(value)
                self.discards[seat].append(value)
                self.placed[seat] += 2
                events.append(Event("boost", f"Seat {seat} boosted with Lantern {value}"))
            if not self._responders():
                events += self._score()
        return events

    def _score(self) -> list[Event]:
        leaders = self._leaders()
        for s in leaders:
            self.points[s] += 1
        for s in range(self.num_seats):
            self.discards[s].append(self.placed[s])
            if self.decks[s]:
                self.hands[s].append(self.decks[s].pop())
        self.placed = [None] * self.num_seats
        self.responded = [False] * self.num_seats
        self.phase = PLACE
        events = [Event("score", f"Round {self.round} to seats {leaders}")]
        if self.round == self.rounds or any(not h for h in self.hands):
            places = places_from_scores(self.points)
            self._outcome = Outcome(places, tuple(self.points), "points")
        else:
            self.round += 1
        return events

    # ------------------------------------------------------------------ information

    def view(self, seat: int | None) -> dict[str, Any]:
        seats = []
        for s in range(self.num_seats):
            mine = s == seat
            entry: dict[str, Any] = {
                "points": self.points[s],
                "deck": len(self.decks[s]),
                "hand_count": len(self.hands[s]),
                "discard": list(self.discards[s]),
                "placed": self.placed[s] if (mine or self.phase == BOOST) else self.placed[s] is not None,
                "responded": self.responded[s],
            }
            if mine:
                entry["hand"] = sorted(self.hands[s])
            seats.append(entry)
        return {"round": self.round, "phase": self.phase, "to_act": list(self.to_act()), "seats": seats}

    def determinize(self, seat: int, rng: Rng) -> LanternsState:
        out = self.clone()
        face_down = self.phase == PLACE
        unseen: list[int] = []
        for s in range(self.num_seats):
            unseen += self.decks[s]
            if s != seat:
                unseen += self.hands[s]
                if face_down and self.placed[s] is not None:
                    unseen.append(self.placed[s])
        unseen.sort()
        rng.shuffle(unseen)
        for s in range(self.num_seats):
            out.decks[s] = [unseen.pop() for _ in self.decks[s]]
            if s != seat:
                out.hands[s] = [unseen.pop() for _ in self.hands[s]]
                if face_down and self.placed[s] is not None:
                    out.placed[s] = unseen.pop()
        out.rng = Rng(rng.next64())
        return out

    def clone(self) -> LanternsState:
        out = LanternsState.__new__(LanternsState)
        out.num_seats = self.num_seats
        out.rounds = self.rounds
        out.round = self.round
        out.phase = self.phase
        out.rng = self.rng.clone()
        out.opening_events = []
        out.hands = [list(h) for h in self.hands]
        out.decks = [list(d) for d in self.decks]
        out.placed = list(self.placed)
        out.boosted = list(self.boosted)
        out.responded = list(self.responded)
        out.points = list(self.points)
        out.discards = [list(d) for d in self.discards]
        out._outcome = self._outcome
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "num_seats": self.num_seats, "rounds": self.rounds, "round": self.round, "phase": self.phase,
            "rng": self.rng.to_json(), "hands": self.hands, "decks": self.decks, "placed": self.placed,
            "responded": self.responded, "points": self.points, "discards": self.discards,
            "outcome": self._outcome.to_json() if self._outcome else None,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LanternsState) and self.to_json() == other.to_json()


class Lanterns(Game):
    name = "lanterns"
    title = "Lanterns"
    min_seats = 2
    max_seats = 4
    commander_label = "Keeper"

    def default_params(self) -> dict[str, Any]:
        return {"rounds": 6}

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, Any] | None = None) -> LanternsState:
        settings = {**self.default_params(), **(params or {})}
        rng = Rng(seed)
        state = LanternsState(len(decks), int(settings["rounds"]), rng)
        for s, deck in enumerate(decks):
            cards = sorted(CARD_VALUES[name] for name, n in deck.cards for _ in range(n))
            rng.shuffle(cards)
            state.decks[s] = cards
            state.hands[s] = [cards.pop() for _ in range(3)]
        return state

    def card_names(self) -> list[str]:
        return list(CARD_VALUES)

    def cards(self) -> list[dict[str, Any]]:
        return [{"id": name.lower().replace(" ", "-"), "name": name, "type": "lantern", "value": v,
                 "text": f"Worth {v}."} for name, v in CARD_VALUES.items()]

    def starter_decks(self) -> dict[str, Decklist]:
        low = Decklist(None, tuple((f"Lantern {v}", 2) for v in range(1, 6)), name="Low")
        high = Decklist(None, tuple((f"Lantern {v}", 1) for v in range(1, 10)), name="High")
        return {"Low": low, "High": high}

    def validate_deck(self, decklist: Decklist, params: Mapping[str, Any] | None = None) -> list[str]:
        return []


GAME = Lanterns()


class LanternsEvaluator:
    """Points won, plus a little for the cards in hand and more for the card placed."""

    scale = 1.0

    def policy(self, state: LanternsState, seat: int, legal: list[Action]) -> Action:
        """Place the highest card; never boost."""
        return legal[-1] if legal[0].kind == PLACE else legal[0]

    def scores(self, state: LanternsState) -> list[float]:
        return [state.points[s] + 0.05 * sum(state.hands[s]) + 0.15 * (state.placed[s] or 0)
                for s in range(state.num_seats)]


EVALUATOR = LanternsEvaluator()
