"""Fairness: no bot decision depends on what its seat cannot see.

Two states that differ only in hidden information (opponents' hands, deck order, face-down
cards, the match's random stream) must give every bot the same decision from the same rng.
The second state of each pair is ``state.determinize(seat, ...)``: by the contract it keeps
everything the seat sees and resamples everything else. The toy game also gets a pair built
by hand, so the test does not rest on determinize alone.
"""

from __future__ import annotations

import pytest

from engine.core import Rng
from engine.runner import Observation

from . import toy
from .helpers import BOT_SPECS, GAME_NAMES, configurations, load_game, random_walk, small_bot

STATES_PER_WALK = 6


def _decision(bot, state, seat, seed):
    rng = Rng(seed)
    action = bot.act(Observation(state, seat), seat, rng)
    return action, rng.state


def _hidden_twin(state, seat, seed):
    twin = state.determinize(seat, Rng(seed).fork("twin"))
    assert twin.view(seat) == state.view(seat), "determinize changed what the seat sees"
    return twin


@pytest.mark.parametrize("spec", BOT_SPECS)
@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_decisions_ignore_hidden_information(game_name, spec):
    game = load_game(game_name)
    bot = small_bot(spec)
    differing = 0
    for seats in configurations(game):
        for walk in range(2):
            states = list(random_walk(game, seats, seed=100 + walk, every=7, limit=7 * STATES_PER_WALK))
            for index, state in enumerate(states):
                for seat in state.to_act():
                    twin = _hidden_twin(state, seat, seed=index)
                    differing += twin.to_json() != state.to_json()
                    first = _decision(bot, state, seat, seed=index)
                    second = _decision(bot, twin, seat, seed=index)
                    assert first == second, f"{spec} at state {index} of walk {walk} ({seats} seats), seat {seat}"
    assert differing, "no pair of states actually differed in hidden information"


@pytest.mark.parametrize("spec", BOT_SPECS)
def test_toy_hand_swapped_with_deck_gives_same_decision(spec):
    """Built by hand: the opponent's hand and both decks rearranged, and its face-down card."""
    state = toy.GAME.new_match(list(toy.GAME.starter_decks().values()), seed=3)
    state.apply(1, state.legal_actions(1)[-1])  # seat 1 places face down; seat 0 to decide
    twin = state.clone()
    hidden = twin.hands[1] + twin.decks[1] + [twin.placed[1]]
    hidden.reverse()
    twin.hands[1] = hidden[:len(state.hands[1])]
    twin.placed[1] = hidden[len(state.hands[1])]
    twin.decks[1] = hidden[len(state.hands[1]) + 1:]
    twin.decks[0].reverse()
    twin.rng = Rng(12345)
    assert twin.view(0) == state.view(0) and twin.to_json() != state.to_json()
    bot = small_bot(spec)
    for seed in range(5):
        assert _decision(bot, state, 0, seed) == _decision(bot, twin, 0, seed)


class _PeekingBot:
    """Cheats: plays the card that beats the opponent's hidden face-down card if it can."""

    name = "peeking"

    def act(self, observation, seat, rng):
        state = observation._Observation__state
        legal = observation.legal_actions()
        hidden = [v for s, v in enumerate(state.placed) if s != seat and v is not None]
        target = max(hidden, default=0)
        better = [a for a in legal if a.kind == "place" and toy.CARD_VALUES[a["card"]] > target]
        return better[0] if better else legal[0]


def test_the_fairness_check_catches_a_bot_that_reads_hidden_cards():
    """The check above would fail for a cheater: twins make the peeking bot change its mind."""
    changed = 0
    for seed in range(20):
        state = toy.GAME.new_match(list(toy.GAME.starter_decks().values()), seed=seed)
        state.apply(1, state.legal_actions(1)[seed % len(state.legal_actions(1))])
        for twin_seed in range(5):
            twin = _hidden_twin(state, 0, twin_seed)
            changed += _decision(_PeekingBot(), state, 0, 0) != _decision(_PeekingBot(), twin, 0, 0)
    assert changed > 0
