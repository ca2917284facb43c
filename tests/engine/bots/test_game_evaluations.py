"""The per-game evaluations: each term moves the score the way a player would expect, and
greedy and search take the obvious move in small positions of both games."""

from __future__ import annotations

import pytest

from engine.bots import make_bot
from engine.core import Action, Rng
from engine.runner import Observation

from .helpers import load_game

PILOTS = ["greedy", "search:fast"]


@pytest.fixture
def tempofront():
    load_game("tempofront")
    from engine.bots.eval_tempofront import EVALUATOR
    from engine.tempofront.positions import position

    return EVALUATOR, position


@pytest.fixture
def conquest():
    load_game("conquest")
    from engine.bots.eval_conquest import EVALUATOR
    from engine.conquest.positions import position

    return EVALUATOR, position


def _gap(evaluator, state) -> float:
    """Seat 0's score minus seat 1's."""
    scores = evaluator.scores(state)
    return scores[0] - scores[1]


def test_tempofront_dominion_integrity_and_entities_all_count(tempofront):
    evaluator, position = tempofront
    even = _gap(evaluator, position({}, {}))
    assert even == pytest.approx(0.0)
    assert _gap(evaluator, position({"dominion": 2}, {})) > 0
    assert _gap(evaluator, position({}, {"integrity": 12})) > 0
    assert _gap(evaluator, position({"center vanguard": "Iron Vanguard"}, {})) > 0
    assert _gap(evaluator, position({"hand": ["Firebolt"]}, {})) > 0


def test_tempofront_low_integrity_weighs_more_than_high(tempofront):
    evaluator, position = tempofront
    near_death = _gap(evaluator, position({}, {"integrity": 3})) - _gap(evaluator, position({}, {"integrity": 5}))
    comfortable = _gap(evaluator, position({}, {"integrity": 15})) - _gap(evaluator, position({}, {"integrity": 17}))
    assert near_death > comfortable > 0


def test_tempofront_holding_two_fronts_is_worth_more_than_the_presence_alone(tempofront):
    evaluator, position = tempofront
    one = _gap(evaluator, position({"left support": "Signal Pylon"}, {}))
    two = _gap(evaluator, position({"left support": "Signal Pylon", "center support": "Signal Pylon"}, {}))
    assert two - one > one


@pytest.mark.parametrize("spec", PILOTS)
def test_tempofront_bots_strike_the_open_leader_for_the_win(tempofront, spec):
    _, position = tempofront
    state = position({"left vanguard": "Iron Vanguard"}, {"integrity": 3, "center vanguard": "Border Sentinel"},
                     cycle=2)
    action = make_bot(spec).act(Observation(state, 0), 0, Rng(1))
    assert action == Action.of("strike", front="left", row="vanguard", target="leader")


def test_conquest_pool_and_cq_at_stake_count(conquest):
    evaluator, position = conquest
    assert _gap(evaluator, position(phase="placement", conquest={0: 5})) == pytest.approx(5.0)
    board = position(phase="end_of_battle", face_up={0: {1: "Shieldbearer"}, 1: {1: "Vanguard Drone"}})
    assert _gap(evaluator, board) > 0


def test_conquest_plagued_unit_counts_its_plague_value(conquest):
    evaluator, position = conquest
    healthy = position(phase="end_of_battle", face_up={0: {1: "Shieldbearer"}})
    plagued = position(phase="end_of_battle", face_up={0: {1: {"name": "Shieldbearer", "plagued": True}}})
    assert _gap(evaluator, healthy) - _gap(evaluator, plagued) == pytest.approx(5.0)


def test_conquest_units_in_hand_count_less_than_units_placed(conquest):
    from engine.bots.eval_conquest import HAND, HIDDEN

    assert 0 < HAND < HIDDEN < 1


@pytest.mark.parametrize("spec", PILOTS)
def test_conquest_bots_annihilate_a_revealed_titan(conquest, spec):
    """Seat 0 reveals Bulwark Titan (CQ 7); seat 1 holds Annihilate in the response window."""
    _, position = conquest
    state = position(face_down={0: {1: "Bulwark Titan"}}, hands={1: ["Annihilate", "Vanguard Drone"]},
                     phase="deployment")
    assert state.to_act() == (1,)
    action = make_bot(spec).act(Observation(state, 1), 1, Rng(2))
    assert action == Action.of("respond", card="annihilate")


def test_the_search_sees_only_the_public_side_of_secret_actions():
    """A Prepared card and a Scout's pick (TempoFront) and a face-down pick (Conquest) show the
    other seats only that they happened: the search's tree is keyed by that, not the card."""
    from engine.bots.eval_conquest import EVALUATOR as CQ
    from engine.bots.eval_tempofront import EVALUATOR as TF
    from engine.conquest.state import place_action
    from engine.tempofront.state import PLAY, PREPARE, TAKE

    first, second = sorted(PREPARE)[:2]
    assert TF.observed(1, PREPARE[first]) == TF.observed(1, PREPARE[second]) == ("prepare",)
    assert TF.observed(1, TAKE[first]) == TF.observed(1, TAKE[second]) == ("take",)
    assert TF.observed(1, PLAY[first]) == PLAY[first]  # a played card is public
    assert CQ.observed(0, place_action("shieldbearer", 2)) == CQ.observed(0, place_action("bulwark-titan", 2))
    assert CQ.observed(0, place_action("shieldbearer", 2)) != CQ.observed(0, place_action("empty", 2))
    assert CQ.observed(0, place_action("shieldbearer", 2)) != CQ.observed(0, place_action("shieldbearer", 3))
