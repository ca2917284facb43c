"""The match page's fairness panel and the verify page in Chromium, at 1400 px and 390 px:
the commitment of a running match with no seed anywhere on the page; once the match is
over, seed, salt and the recipe, with nothing wider than the screen."""

from __future__ import annotations

import pytest

SEED = 6_120_443_908_117_205


@pytest.fixture
def matches(transactional_db):
    """A running match and a finished one, played before the browser opens."""
    from django.contrib.auth.models import User

    from decks.services import deck_register
    from engine import games
    from matches.models import Match
    from matches.services import RUN_MATCH, match_challenge
    from matches.tasks import run_match
    from web import effects

    owner = User.objects.create_user("fair", password="fair-passphrase-42")
    game = games["tempofront"]
    versions = [deck_register(owner=owner, game="tempofront", name=f"Deck {i}", pilot="random",
                              decklist=deck.to_text(game.commander_label)).latest_version
                for i, deck in enumerate(list(game.starter_decks().values())[:2])]
    # Their tasks are held back: the running match must stay unplayed, the other is played here.
    with effects.recording(tasks=[RUN_MATCH]) as held:
        running = match_challenge(created_by=owner, deck_versions=versions, best_of=1, seed=SEED)
        done = match_challenge(created_by=owner, deck_versions=versions, best_of=1, seed=SEED + 1)
    assert held.tasks_named(RUN_MATCH) == [[running.pk], [done.pk]]
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)
    run_match.apply(args=[done.pk])
    return running.pk, done.pk


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.browser
def test_fairness_panel_and_verify_page(matches, asgi_server, browser_page, screenshot):
    """Both widths on the same two matches, each page loaded afresh at each width."""
    running, done = matches
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for width in (1400, 390):
        errors.clear()
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(asgi_server.url(f"/matches/{running}/"))
        assert page.evaluate("document.documentElement.clientWidth") == width
        assert len(page.inner_text("[data-seed-commitment]")) == 64
        assert page.locator("[data-seed]").is_hidden() and page.locator("[data-seed-pending]").is_visible()
        assert str(SEED) not in page.content()
        assert no_sideways_scroll(page)

        page.goto(asgi_server.url(f"/matches/{done}/"))
        page.wait_for_function("document.querySelector('[data-live-state]').textContent === 'Final'")
        assert page.inner_text("[data-seed]") == str(SEED + 1)
        assert len(page.inner_text("[data-seed-salt]")) == 64
        assert no_sideways_scroll(page)
        screenshot(page, f"match-fairness-{width}")

        page.click("text=How to verify this match")
        page.wait_for_url(f"**/matches/{done}/verify/")
        assert "python check_seed.py" in page.inner_text("main") and "download=1" in page.inner_text("main")
        assert str(SEED + 1) in page.inner_text("main")
        assert no_sideways_scroll(page)
        screenshot(page, f"match-verify-{width}")
        assert errors == []
