"""Golden replays: full TempoFront games whose every event text and outcome are pinned.

Set TEMPOFRONT_REGENERATE_GOLDEN=1 to rewrite the files deliberately (see golden_games.py).
"""

from __future__ import annotations

import json
import os

import pytest

from .golden_games import GAMES, GOLDEN_DIR, random_actions, regenerate, replay

if os.environ.get("TEMPOFRONT_REGENERATE_GOLDEN") == "1":
    regenerate()


@pytest.mark.parametrize("name", [g[0] for g in GAMES])
def test_golden_game_events_and_outcome_are_unchanged(name):
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))
    again = replay(golden["seed"], golden["decks"], golden["actions"])
    for i, (want, got) in enumerate(zip(golden["events"], again["events"], strict=False)):
        assert got == want, f"event {i} differs"
    assert len(again["events"]) == len(golden["events"])
    assert again["outcome"] == golden["outcome"]


@pytest.mark.parametrize("name", [g[0] for g in GAMES])
def test_golden_game_random_bots_still_choose_the_same_actions(name):
    """The seed, the legal actions' order and the bot's stream still give the same game."""
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert random_actions(golden["seed"], golden["decks"]) == golden["actions"]


def test_golden_games_cover_both_victories_and_all_decks():
    records = [json.loads((GOLDEN_DIR / f"{g[0]}.json").read_text(encoding="utf-8")) for g in GAMES]
    assert {r["outcome"]["reason"] for r in records} == {"Dominion", "Integrity"}
    assert len({d for r in records for d in r["decks"]}) >= 4
