"""Golden replays: full TempoFront games whose every event text and outcome are pinned.

Set TEMPOFRONT_REGENERATE_GOLDEN=1 to rewrite the files deliberately (see golden_games.py).
"""

from __future__ import annotations

import json
import os

import pytest

from engine.core import Action, Replay, RulesVersionError, replay_states, verify_replay
from engine.tempofront import GAME

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


def test_a_game_recorded_under_rules_version_1_is_refused_with_a_rules_version_error():
    """T18 changed play (Prepare opens a window), so TempoFront's rules version is 2. A game
    recorded under version 1 (golden/v1/, kept as it was) is refused by name, not replayed
    into another game; replayed by force, its actions no longer fit the rules."""
    old = json.loads((GOLDEN_DIR / "v1" / "ember-assault-vs-stone-dominion.json").read_text(encoding="utf-8"))
    starters = GAME.starter_decks()
    recorded = Replay(game="tempofront", rules_version="1", seed=old["seed"],
                      decks=[starters[d] for d in old["decks"]], params={},
                      actions=[(seat, Action.from_json(a)) for seat, a in old["actions"]])
    assert GAME.rules_version == "2"
    assert verify_replay(recorded) == ["this replay was recorded under TempoFront rules version 1; the engine "
                                       "plays rules version 2, so it cannot replay it"]
    with pytest.raises(RulesVersionError, match="rules version 1"):
        next(replay_states(recorded))
    with pytest.raises(Exception, match="respond"):
        replay(old["seed"], old["decks"], old["actions"])
