"""Round robin (circle method) and Conquest pods (issue 13, "Round robin", "Conquest pods")."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from formats_sim import drop_some, play_round
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import Player, Result, pod_pairings, pod_sizes, round_robin_schedule


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16])
def test_round_robin_meets_everyone_once(n):
    players = [Player(10 + i, i) for i in range(1, n + 1)]
    rounds = round_robin_schedule(players)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met: Counter = Counter()
    sat: Counter = Counter()
    for rnd in rounds:
        seen = [pid for p in rnd for pid in p.players]
        assert sorted(seen) == [p.id for p in players], "everyone once per round"
        for p in rnd:
            if p.bye:
                sat[p.players[0]] += 1
            else:
                met[frozenset(p.players)] += 1
    assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}
    assert sat == (Counter({p.id: 1 for p in players}) if n % 2 else Counter())


def test_round_robin_leaves_out_dropped_players_and_small_fields():
    assert round_robin_schedule([Player(1, 1)]) == []
    rounds = round_robin_schedule([Player(1, 1), Player(2, 2), Player(3, 3, dropped=True)])
    assert [[p.players for p in r] for r in rounds] == [[(1, 2)]]


@pytest.mark.parametrize("n", range(1, 40))
def test_pod_sizes_use_fours_and_as_few_threes_as_possible(n):
    sizes = pod_sizes(n, 4)
    assert sum(sizes) == n
    if n >= 6:
        assert set(sizes) <= {3, 4} and sizes.count(3) <= 3 and sizes == sorted(sizes, reverse=True)
    sizes3 = pod_sizes(n, 3)
    assert sum(sizes3) == n and (n < 3 or set(sizes3) <= {2, 3})


def test_pod_size_must_be_three_or_four():
    with pytest.raises(ValueError, match="3 or 4"):
        pod_sizes(8, 5)


def test_round_one_pods_spread_the_top_seeds():
    pods = pod_pairings([Player(i, i) for i in range(1, 17)], [], 1)
    assert [p.players for p in pods] == [(1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15), (4, 8, 12, 16)]


def test_later_pods_stay_within_score_groups():
    players = [Player(i, i) for i in range(1, 17)]
    first = pod_pairings(players, [], 1)
    results = [Result(round=1, players=p.players, places=(1, 2, 3, 4), game_wins=(1, 0, 0, 0), games=1)
               for p in first]
    pods = pod_pairings(players, results, 2)
    winners = {p.players[0] for p in first}
    assert set(pods[0].players) == winners, "the four pod winners meet at table 1"
    assert set(pods[-1].players) == {p.players[3] for p in first}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 500), pod_size=st.sampled_from([3, 4]), rounds=st.integers(1, 4),
       drop_rate=st.sampled_from([0.0, 0.05]), seed=st.integers(0, 10_000))
def test_pods_seat_every_active_player_once(n, pod_size, rounds, drop_rate, seed):
    rng = random.Random(seed)
    players = [Player(i, i) for i in range(1, n + 1)]
    results: list[Result] = []
    for r in range(1, rounds + 1):
        pods = pod_pairings(players, results, r, pod_size=pod_size)
        active = sorted(p.id for p in players if not p.dropped)
        assert sorted(pid for p in pods for pid in p.players) == active
        assert sorted((len(p.players) for p in pods), reverse=True) == pod_sizes(len(active), pod_size)
        if r == 2 and len(active) >= 4 * pod_size * pod_size:
            met = {frozenset((a, b)) for x in results for a in x.players for b in x.players if a != b}
            repeats = [p.players for p in pods
                       if any(frozenset((a, b)) in met for a in p.players for b in p.players if a != b)]
            assert not repeats, "round 2 of a large field needs no repeat pod-mates"
        results += play_round(rng, r, pods)
        players = drop_some(rng, players, drop_rate)
