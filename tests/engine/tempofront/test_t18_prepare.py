"""RULINGS T18 (added 2026-12-03): Prepare is a main action. Declared and paid, it opens a
response window; the responder learns that a card was Prepared, never which."""

from __future__ import annotations

from engine.core import Action, Rng

from .helpers import act, position


def _preparing():
    state = position({"hand": ["Hush", "Cinder Imp"]}, {"hand": ["Countermand", "Militia Recruit"]},
                     focus=(5, 5), time=(0, 5))
    events = act(state, 0, "prepare", card="hush")
    return state, events


def test_T18_prepare_opens_a_response_window_after_it_is_declared_and_paid():
    """T18: the other player may react after the Prepare is declared and paid."""
    state, _ = _preparing()
    assert state.phase == "response" and state.to_act() == (1,)
    assert state.players[0].time == state.params.prepare_time  # paid when declared
    assert Action.of("react", card="countermand") in state.legal_actions(1)
    act(state, 1, "pass")
    assert state.phase == "main"
    assert [c["id"] for c in state.view(0)["reserve"]] == ["hush"]


def test_T18_the_responder_learns_only_that_a_card_was_prepared():
    """T18: the responder learns that a card was Prepared, never which (it is face down)."""
    state, events = _preparing()
    for seat in (1, None):
        seen = [e.text for e in events if e.visible_to(seat)]
        assert seen == ["Seat 0 Prepares a card (1 Time)"]
        view = state.view(seat)
        assert view["chain"][0]["kind"] == "prepare" and view["chain"][0]["card"] is None
        assert "Hush" not in str(view) and "hush" not in str(view)
    assert state.view(0)["chain"][0]["card"] == {"id": "hush", "name": "Hush"}
    assert [e.text for e in events if e.private_to == 0] == ["You Prepare Hush (1 Time)"]
    resolved = act(state, 1, "pass")
    assert "Hush" not in " ".join(e.text for e in resolved if e.visible_to(1))


def test_T18_a_cancelled_prepare_does_nothing_and_its_time_stays_paid():
    """T18 with T5: a cancelled Prepare does nothing (the card stays in hand); its Time stays paid."""
    state, _ = _preparing()
    events = act(state, 1, "react", card="countermand")
    if state.phase == "counter":  # Seat 0 may answer the Countermand (R1: public counters decide)
        events += act(state, 0, "pass")
    assert "Countermand cancelled Seat 0's Prepare" in " ".join(e.text for e in events)
    assert "hush" in state.players[0].hand and state.players[0].reserve == []
    assert state.players[0].time == state.params.prepare_time


def test_T18_resampling_hides_the_card_being_prepared():
    """T18: a determinized sample for the responder deals the Prepared card again from what it cannot see,
    and the responder's view does not change."""
    state, _ = _preparing()
    before = state.view(1)
    cards = set()
    for i in range(20):
        sample = state.determinize(1, Rng(i))
        assert sample.view(1) == before and sample.view(None) == state.view(None)
        cards.add(sample.chain[0].card)
    assert len(cards) > 1
