"""The benchmark function's shape, on the toy game with tiny counts (no timing asserted)."""

from __future__ import annotations

from engine.bots.bench import PAIRINGS, Pairing, bot_benchmarks

from . import toy


def test_benchmarks_return_pairings_speed_and_markdown():
    lines = []
    result = bot_benchmarks(
        games_per_pairing=2, speed_games=1, seed=4, game_names=("lanterns",),
        pairings=[Pairing("lanterns", ("greedy", "random"), 0.5),
                  Pairing("lanterns", ("search:fast", "greedy", "greedy"), 0.2, test="lower", games=1)],
        registry={"lanterns": toy.GAME}, progress=lines.append,
    )
    assert [p["players"] for p in result["pairings"]] == [2, 3]
    first = result["pairings"][0]
    assert first["command"] == "python -m engine arena --game lanterns --bots greedy,random --games 2 --seed 4"
    assert first["arena"]["bots"]["greedy"]["games"] == 2
    assert first["met"] == (first["win_rate"] >= 0.5)
    second = result["pairings"][1]
    assert second["games"] == 1 and second["arena"]["games"] == 1 and "--games 1 " in second["command"]
    assert [s["bot"] for s in result["speed"]] == ["random", "greedy", "search:fast", "search:strong"]
    assert all(s["games_per_hour"] > 0 for s in result["speed"])
    assert result["markdown"].startswith("## Bots")
    assert "`python -m engine arena --game lanterns --bots greedy,random --games 2 --seed 4`" in result["markdown"]
    assert len(lines) == 6


def test_the_issue_targets_are_all_benchmarked():
    measured = {(p.game, p.bots) for p in PAIRINGS}
    for game in ("tempofront", "conquest"):
        assert (game, ("greedy", "random")) in measured
        assert (game, ("search:strong", "greedy")) in measured
    assert ("conquest", ("search:strong", "greedy", "greedy", "greedy")) in measured
