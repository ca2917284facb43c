"""The engine's event texts as the live board says them to one reader (``live.texts``)."""

from __future__ import annotations

import random

import pytest

from engine import games
from engine.core import Event
from live.texts import events_for, final_board, personal

NAMES = {0: "alice", 1: "bob"}


@pytest.mark.parametrize(("text", "reader", "said"), [
    ("Seat 0 keeps their hand", 0, "You keep your hand"),
    ("Seat 0 keeps their hand", 1, "alice keeps their hand"),
    ("Seat 0 keeps their hand", None, "alice keeps their hand"),
    ("Seat 0 passes for the rest of Cycle 2", 0, "You pass for the rest of Cycle 2"),
    ("Cycle 2 begins: Seat 0 has the Initiative; 3 Focus each", 0,
     "Cycle 2 begins: you have the Initiative; 3 Focus each"),
    ("Battle 1 of 3 begins; Seat 1 is the active player", 1, "Battle 1 of 3 begins; you are the active player"),
    ("The coin gives Seat 0 the Initiative for Cycle 1", 0, "The coin gives you the Initiative for Cycle 1"),
    ("Seat 1's Cinder Imp (left Vanguard) strikes at Seat 0's Leader", 0,
     "bob's Cinder Imp (left Vanguard) strikes at your Leader"),
    ("Seat 0 responds to Seat 1's Strike with Hold the Line", 0, "You respond to bob's Strike with Hold the Line"),
    ("Seat 0 adds 5 CQ to their Conquest Pool (now 9)", 0, "You add 5 CQ to your Conquest Pool (now 9)"),
    ("Firebolt dealt Seat 1's Leader for 3: -1 Integrity left", 0,
     "Firebolt dealt bob's Leader for 3: 0 Integrity left"),
    ("Strike of Cinder Imp hits Thornwall for 3: 3 damage, 5/4", 0,
     "Strike of Cinder Imp hits Thornwall for 3: 3 damage, destroyed"),
    ("Strike of Cinder Imp hits Thornwall for 2 (Armor 1 absorbed 1): 1 damage, 1/4", 1,
     "Strike of Cinder Imp hits Thornwall for 2 (Armor 1 absorbed 1): 1 damage, 3 Vitality left"),
])
def test_a_text_says_you_for_the_reader_and_names_the_others(text, reader, said):
    assert personal(text, reader, NAMES) == said


def test_my_own_draw_is_told_once_and_the_others_see_the_count():
    events = [Event("draw", "You drew Firebolt, Riposte", {"seat": 0, "cards": ["a", "b"]}, private_to=0),
              Event("draw", "Seat 0 drew 2 cards", {"seat": 0, "count": 2}),
              Event("draw", "You drew Hush", {"seat": 1, "cards": ["c"]}, private_to=1),
              Event("draw", "Seat 1 drew 1 card", {"seat": 1, "count": 1})]
    assert [e["text"] for e in events_for(events, 0, NAMES)] == ["You drew Firebolt, Riposte", "bob drew 1 card"]
    assert [e["text"] for e in events_for(events, 1, NAMES)] == ["alice drew 2 cards", "You drew Hush"]
    assert [e["text"] for e in events_for(events, None, NAMES)] == ["alice drew 2 cards", "bob drew 1 card"]


@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_no_text_of_a_whole_game_names_a_seat_number_or_a_negative_leftover(game):
    engine_game = games[game]
    state = engine_game.new_match(list(engine_game.starter_decks().values())[:2], 7)
    rng = random.Random(3)
    events = list(state.opening_events)
    while state.outcome is None:
        seat = state.to_act()[0]
        events += state.apply(seat, rng.choice(list(state.legal_actions(seat))))
    for reader in (0, 1, None):
        texts = [e["text"] for e in events_for(events, reader, NAMES)]
        assert not [t for t in texts if "Seat " in t or "-1 Integrity" in t or "\x00" in t], reader
        if reader is not None:
            assert not [t for t in texts if t.startswith(NAMES[reader] + " drew")]


def test_the_final_board_is_the_last_one_an_event_carries():
    events = [Event("clear", "cleared", {"count": 2, "board": [{"number": 1}]}), Event("score", "x"),
              Event("clear", "cleared", {"count": 1, "board": [{"number": 2}]})]
    assert final_board(events) == [{"number": 2}]
    assert final_board([Event("pass", "Seat 0 passes")]) is None
