"""The arena: seats and decks rotate evenly; win rates with Wilson intervals; the CLI."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import engine.__main__ as cli
from engine.bots.arena import run_arena, seating, wilson

from . import toy


def test_wilson_interval_matches_known_values():
    low, high = wilson(90, 100)
    assert low == pytest.approx(0.8257, abs=1e-4) and high == pytest.approx(0.9448, abs=1e-4)
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)
    assert wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12) and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("matchups,cycle", [("mirror", 1), ("mixed", None)])
@pytest.mark.parametrize("players,decks", [(2, 2), (2, 3), (3, 2), (4, 4)])
def test_every_bot_plays_every_seat_and_every_deck_equally_often(players, decks, matchups, cycle):
    games = players * decks * (cycle or decks)
    seat_counts, deck_counts = Counter(), Counter()
    for index in range(games):
        _, entries, seat_decks = seating(index, players, decks, matchups)
        assert sorted(entries) == list(range(players))
        for seat, entry in enumerate(entries):
            seat_counts[entry, seat] += 1
            deck_counts[entry, seat_decks[seat]] += 1
    assert set(seat_counts.values()) == {games // players}
    assert len(set(deck_counts.values())) == 1 and len(deck_counts) == players * decks


def test_mirror_matchups_give_every_seat_the_same_deck_in_turn():
    for index in range(8):
        block, entries, decks = seating(index, 2, 4, "mirror")
        assert block == index // 2
        assert entries == ([0, 1] if index % 2 == 0 else [1, 0])
        assert decks == [block % 4] * 2


def test_mixed_matchups_cover_every_pair_of_decks():
    pairs = {tuple(seating(index, 2, 3, "mixed")[2]) for index in range(2 * 9)}
    assert pairs == {(a, b) for a in range(3) for b in range(3)}


def test_arena_tallies_every_seat_of_every_game():
    result = run_arena(toy.GAME, ["greedy", "random"], games=12, seed=3)
    assert result.games == 12
    for record in result.records.values():
        assert record.games == 12
        assert record.wins + record.draws + record.losses == 12
        assert record.decisions > 0
    greedy, rand = result.records["greedy"], result.records["random"]
    assert greedy.wins == rand.losses - (greedy.draws - rand.draws) and greedy.draws == rand.draws
    data = result.to_json()
    assert set(data["bots"]["greedy"]) >= {"games", "wins", "draws", "losses", "win_rate", "ci95",
                                           "mean_decision_seconds"}


def test_multiplayer_arena_counts_a_win_only_alone_in_first_place():
    result = run_arena(toy.GAME, ["search:fast", "greedy", "greedy", "greedy"], games=4, seed=1)
    search, greedy = result.records["search:fast"], result.records["greedy"]
    assert search.games == 4 and greedy.games == 12
    # At most one seat wins a game; a shared first place is a draw for each sharer.
    assert search.wins + greedy.wins <= 4


@pytest.mark.parametrize("game", ["toy", "tempofront"])
def test_arena_in_worker_processes_plays_the_same_games_as_one_process(game):
    from engine import games

    played = toy.GAME if game == "toy" else games.get(game)
    seen: dict[int, list] = {1: [], 2: []}
    results = {}
    for jobs in (1, 2):
        results[jobs] = run_arena(played, ["greedy", "random"], games=6, seed=5, jobs=jobs,
                                  on_game=lambda index, match, jobs=jobs: seen[jobs].append(
                                      (index, match.replay.seed, match.outcome.places, match.replay.actions)))
    assert seen[1] == seen[2]
    assert [index for index, *_ in seen[2]] == list(range(6))
    for name in ("greedy", "random"):
        one, two = results[1].records[name], results[2].records[name]
        assert (one.wins, one.draws, one.losses, one.decisions) == (two.wins, two.draws, two.losses, two.decisions)


def test_arena_refuses_bad_requests():
    with pytest.raises(ValueError, match="matchups"):
        run_arena(toy.GAME, ["random", "random"], games=1, matchups="swiss")
    with pytest.raises(ValueError, match="2 to 4 players"):
        run_arena(toy.GAME, ["random"] * 5, games=1)
    with pytest.raises(ValueError, match="unknown bot"):
        run_arena(toy.GAME, ["random", "oracle"], games=1)
    with pytest.raises(ValueError, match="jobs"):
        run_arena(toy.GAME, ["random", "random"], games=1, jobs=-1)


@pytest.fixture
def toy_registry(monkeypatch):
    monkeypatch.setattr(cli, "games", {toy.GAME.name: toy.GAME})


def test_cli_arena_json_has_per_bot_results(toy_registry, capsys):
    status = cli.main(["arena", "--game", "lanterns", "--bots", "search:fast,greedy", "--games", "4",
                       "--seed", "2", "--json"])
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and data["players"] == 2
    for name in ("search:fast", "greedy"):
        entry = data["bots"][name]
        assert entry["games"] == 4
        assert entry["wins"] + entry["draws"] + entry["losses"] == 4
        low, high = entry["ci95"]
        assert 0 <= low <= entry["win_rate"] <= high <= 1
        assert entry["mean_decision_seconds"] >= 0


def test_cli_arena_json_shows_progress_on_stderr_only(toy_registry, capsys):
    cli.main(["arena", "--game", "lanterns", "--bots", "greedy,random", "--games", "3", "--json"])
    captured = capsys.readouterr()
    json.loads(captured.out)
    progress = [line for line in captured.err.splitlines() if line.strip()]
    assert [line.split(" (")[0].strip() for line in progress] == ["game 1/3", "game 2/3", "game 3/3"]


def test_cli_arena_quiet_has_no_progress(toy_registry, capsys):
    cli.main(["arena", "--game", "lanterns", "--bots", "greedy,random", "--games", "2", "--json", "--quiet"])
    assert capsys.readouterr().err == ""


def test_cli_arena_text_with_players_repeats_the_bot_list(toy_registry, capsys):
    status = cli.main(["arena", "--game", "lanterns", "--bots", "greedy,random", "--players", "4",
                       "--games", "4", "--matchups", "mixed", "--quiet"])
    assert status == 0
    out = capsys.readouterr().out
    assert "4 players, mixed decks" in out and "95% CI" in out


def test_cli_arena_unknown_bot_is_a_clear_error(toy_registry, capsys):
    status = cli.main(["arena", "--game", "lanterns", "--bots", "greedy,oracle", "--games", "1"])
    assert status == 2
    assert "unknown bot 'oracle'" in capsys.readouterr().err


def test_cli_play_accepts_registry_specs(toy_registry, capsys):
    status = cli.main(["play", "--game", "lanterns", "--bots", "search:fast,greedy", "--seed", "3"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("seed 3: ") and "actions" in out
