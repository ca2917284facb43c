"""In Chromium, against the real ASGI server and a real Celery worker: an organiser
creates a tournament on the site, two players enter their decks from the event page, the
organiser starts it, the workers play it, and the page (without a reload) shows the
winner, the bracket and the standings. At 1400 and 390 px wide the list and the event
page do not overflow sideways. Screenshots: artifacts/tournament-*.png."""

from __future__ import annotations

import re

import pytest

PASSWORD = "tournament-pass-42"


@pytest.fixture
def people(transactional_db):
    """The organiser and two players with a deck each, made before the browser opens (while
    Playwright's loop runs in this thread the test cannot query the database)."""
    from django.contrib.auth.models import User
    from tournament_helpers import make_deck

    users = {}
    for name in ("orga", "ann", "bob"):
        users[name] = User.objects.create_user(name, password=PASSWORD)
    decks = {name: make_deck(users[name], "tempofront", index=i) for i, name in enumerate(("ann", "bob"))}
    return users, decks


def log_in(page, server, name: str, next_path: str) -> None:
    page.context.clear_cookies()
    page.goto(server.url(f"/accounts/login/?next={next_path}"))
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]:has-text('Log in')")
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


def no_sideways_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_organiser_creates_players_enter_it_runs_and_the_pages_show_the_winner(people, asgi_server,
                                                                               celery_worker_process, browser_page,
                                                                               screenshot):
    users, decks = people
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    log_in(page, asgi_server, "orga", "/tournaments/new/")
    page.select_option("#id_game", "tempofront")
    page.fill("#id_name", "Browser Cup")
    page.fill("#id_description", "Two decks, one final.")
    page.select_option("#id_format", "single_elim")
    page.fill("#id_starts_at", "2099-01-01T12:00")
    page.select_option("#id_best_of", "1")
    page.check("#id_publish")
    page.click("button[type=submit]:has-text('Create the event')")
    page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    event_path = re.search(r"(/tournaments/\d+/)$", page.url).group(1)
    assert "Organiser tools" in page.inner_text("main")

    for name in ("ann", "bob"):
        log_in(page, asgi_server, name, event_path)
        page.select_option("select[name=deck]", str(decks[name].pk))
        page.click("[data-enter]")
        page.wait_for_selector("text=You are entered.")

    log_in(page, asgi_server, "orga", event_path)
    page.click("[data-start-now]")
    page.wait_for_selector("text=The event has started")
    page.evaluate("window.__sameDocument = true")
    page.wait_for_selector("[data-winner]", timeout=120_000)
    assert page.evaluate("window.__sameDocument") is True  # updated live, no reload
    winner = page.inner_text("[data-winner]")
    assert "ann" in winner or "bob" in winner
    champion = page.inner_text("[data-champion]")
    assert champion in ("ann", "bob") and champion in winner
    standings = page.inner_text("[data-standings]")
    assert "ann" in standings and "bob" in standings
    assert page.locator("[data-bracket] .bracket-match a.bracket-link").count() >= 1
    assert page.inner_text("[data-tournament-state]").strip() == "Finished"

    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(asgi_server.url(event_path))
        assert no_sideways_overflow(page), f"the event page overflows at {width} px"
        screenshot(page, f"tournament-event-{width}")
        page.goto(asgi_server.url("/tournaments/"))
        assert no_sideways_overflow(page), f"the tournament list overflows at {width} px"
        screenshot(page, f"tournament-list-{width}")
    assert errors == []
