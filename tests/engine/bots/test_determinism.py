"""Determinism: with an iteration budget, a bot match is a function of (decks, seed).

Run twice, in this process and in fresh processes with different string-hash salts, a bot
match gives the same replay action for action.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.runner import play_match

from .helpers import BOT_SPECS, GAME_NAMES, decks_for, load_game, small_bot

ROOT = Path(__file__).resolve().parents[3]


def _match(game, specs, seed):
    bots = [small_bot(spec) for spec in specs]
    return play_match(game, decks_for(game, len(specs), seed), bots, seed=seed)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_bot_match_twice_gives_identical_replays(game_name):
    game = load_game(game_name)
    specs = ["search:fast", "greedy"]
    first = _match(game, specs, seed=5)
    second = _match(game, specs, seed=5)
    assert first.replay.to_json() == second.replay.to_json()
    assert not first.errors


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_bot_is_repeatable_in_a_multiplayer_match(game_name):
    game = load_game(game_name)
    seats = game.max_seats
    specs = [BOT_SPECS[i % len(BOT_SPECS)] for i in range(seats)]
    assert _match(game, specs, seed=9).replay.to_json() == _match(game, specs, seed=9).replay.to_json()


def test_different_seeds_give_different_matches():
    game = load_game("lanterns")
    assert _match(game, ["greedy", "search:fast"], 1).replay.actions != \
        _match(game, ["greedy", "search:fast"], 2).replay.actions


_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from bots import helpers
from engine.runner import play_match
game = helpers.load_game({game!r})
bots = [helpers.small_bot(s) for s in ("search:strong", "greedy")]
result = play_match(game, helpers.decks_for(game, 2, 4), bots, seed=4)
print(json.dumps([[seat, action.to_json()] for seat, action in result.replay.actions]))
"""


def test_replays_are_identical_across_processes_with_different_hash_salts():
    """Python salts str hashes per process; no bot decision may depend on that."""
    script = _SCRIPT.format(tests=str(ROOT / "tests" / "engine"), game="lanterns")
    outputs = []
    for salt in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": salt}
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                              check=True)
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] and outputs[0]
