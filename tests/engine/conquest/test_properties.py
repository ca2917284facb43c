"""Conquest properties over thousands of seeded random playouts with 2, 3 and 4 players.

- every playout ends, after the number of Battles the rules parameters say, and no card is
  ever lost or duplicated (each seat's cards are always its 40-card list);
- no seat's view ever shows another seat's hand, a face-down card or an unfinished placement,
  and resampling what it cannot see leaves its view unchanged;
- every listed action applies; illegal actions raise ``IllegalAction`` and change nothing.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.conquest import GAME
from engine.conquest.pool import POOL
from engine.conquest.state import ConquestState
from engine.core import Action, IllegalAction, Rng

from .helpers import starters

PLAYOUTS = 700  # per seat count: 2100 playouts in all
SAMPLED = 60  # per seat count, for the costlier checks


def _owned(state: ConquestState, seat: int) -> Counter:
    player = state.players[seat]
    # One Counter counted into (every count is positive, so this equals the sum of the
    # places' Counters, at a fifth of the cost: this runs at every seventh step of 2,100 games).
    cards = Counter(player.deck)
    for place in (player.hand, player.discard, player.uploads):
        cards.update(place)
    cards.update(u.card for loc in state.locations for u in loc.slots if u is not None and u.owner == seat)
    cards.update(c for s, c in state.stack if s == seat)
    return cards


def _walk(seats: int, seed: int, every: int = 1):
    state = GAME.new_match(starters(seats, seed), seed)
    rng = Rng(seed).fork("property")
    steps = 0
    while state.outcome is None:
        if steps % every == 0:
            yield state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1
    yield state


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_property_playouts_end_and_never_lose_or_copy_a_card(seats):
    reasons = Counter()
    for seed in range(PLAYOUTS):
        expected = None
        last = None
        for state in _walk(seats, seed, every=7):
            if expected is None:
                expected = [Counter(d) for d in state.deck_lists]
            for seat in range(seats):
                assert _owned(state, seat) == expected[seat], f"seed {seed}: seat {seat}'s cards changed"
            last = state
        assert last.outcome.detail["battles"] == last.params.battles
        assert sorted(last.outcome.places)[0] == 1
        reasons[last.outcome.reason] += 1
    assert reasons == {"Conquest": PLAYOUTS}


def _check_view(state: ConquestState, seat: int) -> None:
    view = state.view(seat)
    json.dumps(view)
    assert [c["id"] for c in view["hand"]] == [POOL[c].id for c in state.players[seat].hand]
    for other, entry in enumerate(view["players"]):
        assert "hand" not in entry and "deck" not in entry
        assert entry["hand_count"] == len(state.players[other].hand)
    for loc in view["locations"]:
        for owner, cell in enumerate(loc["units"]):
            if cell is not None and cell["face_down"] and owner != seat:
                assert cell == {"owner": owner, "face_down": True}
    if "window" in view:
        played = {(s, POOL[c].id) for s, c in state.stack}
        assert {(r["seat"], r["id"]) for r in view["window"]["responses"]} == played
    assert "rng" not in view and "seed" not in view


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_property_no_view_shows_another_seats_hand_or_face_down_cards(seats):
    for seed in range(SAMPLED):
        for state in _walk(seats, seed, every=3):
            for seat in range(seats):
                _check_view(state, seat)
            if state.outcome is None and state.phase in ("placement", "response"):
                seat = seed % seats
                resampled = state.determinize(seat, Rng(seed))
                assert resampled.view(seat) == state.view(seat)
                assert resampled.view(None) == state.view(None)


def _illegal_candidates(state: ConquestState) -> list[tuple[int, Action]]:
    acting = state.to_act()
    out: list[tuple[int, Action]] = []
    for seat in range(state.num_seats):
        if seat not in acting:
            out += [(seat, a) for s in acting for a in state.legal_actions(s)[:3]]
    for seat in acting:
        out += [(seat, Action.of("place", card="hush", location=1)),
                (seat, Action.of("respond", card="ambush-lancer")),
                (seat, Action.of("play_celestial", card="the-quiet-sun")),
                (seat, Action.of("mulligan", twice=True)),
                (seat, Action.of("keep", extra=1))]
        for action in state.legal_actions(seat)[:3]:
            if action.get("location") is not None:
                out.append((seat, Action.of("place", card=action["card"], location=action["location"] + 1)))
            if action.kind == "respond":
                out.append((seat, Action.of("respond", card="hush-not-a-card")))
    return [(s, a) for s, a in out if a not in state.legal_actions(s)]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_property_listed_actions_apply_and_illegal_ones_change_nothing(seats):
    for seed in range(SAMPLED // 2):
        for state in _walk(seats, seed, every=5):
            if state.outcome is not None:
                with pytest.raises(IllegalAction):
                    state.apply(0, Action.of("pass"))
                continue
            for seat in state.to_act():
                for action in state.legal_actions(seat):
                    trial = state.clone()
                    events = trial.apply(seat, action)
                    assert all(e.text for e in events)
            before = json.dumps(state.to_json(), sort_keys=True)
            for seat, action in _illegal_candidates(state):
                with pytest.raises(IllegalAction):
                    state.apply(seat, action)
                assert json.dumps(state.to_json(), sort_keys=True) == before, f"{action} by {seat}"


@settings(max_examples=150, deadline=None)
@given(seats=st.sampled_from([2, 3, 4]), seed=st.integers(min_value=0, max_value=2**40),
       params=st.fixed_dictionaries({}, optional={
           "battles": st.integers(min_value=1, max_value=4),
           "draw_per_battle": st.integers(min_value=0, max_value=10),
           "forward_locations": st.integers(min_value=1, max_value=5),
           "rear_locations": st.integers(min_value=1, max_value=4),
           "mulligans": st.integers(min_value=0, max_value=2),
           "tiebreak": st.sampled_from(["inline", "deferred"]),
       }))
def test_property_any_rules_parameters_give_a_match_that_ends_and_round_trips(seats, seed, params):
    state = GAME.new_match(starters(seats, seed % 4), seed, params)
    rng = Rng(seed)
    steps = 0
    while state.outcome is None:
        if steps % 25 == 0:
            assert GAME.state_from_json(json.loads(json.dumps(state.to_json()))) == state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1
        assert steps < 20_000
    assert state.outcome.detail["battles"] == state.params.battles
    assert state.to_act() == ()
