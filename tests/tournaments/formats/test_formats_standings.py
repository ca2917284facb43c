"""Standings and tiebreakers (issue 13, "Standings"), in the order docs/tournaments.md gives."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from formats_sim import play_round
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    Player,
    Result,
    bye_result,
    place_points,
    pod_pairings,
    standings,
    swiss_pairings,
    unresolved_ties,
)


def res(r: int, a: int, b: int, wa: int, wb: int, games: int | None = None) -> Result:
    places = (1, 2) if wa > wb else (2, 1) if wb > wa else (1, 1)
    return Result(round=r, players=(a, b), places=places, game_wins=(wa, wb), games=games or wa + wb)


def test_place_points_two_players_and_pods():
    assert place_points((1, 2)) == (3, 0)
    assert place_points((1, 1)) == (1, 1)  # a draw
    assert place_points((2, 1, 4, 3)) == (2, 3, 0, 1)
    assert place_points((1, 1, 3, 4)) == (2, 2, 1, 0)  # shared first splits 3 + 2
    assert place_points((3, 1, 2)) == (0, 3, 1)  # a pod of 3
    assert place_points((1,)) == (3,)  # a bye


def test_results_that_do_not_add_up_are_refused():
    with pytest.raises(ValueError, match="1, 1, 3"):
        Result(round=1, players=(1, 2, 3), places=(1, 1, 2), game_wins=(0, 0, 0), games=1)
    with pytest.raises(ValueError, match="do not fit"):
        Result(round=1, players=(1, 2), places=(1, 2), game_wins=(2, 2), games=3)
    with pytest.raises(ValueError, match="twice"):
        Result(round=1, players=(1, 1), places=(1, 2), game_wins=(1, 0), games=1)
    with pytest.raises(ValueError, match="bye"):
        Result(round=1, players=(1,), places=(1,), game_wins=(2,), games=2)
    with pytest.raises(ValueError, match="unknown game"):
        standings([Player(1, 1)], [], game="chess")


# The worked example of docs/tournaments.md ("Standings and tiebreakers").
EXAMPLE_PLAYERS = [Player(i, i) for i in range(1, 7)]  # Ana 1, Ben 2, Cleo 3, Dev 4, Eve 5, Finn 6
EXAMPLE_RESULTS = [
    res(1, 1, 4, 2, 1), res(1, 2, 5, 1, 2), res(1, 3, 6, 2, 0),
    res(2, 1, 3, 1, 2), res(2, 5, 4, 0, 2), res(2, 2, 6, 2, 0),
    res(3, 3, 2, 1, 2), res(3, 1, 5, 1, 2), res(3, 4, 6, 2, 1),
]


def test_worked_example_from_the_docs():
    table = standings(EXAMPLE_PLAYERS, EXAMPLE_RESULTS, game="tempofront")
    assert [s.player for s in table] == [2, 5, 3, 4, 1, 6]
    assert [s.points for s in table] == [6, 6, 6, 6, 3, 0]
    by = {s.player: s for s in table}
    # Ben (2) and Eve (5): OMW 5/9 each; Ben's games 5/8 beat Eve's 4/8.
    assert by[2].omw == by[5].omw == pytest.approx(5 / 9)
    assert (by[2].gwp, by[5].gwp) == (pytest.approx(5 / 8), pytest.approx(1 / 2))
    # Eve above Cleo (3): OMW 5/9 against 4/9 (Finn, 0-3, counts as 1/3 for Cleo).
    assert by[3].omw == pytest.approx((Fraction(1, 3) + Fraction(1, 3) + Fraction(2, 3)) / 3)
    # Cleo and Dev (4): OMW 4/9 and GW 5/8 each; OGW 101/216 against 23/54.
    assert (by[3].omw, by[3].gwp) == (by[4].omw, by[4].gwp)
    assert (by[3].ogw, by[4].ogw) == (pytest.approx(101 / 216), pytest.approx(23 / 54))
    assert all(s.rank == s.position and not s.tied_with for s in table)


def test_opponents_below_a_third_count_as_a_third_and_byes_are_not_opponents():
    players = [Player(1, 1), Player(2, 2), Player(3, 3)]
    results = [res(1, 1, 2, 2, 0), bye_result(1, 3), res(2, 1, 3, 2, 0), bye_result(2, 2)]
    by = {s.player: s for s in standings(players, results, game="tempofront")}
    # Player 1 met 2 (MW 1/2: a loss and a bye win) and 3 (MW 1/2): OMW 1/2; no bye in it.
    assert by[1].omw == pytest.approx(0.5)
    # Player 3 met only 1 (MW 1): OMW 1, although 3's own bye is a 2-0 match win.
    assert by[3].omw == pytest.approx(1.0)
    assert (by[3].points, by[3].byes, by[3].game_wins, by[3].games) == (3, 1, 2, 4)
    results = [res(1, 1, 2, 2, 0), res(2, 1, 3, 2, 0), res(3, 2, 3, 2, 0)]
    by = {s.player: s for s in standings(players, results, game="tempofront")}
    # Player 3 lost everything (MW 0): as an opponent it counts 1/3.
    assert by[1].omw == pytest.approx((Fraction(1, 2) + Fraction(1, 3)) / 2)


def test_head_to_head_breaks_a_tie_when_all_tied_players_met():
    # A and B: same points, same opponents' record, same games; A beat B.
    players = [Player(1, 2), Player(2, 1)]
    results = [res(1, 1, 2, 1, 0, games=1), res(2, 2, 1, 1, 0, games=1), res(3, 1, 2, 1, 0, games=1)]
    table = standings(players, results, game="tempofront")
    assert [s.player for s in table] == [1, 2]
    tied = [res(1, 1, 2, 1, 0, games=1), res(2, 2, 1, 1, 0, games=1)]
    table = standings(players, tied, game="tempofront")
    assert [s.player for s in table] == [2, 1]  # still tied: shown by seed
    assert table[0].tied_with == (1,) and table[0].rank == table[1].rank == 1


def test_a_head_to_head_cycle_leaves_the_tie_shared():
    players = [Player(1, 1), Player(2, 2), Player(3, 3)]
    results = [res(1, 1, 2, 1, 0, games=1), res(2, 2, 3, 1, 0, games=1), res(3, 3, 1, 1, 0, games=1)]
    table = standings(players, results, game="tempofront")
    assert [s.rank for s in table] == [1, 1, 1] and [s.h2h for s in table] == [0, 0, 0]
    assert [s.player for s in table] == [1, 2, 3] and table[0].tied_with == (2, 3)
    assert unresolved_ties(table, [1]) == [[1, 2, 3]]


@pytest.mark.parametrize(("b_scored", "order"), [(3, [3, 1, 2, 4]), (4, [3, 2, 1, 4])])
def test_the_games_score_total_comes_before_head_to_head(b_scored, order):
    # A (1) beat B (2); C (3) beat A; B beat D (4); D beat C: all four 1-1, equal OMW, GW
    # and OGW. Conquest scored: A 5, B 2 + b_scored, C 9, D 1.
    players = [Player(i, i) for i in range(1, 5)]

    def game(r, w, lo, cw, cl):
        return Result(round=r, players=(w, lo), places=(1, 2), game_wins=(2, 0), games=2, score=(cw, cl))

    results = [game(1, 1, 2, 3, 2), game(2, 3, 1, 6, 2), game(2, 2, 4, b_scored, 0), game(3, 4, 3, 1, 3)]
    table = standings(players, results, game="conquest")
    assert len({(s.points, s.omw, s.gwp, s.ogw) for s in table}) == 1
    # A and B level on Conquest (5 each): head-to-head puts A first. B on 6: Conquest decides.
    assert [s.player for s in table] == order
    # In TempoFront there is no Conquest step: all four tied, and not all of them met.
    assert [s.rank for s in standings(players, results, game="tempofront")] == [1, 1, 1, 1]


def test_unresolved_ties_across_a_cut_line_and_match_the_twos_orders():
    players = [Player(i, i) for i in range(1, 5)]
    results = [res(1, 1, 2, 1, 0, games=1), res(1, 3, 4, 1, 0, games=1)]
    table = standings(players, results, game="tempofront")
    # 1 and 3 tie on everything and never met; 2 and 4 likewise.
    assert [s.rank for s in table] == [1, 1, 3, 3]
    assert unresolved_ties(table, [1]) == [[1, 3]]
    assert unresolved_ties(table, [2]) == []  # the cut falls between the two groups
    assert unresolved_ties(table, [1, 3]) == [[1, 3], [2, 4]]
    table = standings(players, results, game="tempofront", decided=[[3, 1]])
    assert [s.player for s in table[:2]] == [3, 1] and [s.rank for s in table] == [1, 2, 3, 3]
    assert unresolved_ties(table, [1, 3]) == [[2, 4]]
    # A dropped player takes no place that matters: lines count the players still in.
    players[0] = Player(1, 1, dropped=True)
    table = standings(players, results, game="tempofront")
    assert table[0].dropped and table[0].tied_with == (3,)
    assert unresolved_ties(table, [1]) == [] and unresolved_ties(table, [2]) == [[2, 4]]


def reference_keys(players, results):
    """An independent, plain reading of the documented order, for two-player events."""
    pts, maxp, opps, gw, gd, gp = {}, {}, {}, {}, {}, {}
    for p in players:
        pts[p.id] = maxp[p.id] = gw[p.id] = gd[p.id] = gp[p.id] = 0
        opps[p.id] = []
    for r in results:
        for i, a in enumerate(r.players):
            if r.bye:
                pts[a] += 3
            else:
                b = r.players[1 - i]
                opps[a].append(b)
                pts[a] += 3 if r.places[i] < r.places[1 - i] else 1 if r.places[i] == r.places[1 - i] else 0
                gd[a] += r.games - sum(r.game_wins)
            maxp[a] += 3
            gw[a] += r.game_wins[i]
            gp[a] += r.games

    def mw(x):
        return Fraction(pts[x], maxp[x]) if maxp[x] else Fraction(0)

    def g(x):
        return Fraction(3 * gw[x] + gd[x], 3 * gp[x]) if gp[x] else Fraction(0)

    def mean(f, xs):
        return sum((max(f(o), Fraction(1, 3)) for o in xs), Fraction(0)) / len(xs) if xs else Fraction(0)

    return {p.id: (pts[p.id], mean(mw, opps[p.id]), g(p.id), mean(g, opps[p.id])) for p in players}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 120), rounds=st.integers(1, 7), seed=st.integers(0, 10_000))
def test_standings_follow_the_documented_order(n, rounds, seed):
    rng = random.Random(seed)
    players = [Player(i, i) for i in range(1, n + 1)]
    results: list[Result] = []
    for r in range(1, rounds + 1):
        results += play_round(rng, r, swiss_pairings(players, results, r))
    table = standings(players, results, game="tempofront")
    assert sorted(s.player for s in table) == [p.id for p in players]
    played = Counter(pid for r in results for pid in r.players)
    reference = reference_keys(players, results)
    keys = [reference[s.player] for s in table]
    assert all(keys[i] >= keys[i + 1] for i in range(len(keys) - 1)), "not in tiebreak order"
    for s in table:
        assert s.wins + s.draws + s.losses == s.matches == played[s.player]
        for other in s.tied_with:
            assert reference[s.player] == reference[other]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 60), rounds=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_conquest_pod_standings_add_up(n, rounds, seed):
    rng = random.Random(seed)
    players = [Player(i, i) for i in range(1, n + 1)]
    results: list[Result] = []
    for r in range(1, rounds + 1):
        results += play_round(rng, r, pod_pairings(players, results, r))
    table = standings(players, results, game="conquest")
    for s in table:
        mine = [r for r in results if s.player in r.players]
        assert s.points == sum(place_points(r.places)[r.players.index(s.player)] for r in mine)
        assert s.score == sum((r.score or (0,) * len(r.players))[r.players.index(s.player)] for r in mine)
    keys = [(s.points, s.omw, s.gwp, s.ogw, s.score) for s in table]
    assert keys == sorted(keys, reverse=True), "points, OMW, GW, OGW, then Conquest scored"
