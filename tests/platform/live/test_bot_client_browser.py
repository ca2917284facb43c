"""A person challenges a bot from the live lobby in Chromium, the bot's program (the
reference client with its example TempoFront bot) accepts, and the person plays the whole
match on the board against it: the lobby seen at desktop width, the challenge sent and the
whole match played on a phone (docs/bots-api.md; a whole match at desktop width is played
by test_live_board_browser with the same player)."""

from __future__ import annotations

import random

import pytest
from db_thread import in_thread
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from test_bot_client import TIMEOUT, ClientThread, make_bot, wait_for
from test_live_board_browser import play_whole_match, resize
from test_live_lobby_browser import wait_for_board

from botclient import BotClient
from botclient.examples.tempofront import choose
from engine.core import Replay, verify_replay
from live.models import LiveMatch

pytestmark = pytest.mark.browser


def test_a_person_challenges_a_bot_from_the_lobby_and_plays_it_to_the_end(asgi_server, browser_page, screenshot):
    def prepare() -> tuple[str, str]:
        owner = User.objects.create_user("ada", password="pw-ada-123456")
        bot, secret = make_bot(owner)
        make_deck(bot.user, "tempofront", index=1)
        alice = User.objects.create_user("alice", password="pw-alice-123")
        make_deck(alice, "tempofront", index=0)
        client = Client()
        client.force_login(alice)
        return secret, client.cookies["sessionid"].value

    secret, cookie = in_thread(prepare)
    page = browser_page
    page.set_viewport_size({"width": 1400, "height": 900})
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    program = BotClient(url=asgi_server.origin, token=secret, choose=choose, max_games=1)
    with ClientThread(program):
        assert program.online.wait(TIMEOUT)
        page.goto(asgi_server.url("/live/"))
        # The lobby lists the bot as online and offers its name to the challenge form.
        page.locator("[data-online-bots]").filter(has_text="Sparky").wait_for(timeout=15_000)
        # The rest on a phone.
        resize(page, 390)
        assert page.locator("[data-online-bots]").filter(has_text="Sparky").is_visible()
        form = page.locator('[data-form="challenge"]')
        form.locator('input[name="username"]').fill("Sparky")
        form.locator('button[type="submit"]').click()
        match_id = wait_for_board(page)
        assert "BOT" in page.locator(".page-lead").first.inner_text()
        played = play_whole_match(page, "tempofront", 390, screenshot, random.Random(7))
        assert played.board >= 1
        wait_for(lambda: match_id in program.finished, "the bot to see the end")
    def stored() -> tuple[str, list[str], set[str]]:
        live = LiveMatch.objects.get(match_id=match_id)
        return live.status, verify_replay(Replay.from_json(live.replay)), {s.user.username for s in live.seats.all()}

    assert in_thread(stored) == ("done", [], {"alice", "Sparky"})
    assert program.errors == []
