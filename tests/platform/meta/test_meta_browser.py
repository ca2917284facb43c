"""The metagame page of both games in headless Chromium, at 1400 and 390 px: the matchup
matrix scrolls sideways inside its box with the deck names held at the left, cells behind
fewer than 10 matches are greyed, the card table sorts and filters, nothing else overflows."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from meta_helpers import make_deck, play, record

from decks.services import deck_update
from meta.services import meta_tick

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DECKS = 13  # one more than the matrix shows


def overflowing(page) -> list[str]:
    """Elements reaching past the right edge of the window, scrolling boxes excepted."""
    return page.evaluate("""() => [...document.querySelectorAll('main *')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1
                     && !e.closest('.table-scroll, .meta-matrix-scroll, .data-table'))
        .map(e => e.tagName + '.' + e.className)""")


@pytest.fixture
def metagame(effects_recorded):
    """For each game, 13 decks: deck 0 met decks 1-3 ten times each (cells read in full) and
    the others twice (greyed), deck 0 changed pilot half-way, and one real match played for
    the card figures. Written before the browser opens (Playwright's loop forbids database
    calls afterwards)."""
    out = {}
    for game in ("tempofront", "conquest"):
        owners = [User.objects.get_or_create(username=f"{game}-p{i}")[0] for i in range(DECKS)]
        decks = [make_deck(owner, game, index=i, name=f"{game.title()} Deck {i:02d} with a long name")
                 for i, owner in enumerate(owners)]
        for i in range(1, DECKS):
            for n in range(10 if i <= 3 else 2):
                record([decks[0], decks[i]], [1, 2] if n % 3 else [2, 1])
                if n == 4 and i == 1:
                    deck_update(deck=decks[0], actor=owners[0], pilot="greedy")
        play(decks[:2], seed=2)
        out[game] = [d.name for d in decks]
    meta_tick()
    return out


@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_the_metagame_page_reads_at_every_width(asgi_server, metagame, browser_page, screenshot, game):
    """Both widths on one metagame: the page loaded afresh at each."""
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for width in (1400, 390):
        errors.clear()
        page.set_viewport_size({"width": width, "height": 900})
        response = page.goto(asgi_server.url(f"/meta/{game}/"), wait_until="networkidle")
        assert response is not None and response.status == 200
        assert page.evaluate("document.documentElement.clientWidth") == width
        assert page.get_by_role("heading", level=1).inner_text().endswith("metagame")

        # The matrix: 12 decks, most played first; deck 12 (2 matches) is left out.
        box = page.locator("[data-meta-matrix]")
        assert page.locator(".meta-row").count() == 12
        assert page.locator(".meta-row").first.inner_text().startswith(metagame[game][0])
        assert metagame[game][12] not in box.inner_text()
        thin = page.locator(".meta-cell.is-thin").first
        full = page.locator(".meta-cell:not(.is-thin):not(.meta-mirror)").first
        assert float(thin.evaluate("e => getComputedStyle(e).opacity")) < 0.7
        assert full.evaluate("e => getComputedStyle(e).opacity") == "1"
        assert "hsl" in (full.get_attribute("style") or "") or "rgb" in full.evaluate(
            "e => getComputedStyle(e).backgroundColor")
        assert int(full.inner_text().split()[-1]) >= 10  # the count under the rate
        assert int(thin.inner_text().split()[-1]) == 2

        # Sideways scrolling inside the box; the deck names stay at its left edge.
        sizes = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
        label = page.locator(".meta-row").nth(3)
        left_before = label.bounding_box()["x"]
        column = page.locator(".meta-col").nth(5)
        column_before = column.bounding_box()["x"]
        if width == 390:
            assert sizes[0] > sizes[1] + 300, sizes  # twelve columns do not fit a phone
        if sizes[0] > sizes[1]:
            box.evaluate("e => { e.scrollLeft = 250; }")
            page.wait_for_function("() => document.querySelector('[data-meta-matrix]').scrollLeft > 0")
            assert abs(label.bounding_box()["x"] - left_before) < 1  # sticky
            assert column.bounding_box()["x"] < column_before - 100  # the cells moved
        header = page.locator(".meta-col").first
        assert header.evaluate("e => getComputedStyle(e).position") == "sticky"
        assert overflowing(page) == []
        shot = screenshot(page, f"meta-{game}-{width}")
        box.screenshot(path=str(shot.with_name(f"meta-matrix-{game}-{width}.png")))  # scrolled sideways

        # The card table: sort by decks (most first), then only one type.
        table = page.locator("[data-card-table]")
        table.scroll_into_view_if_needed()
        page.get_by_role("button", name="Decks").click()
        counts = [int(x) for x in table.locator("tbody tr td:nth-child(3)").all_inner_texts()]
        assert counts == sorted(counts, reverse=True) and counts[0] >= 2
        page.get_by_role("button", name="Decks").click()
        counts = [int(x) for x in table.locator("tbody tr td:nth-child(3)").all_inner_texts()]
        assert counts == sorted(counts)
        select = page.locator("[data-card-type]")
        kind = select.locator("option").nth(1).get_attribute("value")
        select.select_option(kind)
        visible = table.locator("tbody tr:visible")
        assert 0 < visible.count() < table.locator("tbody tr").count()
        assert set(visible.evaluate_all("rows => rows.map(r => r.dataset.type)")) == {kind}

        # "Deck or pilot?": deck 0 under both pilots.
        pilots = page.locator(".meta-pilot")
        assert pilots.count() == 1 and metagame[game][0] in pilots.inner_text()
        assert {"random", "greedy"} <= set(pilots.locator("code").all_inner_texts())

        # The period and source filters keep each other.
        page.get_by_role("link", name="30 days").click()
        page.wait_for_load_state("networkidle")
        assert "period=30" in page.url
        page.get_by_label("Tournament matches").check()
        page.get_by_label("Rated ladder matches").uncheck()
        page.get_by_role("button", name="Apply").click()
        page.wait_for_load_state("networkidle")
        assert "period=30" in page.url and "source=tournament" in page.url and "source=ladder" not in page.url
        assert page.locator(".meta-row").count() == 0  # no tournament match recorded
        assert errors == []
