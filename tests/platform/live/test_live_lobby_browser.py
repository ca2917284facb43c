"""The /live/ lobby in Chromium, at 1400 and 390 px, with no console error.

(a) Two players matched through the queue finish their match (one resigns on the board);
back on /live/ neither is sent to the finished match: both can queue again and play a
bot at once. (b) A challenge: the challenged player sees a notice on another page and
the challenge on /live/, accepts with a deck and lands on the board with the challenger;
a second challenge is declined (the challenger is told), a third cancelled.
"""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from live.models import LiveChallenge

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARD = re.compile(r".*/live/(\d+)/$")


@pytest.fixture
def people(django_db_setup, django_db_blocker) -> dict[str, str]:
    """Alice and Bob, each with a TempoFront deck, and their session cookies; a starter
    deck for the bots. Made before the browser starts (Playwright's loop then owns this
    thread, and the test cannot query the database)."""
    cookies = {}
    with django_db_blocker.unblock():
        site = User.objects.create_user("site", password="pw-site-123")
        make_deck(site, "tempofront", index=2, starter=True)
        for index, name in enumerate(("alice", "bob")):
            user = User.objects.create_user(name, password=f"pw-{name}-123")
            make_deck(user, "tempofront", index=index)
            client = Client()
            client.force_login(user)
            cookies[name] = client.cookies["sessionid"].value
    return cookies


def open_pages(browser_page, asgi_server, people) -> tuple[dict, list[str]]:
    """A page of its own (its own cookies) for each player, at 1400 px; the console
    errors and page errors of all of them."""
    browser = browser_page.context.browser
    errors: list[str] = []
    pages = {}
    for name, cookie in people.items():
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
        page = context.new_page()
        page.on("console", lambda message, name=name: errors.append(f"{name}: {message.text}")
                if message.type == "error" else None)
        page.on("pageerror", lambda error, name=name: errors.append(f"{name}: {error}"))
        pages[name] = page
    return pages, errors


def board_id(page) -> int:
    found = BOARD.match(page.url)
    assert found, page.url
    return int(found.group(1))


def wait_for_board(page, *, other_than: int | None = None) -> int:
    page.wait_for_url(BOARD, timeout=20_000)
    page.locator("[data-live-match][data-index]").wait_for(timeout=20_000)
    match_id = board_id(page)
    assert match_id != other_than
    return match_id


def resign(page) -> None:
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[data-resign]").click()
    page.locator("[data-final]").filter(has_text="You lost by resignation").wait_for(timeout=20_000)


def open_lobby_and_stay(page, asgi_server) -> None:
    """Open /live/ and check, once its scripts have asked where the player stands, that it
    is still /live/: the lobby sends a player on only to a match being played."""
    page.goto(asgi_server.url("/live/"), wait_until="networkidle")
    # data-checked: the server has answered where the player stands, and it sent them nowhere.
    page.locator("[data-live-lobby][data-checked]").wait_for(timeout=15_000)
    assert page.url == asgi_server.url("/live/"), f"the lobby sent the player to {page.url}"
    assert page.locator("[data-queue-state]").inner_text() == ""
    assert page.locator("[data-active-match]").count() == 0


def phone_check(page, screenshot, name: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} overflows"
    screenshot(page, f"{name}-390")
    page.set_viewport_size({"width": 1400, "height": 900})


def test_players_matched_through_the_queue_are_free_again_once_their_match_is_over(
        people, asgi_server, browser_page, screenshot):
    pages, errors = open_pages(browser_page, asgi_server, people)
    alice, bob = pages["alice"], pages["bob"]
    for page in (alice, bob):
        page.goto(asgi_server.url("/live/"))
        page.locator('[data-form="queue"] button[type="submit"]').click()
        if page is alice:
            alice.locator("[data-queue-state]").filter(has_text="Waiting").wait_for(timeout=10_000)
    first = wait_for_board(alice)
    assert wait_for_board(bob) == first

    resign(alice)
    bob.locator("[data-final]").filter(has_text="You won").wait_for(timeout=20_000)

    # Back in the lobby: not sent back to the finished match, even after a reload.
    for page in (alice, bob):
        open_lobby_and_stay(page, asgi_server)
    bob.reload(wait_until="networkidle")
    open_lobby_and_stay(bob, asgi_server)
    screenshot(bob, "live-lobby-after-a-match-1400")
    phone_check(bob, screenshot, "live-lobby-after-a-match")

    # Bob queues again at once, and leaves.
    bob.locator('[data-form="queue"] button[type="submit"]').click()
    bob.locator("[data-queue-state]").filter(has_text="Waiting for an opponent").wait_for(timeout=10_000)
    assert bob.url == asgi_server.url("/live/")
    bob.locator("[data-leave]").click()
    bob.locator("[data-leave]").wait_for(state="hidden", timeout=10_000)

    # Alice plays a bot at once, and is free again once that match is over too.
    alice.locator('[data-form="bot"] button[type="submit"]').click()
    bot_match = wait_for_board(alice, other_than=first)
    resign(alice)
    open_lobby_and_stay(alice, asgi_server)
    alice.locator('[data-form="queue"] button[type="submit"]').click()
    alice.locator("[data-queue-state]").filter(has_text="Waiting for an opponent").wait_for(timeout=10_000)
    assert alice.url == asgi_server.url("/live/") and bot_match != first
    assert errors == []


