""""Your match is ready" in Chromium, at 1400 px and 390 px: a signed-in player reads the home
page (scrolled down); a live match is created for them and announced; the banner appears
under the header without a reload, says which match against whom, and its link opens the
board, where that match's banner is not shown. The sound switch is off until turned on and
stays on after a reload; a dismissed match stays dismissed on the next page. No console
error. Screenshots go to artifacts/."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"
BANNER = "[data-live-ready]"
ITEMS = "[data-live-ready-list] > li"


@pytest.fixture
def alice_cookie(django_db_setup, django_db_blocker) -> str:
    """alice and bob with a TempoFront deck each, alice's session cookie; made before the
    browser starts (once Playwright's loop runs in this thread, the test cannot query)."""
    with django_db_blocker.unblock():
        for index, name in enumerate(("alice", "bob")):
            make_deck(User.objects.create_user(name, password=f"pw-{name}-123"), "tempofront", index=index)
        client = Client()
        client.force_login(User.objects.get(username="alice"))
        return client.cookies["sessionid"].value


def start_match(title: str) -> int:
    """alice against bob, announced as the tournaments do; on a thread of its own, with its
    own connection (``db_thread.py``)."""

    def create() -> int:
        from django.db import connection, transaction

        from live import creation
        from live.creation import SeatSpec
        from live.notify import live_notify_seats

        try:
            alice, bob = User.objects.get(username="alice"), User.objects.get(username="bob")
            with transaction.atomic():
                live = creation.live_create(seats=[
                    SeatSpec(deck_version=alice.decks.get().latest_version, user=alice),
                    SeatSpec(deck_version=bob.decks.get().latest_version, user=bob)])
                live_notify_seats(match_id=live.match_id, title=title)
            return live.match_id
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(create).result()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def fits(page) -> None:
    """Nothing sticks out sideways, and the banner is on screen right under the header."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    header = page.locator(".site-header").bounding_box()
    banner = page.locator(BANNER).bounding_box()
    viewport = page.viewport_size
    assert abs(banner["y"] - (header["y"] + header["height"])) <= 2, (header, banner)
    assert banner["y"] >= 0 and banner["y"] + banner["height"] <= viewport["height"] / 2, banner
    assert banner["x"] == 0 and banner["width"] == viewport["width"]
    for box in page.locator(f"{BANNER} a, {BANNER} button:visible").evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"):
        assert 0 <= box[0] and box[1] <= viewport["width"], box


def test_the_banner_appears_without_reload_and_opens_the_board(alice_cookie, asgi_server, browser_page):
    browser = browser_page.context.browser
    errors: list[str] = []
    announced: list[int] = []
    for width, height in ((1400, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.add_cookies([{"name": "sessionid", "value": alice_cookie, "url": asgi_server.origin}])
        page = context.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(asgi_server.url("/"))
        banner = page.locator(BANNER)
        page.locator(f"{BANNER}[data-connected]").wait_for(state="attached", timeout=15_000)
        # The matches already waiting (the earlier width's) are on the page from the start.
        assert banner.locator(ITEMS).count() == len(announced)
        page.mouse.wheel(0, 3000)
        page.wait_for_function("window.scrollY > 0")

        title = f"Spring Swiss, round {len(announced) + 2}"
        match_id = start_match(title)
        announced.append(match_id)
        # Wait for this match's own item (the earlier width's is already there).
        banner.locator(f'{ITEMS}[data-match-id="{match_id}"]').wait_for(timeout=15_000)
        newest = banner.locator(ITEMS).first
        status = page.get_by_role("status").filter(has=page.locator("[data-live-ready-list]"))
        assert f"Your match is ready: {title} vs bob (TempoFront)" in status.inner_text()
        assert newest.get_attribute("data-match-id") == str(match_id)
        assert banner.locator(ITEMS).count() == len(announced)
        fits(page)
        shot(page, f"live-notify-banner-{width}")

        # The sound is off until the player turns it on, and stays on after a reload.
        sound = banner.get_by_role("switch", name="Sound")
        assert sound.get_attribute("aria-checked") == "false"
        if width == 1400:
            sound.click()
            assert sound.get_attribute("aria-checked") == "true"
            page.reload()
            page.locator(f"{BANNER}[data-connected]").wait_for(state="attached", timeout=15_000)
            assert page.locator(BANNER).get_by_role("switch", name="Sound").get_attribute("aria-checked") == "true"
            # The title it was announced with is kept across pages.
            assert title in page.locator(ITEMS).first.inner_text()

        # The link opens the board, where this match's own banner is not shown.
        page.locator(ITEMS).first.get_by_role("link", name="Open board").click()
        page.wait_for_url(f"**/live/{match_id}/", timeout=15_000)
        page.locator("[data-live-match][data-index]").wait_for(timeout=20_000)
        board_items = page.locator(ITEMS)
        assert str(match_id) not in [board_items.nth(i).get_attribute("data-match-id")
                                     for i in range(board_items.count())]
        context.close()

    # Dismissed: gone, and not shown again on the next page.
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "sessionid", "value": alice_cookie, "url": asgi_server.origin}])
    page = context.new_page()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(asgi_server.url("/decks/"))
    assert page.locator(ITEMS).count() == 2
    page.locator(BANNER).get_by_role("button", name="Dismiss").click()
    assert page.locator(ITEMS).count() == 0
    assert page.locator(f"{BANNER}[data-empty]").count() == 1
    page.goto(asgi_server.url("/"))
    assert page.locator(ITEMS).count() == 0
    context.close()
    assert errors == []
