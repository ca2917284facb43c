"""Elimination brackets (issue 13, "Single elimination", "Double elimination", "top cut")."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from formats_sim import random_two_player_result
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import Bracket, Player, Result, standings, swiss_top_cut
from tournaments.formats.bracket import seed_positions


def play_out(bracket: Bracket, rng: random.Random) -> dict[str, Result]:
    results: dict[str, Result] = {}
    while True:
        ready = bracket.ready(results)
        if not ready:
            return results
        for p in ready:
            assert p.key not in results
            results[p.key] = random_two_player_result(rng, 1, *p.players, draws=False, match_key=p.key)


def losses(results: dict[str, Result], skip: tuple[str, ...] = ()) -> Counter:
    out: Counter = Counter()
    for key, r in results.items():
        if key not in skip:
            out[r.players[1] if r.winner == r.players[0] else r.players[0]] += 1
    return out


def test_seeding_keeps_the_top_seeds_apart_until_the_end():
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    b = Bracket.single(list(range(1, 17)))
    first = [p.players for p in b.ready({})]
    assert first[0] == (1, 16) and (8, 9) in first and len(first) == 8
    # Seeds 1 and 2 sit in different halves, 1-4 in different quarters.
    assert [seed_positions(16).index(s) // 8 for s in (1, 2)] == [0, 1]
    assert sorted(seed_positions(16).index(s) // 4 for s in (1, 2, 3, 4)) == [0, 1, 2, 3]


def test_byes_go_to_the_top_seeds_and_are_never_played():
    b = Bracket.single([11, 12, 13, 14, 15, 16])  # 6 players in a bracket of 8
    ready = b.ready({})
    assert sorted(p.players for p in ready) == [(13, 16), (14, 15)]
    layout = b.layout({})
    byes = [m for m in layout["rounds"][0]["matches"] if m["bye"]]
    assert sorted(m["winner"] for m in byes) == [11, 12]
    assert all(m["sources"][1] == "bye" for m in byes)


def test_a_drawn_elimination_match_is_refused():
    b = Bracket.single([1, 2])
    draw = Result(round=1, players=(1, 2), places=(1, 1), game_wins=(1, 1), games=2, match_key="W1-1")
    with pytest.raises(ValueError, match="no winner"):
        b.ready({"W1-1": draw})
    wrong = Result(round=1, players=(1, 3), places=(1, 2), game_wins=(1, 0), games=1, match_key="W1-1")
    with pytest.raises(ValueError, match="names"):
        b.ready({"W1-1": wrong})
    with pytest.raises(ValueError, match="not in this bracket"):
        b.ready({"W9-9": wrong})
    with pytest.raises(ValueError, match="twice"):
        Bracket.single([1, 1])


def test_double_elimination_grand_final_reset_only_when_the_losers_side_wins():
    b = Bracket.double([1, 2])

    def beat(key, w, lo):
        return Result(round=1, players=(w, lo), places=(1, 2), game_wins=(1, 0), games=1, match_key=key)

    results = {"W1-1": beat("W1-1", 1, 2)}
    assert [(p.key, p.players) for p in b.ready(results)] == [("GF", (1, 2))]
    assert b.champion({**results, "GF": beat("GF", 1, 2)}) == 1
    assert b.done({**results, "GF": beat("GF", 1, 2)})
    results["GF"] = beat("GF", 2, 1)
    assert [(p.key, p.players) for p in b.ready(results)] == [("GF-reset", (1, 2))]
    assert not b.done(results) and b.champion(results) is None
    results["GF-reset"] = beat("GF-reset", 2, 1)
    assert b.champion(results) == 2 and b.placings(results) == {2: 1, 1: 2}


def test_single_elimination_places_and_third_place_match():
    rng = random.Random(3)
    b = Bracket.single(list(range(1, 9)), third_place=True)
    results = play_out(b, rng)
    assert "3rd" in results and sorted(b.placings(results).values()) == [1, 2, 3, 4, 5, 5, 5, 5]
    b = Bracket.single(list(range(1, 9)))
    assert sorted(b.placings(play_out(b, rng)).values()) == [1, 2, 3, 3, 5, 5, 5, 5]
    with pytest.raises(ValueError, match="not finished"):
        b.placings({})


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 70), third=st.booleans(), seed=st.integers(0, 10_000))
def test_single_elimination_is_well_formed(n, third, seed):
    players = list(range(500, 500 + n))
    b = Bracket.single(players, third_place=third)
    results = play_out(b, random.Random(seed))
    layout = json.loads(json.dumps(b.layout(results)))  # JSON-able
    first = [p for m in layout["rounds"][0]["matches"] for p in m["players"] if p is not None]
    assert sorted(first) == players, "every player placed once, in round 1"
    for rnd in layout["rounds"][1:]:
        if rnd["bracket"] == "3rd" and n == 3:
            continue  # one semi-final was a bye: its loser's slot is empty, third place goes by default
        assert not any(m["bye"] for m in rnd["matches"]), "byes only in round 1"
    assert b.done(results)
    champion = b.champion(results)
    final = results.get(f"W{b.rounds}-1")
    assert champion == (final.winner if final else players[0]), "the champion won the final"
    lost = losses(results, skip=("3rd",))
    assert all(lost[p] == (0 if p == champion else 1) for p in players), "one loss and you are out"
    assert len(results) == n - 1 + ("3rd" in results)
    places = b.placings(results)
    assert sorted(places) == sorted(players) and places[champion] == 1


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 70), seed=st.integers(0, 10_000))
def test_double_elimination_is_well_formed(n, seed):
    players = list(range(900, 900 + n))
    b = Bracket.double(players)
    results = play_out(b, random.Random(seed))
    assert b.done(results)
    layout = json.loads(json.dumps(b.layout(results)))
    first = [p for m in layout["rounds"][0]["matches"] for p in m["players"] if p is not None]
    assert sorted(first) == players, "every player placed once, in winners round 1"
    for rnd in layout["rounds"]:
        if rnd["bracket"] == "W" and rnd["round"] > 1 or rnd["bracket"] == "L" and rnd["round"] > 2:
            assert not any(m["bye"] or m["skipped"] for m in rnd["matches"]), rnd["title"]
    champion = b.champion(results)
    decider = results.get("GF-reset") or results.get("GF")
    assert champion == (decider.winner if decider else players[0]), "the grand final's winner is the champion"
    lost = losses(results)
    for p in players:
        if p == champion:
            assert lost[p] <= 1
        else:
            assert lost[p] == 2, f"{p} lost {lost[p]} times before elimination"
    places = b.placings(results)
    assert places[champion] == 1 and sorted(places) == sorted(players)
    if n >= 3:
        assert sorted(places.values())[:3] == [1, 2, 3]


def test_swiss_top_cut_seeds_by_standing_and_skips_dropped_players():
    players = [Player(i, i, dropped=(i == 2)) for i in range(1, 11)]
    rng = random.Random(5)
    results = [random_two_player_result(rng, 1, a, a + 5, draws=False) for a in range(1, 6)]
    table = standings(players, results, game="tempofront")
    cut = swiss_top_cut(table, 4)
    expected = [s.player for s in table if not s.dropped][:4]
    assert cut.players == tuple(expected)
    assert [p.players for p in cut.ready({})] == [(expected[0], expected[3]), (expected[1], expected[2])]
    with pytest.raises(ValueError, match="at least 2"):
        swiss_top_cut(table, 1)
