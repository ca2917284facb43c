"""``Game.adjudicate``: the places of a match stopped before its end (a tournament round's
hard time limit), by the rules' own end condition, or None when the rules have none."""

from __future__ import annotations

from engine import games
from engine.core import Rng, places_from_scores
from tests.engine.conquest.helpers import play_randomly, starters


def conquest_after_two_battles(seats: int, seed: int):
    state = games["conquest"].new_match(starters(seats), seed)
    play_randomly(state, Rng(seed), until=lambda s: s.battle >= 3)
    assert state.outcome is None, "the match ended before it could be stopped: choose another seed"
    return state


def test_exact_rule_no_target_score_the_race_for_the_most_conquest_decides_a_stopped_match():
    """Conquest: "No target score — it's a race for the most Conquest". A match stopped
    early ranks the seats by their Conquest Pool so far, most first; equal pools share."""
    seen_order = False
    for seats, seed in ((2, 3), (3, 5), (4, 8)):
        state = conquest_after_two_battles(seats, seed)
        pools = [p.conquest for p in state.players]
        before = state.to_json()
        places = games["conquest"].adjudicate(state)
        assert places == places_from_scores(pools)
        assert state.to_json() == before, "adjudicating must not change the match"
        best = max(pools)
        assert all((places[s] == 1) == (pools[s] == best) for s in range(seats))
        for a in range(seats):
            for b in range(seats):
                if pools[a] > pools[b]:
                    assert places[a] < places[b]
                    seen_order = True
                elif pools[a] == pools[b]:
                    assert places[a] == places[b]
    assert seen_order, "every stopped match was level: choose other seeds"


def test_conquest_pools_level_at_the_start_share_first_place():
    state = games["conquest"].new_match(starters(2), 1)
    assert games["conquest"].adjudicate(state) == (1, 1)


def test_tempofront_has_no_such_end_condition_so_a_stopped_match_is_not_adjudicated():
    """TempoFront ends by Integrity or Dominion (T10), neither of which ranks a match
    stopped in the middle: the hook says None, and the platform calls it a draw."""
    game = games["tempofront"]
    decks = list(game.starter_decks().values())[:2]
    state = game.new_match(decks, 4)
    rng = Rng(4)
    for _ in range(40):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.outcome is None
    assert game.adjudicate(state) is None
