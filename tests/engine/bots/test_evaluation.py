"""Values on one scale: finished matches by normalised rank, others by score differences."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.bots.evaluation import NeutralEvaluator, evaluator_for, outcome_values, score_values
from engine.core import Outcome


def test_two_player_win_loss_and_draw():
    assert outcome_values(Outcome((1, 2), (5, 3), "points")) == [1.0, 0.0]
    assert outcome_values(Outcome((1, 1), (4, 4), "points")) == [0.5, 0.5]


def test_four_player_ranks_and_a_shared_second_place():
    assert outcome_values(Outcome((2, 1, 4, 3), (0,) * 4, "points")) == pytest.approx([2 / 3, 1, 0, 1 / 3])
    # Seats 1 and 2 share places 2 and 3: each gets the average.
    assert outcome_values(Outcome((1, 2, 2, 4), (0,) * 4, "points")) == pytest.approx([1, 0.5, 0.5, 0])


@given(st.lists(st.floats(-50, 50), min_size=2, max_size=4), st.floats(0.5, 10))
def test_score_values_are_in_range_sum_like_ranks_and_follow_the_scores(scores, scale):
    values = score_values(scores, scale)
    n = len(scores)
    assert all(0 <= v <= 1 for v in values)
    # Pairwise sigmoids are antisymmetric, so values sum to n/2 like normalised ranks do.
    assert sum(values) == pytest.approx(n / 2)
    for a in range(n):
        for b in range(n):
            if scores[a] > scores[b]:
                assert values[a] >= values[b] - 1e-12


def test_games_without_an_evaluator_are_neutral():
    assert isinstance(evaluator_for("no-such-game"), NeutralEvaluator)
