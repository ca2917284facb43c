"""Golden TempoFront games: full random games whose every event text is pinned in golden/*.json.

A golden file holds the seed, the two starter decks, every action applied and every
event (setup events under action -1; private events with the seat they are told to).
``test_golden.py`` replays the actions and compares every event and the outcome.

Regenerate the files deliberately, after a change to the rules or to event texts that
you mean, with either of:

    .venv/bin/python -m tests.engine.tempofront.golden_games
    TEMPOFRONT_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/engine/tempofront/test_golden.py

and review the diff of golden/ before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core import Action
from engine.runner import RandomBot, play_match
from engine.tempofront import GAME

GOLDEN_DIR = Path(__file__).parent / "golden"

#: (file name, seed, deck of seat 0, deck of seat 1): a mix of decks and of endings.
GAMES = [
    ("ember-assault-vs-stone-dominion", 2, "Ember Assault", "Stone Dominion"),
    ("gale-tempo-vs-veil-tricks", 3, "Gale Tempo", "Veil Tricks"),
    ("iron-bastion-vs-ember-assault", 4, "Iron Bastion", "Ember Assault"),
    ("veil-tricks-vs-stone-dominion", 4, "Veil Tricks", "Stone Dominion"),
]


def random_actions(seed: int, decks: list[str]) -> list[list[Any]]:
    """The actions two random bots choose in the match of ``seed``."""
    starters = GAME.starter_decks()
    result = play_match(GAME, [starters[d] for d in decks], [RandomBot(), RandomBot()], seed=seed)
    return [[seat, action.to_json()] for seat, action in result.replay.actions]


def replay(seed: int, decks: list[str], actions: list[list[Any]]) -> dict[str, Any]:
    """Apply ``actions`` to the match of ``seed`` and record every event and the outcome."""
    starters = GAME.starter_decks()
    state = GAME.new_match([starters[d] for d in decks], seed)
    events = [[-1, e.private_to, e.text] for e in state.opening_events]
    for index, (seat, action) in enumerate(actions):
        for event in state.apply(seat, Action.from_json(action)):
            events.append([index, event.private_to, event.text])
    return {
        "seed": seed,
        "decks": decks,
        "actions": actions,
        "events": events,
        "outcome": state.outcome.to_json() if state.outcome else None,
    }


def regenerate() -> list[Path]:
    """Play every golden game afresh and rewrite its file."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    written = []
    for name, seed, first, second in GAMES:
        decks = [first, second]
        record = replay(seed, decks, random_actions(seed, decks))
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(_dumps(record), encoding="utf-8")
        written.append(path)
    return written


def _dumps(record: dict[str, Any]) -> str:
    """One action and one event per line, so that a diff shows exactly what changed."""
    lines = ["{"]
    lines.append(f'  "seed": {json.dumps(record["seed"])},')
    lines.append(f'  "decks": {json.dumps(record["decks"])},')
    lines.append(f'  "outcome": {json.dumps(record["outcome"], sort_keys=True)},')
    lines.append('  "actions": [')
    lines.append(",\n".join(f"    {json.dumps(a, sort_keys=True)}" for a in record["actions"]))
    lines.append("  ],")
    lines.append('  "events": [')
    lines.append(",\n".join(f"    {json.dumps(e)}" for e in record["events"]))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    for path in regenerate():
        print(f"wrote {path}")
