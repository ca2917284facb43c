"""What a game says about its hidden actions is all the platform knows of them.

A replay shown while a match runs carries each action in its public form, which the game
gives (``Game.observed_action``). A game with hidden information that says nothing shows
only each action's kind, never its content; Highcard played face down (a subclass with
private plays and a view that hides the cards) is that game here. A game's multi-step
decisions (``Game.decision_steps``) default to one action each, and Match the Twos runs
for any game without loading another game's package.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import tiny_game

from engine import games
from engine.core import Action, Decklist, Game, Replay, Rng
from engine.runner import RandomBot, play_match
from live import engine_state
from matches.replays import frames_page, replay_frames

ROOT = Path(__file__).resolve().parents[3]
NAME = "facedown-highcard"


class FaceDownState(tiny_game.HighcardState):
    """Highcard whose hands and plays only their own seat sees."""

    game = NAME

    def apply(self, seat: int, action: Action) -> list:
        return [e._replace(private_to=seat) for e in super().apply(seat, action)]

    def view(self, seat: int | None) -> dict[str, Any]:
        out = super().view(seat)
        for s, row in enumerate(out["seats"]):
            if s != seat:
                row["hand"], row["played"] = len(row["hand"]), len(row["played"])
        return out

    def clone(self) -> FaceDownState:
        return FaceDownState.from_json(self.to_json())


class FaceDownHighcard(tiny_game.HighcardGame):
    """A game with hidden information that does not say what its actions reveal."""

    name = NAME
    title = "Face-down Highcard"
    hidden_information = True

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, Any] | None = None
                  ) -> FaceDownState:
        dealt = super().new_match(decks, seed, params)
        state = FaceDownState.from_json(dealt.to_json())
        state.opening_events = [e._replace(private_to=e.data["seat"]) for e in dealt.opening_events]
        return state

    def state_from_json(self, data: Mapping[str, Any]) -> FaceDownState:
        return FaceDownState.from_json(data)


@pytest.fixture
def face_down():
    game = games.register(FaceDownHighcard())
    yield game
    games.unregister(NAME)


def _replay(game: Game) -> Replay:
    decks = list(game.starter_decks().values())
    result = play_match(game, decks, seed=7, bots=[RandomBot(), RandomBot()])
    return result.replay


def test_a_hidden_information_game_that_says_nothing_shows_spectators_no_played_card(face_down):
    replay = _replay(face_down)
    cards = set(tiny_game.VALUES)
    played = {a.get("card") for _, a in replay.actions}
    assert played & cards, "the game played cards"

    for frames in (replay_frames(replay, all_seats=False), frames_page(replay, start=0, stop=99, all_seats=False)):
        for frame in frames[1:]:
            assert frame["action"] == {"kind": "play", "hidden": True, "observed": ["play"]}
        text = json.dumps(frames)
        assert not [card for card in cards if f'"{card}"' in text or f" {card}" in text]

    # Once the match is over every seat's cards are shown: the card is in the action again.
    shown = replay_frames(replay, all_seats=True)
    assert {f["action"]["card"] for f in shown[1:]} == played


def test_a_game_without_hidden_information_shows_its_actions_as_they_are():
    game = tiny_game.GAME
    action = Action.of("play", card="Five")
    assert game.observed_action(0, action) == action
    assert FaceDownHighcard().observed_action(0, action) == ("play",)


def test_the_two_games_say_what_their_secret_actions_show():
    conquest, tempofront = games["conquest"], games["tempofront"]
    assert conquest.observed_action(1, Action.of("place", card="shieldbearer", location=2)) == ("place", 2, True)
    assert conquest.observed_action(1, Action.of("place", card="empty", location=3)) == ("place", 3, False)
    assert conquest.observed_action(1, Action.of("pass")) == Action.of("pass")
    assert tempofront.observed_action(0, Action.of("prepare", card="x")) == ("prepare",)
    assert tempofront.observed_action(0, Action.of("take", card="x")) == ("take",)
    assert tempofront.observed_action(0, Action.of("pass")) == Action.of("pass")


def test_a_game_that_names_no_multi_step_decision_offers_none_to_the_board(face_down):
    state = face_down.new_match(list(face_down.starter_decks().values()), 3)
    assert state.legal_actions(0)
    assert engine_state.placement_choices(state, 0) is None


def test_match_the_twos_runs_for_a_game_without_loading_another_games_package():
    lists = {0: ["Five"] * 4, 1: ["One", "Two", "Three", "Four"]}
    code = (
        "import json, sys; sys.path.insert(0, 'tests/platform/games'); import tiny_game\n"
        "from engine.core import Rng\n"
        f"record = tiny_game.GAME.match_the_twos({lists!r}, Rng(5))\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('engine.conquest', 'engine.tempofront')))\n"
        "print(json.dumps({'record': record, 'loaded': loaded}))\n"
    )
    out = json.loads(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                    check=True).stdout)
    assert out["loaded"] == []
    assert out["record"]["seats"] == [0, 1] and out["record"]["order"][0] == 0  # only Fives can match
    # The one procedure Conquest uses too: the same record for the same lists and stream.
    from engine.conquest import match_the_twos

    assert match_the_twos(lists, Rng(5), printed=dict(tiny_game.VALUES)) == json.loads(json.dumps(
        tiny_game.GAME.match_the_twos(lists, Rng(5))))
