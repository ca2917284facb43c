"""The home page as a visitor sees it, in headless Chromium against the real ASGI server."""

from __future__ import annotations

import pytest

SECTIONS = ["Cards", "Decks", "Matches", "Tournaments", "Ladder"]


@pytest.mark.browser
def test_home_page_looks_finished_in_chromium(asgi_server, browser_page, screenshot):
    page = browser_page
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    response = page.goto(asgi_server.url("/"), wait_until="networkidle")
    assert response is not None and response.status == 200
    assert "TempoFront" in page.title() and "Conquest" in page.title()

    nav = page.get_by_role("navigation", name="Sections")
    for label in SECTIONS:
        assert nav.get_by_text(label, exact=False).first.is_visible()
    assert page.get_by_role("heading", level=1).inner_text().startswith("Build a deck")

    # The stylesheet is applied: dark page, sticky header, game cards side by side.
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(15, 20, 32)"
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).position") == "sticky"
    cards = page.locator(".game-card")
    assert cards.count() == 2
    first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    assert first["y"] == second["y"] and second["x"] > first["x"] + first["width"]

    # The footer asks /healthz and reports every service up.
    status = page.locator("[data-status-text]")
    status.filter(has_text="All services ok").wait_for(timeout=10_000)
    assert page.locator("[data-status-dot]").get_attribute("data-state") == "ok"

    shot = screenshot(page, "home")
    assert shot.stat().st_size > 10_000
    assert errors == []
