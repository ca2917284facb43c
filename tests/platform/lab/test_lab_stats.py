"""The figures of a lab run (lab/stats.py): Wilson's interval against published values,
and each table's counts on a small hand-made run."""

from __future__ import annotations

import math

import pytest

from lab.stats import run_figures, wilson


@pytest.mark.parametrize(("score", "n", "low", "high"), [
    # Wilson (1927) score interval at 95%, as textbooks and R's prop.test(correct = FALSE) give them.
    (50, 100, 0.4038, 0.5962),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (8, 10, 0.4902, 0.9433),
])
def test_wilson_interval_matches_known_values(score, n, low, high):
    got_low, got_high = wilson(score, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def _score_test_bound(score: float, n: int, *, upper: bool) -> float:
    """The interval's definition, solved by bisection: the p at which the score test
    |p_hat - p| = 1.96 sqrt(p (1 - p) / n) is just met on one side of p_hat."""
    p_hat = score / n
    lo, hi = (p_hat, 1.0) if upper else (0.0, p_hat)
    for _ in range(100):
        mid = (lo + hi) / 2
        inside = abs(p_hat - mid) <= 1.959963984540054 * math.sqrt(mid * (1 - mid) / n)
        if upper:
            lo, hi = (mid, hi) if inside else (lo, mid)
        else:
            lo, hi = (lo, mid) if inside else (mid, hi)
    return (lo + hi) / 2


@pytest.mark.parametrize(("score", "n"), [(1, 3), (81, 263), (137.5, 200), (1999, 2000), (3, 1000)])
def test_wilson_interval_is_the_inverted_score_test(score, n):
    low, high = wilson(score, n)
    assert low == pytest.approx(_score_test_bound(score, n, upper=False), abs=1e-9)
    assert high == pytest.approx(_score_test_bound(score, n, upper=True), abs=1e-9)


def test_no_match_is_the_whole_range():
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_interval_narrows_below_ten_points_near_four_hundred_matches():
    """"Needs more games" while the interval is wider than 10 points: at a 50% win rate
    that is until about 380 matches (the normal approximation's 1.96^2 / 0.05^2 * 0.25 = 384,
    less the few the interval's shrinking denominator saves)."""
    low, high = wilson(189, 378)
    assert high - low > 0.10
    low, high = wilson(191, 382)
    assert high - low <= 0.10


def row(number, outcome, seat, opponent, drawn=(), played=(), actions=10, ending="empty deck"):
    return {"number": number, "outcome": outcome, "deck_seat": seat, "opponent_version_id": opponent,
            "actions": actions, "ending": ending, "usage": {"deck": {"drawn": list(drawn), "played": list(played)}}}


def test_each_table_counts_the_matches_it_should():
    rows = [
        row(1, "win", 0, 7, drawn=["Ace", "Bolt"], played=["Ace"], actions=10),
        row(2, "loss", 1, 7, drawn=["Bolt"], played=["Bolt"], actions=20, ending="conceded"),
        row(3, "draw", 0, 8, drawn=["Ace"], played=[], actions=30),
        row(4, "win", 1, 8, drawn=["Ace", "Bolt"], played=["Ace", "Bolt"], actions=40),
    ]
    figures = run_figures(rows, deck_cards=["Ace", "Bolt", "Cold"])
    overall = figures["overall"]
    assert (overall["matches"], overall["wins"], overall["draws"], overall["losses"]) == (4, 2, 1, 1)
    assert overall["win_rate"] == pytest.approx(2.5 / 4)  # a draw scores half
    assert overall["needs_more_games"] is True
    assert figures["by_seat"]["play"]["matches"] == 2 and figures["by_seat"]["play"]["win_rate"] == 0.75
    assert figures["by_seat"]["draw"]["win_rate"] == 0.5
    assert figures["by_opponent"][7]["win_rate"] == 0.5 and figures["by_opponent"][8]["win_rate"] == 0.75
    cards = {c["card"]: c for c in figures["cards"]}
    assert [c["card"] for c in figures["cards"]] == ["Ace", "Bolt", "Cold"]
    assert cards["Ace"]["drawn"] == 3 and cards["Ace"]["win_rate_drawn"] == pytest.approx(2.5 / 3)
    assert cards["Ace"]["improvement_drawn"] == pytest.approx(2.5 / 3 - 2.5 / 4)
    assert cards["Ace"]["played"] == 2 and cards["Ace"]["win_rate_played"] == 1.0
    assert cards["Bolt"]["win_rate_played"] == 0.5 and cards["Bolt"]["improvement_played"] == pytest.approx(-0.125)
    assert cards["Cold"]["drawn"] == 0 and cards["Cold"]["win_rate_drawn"] is None
    assert figures["average_actions"] == 25
    assert figures["endings"] == [{"ending": "empty deck", "matches": 3}, {"ending": "conceded", "matches": 1}]
