"""The live board in Chromium: two players queue from /live/, get matched and play a
TempoFront match to the end by clicking the actions the server offers in the list of all
choices (the keyboard and screen-reader fallback of the board), one reloads mid-match and
finds the same board, and a spectator never sees a hand nor a choices panel."""

from __future__ import annotations

import json
import random

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from playwright.sync_api import Error as PlaywrightError

from live.models import LiveMatch

pytestmark = pytest.mark.browser


@pytest.fixture
def people(django_db_setup, django_db_blocker) -> dict[str, str]:
    """Three players with session cookies (alice and bob with a TempoFront deck each),
    made before the browser starts: once Playwright's loop runs in this thread, the test
    cannot query the database."""
    cookies = {}
    with django_db_blocker.unblock():
        for index, name in enumerate(("alice", "bob", "carol")):
            user = User.objects.create_user(name, password=f"pw-{name}-123")
            if name != "carol":
                make_deck(user, "tempofront", index=index)
            client = Client()
            client.force_login(user)
            cookies[name] = client.cookies["sessionid"].value
    return cookies


def stored_status(match_id: int) -> tuple[str, bool]:
    """Read on a thread of its own, with its own connection (``db_thread.py``)."""
    from concurrent.futures import ThreadPoolExecutor

    def read():
        from django.db import connection

        try:
            live = LiveMatch.objects.get(match_id=match_id)
            return live.status, live.replay is not None
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(read).result()


def index_of(page) -> int:
    return int(page.locator("[data-live-match]").get_attribute("data-index") or -1)


def view_received(page, frames: list[str], index: int, parsed: dict[int, dict]) -> str:
    """The JSON of the view of ``index`` among the socket frames a page received, waiting
    for Playwright to deliver it (at most 10 s of the page's time). ``parsed`` keeps each
    frame decoded once, by its place in ``frames`` (which only grows)."""
    for _ in range(100):
        for number, frame in enumerate(list(frames)):
            if number not in parsed:
                parsed[number] = json.loads(frame)
        drawn = [view.get("view", {}) for view in parsed.values()
                 if view.get("type") == "view" and view.get("index") == index]
        if drawn:
            return " ".join(json.dumps(view) for view in drawn)
        page.wait_for_timeout(100)
    raise AssertionError(f"the spectator's page shows view {index}, which its socket never received")


def state_of(page) -> str:
    return page.locator("[data-live-match]").get_attribute("data-state") or ""


@pytest.mark.django_db(transaction=True)
def test_two_players_queue_and_play_tempofront_to_the_end_by_clicking_while_a_spectator_watches(
        people, asgi_server, browser_page, screenshot):
    browser = browser_page.context.browser
    pages = {}
    for name, cookie in people.items():
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
        pages[name] = context.new_page()

    # Both queue from the lobby; the first waits, the second is matched, both land on the board.
    for name in ("alice", "bob"):
        page = pages[name]
        page.goto(asgi_server.url("/live/"))
        page.locator('[data-form="queue"] button[type="submit"]').click()
        if name == "alice":
            page.locator("[data-queue-state]").filter(has_text="Waiting").wait_for(timeout=10_000)
    for name in ("alice", "bob"):
        pages[name].wait_for_url("**/live/*/", timeout=20_000)
        pages[name].locator("[data-live-match][data-index]").wait_for(timeout=20_000)
    match_id = int(pages["alice"].url.rstrip("/").rsplit("/", 1)[1])
    assert pages["bob"].url == pages["alice"].url

    spectator_frames: list[str] = []
    spectator_views: dict[int, dict] = {}
    pages["carol"].on("websocket", lambda ws: ws.on("framereceived", lambda frame: spectator_frames.append(
        frame if isinstance(frame, str) else frame.decode("utf-8", "replace"))))
    pages["carol"].goto(asgi_server.url(f"/live/{match_id}/"))
    pages["carol"].locator("[data-live-match][data-index]").wait_for(timeout=20_000)
    assert "watching" in pages["carol"].locator(".eyebrow").inner_text().lower()

    # The list of every choice is folded under the board's own controls: open it.
    for name in ("alice", "bob"):
        pages[name].evaluate("document.querySelector('[data-all-choices]').open = true")
    assert pages["carol"].locator("[data-actions-panel], [data-all-choices]").count() == 0
    rng = random.Random(5)
    clicks = 0
    reloaded = False
    while state_of(pages["alice"]) != "done":
        assert clicks < 600, "the match did not end"
        for name in ("alice", "bob"):
            page = pages[name]
            buttons = page.locator("[data-actions] button[data-action]:not([disabled])")
            if state_of(page) == "done" or buttons.count() == 0:
                continue
            before = index_of(page)
            buttons.nth(rng.randrange(buttons.count())).click()
            page.wait_for_function(f"Number(document.querySelector('[data-live-match]').dataset.index) > {before}"
                                   f" || document.querySelector('[data-error]:not([hidden])') !== null",
                                   timeout=20_000)
            clicks += 1
        if clicks == 12 and not reloaded:
            reloaded = True
            page = pages["alice"]
            page.wait_for_timeout(300)
            before_index, before_hand = index_of(page), page.locator("[data-hand]").inner_text()
            page.reload()
            page.locator("[data-live-match][data-index]").wait_for(timeout=20_000)
            page.evaluate("document.querySelector('[data-all-choices]').open = true")
            assert index_of(page) == before_index
            assert page.locator("[data-hand]").inner_text() == before_hand
            assert page.locator("[data-log] li").count() >= 12
        # The spectator sees no hand, ever.
        assert pages["carol"].locator("[data-hand]").count() == 0
        hands = pages["alice"].locator("[data-hand] .hand-card").evaluate_all(
            "cards => cards.map(c => c.dataset.cardName)")
        hands += pages["bob"].locator("[data-hand] .hand-card").evaluate_all(
            "cards => cards.map(c => c.dataset.cardName)")
        # The board and the index of the view it was drawn from, read at once; then that
        # view as the spectator's socket received it (Playwright may hand the frame to this
        # test after the page has drawn it).
        shown = pages["carol"].evaluate(
            "() => ({index: Number(document.querySelector('[data-live-match]').dataset.index),"
            " board: document.querySelector('[data-board]').innerText})")
        board = shown["board"]
        public_view = view_received(pages["carol"], spectator_frames, shown["index"], spectator_views)
        for name in hands:
            if name in public_view:
                continue  # another copy is on the board or in a discard pile
            assert name not in board
    for name in ("alice", "bob"):
        pages[name].locator("[data-final]").filter(has_text="You ").wait_for(timeout=20_000)
    finals = {name: pages[name].locator("[data-final]").inner_text() for name in ("alice", "bob")}
    assert sorted(text.split(" by ")[0].split(" on ")[0] for text in finals.values()) == ["You lost", "You won"], finals
    # A match between two people is rated: each sees their rating change, one up, one down.
    changes = {}
    for name in ("alice", "bob"):
        rating = pages[name].locator("[data-rating-change]")
        rating.wait_for(timeout=20_000)
        changes[name] = float(rating.locator("strong").inner_text())
    assert sorted(changes.values())[0] < 0 < sorted(changes.values())[1], changes
    pages["carol"].wait_for_function("document.querySelector('[data-live-match]').dataset.state === 'done'",
                                     timeout=20_000)
    assert all('"hand"' not in frame for frame in spectator_frames)
    screenshot(pages["alice"], "live-tempofront-finished")
    assert stored_status(match_id) == ("done", True)
    for width in (390,):
        pages["carol"].set_viewport_size({"width": width, "height": 844})
        screenshot(pages["carol"], f"live-spectator-{width}")


