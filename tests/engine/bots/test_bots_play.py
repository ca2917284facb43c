"""Greedy and search play sensibly, handle simultaneous choices and response windows."""

from __future__ import annotations

import pytest

from engine.bots import make_bot
from engine.bots.search import SearchBot
from engine.core import Action, Rng
from engine.runner import Observation

from . import toy


def _state(seats=2, seed=1):
    return toy.GAME.new_match([toy.GAME.starter_decks()["High"]] * seats, seed=seed)


def _response_window():
    """Seat 0 revealed 6 and leads; seat 1 revealed 5 and holds Lantern 1 and Lantern 3.

    Boosting with either card makes 7 and takes the round; boosting with the 1 keeps the
    better card. Passing loses the round.
    """
    state = _state()
    state.hands = [[2, 8, 9], [1, 3]]
    state.placed = [6, 5]
    state.phase = toy.BOOST
    assert state.to_act() == (1,)
    return state


def test_greedy_boosts_with_its_cheapest_card_in_the_response_window():
    state = _response_window()
    action = make_bot("greedy").act(Observation(state, 1), 1, Rng(0))
    assert action == Action.of("boost", card="Lantern 1")


def test_search_answers_in_a_response_window_where_the_opponent_revealed():
    """Passing loses the round; either boost takes it (the cards' later worth differs little)."""
    state = _response_window()
    bot = make_bot("search:fast")
    assert bot.act(Observation(state, 1), 1, Rng(0)).kind == "boost"


def test_search_in_the_last_round_plays_the_card_that_wins_the_match():
    """Points 1-1 in the last round: the 9 beats anything the opponent can hold (at most 8)."""
    state = _state()
    state.round = state.rounds
    state.points = [1, 1]
    state.hands = [[1, 2, 9], [4, 6, 8]]
    state.decks[1] = [3, 5, 7]
    for spec in ("greedy", "search:strong"):
        action = make_bot(spec).act(Observation(state, 0), 0, Rng(3))
        assert action == Action.of("place", card="Lantern 9"), spec


def test_simultaneous_placement_is_decoupled_at_the_root():
    """Both seats place at once: the opponent's choices are searched at the same node as ours
    (it cannot see our face-down card), with its own statistics."""
    state = _state(seats=3)
    assert state.to_act() == (0, 1, 2)
    bot = SearchBot(iterations=200)
    stats = bot.root_statistics(Observation(state, 0), Rng(1))
    assert set(stats) == {0, 1, 2}
    assert all(sum(visits for _, visits, _ in rows) == 200 for rows in stats.values())
    assert {a for a, _, _ in stats[0]} == set(Observation(state, 0).legal_actions())


def test_search_after_an_opponent_placed_treats_its_hidden_card_as_sampled():
    state = _state()
    state.apply(1, state.legal_actions(1)[0])
    assert state.to_act() == (0,)
    bot = SearchBot(iterations=60)
    stats = bot.root_statistics(Observation(state, 0), Rng(2))
    assert set(stats) == {0}


def test_wall_clock_limit_stops_the_search_early():
    state = _state()
    bot = SearchBot(iterations=10**7, seconds=0.05)
    action = bot.act(Observation(state, 0), 0, Rng(0))
    assert action in state.legal_actions(0)
    assert 0 < bot.last_iterations < 10**7


def test_a_single_legal_action_is_returned_without_searching():
    state = _state()
    state.hands[0] = [4, 4]
    bot = SearchBot(iterations=50)
    assert bot.act(Observation(state, 0), 0, Rng(0)) == Action.of("place", card="Lantern 4")
    assert bot.last_iterations == 0


def test_playouts_at_the_leaves_are_supported_and_deterministic():
    state = _state(seats=4)
    bot = make_bot("search:fast", playout=5, batch=4)
    first = bot.act(Observation(state, 2), 2, Rng(8))
    assert first == bot.act(Observation(state, 2), 2, Rng(8))
    assert first in state.legal_actions(2)


def test_other_seats_can_follow_the_evaluators_policy_inside_the_tree():
    """With opponents="policy" only the deciding seat keeps statistics; the others play the
    evaluator's fast policy (here: their highest card)."""
    state = _state(seats=3)
    stats = SearchBot(iterations=60, opponents="policy").root_statistics(Observation(state, 1), Rng(4))
    assert set(stats) == {1}
    # The toy evaluator does not claim its policy models whole opponents: "auto" searches.
    stats = SearchBot(iterations=60, opponents="auto").root_statistics(Observation(state, 1), Rng(4))
    assert set(stats) == {0, 1, 2}


def test_unknown_opponent_model_is_refused():
    with pytest.raises(ValueError, match="opponents"):
        SearchBot(opponents="telepathy")


def test_conquest_search_tree_never_branches_on_an_opponents_secret_pick():
    """A Conquest pick is face-down: the deciding seat sees that a unit goes to a Location,
    not which one, so its tree keys the opponent's picks by that and nothing more."""
    from engine import games
    from engine.conquest.state import PLACEMENT

    from .helpers import decks_for

    game = games["conquest"]
    state = game.new_match(decks_for(game, 2), 4, None)
    while not (state.phase == PLACEMENT and state.to_act() == (0, 1)):
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        state.apply(seat, legal[0] if state.phase != PLACEMENT else legal[-1])
    observation = Observation(state, 0)
    root = SearchBot(iterations=300, opponents="search").search(observation, Rng(3))
    mine = set(observation.legal_actions())
    assert root.children
    seen = set()
    for key in root.children:
        own, theirs = key
        assert own in mine
        assert not isinstance(theirs, Action) and theirs[0] == "place"
        seen.add(theirs)
    # Only "a face-down unit" or "nothing" at the opponent's Location: at most two forms.
    assert len(seen) <= 2
    assert len(root.children) <= 2 * len(mine)
