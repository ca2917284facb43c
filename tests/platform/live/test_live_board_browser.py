"""The live board played by clicking the board itself, in Chromium, at 1400 px and 390 px.

A player plays a whole TempoFront match (at 1400 px) and a whole two-seat Conquest match (on
a 390 px phone) against a bot, the page turned to the other width mid-match and at the end, by
choosing cards in the hand (or units on the board) and clicking the places that light
up, with the buttons of the choice bar only for actions that have no place (keep, pass,
respond...), never the text list of choices. The hand shows cards with their text, the
board labels its numbers, the result is said in words with its links, the phone keeps the
board and the choices on one screen, there is no console error, and axe-core finds no
serious problem on the page. Screenshots go to artifacts/ (docs/live.md shows them)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck
from playwright.sync_api import Error as PlaywrightError

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[3]
AXE = ROOT / "tests" / "assets" / "axe.min.js"
LIVE = "[data-live-match]"
ARTIFACTS = ROOT / "artifacts"


def view_shot(page, name: str) -> None:
    """The screen as the player sees it (the fixture's screenshots are whole pages)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-screen.png"))


def bot_match(game: str, bot: str, seed: int) -> tuple[int, str]:
    from live import creation
    from live.creation import SeatSpec

    alice = User.objects.create_user("alice", password="pw-alice-123")
    site = User.objects.create_user("site", password="pw-site-123")
    mine = make_deck(alice, game, index=0).latest_version
    theirs = make_deck(site, game, index=1, starter=True).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice),
                                       SeatSpec(deck_version=theirs, bot=bot)], seed=seed)
    client = Client()
    client.force_login(alice)
    return live.match_id, client.cookies["sessionid"].value


def open_match(page, asgi_server, match_id: int, cookie: str, width: int) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page.goto(asgi_server.url(f"/live/{match_id}/"))
    page.locator(f"{LIVE}[data-index]").wait_for(timeout=30_000)
    return errors


def index_of(page) -> int:
    return int(page.locator(LIVE).get_attribute("data-index") or -1)


def state_of(page) -> str:
    return page.locator(LIVE).get_attribute("data-state") or ""


