"""RULINGS T18: a Prepare opens a response window. The bots answer it like any window, and
what they choose there cannot depend on which card is being Prepared (the responder never
learns it)."""

from __future__ import annotations

import pytest

from engine.bots import make_bot
from engine.core import Action, Rng
from engine.runner import Observation
from engine.tempofront.positions import position


def _window(card: str):
    state = position({"hand": ["Hush", "Hold the Line"]}, {"hand": ["Countermand", "Militia Recruit"]},
                     focus=(5, 5), time=(0, 5))
    state.apply(0, Action.of("prepare", card=card))
    assert state.phase == "response" and state.to_act() == (1,)
    return state


@pytest.mark.parametrize("spec", ["greedy", "search:fast"])
def test_T18_bots_answer_the_prepare_window_without_knowing_the_card(spec):
    """T18: in the window after a Prepare, a bot's choice is the same whichever card is Prepared."""
    worlds = [_window("hush"), _window("hold-the-line")]
    assert worlds[0].view(1) == worlds[1].view(1)
    choices = []
    for state in worlds:
        bot = make_bot(spec)
        action = bot.act(Observation(state, 1), 1, Rng(7))
        assert action in state.legal_actions(1)
        choices.append(action)
    assert choices[0] == choices[1]


def test_T18_greedy_does_not_spend_a_counter_on_a_prepare():
    """T18: cancelling a Prepare only sends the card back to hand, so greedy keeps its Countermand."""
    state = _window("hush")
    assert Action.of("react", card="countermand") in state.legal_actions(1)
    assert make_bot("greedy").act(Observation(state, 1), 1, Rng(3)) == Action.of("pass")
