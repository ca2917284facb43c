"""A live bot's move and a live clock's check are sent to the ``live`` queue, which has a
worker of its own (Procfile, compose): they never wait behind a bot match. A live bot's
move once waited 65 s behind a 188 s challenge on the shared worker while its clock ran."""

from __future__ import annotations

import pytest
from live_helpers import make_deck

from live import broadcasts, creation, selectors
from live import moves as live_moves
from live.creation import SeatSpec

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_bot_seat_to_act_and_a_clock_deadline_are_sent_to_the_live_queue(alice, monkeypatch):
    from config.celery import app

    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, args=None, queue=None, countdown=None, **kw:
                        sent.append((name, queue)))
    monkeypatch.setattr(broadcasts, "CHECK_HORIZON_SECONDS", 10**9)
    mine = make_deck(alice, "tempofront", index=0).latest_version
    bot = make_deck(alice, "tempofront", index=1, pilot="greedy").latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=bot, bot="greedy"),
                                       SeatSpec(deck_version=mine, user=alice)], initial_ms=60_000, increment_ms=0)
    # The person plays until it is the bot's turn (the bot's moves are only sent, not run).
    for _ in range(20):
        if any(name == "live.bot_act" for name, _ in sent):
            break
        payload = selectors.opening_payload(match_id=live.match_id, seat=1)
        assert payload["legal"], "the person has nothing to play and the bot was never asked"
        live_moves.live_act(match_id=live.match_id, user=alice, action_json=payload["legal"][0],
                            expected_index=payload["index"])
    names = {name for name, _ in sent}
    assert "live.bot_act" in names and "live.check_clock" in names, sent
    assert {queue for name, queue in sent if name.startswith("live.")} == {"live"}
