"""A deck hidden until its event publishes its decklists stays hidden on the live parts of
the pages (docs/security.md, "Decklists of an event until it publishes them").

- The match's data (API, page, socket) says until when its replays are hidden from the
  viewer (``replays_hidden_until``: a replay shows every deck of the match, so a player
  whose opponent's deck is hidden may not open it either), so the match page's script,
  redrawing the games from a socket update that is the same for every watcher, shows no
  replay link to a viewer the page did not open them to, and still shows it to the
  organiser.
- The live board's header (``LiveMatch.title``) is the event's name and round: no deck
  name reaches it.

Uses the event of tests/platform/test_decklist_privacy.py: a live event with
``publish_at`` two hours ahead, its round 1 being played by alice (the hidden deck) and bob.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from db_thread import in_thread
from django.utils import timezone
from test_decklist_privacy import SECRET_NAME, client_for, leaks
from test_decklist_privacy import event as event  # the fixture

from live.models import LiveMatch
from matches.serializers import MatchDetailSerializer
from tournaments.models import Tournament


def until_text(tournament) -> str:
    return tournament.publish_at.isoformat()


@pytest.mark.django_db
def test_the_match_data_says_until_when_its_replays_are_hidden_from_the_viewer(event):
    match, tournament = event["match"], event["tournament"]
    # What a socket update carries: as to anyone.
    assert MatchDetailSerializer(match).data["replays_hidden_until"] == until_text(tournament)
    # alice may see her own deck, not bob's (entered in the same event): the replay shows both.
    for username, expected in [(None, until_text(tournament)), ("bob", until_text(tournament)),
                               ("carol", until_text(tournament)), ("alice", until_text(tournament)),
                               ("orga", None), ("staff", None)]:
        body = client_for(username).get(f"/api/matches/{match.pk}/").json()
        assert body["replays_hidden_until"] == expected, username
    Tournament.objects.filter(pk=tournament.pk).update(publish_at=timezone.now() - timedelta(seconds=1))
    assert MatchDetailSerializer(match).data["replays_hidden_until"] is None
    assert client_for("bob").get(f"/api/matches/{match.pk}/").json()["replays_hidden_until"] is None


@pytest.mark.django_db
def test_the_schema_documents_the_field():
    from django.test import Client

    schema = Client().get("/api/schema/?format=json").json()
    field = schema["components"]["schemas"]["MatchDetail"]["properties"]["replays_hidden_until"]
    assert field.get("nullable") is True and "403" in field["description"]


@pytest.mark.django_db
@pytest.mark.parametrize("username", [None, "bob", "alice"])
def test_the_live_board_header_names_the_event_and_round_not_a_deck(event, username):
    live = LiveMatch.objects.get(match=event["match"])
    assert live.title == "Secret lists cup, round 1"
    page = client_for(username).get(f"/live/{event['match'].pk}/").content.decode()
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    assert "Secret lists cup, round 1" in title and "Secret lists cup, round 1" in heading
    assert SECRET_NAME not in title and SECRET_NAME not in heading
    if username != "alice":
        assert leaks(page, event["deck"]) == []


# ------------------------------------------------------------------ the match page, in Chromium


def play_to_end(match_id: int) -> None:
    """Seeded random moves of both players through the live services, to the game's end."""
    from live import engine_state
    from live import moves as live_moves

    live = LiveMatch.objects.get(match_id=match_id)
    users = {row.seat: row.user for row in live.seats.select_related("user")}
    state, _ = engine_state.opening(live)
    rng = random.Random(7)
    while state.outcome is None:
        seat = state.to_act()[0]
        legal = [a for a in state.legal_actions(seat) if a.kind != "concede"] or list(state.legal_actions(seat))
        action = rng.choice(legal)
        state.apply(seat, action)
        live_moves.live_act(match_id=match_id, user=users[seat], action_json=action.to_json())


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_game_that_ends_while_the_match_page_is_open_adds_no_replay_link_while_hidden(
        event, asgi_server, browser_page, screenshot, django_db_blocker):
    """Bob's and the organiser's pages, each at 1400 px and on a 390 px phone, open while
    the game is played to its end."""
    match_id = event["match"].pk
    pages = {}
    with django_db_blocker.unblock():
        cookies = in_thread(lambda: {name: client_for(name).cookies["sessionid"].value for name in ("bob", "orga")})
    for (username, cookie), width in [(item, width) for item in cookies.items() for width in (1400, 390)]:
        context = browser_page.context.browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.goto(asgi_server.url(f"/matches/{match_id}/"))
        page.locator("[data-match-page]").wait_for()
        page.wait_for_function("document.querySelector('[data-live-state]').textContent !== ''")
        pages[username, width] = (page, errors)
    with django_db_blocker.unblock():
        in_thread(lambda: play_to_end(match_id))
    for (username, width), (page, errors) in pages.items():
        # The finished game's row arrives (socket or polling) and is drawn by the script.
        page.wait_for_function("document.querySelectorAll('[data-games-body] tr').length === 1", timeout=30_000)
        page.wait_for_timeout(500)
        cell = page.locator("[data-games-body] tr").first.locator("td").last
        links = page.locator("a[href*='/replay/']")
        shown = [links.nth(i).get_attribute("href") for i in range(links.count()) if links.nth(i).is_visible()]
        if username == "bob":
            assert cell.inner_text().strip() == "hidden"
            assert shown == []
            assert page.locator("[data-match-replay]").is_hidden()
            content = page.content()
            with django_db_blocker.unblock():
                assert in_thread(lambda content=content: leaks(content, event["deck"])) == []
            screenshot(page, f"privacy-match-page-bob-{width}")
        else:
            assert cell.locator("a").inner_text() == "Watch replay"
            assert "/replay/" in cell.locator("a").get_attribute("href")
        assert errors == []
        page.context.close()
