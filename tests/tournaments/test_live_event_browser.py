"""A player's live round, in Chromium against the real ASGI server, at 1400 px and 390 px.

A people-only Swiss with two players: ann has the event page open before the start and
reads that she is entered. The event starts (the service, as the organiser's Start now or
beat's tick does); without a reload her page says "Your match" with her table and the link
to her board. She opens it and plays her first decision by clicking the board's button.
Back on the event page, her table is being played: both players, who is on their board,
both clocks (the running one counting down in the page), the link to watch. Neither width
scrolls sideways, and no page logs a console error. Screenshots go to artifacts/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from db_thread import in_thread
from django.contrib.auth.models import User
from django.db.models import F
from django.test import Client
from django.utils import timezone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
BOARD = "[data-live-match]"
PANEL = "[data-my-match]"


@pytest.fixture
def event(django_db_setup, django_db_blocker) -> dict:
    """ann and bob entered in a people-only Swiss that starts in half an hour (no check-in,
    ten minutes before a no-show), and ann's session cookie; made before the browser
    starts (once Playwright's loop runs in this thread, the test cannot query)."""
    from tournament_helpers import make_deck, make_event

    from tournaments.services import tournament_enter

    with django_db_blocker.unblock():
        organiser = User.objects.create_user("orga", password="pw-orga-123")
        event = make_event(organiser, name="Friday live Swiss", entrants="people", check_in_minutes=0, rounds=1,
                           no_show_minutes=10, round_limit_minutes=30, clock_initial=300, clock_increment=5,
                           spectator_delay=15, starts_at=timezone.now() + timedelta(minutes=30))
        for index, name in enumerate(("ann", "bob")):
            player = User.objects.create_user(name, password=f"pw-{name}-123")
            deck = make_deck(player, "tempofront", index=index)
            tournament_enter(tournament_id=event.pk, player=player, deck_id=deck.pk)
        client = Client()
        client.force_login(User.objects.get(username="ann"))
        return {"id": event.pk, "path": f"/tournaments/{event.pk}/", "cookie": client.cookies["sessionid"].value}


def start_event(event_id: int) -> None:
    """The organiser starts the event now: round 1 is paired and its live game created."""
    from tournaments.models import Tournament
    from tournaments.services import tournament_start

    def start():
        Tournament.objects.filter(pk=event_id).update(starts_at=timezone.now())
        tournament_start(tournament_id=event_id, by=User.objects.get(username="orga"))

    in_thread(start)


def _a_minute_later(event_id: int) -> None:
    """Move the event's live game a minute into the past (its creation, its seats'
    arrivals, its moves' times and the round's start), as if it had been playing that long:
    a spectator 15 s behind then sees everything that has happened so far."""
    from live.models import LiveMatch, LiveSeat
    from tournaments.models import Pairing, Round

    minute = timedelta(minutes=1)
    pairing = Pairing.objects.get(round__tournament_id=event_id, round__number=1)
    live = LiveMatch.objects.get(match=pairing.match)
    Round.objects.filter(pk=pairing.round_id).update(starts_at=F("starts_at") - minute)
    LiveMatch.objects.filter(pk=live.pk).update(created=F("created") - minute)
    LiveSeat.objects.filter(live=live, connected_at__isnull=False).update(connected_at=F("connected_at") - minute)
    LiveSeat.objects.filter(live=live, running_since__isnull=False).update(running_since=F("running_since") - minute)
    if live.next_deadline is not None:
        LiveMatch.objects.filter(pk=live.pk).update(next_deadline=F("next_deadline") - minute)
    shift_ms = int(minute.total_seconds() * 1000)
    LiveMatch.objects.filter(pk=live.pk).update(log=[[seat, action, at - shift_ms] for seat, action, at in live.log])


def bob_acts_if_first(event_id: int) -> None:
    """If bob's seat is the one to decide first, he keeps his hand (as his board would), so
    that ann has a decision to make."""
    from live.models import LiveMatch
    from live.moves import live_act
    from tournaments.models import Pairing

    def act():
        pairing = Pairing.objects.get(round__tournament_id=event_id, round__number=1)
        live = LiveMatch.objects.get(match_id=pairing.match_id)
        bob = User.objects.get(username="bob")
        bob_seat = live.seats.get(user=bob).seat
        running = [s.seat for s in live.seats.all() if s.running_since is not None]
        if running == [bob_seat]:
            live_act(match_id=pairing.match_id, user=bob, action_json={"kind": "keep"}, expected_index=len(live.log))

    in_thread(act)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def fits(page) -> None:
    """Nothing sticks out sideways."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        f"the page scrolls sideways at {page.viewport_size['width']} px"


def test_a_player_sees_their_match_without_reload_plays_it_and_the_page_shows_the_table(event, asgi_server,
                                                                                         browser_page):
    browser = browser_page.context.browser
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_cookies([{"name": "sessionid", "value": event["cookie"], "url": asgi_server.origin}])
    page = context.new_page()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(asgi_server.url(event["path"]))
    badge = page.locator("[data-entrants-badge]")
    assert badge.inner_text() == "Live event: people play"
    panel = page.locator(PANEL)
    assert "You are entered. Round 1 starts" in panel.inner_text()
    assert panel.locator("[data-countdown]").count() == 1
    fits(page)
    shot(page, "live-event-before-1400")
    page.evaluate("window.__sameDocument = true")

    start_event(event["id"])
    board_link = page.locator(f"{PANEL}[data-status=playing] a[data-my-board]")
    board_link.wait_for(timeout=20_000)
    assert page.evaluate("window.__sameDocument") is True  # updated live, no reload
    said = panel.locator("[data-my-match-text]").inner_text()
    assert said.startswith("Round 1, table 1: your game is on — Open your board"), said
    assert "Against bob" in panel.inner_text()
    assert page.locator("[data-tournament-state]").inner_text().strip() == "Running"
    # The panel is the first thing under the event's title.
    title_box = page.locator("h1").bounding_box()
    panel_box = panel.bounding_box()
    assert panel_box["y"] > title_box["y"] and panel_box["y"] < 600, panel_box
    board_href = board_link.get_attribute("href")
    fits(page)
    shot(page, "live-event-your-match-1400")

    bob_acts_if_first(event["id"])
    board_link.click()
    page.wait_for_url(f"**{board_href}", timeout=15_000)
    page.locator(f"{BOARD}[data-index]").wait_for(timeout=20_000)
    choice = page.locator("[data-bar] button[data-choice]:not([disabled])").first
    choice.wait_for(timeout=20_000)
    before = int(page.locator(BOARD).get_attribute("data-index"))
    choice.click()
    page.wait_for_function(f"Number(document.querySelector('{BOARD}').dataset.index) > {before}", timeout=20_000)

    # The tables show each game 15 s behind (the event's spectator delay), presence and
    # clocks included: a minute later, as seen here, they show where the game was.
    page.goto(asgi_server.url(event["path"]))
    table = page.locator("[data-live-table][data-active]")
    table.wait_for(timeout=10_000)
    assert "(15 s behind)" in table.inner_text()
    in_thread(lambda: _a_minute_later(event["id"]))
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(asgi_server.url(event["path"]))
        table = page.locator("[data-live-table][data-active]")
        table.wait_for(timeout=10_000)
        words = table.inner_text()
        assert "ann" in words and "bob" in words and "playing" in words and "(15 s behind)" in words
        assert table.locator("a[data-watch]").get_attribute("href") == board_href
        assert table.locator("[data-clock]").count() == 2
        # ann has been on her board; bob has not opened his (his keep, if any, was a move).
        ann_seat = table.locator("li.seat", has_text="ann")
        assert ann_seat.locator("[data-presence='1']").count() == 1
        running = table.locator("[data-clock][data-running='1']")
        assert running.count() == 1
        first = running.inner_text()
        page.wait_for_function(
            f"document.querySelector(\"[data-live-table] [data-clock][data-running='1']\").textContent !== '{first}'",
            timeout=5_000)
        assert page.locator(PANEL).get_by_role("link", name="Open your board").count() == 1
        fits(page)
        shot(page, f"live-event-table-{width}")
        pairings = page.locator("[aria-labelledby=pairings-heading]")
        pairings.screenshot(path=str(ARTIFACTS / f"live-event-pairings-{width}.png"))
    context.close()
    assert errors == []


@pytest.fixture
def organiser_cookie(django_db_setup, django_db_blocker) -> str:
    with django_db_blocker.unblock():
        client = Client()
        client.force_login(User.objects.create_user("orga", password="pw-orga-123"))
        return client.cookies["sessionid"].value


def test_the_form_shows_the_live_settings_only_where_people_play_and_fits_a_phone(organiser_cookie, asgi_server,
                                                                                   browser_page):
    cookie = organiser_cookie
    errors: list[str] = []
    page = browser_page
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(asgi_server.url("/tournaments/new/"))
        live = page.locator("[data-live-settings]")
        cap = page.locator("#id_bot_cap")
        assert page.locator("input[name=entrants][value=bots]").is_checked()
        assert not live.is_visible()
        page.get_by_label("People only, playing live").check()
        assert live.is_visible() and page.get_by_label("Clock: minutes").is_visible() and not cap.is_visible()
        assert not page.locator("#id_round_minutes").is_visible()
        page.select_option("#id_round_start", "scheduled")
        assert page.locator("#id_round_minutes").is_visible()
        page.get_by_label("People and bots, playing live").check()
        assert cap.is_visible()
        fits(page)
        shot(page, f"live-event-form-{width}")
    assert errors == []
