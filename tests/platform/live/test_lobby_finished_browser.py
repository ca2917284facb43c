"""The lobby, the header, the deck builder and the tournaments page, finished, in Chromium
at 1400x900 and 390x844 (screenshots under artifacts/).

- A double click on "Play now" starts one live match, not two.
- A refused request shows the server's reason ("there is no player named 'zed'", "you
  cannot challenge yourself"), and the lobby offers only the seat counts of the chosen
  deck's game.
- The lobby's controls are the site's, not the browser's grey defaults.
- The header keeps every section on one line at 1400 px, even with a long name.
- The deck builder stops offering "+ Add" at the copy limit and for a full deck, and a
  list with a card not in the pool is not shown as complete.
- The tournaments page says that people play live events.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from db_thread import in_thread
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from live_helpers import make_deck

from live.models import LiveMatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARD = re.compile(r".*/live/(\d+)/$")
LONG_NAME = "championship-player"
SIZES = ((1400, 900), (390, 844))


@pytest.fixture
def people(django_db_setup, django_db_blocker) -> dict[str, str]:
    """Alice (a TempoFront and a Conquest deck), Bob, and a player with a long name; the
    starter decks the bots play; their session cookies."""
    cookies = {}
    with django_db_blocker.unblock():
        site = User.objects.create_user("site", password="pw-site-123")
        make_deck(site, "tempofront", index=1, starter=True)
        make_deck(site, "conquest", index=1, starter=True)
        for name in ("alice", "bob", LONG_NAME):
            user = User.objects.create_user(name, password=f"pw-{name}-123")
            if name == "alice":
                make_deck(user, "tempofront", index=0)
                make_deck(user, "conquest", index=0)
            client = Client()
            client.force_login(user)
            cookies[name] = client.cookies["sessionid"].value
        from tournaments.services import tournament_create

        tournament_create(organiser=site, game="tempofront", name="Friday live", format="swiss", best_of=1,
                          starts_at=timezone.now() + timedelta(hours=2), entrants="people")
    return cookies


def signed_in(browser_page, asgi_server, cookie: str, width: int = 1400, height: int = 900):
    context = browser_page.context.browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def choose_deck(form, game_title: str) -> None:
    label = next(t for t in form.locator('select[name="deck"] option').all_text_contents() if f"({game_title})" in t)
    form.locator('select[name="deck"]').select_option(label=label)


def test_a_double_click_on_play_now_starts_one_live_match(people, asgi_server, browser_page, screenshot):
    page, errors = signed_in(browser_page, asgi_server, people["alice"])
    page.goto(asgi_server.url("/live/"), wait_until="networkidle")
    form = page.locator('[data-form="bot"]')
    choose_deck(form, "TempoFront")
    form.locator('select[name="bot"]').select_option("random")
    form.locator('button[type="submit"]').dblclick()
    page.wait_for_url(BOARD, timeout=20_000)
    page.wait_for_timeout(1500)  # a second request, if one was sent, has landed by now
    assert in_thread(lambda: LiveMatch.objects.count()) == 1
    opened = int(BOARD.match(page.url).group(1))
    assert in_thread(lambda: list(LiveMatch.objects.values_list("match_id", flat=True))) == [opened]
    assert errors == []


def test_the_lobby_shows_the_servers_reason_and_only_the_seats_a_game_offers(
        people, asgi_server, browser_page, screenshot):
    for width, height in SIZES:
        page, errors = signed_in(browser_page, asgi_server, people["alice"], width, height)
        page.goto(asgi_server.url("/live/"), wait_until="networkidle")
        challenge = page.locator('[data-form="challenge"]')
        challenge.locator('input[name="username"]').fill("zed")
        challenge.locator('button[type="submit"]').click()
        error = challenge.locator("[data-lobby-error]")
        error.filter(has_text="There is no player named 'zed'.").wait_for(timeout=10_000)
        assert "Some fields are not valid" not in error.inner_text()
        challenge.locator('input[name="username"]').fill("Alice")
        challenge.locator('button[type="submit"]').click()
        error.filter(has_text="You cannot challenge yourself.").wait_for(timeout=10_000)

        for name in ("queue", "bot"):
            form = page.locator(f'[data-form="{name}"]')
            choose_deck(form, "TempoFront")
            assert form.locator('select[name="seats"] option').all_text_contents() == ["2 players"]
            choose_deck(form, "Conquest")
            assert form.locator('select[name="seats"] option').all_text_contents() == ["2 players", "4 players"]
            form.locator('select[name="seats"]').select_option("4")
            choose_deck(form, "TempoFront")
            assert form.locator('select[name="seats"]').input_value() == "2"

        # The site's controls: its dark field colour, rounded corners, no grey default.
        for control in ('[data-form="queue"] select[name="deck"]', '[data-form="challenge"] input[name="username"]'):
            style = page.locator(control).evaluate(
                "e => { const s = getComputedStyle(e); return [s.backgroundColor, s.borderTopLeftRadius, s.color]; }")
            assert style == ["rgb(15, 20, 32)", "8px", "rgb(232, 236, 244)"], (control, style)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, f"live-lobby-errors-{width}")
        # The refused requests are the browser's only complaints (it logs every 400).
        assert [e for e in errors if "status of 400" not in e] == [], errors
        page.context.close()


def test_the_header_keeps_every_section_on_one_line_at_1400(people, asgi_server, browser_page, screenshot):
    for cookie in (people[LONG_NAME], None):
        if cookie:
            page, _ = signed_in(browser_page, asgi_server, cookie)
        else:
            page = browser_page.context.browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.goto(asgi_server.url("/tournaments/"), wait_until="networkidle")
        boxes = page.locator(".site-nav a, .header-play, .account > *").evaluate_all(
            "nodes => nodes.map(n => { const r = n.getBoundingClientRect(); "
            "return [n.textContent.trim(), r.top + r.height / 2, r.right]; })")
        middles = {round(middle) for _, middle, _ in boxes}
        assert max(middles) - min(middles) <= 4, boxes
        container = page.locator(".header-row").evaluate("e => e.getBoundingClientRect().right")
        assert all(right <= container + 1 for _, _, right in boxes), boxes
        assert page.locator(".site-header").evaluate("e => e.getBoundingClientRect().height") < 70
        screenshot(page, "header-1400" + ("-long-name" if cookie else "-signed-out"))
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.locator("[data-nav-toggle]").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, "header-390" + ("-long-name" if cookie else "-signed-out"))
        page.context.close()


def test_the_deck_builder_stops_adding_at_the_limits_and_flags_unknown_cards(
        people, asgi_server, browser_page, screenshot):
    for width, height in SIZES:
        page, errors = signed_in(browser_page, asgi_server, people["alice"], width, height)
        page.goto(asgi_server.url("/decks/new/?game=tempofront"), wait_until="networkidle")
        page.locator('input[name="game"][value="tempofront"]').check(force=True)
        pool = page.locator('[data-pool="tempofront"]')
        items = pool.locator("[data-pool-item]:not([data-commander='1'])")
        first = items.nth(0)
        add = first.locator("[data-add-card]")
        add.click()
        assert add.is_enabled()
        add.click()
        assert add.is_disabled(), "the third copy of a card is offered (TempoFront: at most 2)"
        assert page.locator('[data-builder-list] [data-plus]').first.is_disabled()

        # Fill the deck to 30 cards: every "+ Add" goes out.
        names = items.evaluate_all("nodes => nodes.map(n => n.dataset.name)")
        leader = pool.locator("[data-pool-item][data-commander='1']").first.get_attribute("data-name")
        text = "\n".join(f"2 {name}" for name in names[:15]) + "\n"
        page.locator("[data-decklist-input]").fill(text)
        assert page.locator("[data-builder-count]").inner_text() == "30"
        enabled = pool.locator("[data-add-card]:enabled")
        assert enabled.count() == 0, "a full deck still offers + Add"
        summary = page.locator("[data-builder-summary]")
        assert "is-complete" not in summary.get_attribute("class") and "no Leader yet" in summary.inner_text()
        page.locator("[data-decklist-input]").fill(f"Leader: {leader}\n{text}")
        assert "is-complete" in summary.get_attribute("class")
        screenshot(page, f"deck-builder-full-{width}")

        # 30 cards with one line the pool does not know: not complete, and said.
        unknown = f"Leader: {leader}\n" + "\n".join(f"2 {name}" for name in names[:14]) + "\n2 Nonsense Card\n"
        page.locator("[data-decklist-input]").fill(unknown)
        assert page.locator("[data-builder-count]").inner_text() == "30"
        assert "is-complete" not in summary.get_attribute("class")
        assert "1 line to fix" in summary.inner_text()
        assert summary.evaluate("e => getComputedStyle(e).color") != "rgb(62, 207, 142)"
        screenshot(page, f"deck-builder-unknown-card-{width}")
        assert errors == [], errors
        page.context.close()


def test_the_tournaments_page_says_people_play_live_events(people, asgi_server, browser_page, screenshot):
    for width, height in SIZES:
        page, errors = signed_in(browser_page, asgi_server, people["alice"], width, height)
        page.goto(asgi_server.url("/tournaments/"), wait_until="networkidle")
        lead = page.locator(".page-lead").inner_text()
        assert "live event" in lead and "yourself" in lead
        card = page.locator(".event-card").filter(has_text="Friday live")
        assert card.locator("[data-live-event]").inner_text() == "Live: you play on the board"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, f"tournaments-live-{width}")
        assert errors == [], errors
        page.context.close()