def test_a_challenged_player_is_told_on_any_page_and_accepts_or_declines_on_the_lobby(
        people, asgi_server, browser_page, screenshot):
    pages, errors = open_pages(browser_page, asgi_server, people)
    alice, bob = pages["alice"], pages["bob"]
    bob.goto(asgi_server.url("/decks/"))
    notice = bob.locator("[data-live-notice]")
    assert notice.is_hidden()

    def challenge_bob() -> None:
        alice.goto(asgi_server.url("/live/"))
        alice.locator('[data-form="challenge"] [name="username"]').fill("bob")
        alice.locator('[data-form="challenge"] button[type="submit"]').click()
        waiting = alice.locator("[data-challenges-sent] [data-sent]").filter(has_text="Waiting for bob")
        try:
            waiting.wait_for(timeout=10_000)
        except PlaywrightTimeout:
            # Say what Alice saw and what the server stored, to tell a lost request from a
            # lost line on the page.
            pytest.fail(
                f"alice's lobby shows no challenge waiting for bob: page {alice.url}; form says "
                f"{alice.locator('[data-form=challenge] .form-error').all_inner_texts()!r}; her challenges list "
                f"{alice.locator('[data-challenges-sent]').all_inner_texts()!r}; stored: "
                f"{list(LiveChallenge.objects.filter(challenger__username='alice').values_list('id', 'status'))}")

    challenge_bob()
    # The page Bob already has open learns of it by itself (it asks every 15 s).
    notice.filter(has_text="alice challenges you to a live TempoFront match").wait_for(timeout=25_000)
    screenshot(bob, "live-challenge-notice-1400")
    phone_check(bob, screenshot, "live-challenge-notice")
    bob.goto(asgi_server.url("/"))
    assert bob.locator("[data-live-notice]").is_visible()  # every page, rendered with it

    bob.locator("[data-live-notice-link]").click()
    bob.wait_for_url(asgi_server.url("/live/"))
    received = bob.locator("[data-challenges-received] [data-received]")
    received.filter(has_text="alice challenges you to TempoFront").wait_for(timeout=10_000)
    assert bob.locator("[data-live-notice]").count() == 0  # the lobby lists it instead
    assert received.locator("select option").all_inner_texts() == ["bob tempofront 1"]
    screenshot(bob, "live-challenge-received-1400")
    phone_check(bob, screenshot, "live-challenge-received")

    received.locator("[data-accept]").click()
    match_id = wait_for_board(bob)
    assert wait_for_board(alice) == match_id  # the challenger's lobby opens it too
    assert "alice" in bob.locator(".page-lead").inner_text() and "bob" in bob.locator(".page-lead").inner_text()
    resign(bob)
    open_lobby_and_stay(alice, asgi_server)

    # A second challenge, declined: gone for Bob, and Alice is told.
    challenge_bob()
    bob.goto(asgi_server.url("/live/"))
    received.filter(has_text="alice challenges you").wait_for(timeout=10_000)
    received.locator("[data-decline]").click()
    received.wait_for(state="detached", timeout=10_000)
    alice.locator("[data-challenges-sent] [data-declined]").filter(
        has_text="bob declined your TempoFront challenge").wait_for(timeout=10_000)
    assert alice.locator("[data-challenges-sent] [data-sent]").count() == 0
    bob.goto(asgi_server.url("/decks/"))
    assert bob.locator("[data-live-notice]").is_hidden()

    # A third, cancelled by Alice before Bob answers.
    challenge_bob()
    alice.locator("[data-challenges-sent] [data-cancel]").click()
    alice.locator("[data-challenges-sent] [data-sent]").wait_for(state="detached", timeout=10_000)
    bob.goto(asgi_server.url("/live/"), wait_until="networkidle")
    bob.locator("[data-live-lobby][data-checked]").wait_for(timeout=15_000)
    assert received.count() == 0
    assert errors == []


def test_the_lobby_comes_with_its_challenges_drawn_so_no_form_moves_under_the_pointer(
        people, asgi_server, browser_page):
    """The challenges to and by a player arrive with the page, not after a first request:
    a list appearing later would push the forms down under a pointer about to press one
    (a click on "Challenge" then lands on nothing)."""
    from decks.models import Deck
    from live.challenges import live_challenge, live_challenge_answer

    alice_user, bob_user = User.objects.get(username="alice"), User.objects.get(username="bob")
    version = Deck.objects.get(owner=alice_user).latest_version
    earlier = live_challenge(challenger=alice_user, challenged_username="bob", deck_version=version)
    live_challenge_answer(challenge_id=earlier.pk, user=bob_user, accept=False)
    live_challenge(challenger=alice_user, challenged_username="bob", deck_version=version)

    pages, errors = open_pages(browser_page, asgi_server, people)
    alice = pages["alice"]
    asked = []
    # Every request for the lists fails: what the page shows came with it.
    alice.route("**/api/live/challenges/", lambda route, *_: (asked.append(route.request.url), route.abort()))
    alice.goto(asgi_server.url("/live/"))
    sent = alice.locator("[data-challenges-sent]")
    assert sent.locator("[data-sent]").filter(has_text="Waiting for bob").is_visible()
    assert sent.locator("[data-declined]").filter(has_text="bob declined your TempoFront challenge").is_visible()
    button = alice.locator('[data-form="challenge"] button[type="submit"]')
    where = button.bounding_box()
    deadline = time.monotonic() + 10
    while not asked and time.monotonic() < deadline:  # the page did ask, and got nothing
        time.sleep(0.05)
    assert asked
    errors.clear()  # the console's lines for the requests cut off

    # Once the server has answered the page's own request too, nothing has moved.
    alice.unroute("**/api/live/challenges/")
    alice.reload()
    alice.locator("[data-live-lobby][data-checked]").wait_for(timeout=15_000)
    assert button.bounding_box() == where
    assert sent.locator("[data-sent]").count() == 1 and sent.locator("[data-declined]").count() == 1
    assert errors == []