@pytest.fixture
def conquest_vs_bot(django_db_setup, django_db_blocker) -> tuple[int, str]:
    """A live Conquest match of alice (seat 0) against the random bot, and alice's cookie."""
    from live import creation
    from live.creation import SeatSpec

    with django_db_blocker.unblock():
        alice = User.objects.create_user("alice", password="pw-alice-123")
        site = User.objects.create_user("site", password="pw-site-123")
        mine = make_deck(alice, "conquest", index=0).latest_version
        theirs = make_deck(site, "conquest", index=1, starter=True).latest_version
        live = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice),
                                           SeatSpec(deck_version=theirs, bot="random")], seed=4)
        client = Client()
        client.force_login(alice)
        return live.match_id, client.cookies["sessionid"].value


@pytest.mark.django_db(transaction=True)
def test_a_player_plays_conquest_against_a_bot_through_placement_and_a_response_window(
        conquest_vs_bot, asgi_server, celery_worker_process, browser_page, screenshot):
    match_id, cookie = conquest_vs_bot
    page = browser_page
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page.goto(asgi_server.url(f"/live/{match_id}/"))
    page.locator("[data-live-match][data-index]").wait_for(timeout=30_000)
    page.evaluate("document.querySelector('[data-all-choices]').open = true")
    rng = random.Random(2)
    placements = responses = 0
    for _ in range(400):
        if state_of(page) == "done":
            break
        before = index_of(page)
        confirm = page.locator("[data-confirm-placement]")
        buttons = page.locator("[data-actions] button[data-action]:not([disabled])")
        if confirm.is_visible():
            # Choose a card (or empty) for every Location and confirm, in one step of the page,
            # so that a bot's move redrawing the board cannot interleave.
            page.evaluate("""(seed) => {
                let x = seed;
                const numbers = [...document.querySelectorAll("[data-placement] select")].map(s => s.dataset.location);
                for (const n of numbers) {
                    // Each choice redraws the lists: find the Location's list again.
                    const select = document.querySelector(`[data-placement] select[data-location="${n}"]`);
                    x = (x * 1103515245 + 12345) % 2147483648;
                    select.selectedIndex = x % select.options.length;
                    select.dispatchEvent(new Event("change"));
                }
                document.querySelector("[data-confirm-placement]")?.click();
            }""", rng.randrange(1, 10_000))
            placements += 1
        elif buttons.count():
            if page.locator("[data-prompt]").is_visible() and "Respond" in page.locator("[data-prompt]").inner_text():
                responses += 1
                assert ":" in page.locator("[data-prompt]").inner_text()  # the countdown
                if placements and responses == 1:
                    screenshot(page, "live-conquest-response-window")
            count = buttons.count()
            try:  # a bot's move may have redrawn the list meanwhile: then choose again
                buttons.nth(rng.randrange(max(1, count))).click(timeout=3000)
            except PlaywrightError:
                continue
        page.wait_for_function(
            f"Number(document.querySelector('[data-live-match]').dataset.index) > {before}"
            " || document.querySelector('[data-live-match]').dataset.state === 'done'", timeout=60_000)
    assert state_of(page) == "done", "the match did not end"
    assert placements > 0 and responses > 0, (placements, responses)
    page.locator("[data-final]").filter(has_text="You ").wait_for(timeout=20_000)
    screenshot(page, "live-conquest-finished")
