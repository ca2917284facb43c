"""A leaderboard and a deck's rating chart in headless Chromium, at 1400 and 390 px."""

from __future__ import annotations

import pytest
from ladder_helpers import finish, make_deck

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def overflowing(page, within: str = "body") -> list[str]:
    """Elements of ``within`` reaching past the right edge of the window (tables in a
    horizontally scrolling box excepted)."""
    return page.evaluate("""(within) => [...document.querySelectorAll(within + ' *')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-scroll'))
        .map(e => e.tagName + '.' + e.className)""", within)


@pytest.fixture
def decks(alice, bob, carol):
    """Three rated TempoFront decks (written before the browser opens: Playwright's loop
    would forbid database calls afterwards)."""
    made = [make_deck(owner, index=i, name=f"{owner.username.title()} Tempo") for i, owner in
            enumerate((alice, bob, carol))]
    for round_ in range(4):
        finish([made[0], made[1]], [1, 2])
        finish([made[1], made[2]], [1, 2] if round_ % 2 else [2, 1])
        finish([made[2], made[0]], [1, 1])
    return [(d.pk, d.name) for d in made]


def test_a_leaderboard_and_a_decks_rating_chart(asgi_server, decks, browser_page, screenshot):
    """Both widths on the same three rated decks, each page loaded afresh at each width."""
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for width in (1400, 390):
        errors.clear()
        page.set_viewport_size({"width": width, "height": 900})
        response = page.goto(asgi_server.url("/ladder/tempofront/"), wait_until="networkidle")
        assert response is not None and response.status == 200
        assert page.evaluate("document.documentElement.clientWidth") == width
        assert page.get_by_role("heading", level=1).inner_text() == "TempoFront leaderboard"
        rows = page.locator("[data-rating-row]")
        assert rows.count() == 3
        assert rows.first.locator("td").first.inner_text() == "1"
        assert rows.first.get_by_text("Alice Tempo").is_visible()  # two wins and a draw each round: the best
        assert page.get_by_text("provisional").first.is_visible()
        assert overflowing(page) == []
        screenshot(page, f"ladder-board-{width}")

        page.get_by_role("searchbox").fill("carol")
        page.get_by_role("button", name="Search").click()
        page.wait_for_load_state("networkidle")
        assert page.locator("[data-rating-row]").count() == 1 and "q=carol" in page.url

        page.goto(asgi_server.url(f"/decks/{decks[0][0]}/"), wait_until="networkidle")
        chart = page.locator("[data-rating-chart] svg")
        chart.scroll_into_view_if_needed()
        assert chart.is_visible()
        box = chart.bounding_box()
        assert box["width"] > 250 and box["height"] > 60 and box["x"] + box["width"] <= width
        assert page.locator("[data-rating-chart] circle").count() == 8  # two rated matches in each of four rounds
        assert page.locator("[data-rank]").inner_text() == "#1"
        assert page.locator("[data-head-to-head] tbody tr").count() == 2
        assert overflowing(page, "[data-rating-panel]") == []
        screenshot(page, f"ladder-deck-chart-{width}")
        assert errors == []
