"""The match page in Chromium when its WebSocket fails: it falls back to polling
``GET /api/matches/<id>/`` every 2 s and still shows the worker's result without a reload."""

from __future__ import annotations

import pytest

from config.celery import app as celery_app
from matches.services import RUN_MATCH

PASSWORD = "polling-passphrase-42"


@pytest.fixture
def queued_match(unsent_match):
    """A queued TempoFront match whose run_match has not been sent yet."""
    return unsent_match(username="watcher", password=PASSWORD, pilot="greedy", seed=17)


@pytest.mark.browser
def test_match_page_polls_when_the_socket_fails(queued_match, asgi_server, celery_worker_process, browser_page):
    page = browser_page
    errors: list[str] = []
    polls: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: polls.append(request.url) if "/api/matches/" in request.url else None)
    page.route_web_socket("**/ws/matches/**", lambda socket: socket.close())

    page.goto(asgi_server.url(f"/matches/{queued_match}/"))
    assert page.inner_text("[data-match-status]") == "Queued"
    commitment = page.inner_text("[data-seed-commitment]")
    assert len(commitment) == 64 and page.locator("[data-seed]").is_hidden()
    assert page.evaluate("document.querySelector('[data-seed]').textContent") == ""
    assert page.evaluate("JSON.parse(document.getElementById('match-initial').textContent).seed") is None
    page.wait_for_function("document.querySelector('[data-live-state]').textContent.includes('every 2 s')")
    page.evaluate("window.__sameDocument = true")

    celery_app.send_task(RUN_MATCH, args=[queued_match])
    page.wait_for_function("document.querySelector('[data-match-status]').textContent.trim() === 'Done'",
                           timeout=90_000)
    assert page.evaluate("window.__sameDocument") is True
    assert any(url.endswith(f"/api/matches/{queued_match}/") for url in polls)
    assert page.inner_text("[data-live-state]") == "Final"
    # The seed arrived with the final status, without a reload, and matches the commitment.
    assert page.inner_text("[data-seed]") == "17" and page.inner_text("[data-seed-commitment]") == commitment
    assert page.locator("[data-games-body] tr").count() >= 2
    assert "wins the match" in page.inner_text("[data-match-result]") or "draw" in page.inner_text(
        "[data-match-result]")
    assert errors == []