def wait_after_act(page, before: int) -> None:
    """Wait for the move to be applied (the view's index passes ``before``), the match to
    end or an error. A click that landed on a button just redrawn by another view sent
    nothing (the page is not sending): the player simply chooses again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(12):
        try:
            page.wait_for_function(
                f"Number(document.querySelector('{LIVE}').dataset.index) > {before}"
                f" || document.querySelector('{LIVE}').dataset.state === 'done'"
                " || document.querySelector('[data-error]:not([hidden])') !== null", timeout=5_000)
            return
        except PlaywrightTimeout:
            if not sending(page) and index_of(page) == before:
                return
    view_shot(page, "debug-live-board")
    raise AssertionError(f"the move after index {before} was not applied within a minute")


def sending(page) -> bool:
    return page.locator(LIVE).get_attribute("data-sending") is not None


def try_click(locator) -> bool:
    """Click, unless the element went away meanwhile (a bot's move redrew the board)."""
    try:
        locator.click(timeout=3000)
    except PlaywrightError:
        return False
    return True


def any_of(locator, rng: random.Random):
    """One of the elements, at random (the last one if the list shrank meanwhile)."""
    return locator.nth(rng.randrange(max(1, locator.count())))


class Played:
    """What the player did: actions sent through the board, through bar buttons, and the
    Conquest placements planned on the board and confirmed."""

    def __init__(self) -> None:
        self.board = 0
        self.buttons = 0
        self.placements = 0
        self.planned = 0
        self.plan_shot = False
        self.kinds: set[str] = set()


def plan_placement(page, rng: random.Random, played: Played) -> None:
    """Put some of the lit cards of the hand on lit Locations by clicking, check the plan is
    spelled out, and confirm. (Dragging a card onto a Location is left out: Playwright's
    HTML5 drag in Chromium is not reliable enough for a whole match.)"""
    for _ in range(8):
        if not page.locator("[data-confirm-placement]").is_visible():
            return
        cards = page.locator(".hand-card.playable:not(.planned)")
        if not cards.count() or rng.random() < 0.15:
            break
        card = any_of(cards, rng)
        name = card.get_attribute("data-card-name")
        shown = index_of(page)
        if not try_click(card):
            continue
        targets = page.locator("[data-board] .lb-target")
        if not targets.count():
            try_click(card)  # nowhere to go: put it back
            continue
        target = any_of(targets, rng)
        # Read without waiting (the element may be gone after a redraw): the words a screen
        # reader hears for each lit Location.
        where = targets.evaluate_all("nodes => nodes.map((n) => n.querySelector('.lb-words')?.textContent)")
        if not try_click(target):
            continue
        summary = page.locator("[data-placement-summary]").inner_text()
        if name not in summary and index_of(page) != shown:
            # The bot's placement came between the clicks and the board was drawn again: the
            # Location may have moved from under the pointer. Choose again on this view.
            continue
        assert name in summary, (f"{name} clicked onto one of {where!r} on view {shown} (still view {index_of(page)}): "
                                 f"the plan reads {summary!r}; selected in hand: "
                                 f"{page.locator('.hand-card.selected').all_inner_texts()}")
        played.planned += 1
    if not page.locator("[data-confirm-placement]").is_visible():
        return  # a view without this seat's choices came meanwhile: choose on the next one
    summary = page.locator("[data-placement-summary]").inner_text()
    assert summary.startswith("Location "), summary
    if not played.plan_shot and page.locator(".hand-card.planned").count() >= 2:
        # The plan on the board before Confirm, with one more card chosen and its Locations lit.
        cards = page.locator(".hand-card.playable:not(.planned)")
        if cards.count() and try_click(cards.first) and page.locator("[data-board] .lb-target").count():
            played.plan_shot = True
            page.mouse.move(1, 1)
            view_shot(page, f"live-board-conquest-{page.viewport_size['width']}-plan")
        selected = page.locator(".hand-card.selected")
        if selected.count():
            try_click(selected)
    before = index_of(page)
    if not try_click(page.locator("[data-confirm-placement]")):
        return
    played.placements += 1
    wait_after_act(page, before)


def take_turn(page, rng: random.Random, played: Played) -> None:
    """One decision of the player, made on the board (or with a bar button for an action
    with no place); waits for the server to apply it. Never uses the text list."""
    if page.locator("[data-confirm-placement]").is_visible():
        plan_placement(page, rng, played)
        return
    sources = page.locator(".hand-card.playable, [data-board] .lb-source")
    buttons = page.locator("[data-bar] button[data-choice]:not([disabled])")
    before = index_of(page)
    if sources.count() and (not buttons.count() or rng.random() < 0.75):
        if not try_click(any_of(sources, rng)):
            return
        for _ in range(4):
            targets = page.locator("[data-board] .lb-target")
            complete = page.locator("[data-bar] button[data-choice]:not([disabled])")
            if targets.count() and (not complete.count() or rng.random() < 0.7):
                target = any_of(targets, rng)
                if try_click(target) and sending(page):
                    played.board += 1
                    break
            elif complete.count():
                button = any_of(complete, rng)
                played.kinds.add(json.loads(button.get_attribute("data-choice"))["kind"])
                if try_click(button):
                    played.buttons += 1
                break
            else:
                break
        if not sending(page):
            cancel = page.locator("[data-bar] [data-cancel]")
            if cancel.count():
                try_click(cancel)
            return
    elif buttons.count():
        button = any_of(buttons, rng)
        played.kinds.add(json.loads(button.get_attribute("data-choice"))["kind"])
        if not try_click(button):
            return
        played.buttons += 1
    else:
        page.wait_for_timeout(200)
        return
    wait_after_act(page, before)


def assert_fits_phone(page) -> None:
    """At 390 px: nothing wider than the screen, and the hand and choices are on screen."""
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    dock = page.locator("[data-actions-panel]").bounding_box()
    assert dock is not None and dock["y"] + dock["height"] <= 844 + 1 and dock["y"] >= 844 * 0.4, dock
    header = page.locator(".site-header").bounding_box()
    assert header is not None and header["height"] <= 70, header


def resize(page, width: int) -> None:
    """Turn the page to ``width`` (1400x900 or a 390x844 phone) and wait until its layout has."""
    page.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})
    page.wait_for_function(f"document.documentElement.clientWidth === {width}")


