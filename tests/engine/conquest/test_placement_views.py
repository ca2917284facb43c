"""RULINGS C5 (amended 2026-12-03): placement is simultaneous. Until every seat has confirmed,
a seat's view, legal actions and events show of the others only whether each has confirmed;
once placement locks, everyone sees which Locations hold a face-down card, never which card.

The views test of the conformance battery (resampling what a seat cannot see changes neither
its view nor the spectator's), run at every step of placement with 2, 3 and 4 seats."""

from __future__ import annotations

import json

import pytest

from engine.conquest import GAME
from engine.conquest.pool import POOL
from engine.core import Rng

from .helpers import starters

SEEDS = range(4)


def _to_placement(seats: int, seed: int):
    """A match at the start of its first placement (random choices before it)."""
    state = GAME.new_match(starters(seats, seed), seed)
    rng = Rng(seed).fork("to placement")
    while state.phase != "placement":
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state, rng


def _placement_steps(seats: int, seed: int):
    """Every state along one random placement, from its start to the lock (included)."""
    state, rng = _to_placement(seats, seed)
    yield state, []
    while state.phase == "placement":
        seat = rng.choice(list(state.to_act()))
        events = state.apply(seat, rng.choice(state.legal_actions(seat)))
        yield state, events


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_C5_amended_resampling_what_a_seat_cannot_see_changes_neither_its_view_nor_the_spectators(seats):
    """RULINGS C5 (amended) at every step of placement: for every seat, determinized samples keep
    its view, the spectator's view and its legal actions."""
    checked = 0
    for seed in SEEDS:
        for state, _ in _placement_steps(seats, seed):
            public = state.view(None)
            for seat in range(seats):
                mine = state.view(seat)
                legal = state.legal_actions(seat)
                for k in range(3):
                    sample = state.determinize(seat, Rng(seed * 100 + k))
                    assert sample.view(seat) == mine
                    assert sample.view(None) == public
                    assert sample.legal_actions(seat) == legal
                    checked += 1
    assert checked > 50


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_C5_amended_a_confirmed_placement_changes_nothing_the_others_see_until_the_lock(seats):
    """RULINGS C5 (amended): two different placements by the first seat to confirm leave every other
    seat's view, legal actions and events, and the spectator's, the same until the last seat confirms."""
    for seed in SEEDS:
        start, _ = _to_placement(seats, seed)
        placing = list(start.to_act())
        if len(placing) < 2:
            continue
        first = placing[0]
        worlds = []
        for choice in ("empty", "units"):
            state = start.clone()
            events = []
            while first in state.to_act():
                legal = state.legal_actions(first)
                events += state.apply(first, legal[0] if choice == "empty" else legal[-1])
            worlds.append((state, events))
        (a, a_events), (b, b_events) = worlds
        assert a.picks[first] != b.picks[first] or not any(
            action.get("card") != "empty" for action in start.legal_actions(first))
        for seat in [s for s in range(seats) if s != first] + [None]:
            assert a.view(seat) == b.view(seat), f"seat {seat} sees seat {first}'s placement before the lock"
            seen_a = [e.to_json() for e in a_events if e.visible_to(seat)]
            seen_b = [e.to_json() for e in b_events if e.visible_to(seat)]
            assert seen_a == seen_b == [{"kind": "confirm", "text": f"Seat {first} has confirmed its placement",
                                         "data": {"seat": first}}]
            if seat is not None:
                assert a.legal_actions(seat) == b.legal_actions(seat)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_C5_amended_once_locked_everyone_sees_where_face_down_cards_are_never_which(seats):
    """RULINGS C5 (amended): at the lock, the face-down markers are public, the cards are not."""
    locks = hidden_cells = 0
    for seed in SEEDS:
        for state, events in _placement_steps(seats, seed):
            if not any(e.kind == "locked" for e in events):
                continue
            locks += 1
            placed = {e.data["seat"]: e.data["locations"] for e in events if e.kind == "placed"}
            assert sorted(placed) == list(range(seats))
            for seat in [*range(seats), None]:
                view = state.view(seat)
                for owner in range(seats):
                    for loc in view["locations"]:
                        cell = loc["units"][owner]
                        if cell is not None and cell["face_down"] and owner != seat:
                            hidden_cells += 1
                            assert set(cell) == {"owner", "face_down"}
                text = json.dumps([e.to_json() for e in events if e.visible_to(seat) and e.kind == "placed"])
                for owner in range(seats):
                    if owner != seat:
                        for unit in state.locations:
                            u = unit.slots[owner]
                            if u is not None and not u.face_up:
                                assert POOL[u.card].id not in text and POOL[u.card].name not in text
    assert locks and hidden_cells, "the seeds reach a lock with face-down units: the rule was checked"
