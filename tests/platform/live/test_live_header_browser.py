"""The site header and the ladder on a phone, in Chromium: every page has a "Play live"
link to /live/; at 390 px the header is one short line whose sections open from a Menu
button; the leaderboard's rating column is on screen at 390 px without scrolling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ["/", "/cards/", "/decks/", "/ladder/", "/live/", "/rules/"]


def ladder_helpers():
    path = Path(__file__).resolve().parents[1] / "ladder" / "ladder_helpers.py"
    spec = importlib.util.spec_from_file_location("ladder_helpers_for_live", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def rated_decks(django_db_setup, django_db_blocker) -> None:
    """Three rated TempoFront decks, one with a long name (made before the browser opens)."""
    from django.contrib.auth.models import User

    helpers = ladder_helpers()
    with django_db_blocker.unblock():
        owners = [User.objects.create_user(name, password=f"pw-{name}-123") for name in ("alice", "bob", "carol")]
        names = ["Alice Tempo", "Bob's Extraordinarily Long Stone Dominion Deck", "Carol Tempo"]
        made = [helpers.make_deck(owner, index=i, name=name)
                for i, (owner, name) in enumerate(zip(owners, names, strict=True))]
        for _ in range(3):
            helpers.finish([made[0], made[1]], [1, 2])
            helpers.finish([made[1], made[2]], [1, 2])


def test_every_page_links_to_live_play_and_the_phone_header_is_one_line_with_a_menu(asgi_server, browser_page):
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 844})
        for path in PAGES:
            page.goto(asgi_server.url(path), wait_until="domcontentloaded")
            play = page.locator(".site-header").get_by_role("link", name="Play live")
            assert play.is_visible(), (width, path)
            assert play.get_attribute("href") == "/live/"
            header = page.locator(".site-header").bounding_box()
            nav = page.get_by_role("navigation", name="Sections")
            if width == 390:
                assert header["height"] <= 64, (path, header)
                assert not nav.is_visible()
            else:
                assert nav.get_by_role("link", name="Ladder").is_visible()
        if width == 390:
            toggle = page.get_by_role("button", name="Menu")
            assert toggle.get_attribute("aria-expanded") == "false"
            toggle.click()
            assert toggle.get_attribute("aria-expanded") == "true"
            assert nav.get_by_role("link", name="Ladder").is_visible()
            nav.get_by_role("link", name="Ladder").click()
            page.wait_for_url("**/ladder/")
    assert errors == []


def test_the_leaderboard_rating_column_is_on_screen_on_a_phone(rated_decks, asgi_server, browser_page, screenshot):
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(asgi_server.url("/ladder/tempofront/"), wait_until="networkidle")
    rows = page.locator("[data-rating-row]")
    assert rows.count() == 3
    header = page.locator("[data-leaderboard] thead th").filter(has_text="Rating")
    for cell in [header, *[rows.nth(i).locator(".rating-value") for i in range(3)]]:
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    # Nothing of the table needs a sideways scroll.
    assert page.evaluate("(() => { const b = document.querySelector('.table-scroll');"
                         " return b.scrollWidth <= b.clientWidth; })()")
    screenshot(page, "ladder-board-phone-390")