def show_card_text(page, width: int) -> None:
    """A hand card is a card (name, costs or CQ, rules text, labelled stats), and its text shows
    on hover (desktop) or on a tap of its "i" (phone)."""
    hand = page.locator("[data-hand] .hand-card")
    if not hand.count():
        return
    text = hand.first.inner_text()
    assert text.strip(), text
    tip = page.locator(".lc-tip:not([hidden]) .lc-text")
    for _ in range(6):
        if width > 600:
            hand.first.hover()
        else:
            # A tap where the "i" is (a card that cannot be played now is aria-disabled,
            # which Playwright's own click refuses).
            info = hand.first.locator("[data-card-info]")
            try:
                info.scroll_into_view_if_needed(timeout=3000)
                box = info.bounding_box(timeout=3000)
            except PlaywrightError:  # the hand was redrawn meanwhile: again
                continue
            if box is None:  # detached by a redraw between the two calls: again
                continue
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        if tip.count():
            break
        page.mouse.move(1, 1)
    assert tip.count() == 1 and tip.inner_text().strip()
    page.mouse.move(1, 1)
    page.keyboard.press("Escape")


def look_mid_match(page, game: str, width: int, screenshot) -> bool:
    """The board mid-match at ``width``: a card's text, the phone's one screen, and a card
    chosen with its places lit (screenshots). False if no card could be chosen now."""
    show_card_text(page, width)
    if width < 600:
        assert_fits_phone(page)
    playable = page.locator(".hand-card.playable")
    if not (playable.count() and try_click(playable.first)):
        return False
    page.wait_for_timeout(100)
    page.mouse.move(1, 1)
    screenshot(page, f"live-board-{game}-{width}-mid")
    view_shot(page, f"live-board-{game}-{width}-mid")
    if page.locator(".hand-card.selected").count():
        try_click(page.locator(".hand-card.selected"))
    return True


def play_whole_match(page, game: str, width: int, screenshot, rng: random.Random,
                     also: int | None = None) -> Played:
    """Play to the end at ``width``; once mid-match, look at the board at that width and,
    if ``also`` is given, at that width too (the page turned to it and back)."""
    played = Played()
    mid_shot = also_shot = False
    for _ in range(900):
        if state_of(page) == "done":
            break
        take_turn(page, rng, played)
        assert page.locator("[data-error]").is_hidden(), page.locator("[data-error]").inner_text()
        if not mid_shot and played.board >= 3 and state_of(page) != "done":
            mid_shot = look_mid_match(page, game, width, screenshot)
            if mid_shot and also is not None:
                # The same match at the other width, until a card can be chosen there too
                # (the player goes on playing at that width meanwhile).
                resize(page, also)
                for _ in range(100):
                    if state_of(page) == "done":
                        break
                    also_shot = look_mid_match(page, game, also, screenshot)
                    if also_shot:
                        break
                    take_turn(page, rng, played)
                resize(page, width)
    assert state_of(page) == "done", "the match did not end"
    assert also is None or also_shot, f"the board was never looked at at {also} px mid-match"
    return played


@pytest.fixture
def tempofront_vs_bot(django_db_setup, django_db_blocker) -> tuple[int, str]:
    with django_db_blocker.unblock():
        return bot_match("tempofront", "greedy", seed=11)


@pytest.fixture
def conquest_vs_bot(django_db_setup, django_db_blocker) -> tuple[int, str]:
    with django_db_blocker.unblock():
        return bot_match("conquest", "random", seed=4)


def check_result(page, width: int) -> None:
    result = page.locator("[data-result]")
    result.wait_for(timeout=20_000)
    head = page.locator("[data-final]").inner_text()
    assert head.startswith(("You won", "You lost", "Draw", "You finished")), head
    assert "Seat" not in head and "Places" not in head
    links = page.locator("[data-result] .result-links")
    assert links.get_by_role("button", name="Rematch").count() == 1
    assert links.get_by_role("link", name="Back to the lobby").get_attribute("href") == "/live/"
    assert "/replay/" in links.get_by_role("link", name="Watch the replay").get_attribute("href")
    assert page.locator("[data-hand-panel]").is_hidden()
    if width < 600:
        box = result.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390


def check_the_end(page, game: str, widths: tuple[int, int], screenshot) -> None:
    """The result at each width (the page turned to it): in words, with its links, and
    axe-core finds no serious problem."""
    for width in widths:
        resize(page, width)
        check_result(page, width)
        found = axe_problems(page)
        assert found == [], json.dumps(found, indent=2)
        screenshot(page, f"live-board-{game}-{width}-end")
        page.evaluate("window.scrollTo(0, 0)")
        view_shot(page, f"live-board-{game}-{width}-end")


