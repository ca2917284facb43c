"""The challenge form in Chromium: the extra opponent fields follow the seat count of the
chosen deck's game (``Game.max_seats``), not a game's name: a two-player game's deck
offers one opponent, a game of four three, at desktop and phone widths."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from decks.services import deck_register
from engine import games

PASSWORD = "challenge-passphrase-42"


def _starter_text(game: str) -> str:
    engine_game = games[game]
    return next(iter(engine_game.starter_decks().values())).to_text(engine_game.commander_label)


@pytest.fixture
def player_with_decks(transactional_db) -> None:
    """Registered before the browser opens: while Playwright's loop runs in this thread,
    the test cannot query the database."""
    user = User.objects.create_user("seats", password=PASSWORD)
    for game in ("tempofront", "conquest"):
        deck_register(owner=user, game=game, name=f"Mine {game}", decklist=_starter_text(game), pilot="random")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_extra_opponents_follow_the_seat_count_of_the_decks_game(player_with_decks, asgi_server, browser_page,
                                                                 screenshot):
    """Both widths on the same player and decks: at each, logged out, the player logs in
    and the form is loaded afresh."""
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    for width in (1400, 390):
        errors.clear()
        page.context.clear_cookies()
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(asgi_server.url("/accounts/login/?next=/matches/new/"))
        page.fill("#id_username", "seats")
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(re.compile(r"/matches/new/$"))
        assert page.evaluate("document.documentElement.clientWidth") == width

        mine = {text.split(" · ")[0]: value for value, text in
                page.eval_on_selector_all("#id_deck option", "els => els.map(o => [o.value, o.textContent])") if value}
        page.select_option("#id_deck", mine["Mine conquest"])
        assert page.locator("#id_opponent_2").is_visible() and page.locator("#id_opponent_3").is_visible()
        screenshot(page, f"challenge-form-conquest-{width}")
        page.select_option("#id_deck", mine["Mine tempofront"])
        assert page.locator("#id_opponent").is_visible()
        assert page.locator("#id_opponent_2").is_hidden() and page.locator("#id_opponent_3").is_hidden()
        assert errors == []
