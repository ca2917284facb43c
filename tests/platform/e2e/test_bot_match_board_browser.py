"""Watching a bot match as it is played: while a real worker plays it, the match page in
Chromium draws the running game's public board, which moves, and shows no hidden card."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from config.celery import app as celery_app
from matches.services import RUN_MATCH

PASSWORD = "watching-passphrase-42"


@pytest.fixture
def queued_search_match(unsent_match):
    """A queued best-of-3 TempoFront match of two search bots (a few seconds a game), whose
    run_match has not been sent yet."""
    return unsent_match(username="boardwatcher", password=PASSWORD, pilot="search:fast", seed=29,
                        deck_name="Search deck")


@pytest.mark.browser
def test_match_page_draws_the_running_bot_match_board_as_it_moves(queued_search_match, asgi_server,
                                                                  celery_worker_process, browser_page, screenshot):
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))))

    page.goto(asgi_server.url(f"/matches/{queued_search_match}/"))
    assert page.inner_text("[data-match-status]") == "Queued"
    assert page.locator("[data-live-board-panel]").is_hidden()  # nothing to draw before it runs

    celery_app.send_task(RUN_MATCH, args=[queued_search_match], queue="matches")
    page.wait_for_selector("[data-live-board-panel]:not([hidden])", timeout=120_000)
    seen: set[tuple[int, int]] = set()
    for _ in range(3):  # the board moves: three different positions while the match runs
        page.wait_for_function(
            """(seen) => {
                 const panel = document.querySelector('[data-live-board-panel]');
                 if (!panel || panel.hidden) return false;
                 return !seen.includes(`${panel.dataset.gameNumber}:${panel.dataset.actions}`);
               }""", arg=[f"{g}:{a}" for g, a in seen], timeout=60_000)
        if page.inner_text("[data-match-status]") != "Running":
            break
        panel = page.locator("[data-live-board-panel]")
        seen.add((int(panel.get_attribute("data-game-number")), int(panel.get_attribute("data-actions"))))
    assert len(seen) >= 2, f"the board did not move while the match ran: {seen}"
    caption = page.inner_text("[data-live-board-caption]")
    assert caption.startswith("Game ") and "public view" in caption
    assert page.locator("[data-live-board] .board-tempofront, [data-live-board] [class*=board]").count() >= 1
    screenshot(page, "bot-match-live-board-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"the live board overflows a phone screen by {overflow}px"
    screenshot(page, "bot-match-live-board-phone")

    page.wait_for_function("document.querySelector('[data-match-status]').textContent.trim() === 'Done'",
                           timeout=240_000)
    assert page.locator("[data-live-board-panel]").is_hidden()  # the replays take over
    boards = [frame for frame in frames if frame.get("type") == "match.board"]
    assert boards, "no match.board frame reached the page"
    for frame in boards:
        # Public information only: no hand, no deck order, no private event, no seed.
        for player in frame["view"]["players"]:
            assert "hand" not in player and "deck" not in player and "hand_count" in player
        assert "private_to" not in json.dumps(frame["events"]) and "seed" not in frame
        assert sorted(frame["seat_order"]) == [0, 1]
    assert errors == []


@pytest.mark.redis
def test_a_match_socket_receives_the_board_frames_of_a_running_match(queued_search_match, asgi_server,
                                                                     celery_worker_process):
    """Over real processes: the worker streams through the Redis channel layer and the ASGI
    server forwards ``match.board`` frames to a plain WebSocket client, game by game."""
    with connect(asgi_server.ws_url(f"/ws/matches/{queued_search_match}/"), origin=asgi_server.origin,
                 open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "match.update"
        celery_app.send_task(RUN_MATCH, args=[queued_search_match], queue="matches")
        boards = []
        while True:
            event = json.loads(socket.recv(timeout=120))
            if event["type"] == "match.board":
                boards.append(event)
            if event["type"] == "match.update" and event["match"]["status"] in ("done", "failed"):
                break
    assert event["match"]["status"] == "done"
    games_played = event["match"]["progress"]
    assert {frame["game"] for frame in boards} == set(range(1, games_played + 1))
    for number in range(1, games_played + 1):
        frames = [frame for frame in boards if frame["game"] == number]
        assert [f["actions"] for f in frames] == sorted(f["actions"] for f in frames)  # in order
        assert frames[-1]["over"] is True and all(not f["over"] for f in frames[:-1])
        recorded = event["match"]["games"][number - 1]
        assert frames[-1]["actions"] == recorded["actions"]  # the last frame is the game's end
    assert all("hand" not in player for frame in boards for player in frame["view"]["players"])