@pytest.mark.django_db(transaction=True)
def test_a_whole_tempofront_match_against_a_bot_is_played_on_the_board(
        tempofront_vs_bot, asgi_server, celery_worker_process, browser_page, screenshot):
    """Played at 1400 px, the board looked at mid-match at 390 px too. (A whole TempoFront
    match is played at 390 px by test_bot_client_browser, with the same player.)"""
    match_id, cookie = tempofront_vs_bot
    page = browser_page
    errors = open_match(page, asgi_server, match_id, cookie, 1400)
    played = play_whole_match(page, "tempofront", 1400, screenshot, random.Random(1400), also=390)
    # Moves went through the board, keep/mulligan/pass and the like through the bar, and the
    # folded list of every choice was never opened. (How many of each varies: a click on a
    # button that a bot's move just redrew draws the random player again, so the game's
    # length depends on timing; on SQLite one run in nine ended after 4 board moves.)
    assert played.board >= 3, vars(played)
    assert page.evaluate("document.querySelector('[data-all-choices]').open") is False
    check_the_end(page, "tempofront", (1400, 390), screenshot)
    assert errors == []


def look_at_placed_units(page, width: int, screenshot) -> bool:
    """Units placed at the Locations, seen at ``width``; False if none stands there yet."""
    units = page.locator("[data-board] section.location .unit[data-card-id]")
    if not units.count():
        return False
    if width < 600:
        assert_fits_phone(page)
    screenshot(page, f"live-board-conquest-{width}-mid")
    view_shot(page, f"live-board-conquest-{width}-mid")
    return True


@pytest.mark.django_db(transaction=True)
def test_a_whole_conquest_match_against_a_bot_is_played_on_the_board(
        conquest_vs_bot, asgi_server, celery_worker_process, browser_page, screenshot):
    """Played at 390 px (a phone), the board looked at mid-match at 1400 px too."""
    match_id, cookie = conquest_vs_bot
    page = browser_page
    errors = open_match(page, asgi_server, match_id, cookie, 390)
    played = Played()
    rng = random.Random(390)
    shot = False
    for _ in range(900):
        if state_of(page) == "done":
            break
        take_turn(page, rng, played)
        assert page.locator("[data-error]").is_hidden(), page.locator("[data-error]").inner_text()
        if not shot and played.placements >= 1 and state_of(page) != "done":
            page.wait_for_timeout(300)
            shot = look_at_placed_units(page, 390, screenshot)
            if shot:
                resize(page, 1400)
                page.wait_for_timeout(300)
                look_at_placed_units(page, 1400, screenshot)
                resize(page, 390)
    if state_of(page) != "done":
        view_shot(page, "debug-live-board")
        print("STUCK", page.evaluate("document.querySelector('[data-live-match]').outerHTML.length"),
              page.locator("[data-bar-hint]").inner_text(), page.locator("[data-prompt]").inner_text(),
              page.locator(LIVE).get_attribute("data-sending"), page.locator(LIVE).get_attribute("data-index"))
    assert state_of(page) == "done", "the match did not end"
    assert played.placements >= 2 and played.planned >= 2, vars(played)
    assert shot, "no unit was ever seen placed at a Location"
    check_the_end(page, "conquest", (390, 1400), screenshot)
    assert errors == []


def axe_problems(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"], "targets": [n["target"] for n in v["nodes"]][:5]}
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.django_db(transaction=True)
def test_axe_finds_no_serious_problem_on_the_live_page_while_a_card_is_chosen(
        tempofront_vs_bot, asgi_server, celery_worker_process, browser_page):
    match_id, cookie = tempofront_vs_bot
    page = browser_page
    for width in (1400, 390):
        errors = open_match(page, asgi_server, match_id, cookie, width)
        keep = page.locator("[data-bar] button[data-choice]").first
        keep.wait_for(timeout=30_000)
        found = axe_problems(page)
        assert found == [], json.dumps(found, indent=2)
        if width == 1400:
            # Keep the hand, then choose a card so that places light up on the board.
            playable = page.locator(".hand-card.playable")
            for _ in range(100):
                if playable.count():
                    break
                buttons = page.locator("[data-bar] button[data-choice]:not([disabled])")
                if buttons.count():
                    before = index_of(page)
                    try_click(buttons.first)  # keep, then pass until a card can be played
                    wait_after_act(page, before)
                else:
                    page.wait_for_timeout(200)
            playable.first.click()
            page.locator("[data-board] .lb-target").first.wait_for(timeout=5_000)
            # The lit places are buttons with words for a screen reader.
            target = page.locator("[data-board] .lb-target").first
            assert target.get_attribute("role") == "button" and target.get_attribute("tabindex") == "0"
            words = target.locator(".lb-words").inner_text()
            card = page.locator(".hand-card.selected").get_attribute("data-card-name")
            assert card in words, (card, words)
            found = axe_problems(page)
            assert found == [], json.dumps(found, indent=2)
        assert errors == []
    # A spectator (signed out) sees the board and the events, and no hand nor choices.
    watcher = page.context.browser.new_page(viewport={"width": 390, "height": 844})
    watcher.goto(asgi_server.url(f"/live/{match_id}/"))
    watcher.locator(f"{LIVE}[data-index]").wait_for(timeout=30_000)
    assert watcher.locator("[data-actions-panel], [data-hand], [data-all-choices]").count() == 0
    found = axe_problems(watcher)
    assert found == [], json.dumps(found, indent=2)


@pytest.fixture
def two_people(django_db_setup, django_db_blocker) -> tuple[int, str, str]:
    """A live TempoFront match of alice and bob, neither of whom has opened it; their cookies."""
    from live import creation
    from live.creation import SeatSpec

    with django_db_blocker.unblock():
        users = [User.objects.create_user(name, password=f"pw-{name}-123") for name in ("alice", "bob")]
        live = creation.live_create(seats=[SeatSpec(deck_version=make_deck(u, "tempofront", index=i).latest_version,
                                                    user=u) for i, u in enumerate(users)], seed=3)
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
    return live.match_id, cookies[0], cookies[1]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1400, 390])
