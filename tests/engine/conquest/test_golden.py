"""Golden replays: a 2-player and a 4-player Conquest match with every event text pinned.

Each file under golden/ holds the replay (seed, decks, params, actions, outcome, state
digests) and every event the match produced, public and private, in order. A change to the
rules, the cards or the wording shows up here as a diff to read.

To regenerate after a deliberate change, run

    CONQUEST_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/engine/conquest/test_golden.py

and review the diff of tests/engine/conquest/golden/ before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.conquest import GAME
from engine.core import Replay, RulesVersionError, replay_states, verify_replay
from engine.runner import RandomBot, play_match

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("CONQUEST_REGENERATE_GOLDEN") == "1"

# name -> (seed, starter decks by name)
CASES = {
    "two_players": (20261202, ["Void Choir", "Plague Engine"]),
    "four_players": (4044, ["Frontier Expanse", "Fragment Archive", "Void Choir", "Plague Engine"]),
}


def _event_rows(events) -> list[dict]:
    return [{"kind": e.kind, "text": e.text, **({"private_to": e.private_to} if e.private_to is not None else {})}
            for e in events]


def _record(name: str) -> dict:
    seed, deck_names = CASES[name]
    starters = GAME.starter_decks()
    decks = [starters[n] for n in deck_names]
    result = play_match(GAME, decks, [RandomBot() for _ in decks], seed=seed, record_digests=True,
                        record_events=True)
    opening = GAME.new_match(decks, seed).opening_events
    assert result.events[: len(opening)] == opening, "the runner records the opening events first"
    return {
        "replay": result.replay.to_json(),
        "opening_events": _event_rows(opening),
        "events": _event_rows(result.events[len(opening):]),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_replay_events_are_pinned(name):
    path = GOLDEN / f"{name}.json"
    fresh = _record(name)
    if REGENERATE:
        path.write_text(json.dumps(fresh, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    pinned = json.loads(path.read_text(encoding="utf-8"))
    assert fresh["replay"]["actions"] == pinned["replay"]["actions"]
    assert fresh["opening_events"] == pinned["opening_events"]
    for i, (got, want) in enumerate(zip(fresh["events"], pinned["events"], strict=False)):
        assert got == want, f"event {i} differs"
    assert len(fresh["events"]) == len(pinned["events"])
    assert fresh["replay"] == pinned["replay"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_replay_verifies_state_by_state(name):
    pinned = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    replay = Replay.from_json(pinned["replay"])
    assert verify_replay(replay) == []
    seats = len(replay.decks)
    assert seats == (2 if name == "two_players" else 4)


def test_golden_replays_show_the_mechanics_they_pin():
    """The pinned games are not trivial: reveals, responses, End of Battle and a result."""
    kinds = set()
    for name in CASES:
        pinned = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
        kinds |= {e["kind"] for e in pinned["events"]}
    assert {"reveal", "respond", "resolve", "ability", "upload", "score", "clear", "result", "placed"} <= kinds


def test_a_replay_recorded_under_rules_version_1_is_refused_with_a_rules_version_error():
    """Rules version 2 (RULINGS C5 amended, R-Param) changed play: a version-1 replay is refused
    by name, never replayed into a different match."""
    old = Replay.from_json(json.loads((GOLDEN / "v1" / "two_players.json").read_text(encoding="utf-8"))["replay"])
    assert old.rules_version == "1" and GAME.rules_version == "2"
    assert verify_replay(old) == ["this replay was recorded under Conquest rules version 1; the engine plays "
                                  "rules version 2, so it cannot replay it"]
    with pytest.raises(RulesVersionError, match="rules version 1"):
        next(replay_states(old))
