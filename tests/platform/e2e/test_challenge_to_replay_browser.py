"""The whole first slice in Chromium, as a new player meets it, against the real ASGI
server and a real Celery worker: sign up, build a TempoFront deck in the deck builder,
challenge a starter deck, watch the match page reach its result without a reload, and
step through the replay. The replay board is kept as artifacts/replay-board.png."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import games

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"
PASSWORD = "replay-passphrase-42"


@pytest.fixture
def starter_decks(transactional_db) -> None:
    """The site's starter decks, registered before the browser opens: while Playwright's
    loop runs in this thread, the test cannot query the database."""
    from decks.demo import load_demo_data

    load_demo_data(log=lambda message: None)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_sign_up_build_challenge_watch_and_replay(starter_decks, asgi_server, celery_worker_process, browser_page,
                                                  screenshot):
    game = games["tempofront"]
    starters = list(game.starter_decks().values())
    mine, opponent = starters[0], starters[1]
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # Sign up, straight into the deck builder.
    page.goto(asgi_server.url("/accounts/signup/?next=/decks/new/"))
    page.fill("#id_username", "challenger")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/decks/new/$"))

    # Build the deck from the card pool: the Leader, then every card copy by copy.
    page.check("input[name=game][value=tempofront]")
    page.fill("#id_name", "My First Deck")
    page.select_option("#id_pilot", "greedy")
    pool = page.locator('[data-pool="tempofront"]')
    page.fill("[data-pool-search]", mine.commander)
    pool.locator(f'[data-pool-item][data-name="{mine.commander}"] [data-choose-commander]').click()
    for card, count in mine.cards:
        page.fill("[data-pool-search]", card)
        add = pool.locator(f'[data-pool-item][data-name="{card}"] [data-add-card]')
        for _ in range(count):
            add.click()
    assert f"{mine.size} cards of {mine.size}" in page.inner_text("[data-builder-summary]")
    page.click("button[type=submit]:has-text('Register the deck')")
    page.wait_for_url(re.compile(r"/decks/\d+/$"))

    # Challenge a starter deck from the deck's page; the form arrives with the deck chosen.
    page.click("[data-challenge]")
    page.wait_for_url(re.compile(r"/matches/new/\?deck=\d+$"))
    assert page.locator("#id_deck option:checked").inner_text().startswith("My First Deck")
    opponent_option = page.locator("#id_opponent option", has_text=f"{opponent.name} · TempoFront · starter")
    page.select_option("#id_opponent", opponent_option.get_attribute("value"))
    page.select_option("#id_best_of", "3")
    page.click("button[type=submit]:has-text('Start the match')")
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    match_id = int(re.search(r"/matches/(\d+)/$", page.url).group(1))
    assert "Challenge queued" in page.inner_text("main")

    # The page follows the match without a reload until the worker finishes it.
    page.evaluate("window.__sameDocument = true")
    page.wait_for_function("document.querySelector('[data-match-status]').textContent.trim() === 'Done'",
                           timeout=120_000)
    assert page.evaluate("window.__sameDocument") is True
    result = page.inner_text("[data-match-result]")
    assert "wins the match" in result or "draw" in result
    # Provable fairness: the commitment, and now that the match is over its seed and salt.
    assert re.fullmatch(r"[0-9a-f]{64}", page.inner_text("[data-seed-commitment]"))
    assert re.fullmatch(r"\d+", page.inner_text("[data-seed]"))
    assert re.fullmatch(r"[0-9a-f]{64}", page.inner_text("[data-seed-salt]"))
    assert page.locator("[data-seed-pending]").is_hidden()
    rows = page.locator("[data-games-body] tr")
    assert 2 <= rows.count() <= 3
    # Decided: the bar is full (a 2-0 best of 3 too), the queued notice is gone, and the
    # replay is offered up front.
    assert page.evaluate("document.querySelector('[data-progress-bar] > span').style.width") == "100%"
    assert "Challenge queued" not in page.inner_text("main")
    assert page.locator("[data-match-replay-link]").is_visible()
    assert f"/matches/{match_id}/replay/?game=1" in page.locator("[data-match-replay-link]").get_attribute("href")
    screenshot(page, "match-page")

    # The replay: step forward, jump from the log, toggle whose cards show, permalink.
    page.locator("[data-games-body] a", has_text="Watch replay").first.click()
    page.wait_for_url(re.compile(rf"/matches/{match_id}/replay/\?game=1"))
    page.wait_for_selector("[data-board] .board-tempofront")
    counter = page.locator("[data-counter]")
    total = int(re.search(r"of (\d+)", counter.inner_text()).group(1))
    assert counter.inner_text() == f"Action 0 of {total}" and total > 10
    for _ in range(3):
        page.click("[data-step=forward]")
    assert counter.inner_text() == f"Action 3 of {total}"
    assert "action=3" in page.url
    page.click("[data-step=back]")
    assert counter.inner_text() == f"Action 2 of {total}"
    page.locator('[data-log] [data-position="10"] .log-action').click()
    assert counter.inner_text() == f"Action 10 of {total}"
    assert page.locator('[data-log] .log-frame.current').get_attribute("data-position") == "10"
    for front in ("left", "center", "right"):
        assert page.locator(f'[data-front="{front}"] [data-row="vanguard"]').count() == 2
    assert page.locator("[data-hand]").count() == 2  # every seat's cards after the match
    page.select_option("[data-perspective]", "public")
    assert page.locator("[data-hand]").count() == 0
    page.select_option("[data-perspective]", "0")
    assert page.locator("[data-hand]").count() == 1
    page.select_option("[data-perspective]", "all")
    # Showing every seat's cards, each private log line names its seat instead of "You".
    page.click("[data-step=first]")
    private = page.locator("[data-log] .log-private")
    assert private.count() >= 2
    texts = private.all_inner_texts()
    assert all(re.match(r"Seat \d · ", text) for text in texts), texts
    assert any(text.startswith("Seat 0 · ") for text in texts) and any(text.startswith("Seat 1 · ") for text in texts)
    page.select_option("[data-perspective]", "0")
    assert not any(text.startswith("Seat ") for text in page.locator("[data-log] .log-private").all_inner_texts())
    page.select_option("[data-perspective]", "all")

    # Playback at 10x from the start advances by itself until paused.
    page.select_option("[data-speed]", "80")
    page.click("[data-step=first]")
    page.click("[data-play]")
    page.wait_for_function("Number(document.querySelector('[data-counter]').textContent.split(' ')[1]) >= 5")
    page.click("[data-play]")
    paused_at = counter.inner_text()
    page.wait_for_timeout(400)
    assert counter.inner_text() == paused_at

    # A permalink opens the viewer at that action.
    page.goto(asgi_server.url(f"/matches/{match_id}/replay/?game=1&action=20"))
    page.wait_for_selector("[data-board] .board-tempofront")
    assert counter.inner_text() == f"Action 20 of {total}"
    page.click("[data-step=last]")
    # The last position may be on a page the viewer has not fetched yet.
    page.wait_for_function(f"document.querySelector('[data-counter]').textContent === 'Action {total} of {total}'")
    page.wait_for_selector("[data-outcome]", state="visible")
    # The game is over: no Chain is left on the board.
    assert page.locator("[data-board] .response-window").count() == 0
    if total > 52:
        # Arrow keys step across a page boundary (50 positions a page), fetching the next page.
        page.goto(asgi_server.url(f"/matches/{match_id}/replay/?game=1&action=48"))
        page.wait_for_selector("[data-board] .board-tempofront")
        for _ in range(4):
            page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.querySelector('[data-counter]').textContent === 'Action 52 of {total}'")
        assert page.locator('[data-log] .log-frame.current').get_attribute("data-position") == "52"

    # The board alone, clipped from a full-page picture so that the sticky controls stay
    # at the top of the page instead of floating over it.
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator("[data-board]").bounding_box()
    page.screenshot(path=str(ARTIFACTS / "replay-board.png"), full_page=True, clip=box)
    screenshot(page, "replay-page")
    assert (ARTIFACTS / "replay-board.png").stat().st_size > 10_000
    assert errors == []
