"""The finished board of a series game, in Chromium: the end said in words, and once the
next game is linked a "Next game →" link; a seated player is taken there after a 5-second
countdown, a spectator only gets the link."""

from __future__ import annotations

import pytest
from db_thread import in_thread
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from test_live_board_browser import LIVE, open_match

pytestmark = pytest.mark.browser


def cookie_of(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@pytest.fixture
def series(db):
    """Game 1 of alice against bob, which bob forfeited, and game 2, not yet linked."""
    from live import creation, endings
    from live.creation import SeatSpec

    alice = User.objects.create_user("alice", password="pw-alice-123")
    bob = User.objects.create_user("bob", password="pw-bob-123")
    carol = User.objects.create_user("carol", password="pw-carol-123")
    decks = [make_deck(alice, "tempofront", index=0).latest_version,
             make_deck(bob, "tempofront", index=1).latest_version]

    def game():
        return creation.live_create(seats=[SeatSpec(deck_version=decks[0], user=alice),
                                           SeatSpec(deck_version=decks[1], user=bob)])

    first, second = game(), game()
    endings.live_forfeit(match_id=first.match_id, seats=[1])
    return first.match_id, second.match_id, cookie_of(alice), cookie_of(carol)


def test_the_next_game_is_offered_and_a_seated_player_is_taken_there(series, asgi_server, browser_page):
    from live import endings

    first, second, alice_cookie, carol_cookie = series
    page = browser_page
    errors = open_match(page, asgi_server, first, alice_cookie, 1400)
    watcher = page.context.browser.new_context().new_page()
    watcher_errors = open_match(watcher, asgi_server, first, carol_cookie, 390)
    for board in (page, watcher):
        board.locator("[data-result] [data-ending]").wait_for(timeout=15_000)
        assert board.locator("[data-result] [data-ending]").inner_text() == "bob forfeited: did not show up"
        assert board.locator("[data-next-game]").count() == 0
    assert page.locator("[data-final]").inner_text() == "You won by forfeit"

    in_thread(lambda: endings.live_link_next(match_id=first, next_match_id=second))

    for board in (page, watcher):
        link = board.locator("[data-result] [data-next-game]")
        link.wait_for(timeout=15_000)
        assert link.inner_text().strip() == "Next game →"
        assert link.get_attribute("href") == f"/live/{second}/"
    # The player sees the countdown, and is then on the next game's board.
    assert page.locator("[data-next-countdown]").inner_text().startswith("Your next game opens in ")
    assert watcher.locator("[data-next-countdown]").count() == 0
    page.wait_for_url(f"**/live/{second}/", timeout=15_000)
    page.locator(f"{LIVE}[data-index]").wait_for(timeout=30_000)
    assert page.locator(LIVE).get_attribute("data-state") == "active"
    # The spectator stays where they are, with the link.
    assert watcher.url.endswith(f"/live/{first}/")
    assert watcher.locator("[data-result] [data-next-game]").is_visible()
    assert errors == [] and watcher_errors == []


def test_a_player_may_stay_on_the_finished_board(series, asgi_server, browser_page):
    from live import endings

    first, second, alice_cookie, _ = series
    page = browser_page
    # The page's timers run on a clock the test moves: the countdown's five seconds pass at
    # once, and any navigation they started is recorded.
    page.clock.install()
    left_for: list[str] = []
    page.on("request", lambda request: left_for.append(request.url) if request.is_navigation_request() else None)
    errors = open_match(page, asgi_server, first, alice_cookie, 390)
    page.locator("[data-result] [data-ending]").wait_for(timeout=15_000)
    in_thread(lambda: endings.live_link_next(match_id=first, next_match_id=second))
    page.locator("[data-next-stay]").click(timeout=15_000)
    opened = len(left_for)
    page.clock.run_for(6_500)
    # A request the page sends after the countdown's time is a barrier: a navigation the
    # countdown started would have been requested before it.
    assert page.evaluate("fetch('/healthz').then((answer) => answer.status)") == 200
    assert left_for[opened:] == [], "the countdown still opened the next game"
    assert page.url.endswith(f"/live/{first}/")
    assert page.locator("[data-next-countdown]").count() == 0
    assert page.locator("[data-result] [data-next-game]").is_visible()
    assert errors == []
