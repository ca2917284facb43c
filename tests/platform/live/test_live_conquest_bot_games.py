"""Live Conquest against bots, played through the live services and the ``live.bot_act``
task code, two and four seats: no task raises (bench/live_conquest_bots.py plays 300).

``live.bot_act`` once raised StopIteration in ``engine_state.placement_choices`` when the
person was the last to confirm a placement: the bot's placement was saved but no view went
out (tests/platform/live/test_live_placement_choices.py reproduces it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.django_db(transaction=True)


def bench_module():
    spec = importlib.util.spec_from_file_location("live_conquest_bots", ROOT / "bench" / "live_conquest_bots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ten_live_conquest_games_against_bots_end_without_a_task_error():
    """Seed 4's first ten games include the one that raised StopIteration before the fix."""
    result = bench_module().play_games(games=10, seats=(2, 4), bots=("random", "greedy"), seed=4)
    assert result["errors"] == []
    assert result["games"] == result["finished"] == 10
    assert result["by_seats"]["2"]["games"] == result["by_seats"]["4"]["games"] == 5
    assert result["bot_tasks"] > 0 and result["person_moves"] > 0
    # Every committed action sent every seat its view and the spectators theirs.
    assert result["views"] >= result["actions"] * 3
