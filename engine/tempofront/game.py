"""TempoFront as an engine :class:`~engine.core.Game`: metadata, decks and match creation."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.core import JSON, Action, CardUsage, DeckError, Decklist, Event, Game, ParamSpec, parse_decklist
from engine.tempofront.cards import BY_NAME, CARDS, LEADER, TYPE_TITLES
from engine.tempofront.params import SPECS, Params, check_params, default_params, make_params
from engine.tempofront.state import TempoState
from engine.tempofront.usage import card_usage

DECK_DIR = Path(__file__).parent / "decks"
#: Actions whose card the other seat does not see.
SECRET_ACTIONS = ("prepare", "take")


def deck_problems(decklist: Decklist, params: Params | None = None) -> list[str]:
    """T1: every problem of a decklist with canonical names under the rules ``params``
    (None: the defaults), in words (empty: legal). The deck-shaping parameters are
    ``deck_size`` and ``max_copies``; a problem that only a non-default value of one
    causes names it (:func:`_rule`)."""
    prm = params or make_params()
    problems: list[str] = []
    leader = decklist.commander
    if not leader:
        problems.append("no Leader: a deck needs one 'Leader: Name' line")
    elif leader not in BY_NAME:
        problems.append(f"unknown Leader '{leader}'")
    elif BY_NAME[leader].type != LEADER:
        title = TYPE_TITLES[BY_NAME[leader].type]
        problems.append(f"{leader} is {'an' if title[0] in 'AEIOU' else 'a'} {title}, not a Leader")
    for name, count in decklist.counts().items():
        card = BY_NAME.get(name)
        if card is None:
            problems.append(f"unknown card '{name}'")
            continue
        if card.type == LEADER:
            problems.append(f"{name} is a Leader: it goes on the 'Leader:' line, not among the {prm.deck_size} cards")
        if count > prm.max_copies:
            problems.append(f"{count} copies of {name}; {_rule(prm, 'max_copies')}at most {prm.max_copies} allowed"
                            f"{_default(prm, 'max_copies')}")
    size = decklist.size
    if size != prm.deck_size:
        problems.append(f"{size} card{'s' if size != 1 else ''}; {_rule(prm, 'deck_size')}a deck has exactly "
                        f"{prm.deck_size}{_default(prm, 'deck_size')}")
    return problems


def _rule(prm: Params, name: str) -> str:
    """``"deck_size is 20 here, so "`` when ``name`` differs from its default, else ``""``:
    a deck refused by an event's own rule says which rule, not just the number."""
    value = getattr(prm, name)
    return "" if value == SPECS[name].default else f"{name} is {value} here, so "


def _default(prm: Params, name: str) -> str:
    return "" if getattr(prm, name) == SPECS[name].default else f" (the game's default is {SPECS[name].default})"


def _deck_name(path: Path) -> str:
    stem = re.sub(r"^\d+-", "", path.stem)
    return " ".join(word.capitalize() for word in stem.split("-"))


class TempoFrontGame(Game):
    """TempoFront: two players, a shared Timeline, three Fronts, Dominion or Integrity."""

    name = "tempofront"
    title = "TempoFront"
    rules_version = "2"
    min_seats = 2
    max_seats = 2
    commander_label = "Leader"
    hidden_information = True
    art_hue = 215
    art_dots = "focus"
    #: What a card's face shows on the site: its costs in the corner and its stats along the
    #: bottom, each ``(key in the card JSON, label, short label)``, and the order the card
    #: types are listed in (pools, decklists).
    card_costs = (("focus", "Focus", "F"), ("time", "Time", "T"))
    card_stats = (("power", "Power", "PWR"), ("vitality", "Vitality", "VIT"), ("presence", "Presence", "PRE"),
                  ("armor", "Armor", "ARM"))
    card_type_order = ("leader", "entity", "site", "attachment", "tactic", "reaction")
    #: TempoFront's events rank by match points and the usual tiebreakers only.
    standings_score_label = None
    twos_label = "Time cost"

    def observed_action(self, actor: int, action: Action) -> Action | tuple[JSON, ...]:
        """A Prepared card and a Scout's pick go face-down: only the kind of action shows
        (``("prepare",)``, ``("take",)``); everything else is public."""
        if action.kind in SECRET_ACTIONS:
            return (action.kind,)
        return action

    def twos_numbers(self) -> dict[str, int | None]:
        """TempoFront cards print no CQ: Match the Twos compares their printed Time cost."""
        return {card.name: card.time for card in CARDS.values()}

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, Any] | None = None) -> TempoState:
        """A new match after setup (T1): decks shuffled, Initiative flipped, hands dealt.

        The setup events (coin flip, opening draws) are kept in ``state.opening_events``.
        Raises ``DeckError`` listing every problem of every deck, ``ValueError`` for a bad
        parameter."""
        prm = make_params(params)
        if len(decks) != 2:
            raise ValueError(f"TempoFront is played by 2 players, not {len(decks)}")
        problems = []
        for seat, deck in enumerate(decks):
            problems += [f"Seat {seat} ({deck.name or 'deck'}): {p}" for p in deck_problems(deck, prm)]
        if problems:
            raise DeckError(problems)
        leaders = [BY_NAME[str(d.commander)] for d in decks]
        lists = [[BY_NAME[name].id for name, count in d.cards for _ in range(count)] for d in decks]
        state, events = TempoState.new(leaders, lists, seed, params)
        state.opening_events = events
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> TempoState:
        return TempoState.from_json(data)

    def default_params(self) -> dict[str, Any]:
        return default_params()

    def param_specs(self) -> dict[str, ParamSpec]:
        return dict(SPECS)

    def check_params(self, values: Mapping[str, Any] | None) -> dict[str, Any]:
        return check_params(values)

    def card_names(self) -> list[str]:
        return [card.name for card in CARDS.values()]

    def cards(self) -> list[dict[str, Any]]:
        return [card.to_json() for card in CARDS.values()]

    def starter_decks(self) -> dict[str, Decklist]:
        return dict(_starter_decks())

    def validate_deck(self, decklist: Decklist, params: Mapping[str, Any] | None = None) -> list[str]:
        """T1 under the rules ``params`` make (None: the defaults): see ``Game.validate_deck``.
        Raises ``ValueError`` naming a bad parameter."""
        return deck_problems(decklist, make_params(params))

    def card_usage_from_events(self, decks: Sequence[Decklist], events: Sequence[Event]) -> list[CardUsage]:
        """Drawn: entered the hand from the deck (the kept opening hand, draws, a Scout's
        pick); played: declared from hand or Reserve and paid for. See ``usage.py`` and
        engine/tempofront/site/rules.md, "Cards drawn and played"."""
        return card_usage(events, len(decks))


@lru_cache(maxsize=1)
def _starter_decks() -> tuple[tuple[str, Decklist], ...]:
    decks = []
    for path in sorted(DECK_DIR.glob("*.txt")):
        name = _deck_name(path)
        deck = parse_decklist(path.read_text(encoding="utf-8"), "Leader", name=name)
        problems = deck_problems(deck)
        if problems:
            raise DeckError([f"starter deck {path.name}: {p}" for p in problems])
        decks.append((name, deck))
    return tuple(decks)


GAME = TempoFrontGame()