def test_the_board_says_who_has_not_come_yet_until_they_do(width, two_people, asgi_server, browser_page,
                                                          screenshot):
    from websockets.sync.client import connect

    match_id, alice, bob = two_people
    page = browser_page
    errors = open_match(page, asgi_server, match_id, alice, width)
    absent = page.locator('[data-clocks] [data-absent="1"]')
    absent.wait_for(timeout=10_000)
    assert absent.inner_text().strip() == "not here yet"
    assert page.locator('[data-clocks] [data-absent="0"]').count() == 0  # alice herself is here
    screenshot(page, f"live-board-opponent-absent-{width}")
    # Bob opens his board (a socket of his own): alice's page drops the mark without a move.
    with connect(asgi_server.ws_url(f"/ws/live/{match_id}/"), origin=asgi_server.origin, open_timeout=10,
                 additional_headers={"Cookie": f"sessionid={bob}"}) as socket:
        assert json.loads(socket.recv(timeout=10))["seat"] == 1
        absent.wait_for(state="detached", timeout=10_000)
    assert page.locator("[data-absent]").count() == 0
    assert errors == []


@pytest.fixture
def double_no_show(two_people, django_db_blocker) -> tuple[int, str]:
    """The match of ``two_people`` after neither player showed up."""
    from live import endings

    match_id, alice, _ = two_people
    with django_db_blocker.unblock():
        endings.live_forfeit(match_id=match_id, seats=[0, 1])
    return match_id, alice


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1400, 390])
def test_the_match_page_says_a_double_no_show_is_no_draw_and_not_rated(width, double_no_show, asgi_server,
                                                                      browser_page, screenshot):
    match_id, alice = double_no_show
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900})
    page.context.add_cookies([{"name": "sessionid", "value": alice, "url": asgi_server.origin}])
    page.goto(asgi_server.url(f"/matches/{match_id}/"))
    result = page.locator("[data-match-result]")
    result.wait_for(timeout=10_000)
    # The page's script redraws the result from the match's data on load (static/matches/
    # live.js): it must say the same, without a script error.
    page.wait_for_function("document.querySelector('[data-match-result] [data-match-forfeit]') !== null")
    text = " ".join(result.inner_text().split())
    assert text.startswith("No one wins the match.") and "draw" not in text
    assert "Decided by forfeit (" in text and "did not show up): not rated." in text
    box = result.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width
    # The game's row says who won it the same way: nobody, by forfeit.
    winner_cell = page.locator("[data-games-body] tr").first.locator("td").nth(2)
    assert winner_cell.inner_text().strip() == "None (forfeit)"
    screenshot(page, f"match-double-no-show-{width}")
    # The replay's last frame says it too.
    page.goto(asgi_server.url(f"/matches/{match_id}/replay/?game=1&action=1000"))
    banner = page.locator("[data-outcome]")
    banner.wait_for(timeout=10_000)
    text = " ".join(banner.inner_text().split())
    assert text.startswith("Nobody wins the game by forfeit (you and bob did not show up)."), text
    assert "draw" not in text
    assert errors == []
