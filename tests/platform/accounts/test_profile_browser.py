"""A player's own page in Chromium at 1400x900 and 390x844: each section stands apart from
the next, the "API access" panel included (it used to sit right against the "Recent
matches" table: the panel's own margin replaced the section's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from engine import games

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"
#: The least room between two sections of the page, in CSS pixels (the sections' 2.25rem is 36).
MIN_GAP = 24


def decklist(index: int) -> str:
    engine_game = games["tempofront"]
    return list(engine_game.starter_decks().values())[index].to_text(engine_game.commander_label)


@pytest.fixture
def alice_with_a_match(django_db_setup, django_db_blocker) -> str:
    """alice, with two decks and a challenge between them; her session cookie."""
    from decks.services import deck_register
    from matches.services import match_challenge

    with django_db_blocker.unblock():
        alice = User.objects.create_user("alice", password="pw-alice-123")
        decks = [deck_register(owner=alice, game="tempofront", name=f"Alice deck {i}", decklist=decklist(i),
                               pilot="random") for i in range(2)]
        match_challenge(created_by=alice, deck_versions=[d.latest_version for d in decks], best_of=1, seed=1)
        client = Client()
        client.force_login(alice)
        return client.cookies["sessionid"].value


def test_the_api_panel_stands_apart_from_the_recent_matches(alice_with_a_match, asgi_server, browser_page,
                                                            screenshot):
    """Both screens on the same alice, her page loaded afresh at each."""
    page = browser_page
    page.context.add_cookies([{"name": "sessionid", "value": alice_with_a_match, "url": asgi_server.origin}])
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(asgi_server.url("/players/alice/"))
        assert page.evaluate("document.documentElement.clientWidth") == width
        matches = page.locator("section[aria-labelledby='matches-heading']")
        table = matches.locator("table")
        assert table.locator("tbody tr").count() == 1
        api = page.locator("section[aria-labelledby='api-heading']")
        assert api.is_visible()
        gap = api.bounding_box()["y"] - (table.bounding_box()["y"] + table.bounding_box()["height"])
        assert gap >= MIN_GAP, gap
        # Every section of the page keeps that room from the one before it.
        sections = page.locator("main section.section, .page section.section")
        boxes = [sections.nth(i).bounding_box() for i in range(sections.count())]
        boxes = [b for b in boxes if b and b["height"]]
        assert len(boxes) >= 3
        for before, after in zip(boxes, boxes[1:], strict=False):
            assert after["y"] - (before["y"] + before["height"]) >= MIN_GAP, (before, after)
        screenshot(page, f"profile-own-{width}")
        # The screen where the table ends and the panel begins, as the player sees it.
        api.evaluate("node => node.scrollIntoView({block: 'end'})")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"profile-own-{width}-screen.png"))
