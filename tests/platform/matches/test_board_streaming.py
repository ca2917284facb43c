"""Streaming a running bot match's public board: throttled frames, public views only, the
last position always sent."""

from __future__ import annotations

import json
import logging

from django.test import override_settings

from engine import games
from engine.core import Rng
from engine.runner import RandomBot, play_match
from matches.streaming import BoardStreamer


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.1  # each action takes 0.1 s of the clock
        return self.now


def test_frames_are_throttled_public_and_end_with_the_final_position(effects_recorded):
    game = games["tempofront"]
    decks = list(game.starter_decks().values())[:2]
    streamer = BoardStreamer(match_id=7, game=1, interval=1.0, clock=FakeClock())
    hands = set()

    def on_action(n, state, events):
        for seat in (0, 1):
            hands.update(c["name"] for c in state.view(seat).get("hand", []))
        streamer(n, state, events)

    result = play_match(game, decks, [RandomBot(), RandomBot()], seed=3, on_action=on_action)
    frames = effects_recorded.sends
    assert frames and all(group == "match.7" for group, _ in frames)
    # One frame a second of a 0.1 s-per-action clock: about one frame per ten actions.
    assert len(frames) <= result.actions // 10 + 2
    last = frames[-1][1]
    assert last["over"] is True and last["actions"] == result.actions
    assert all("hand" not in frame["view"] for _, frame in frames)
    assert all("private_to" not in json.dumps(frame["events"]) for _, frame in frames)
    # Events between frames are not lost: every public event reaches some frame.
    assert sum(len(frame["events"]) for _, frame in frames) >= result.actions // 2


def test_a_failing_channel_layer_never_stops_the_worker(closed_port, caplog):
    """The channel layer is a Redis server that is down: the frame is lost (logged) and the
    worker's match goes on."""
    game = games["conquest"]
    state = game.new_match(list(game.starter_decks().values())[:2], 1, {})
    down = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                        "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port}/0"]}}}
    streamer = BoardStreamer(match_id=1, game=1)
    seat = state.to_act()[0]
    events = state.apply(seat, Rng(1).choice(state.legal_actions(seat)))
    with override_settings(CHANNEL_LAYERS=down), caplog.at_level(logging.ERROR, logger="web.effects"):
        assert streamer(1, state, events) is True
    assert "could not broadcast to group 'match.1'" in caplog.text
