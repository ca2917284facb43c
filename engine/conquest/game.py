"""The Conquest :class:`engine.core.Game`: metadata, deck rules (C1), the pool, new matches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.conquest.choices import placement_choices
from engine.conquest.params import SPECS, Params, check_params
from engine.conquest.pool import BY_NAME, CELESTIALS, POOL
from engine.conquest.state import EMPTY, ConquestState
from engine.conquest.tiebreak import break_ties
from engine.conquest.usage import card_usage
from engine.core import (
    JSON,
    Action,
    CardUsage,
    DeckError,
    Decklist,
    Event,
    Game,
    Outcome,
    ParamSpec,
    parse_decklist,
    places_from_scores,
)

DECKS_DIR = Path(__file__).parent / "decks"


class ConquestGame(Game):
    """Conquest: 2 to 4 players, Battles of two Skirmishes, Celestials, the Conquest Pool."""

    name = "conquest"
    title = "Conquest"
    rules_version = "2"
    min_seats = 2
    max_seats = 4
    queue_seats = (2, 4)
    commander_label = "Celestial"
    hidden_information = True
    art_hue = 38
    art_dots = "cq"
    #: What a card's face shows on the site (see TempoFrontGame): no cost, its CQ.
    card_costs = ()
    card_stats = (("cq", "Conquest", "CQ"),)
    card_type_order = ("celestial", "unit", "lightspeed", "fragment")
    standings_score_label = "Conquest"
    twos_label = "CQ"

    def __init__(self) -> None:
        self._starters: dict[str, Decklist] | None = None

    def plays_on_without(self, seats: int) -> bool:
        """Three or four players play on: the seat out of time ranks last."""
        return seats > 2

    def defer_ties(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Match the Twos (C11) is left for a task of its own (``tiebreak = "deferred"``)."""
        return {**(params or {}), "tiebreak": "deferred"}

    def break_ties(self, outcome: Outcome, decks: Sequence[Decklist], seed: int) -> Outcome:
        return break_ties(outcome, decks, seed)

    def twos_numbers(self) -> dict[str, int | None]:
        """A unit's printed CQ (only units print one)."""
        return {card.name: card.cq for card in POOL}

    def observed_action(self, actor: int, action: Action) -> Action | tuple[JSON, ...]:
        """A pick shows only whether a face-down unit goes to that Location, never which card
        (``("place", <location>, <a unit or not>)``); everything else is public.

        (RULINGS C5, amended: the others see even that only when placement locks, at the end
        of the same placement; the search bot's tree keys it on the pick, which changes which
        of the searcher's own later placement picks share statistics, never what it is shown.)
        """
        if action.kind == "place":
            return ("place", action.get("location"), action.get("card") != EMPTY)
        return action

    def decision_steps(self, state: ConquestState, seat: int) -> dict[str, Any] | None:
        """A placement, one Location at a time (:func:`engine.conquest.choices.placement_choices`)."""
        return placement_choices(state, seat)

    def adjudicate(self, state: ConquestState) -> tuple[int, ...]:
        """A match stopped early ranks the seats by their Conquest Pool so far, most first
        ("No target score — it's a race for the most Conquest"); equal pools share a place
        (Match the Twos is not run: it settles the ties of a match played to its end)."""
        return places_from_scores([player.conquest for player in state.players])

    def standings_scores(self, outcome: Mapping[str, Any]) -> list[int | None]:
        """The Conquest each seat scored in the game."""
        return list((outcome.get("detail") or {}).get("conquest") or outcome.get("scores") or [])

    def default_params(self) -> dict[str, Any]:
        return Params.defaults()

    def param_specs(self) -> dict[str, ParamSpec]:
        return dict(SPECS)

    def check_params(self, values: Mapping[str, Any] | None) -> dict[str, Any]:
        return check_params(values)

    def make_params(self, params: Mapping[str, Any] | None = None) -> Params:
        """``default_params()`` merged with ``params``; raises ``ValueError`` naming a bad one."""
        return Params(check_params(params))

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, Any] | None = None
                  ) -> ConquestState:
        """A match for ``len(decks)`` seats (2 to 4). Raises ``ValueError`` for bad params or
        a bad seat count, :class:`DeckError` (every problem, by seat) for illegal decks.

        The events of the opening (Battle 1 begins, the draws) are on ``state.opening_events``.
        """
        rules = self.make_params(params)
        if not self.min_seats <= len(decks) <= self.max_seats:
            raise ValueError(f"Conquest is played by {self.min_seats} to {self.max_seats} players, not {len(decks)}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"the seed must be an integer, not {seed!r}")
        problems = []
        for seat, deck in enumerate(decks):
            problems += [f"seat {seat} ({deck.name or 'deck'}): {p}" for p in self.validate_deck(deck, params)]
        if problems:
            raise DeckError(problems)
        cards = [[BY_NAME[name].index for name, n in deck.cards for _ in range(n)] for deck in decks]
        celestials = [BY_NAME[deck.commander].index for deck in decks]
        state, events = ConquestState.start(cards, celestials, seed, rules)
        state.opening_events = events
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> ConquestState:
        return ConquestState.from_json(data)

    def card_names(self) -> list[str]:
        return [card.name for card in POOL]

    def cards(self) -> list[dict[str, Any]]:
        return [card.to_json() for card in POOL]

    def celestial_names(self) -> list[str]:
        return [card.name for card in CELESTIALS]

    def starter_decks(self) -> dict[str, Decklist]:
        """The decklists of ``decks/*.txt``, named after their files ("void-choir" -> "Void Choir")."""
        if self._starters is None:
            starters = {}
            for path in sorted(DECKS_DIR.glob("*.txt")):
                name = path.stem.replace("-", " ").title()
                starters[name] = self.parse_deck(path.read_text(encoding="utf-8"), name=name)
            self._starters = starters
        return dict(self._starters)

    def validate_deck(self, decklist: Decklist, params: Mapping[str, Any] | None = None) -> list[str]:
        """C1 under the rules ``params`` make (None: the defaults): one Celestial plus exactly
        ``deck_size`` cards (40), at most ``max_copies`` (3) of a card; every problem, a
        non-default value named where it causes one. Raises ``ValueError`` naming a bad
        parameter (see ``Game.validate_deck``)."""
        rules = self.make_params(params)
        problems: list[str] = []
        if not decklist.commander:
            problems.append("no Celestial: a deck names exactly one (a line 'Celestial: Name')")
        else:
            card = BY_NAME.get(decklist.commander)
            if card is None:
                problems.append(f"unknown Celestial '{decklist.commander}'")
            elif card.type != "celestial":
                problems.append(f"{card.name} is not a Celestial (it is a {card.type} card)")
        for name, count in decklist.counts().items():
            card = BY_NAME.get(name)
            if card is None:
                problems.append(f"unknown card '{name}'")
                continue
            if card.type == "celestial":
                problems.append(f"{name} is a Celestial: it goes on the 'Celestial:' line, not among the cards")
            if count > rules.max_copies:
                problems.append(f"{count} copies of {name}; {_rule(rules, 'max_copies')}at most {rules.max_copies} "
                                f"allowed{_default(rules, 'max_copies')}")
        if decklist.size != rules.deck_size:
            problems.append(f"{decklist.size} card{'' if decklist.size == 1 else 's'}; {_rule(rules, 'deck_size')}"
                            f"a deck has exactly {rules.deck_size} (plus its Celestial){_default(rules, 'deck_size')}")
        return problems

    def card_usage_from_events(self, decks: Sequence[Decklist], events: Sequence[Event]) -> list[CardUsage]:
        """Drawn: drawn into the hand (the kept opening draw, draws); played: a unit placed
        at a Location (at the lock, face down) or a Lightspeed card played. See ``usage.py``
        and engine/conquest/site/rules.md, "Cards drawn and played"."""
        return card_usage(events, len(decks))

    def parse_deck_text(self, text: str, *, name: str = "") -> Decklist:
        """Parse without resolving or validating (for tests that build bad decks)."""
        return parse_decklist(text, self.commander_label, name=name)


def _rule(rules: Params, name: str) -> str:
    """``"deck_size is 20 here, so "`` when ``name`` differs from its default, else ``""``:
    a deck refused by an event's own rule says which rule, not just the number."""
    value = getattr(rules, name)
    return "" if value == SPECS[name].default else f"{name} is {value} here, so "


def _default(rules: Params, name: str) -> str:
    return "" if getattr(rules, name) == SPECS[name].default else f" (the game's default is {SPECS[name].default})"


__all__ = ["ConquestGame", "DeckError"]
