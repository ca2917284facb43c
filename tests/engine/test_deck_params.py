"""A deck is legal or not under a match's own rules parameters (T1, C1 and RULINGS.md:
"tournament organisers may choose other values per event"): one ``validate_deck(decklist,
params)`` for both games, answering exactly what ``new_match`` will refuse."""

from __future__ import annotations

import inspect

import pytest

from engine import games
from engine.core import DeckError, Decklist, Game

GAMES = ["tempofront", "conquest"]


def _starter(name: str, index: int = 0) -> Decklist:
    return list(games[name].starter_decks().values())[index]


def _first(deck: Decklist, size: int) -> Decklist:
    """The first ``size`` cards of ``deck`` (copies counted), same commander."""
    cards, left = [], size
    for card, count in deck.cards:
        if left <= 0:
            break
        cards.append((card, min(count, left)))
        left -= min(count, left)
    return Decklist(commander=deck.commander, cards=tuple(cards), name=deck.name)


@pytest.mark.parametrize("name", [*GAMES, None])
def test_both_games_validate_a_deck_under_params_with_one_signature(name):
    method = Game.validate_deck if name is None else type(games[name]).validate_deck
    parameters = list(inspect.signature(method).parameters)
    assert parameters == ["self", "decklist", "params"]
    assert inspect.signature(method).parameters["params"].default is None


@pytest.mark.parametrize("name", GAMES)
def test_params_none_and_empty_are_the_games_defaults(name):
    game = games[name]
    deck = _starter(name)
    assert game.validate_deck(deck, None) == game.validate_deck(deck, {}) == game.validate_deck(deck) == []
    assert game.validate_deck(deck, game.default_params()) == []


def test_T1_tempofront_deck_size_under_a_non_default_deck_size_param():
    """T1 says 30 cards by default; an event choosing ``deck_size`` 20 wants exactly 20, and
    the refusal names the parameter."""
    game = games["tempofront"]
    thirty = _starter("tempofront")
    assert thirty.size == 30
    assert game.validate_deck(thirty, {"deck_size": 20}) == [
        "30 cards; deck_size is 20 here, so a deck has exactly 20 (the game's default is 30)"]
    twenty = _first(thirty, 20)
    assert game.validate_deck(twenty, {"deck_size": 20}) == []
    assert game.validate_deck(twenty, None) == ["20 cards; a deck has exactly 30"]


def test_T1_tempofront_copies_under_a_non_default_max_copies_param():
    game = games["tempofront"]
    deck = _starter("tempofront")
    doubled = [name for name, count in deck.cards if count == 2]
    assert doubled, "the starter deck has a card twice"
    problems = game.validate_deck(deck, {"max_copies": 1})
    assert f"2 copies of {doubled[0]}; max_copies is 1 here, so at most 1 allowed (the game's default is 2)" \
        in problems
    tripled = Decklist(commander=deck.commander,
                       cards=((deck.cards[0][0], 3), *((n, c) for n, c in deck.cards[1:])), name=deck.name)
    tripled = _first(tripled, 30)
    assert game.validate_deck(tripled, {"max_copies": 3}) == []
    assert f"3 copies of {deck.cards[0][0]}; at most 2 allowed" in game.validate_deck(tripled, None)


def test_C1_conquest_deck_size_under_a_non_default_deck_size_param():
    game = games["conquest"]
    forty = _starter("conquest")
    assert game.validate_deck(forty, {"deck_size": 20}) == [
        "40 cards; deck_size is 20 here, so a deck has exactly 20 (plus its Celestial) (the game's default is 40)"]
    assert game.validate_deck(_first(forty, 20), {"deck_size": 20}) == []


@pytest.mark.parametrize("name", GAMES)
def test_bad_params_raise_value_error_naming_the_parameter(name):
    with pytest.raises(ValueError, match="parameter 'deck_size' must be between"):
        games[name].validate_deck(_starter(name), {"deck_size": 1000})


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("params", [None, {"deck_size": 20}, {"max_copies": 1}, {"deck_size": 20, "max_copies": 4}])
def test_validate_deck_answers_what_new_match_will_refuse(name, params):
    """The platform checks decks with ``validate_deck`` before a match is queued; the worker
    plays it with ``new_match``: the two must agree, or matches fail in the worker."""
    game = games[name]
    for deck in (_starter(name, 0), _first(_starter(name, 1), 20)):
        fits = game.validate_deck(deck, params) == []
        try:
            game.new_match([deck, deck], 1, params)
        except DeckError:
            assert not fits
        else:
            assert fits
