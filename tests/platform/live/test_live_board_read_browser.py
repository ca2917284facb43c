"""The live board as a player reads it, in Chromium at 1400x900 and 390x844, on positions
played through the live services (alice, seat 0, against bob): a phone shows everything a
desktop shows (TempoFront's row labels, unit tags and timeline; whose unit stands at each
Conquest Location; names kept inside their boxes), the end of a match is brought into view
with its totals and its final board, the board says "you" and the players' names, and the
clocks and "Your move" stay in view however far the page is scrolled.

Each position is played once: its page is checked at 1400x900, then resized to 390x844
(``at_width`` waits until the layout has followed) and checked again. The end of a match is
watched by two pages of alice's at once, one at each width, while the rest is played."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from board_positions import game_length, two_people
from db_thread import in_thread

pytestmark = [pytest.mark.browser]

LIVE = "[data-live-match]"
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"
SIZES = {1400: (1400, 900), 390: (390, 844)}
# TempoFront, seed 1 and moves of random.Random(7): Militia Recruit, Cinder Imp (Rapid) and
# Thornwall (Structure) are on the board after 10 moves; the game ends after 99 moves,
# alice winning by Integrity with bob's Leader below 0, a Strike left on the Chain and
# damage beyond a unit's Vitality on the way.
TF_SEED, TF_RNG = 1, 7
# Conquest, seed 1 and random.Random(0): after 12 moves a response window waits for alice;
# after 13 a Location holds a revealed unit of each seat; alice wins 104 to 70.
CQ_SEED, CQ_RNG = 1, 0


def tf_units(state) -> list[dict]:
    view = state.view(None)
    return [u for side in view["board"] for front in side.values() for u in front.values() if u]


def tf_mid(state) -> bool:
    units = tf_units(state)
    tagged = [u for u in units if u.get("keywords")]
    return len(units) >= 3 and bool(tagged) and 0 in state.to_act()


def cq_window_for_alice(state) -> bool:
    window = state.view(0).get("window")
    return bool(window) and window["waiting_for"] == 0


def cq_both_revealed(state) -> bool:
    return any(all(u and not u["face_down"] for u in loc["units"]) for loc in state.view(None)["locations"])


def position(django_db_blocker, game: str, stop=None):
    seed, rng = (TF_SEED, TF_RNG) if game == "tempofront" else (CQ_SEED, CQ_RNG)
    with django_db_blocker.unblock():
        return in_thread(lambda: two_people(game, seed=seed, rng_seed=rng, stop=stop))


def open_board(page, asgi_server, match_id: int, cookie: str, width: int) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    w, h = SIZES[width]
    page.set_viewport_size({"width": w, "height": h})
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page.goto(asgi_server.url(f"/live/{match_id}/"))
    page.locator(f"{LIVE}[data-index]").wait_for(timeout=30_000)
    page.wait_for_timeout(200)
    return errors


def at_width(page, width: int) -> None:
    """Bring the open board to ``SIZES[width]``, back at its top, once its layout has
    followed: the window and the document as wide as asked, and the heights board.js keeps
    for the sticky header and bar of clocks (``measureBars``) those of the new layout."""
    w, h = SIZES[width]
    page.set_viewport_size({"width": w, "height": h})
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("""(w) => {
      const root = document.documentElement;
      const style = getComputedStyle(root);
      const header = document.querySelector('.site-header');
      const top = header && getComputedStyle(header).position === 'sticky' ? header.offsetHeight : 0;
      const bar = document.querySelector('[data-live-bar]');
      return root.clientWidth === w && window.innerWidth === w && window.scrollY === 0
        && style.getPropertyValue('--live-header').trim() === `${top}px`
        && style.getPropertyValue('--live-bar').trim() === `${bar ? bar.offsetHeight : 0}px`;
    }""", arg=w, timeout=10_000)
    page.wait_for_timeout(200)  # as after opening it: the board's own redraws settle
    assert page.evaluate("[document.documentElement.clientWidth, window.innerHeight]") == [w, h]


def visible_box(page, locator) -> dict:
    """The element's box, checked to be inside the viewport and below the site header."""
    box = locator.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
    header = page.locator(".site-header").bounding_box()
    viewport = page.viewport_size
    assert box["y"] >= header["y"] + header["height"] - 1, (box, header)
    assert box["y"] + box["height"] <= viewport["height"] + 1, (box, viewport)
    return box


def screen_shot(page, name: str) -> None:
    """The screen as the player sees it (the ``screenshot`` fixture takes whole pages, where
    the phone's fixed hand sits in the middle)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-screen.png"))


def inside(page, selector: str) -> list[str]:
    """Texts of the elements of ``selector`` whose content is wider than their box, or that
    stick out of the board."""
    return page.evaluate("""(selector) => {
      const board = document.querySelector('[data-board]').getBoundingClientRect();
      return [...document.querySelectorAll(selector)].filter((node) => {
        const box = node.getBoundingClientRect();
        return node.scrollWidth > node.clientWidth + 1 || box.right > board.right + 1 || box.left < board.left - 1;
      }).map((node) => node.textContent);
    }""", selector)


# ------------------------------------------------------------------ 14: a phone sees it all


def rows_tags_and_timeline_are_shown(page, width: int, screenshot) -> None:
    board = page.locator("[data-board]")
    # Every slot says whose it is and which row: "You · Vanguard", "bob · Support", "Site".
    labels = board.locator(".front .row .slot-seat")
    assert labels.count() == 15
    for i in range(15):
        assert labels.nth(i).is_visible(), i
    words = [" ".join(t.split()) for t in labels.all_inner_texts()]
    assert words.count("You · Vanguard") == 3 and words.count("bob · Support") == 3 and words.count("Site") == 3, words
    # The units' tags (keywords, statuses, Exhausted) are there.
    tags = board.locator(".front .unit-tags .unit-tag")
    assert tags.count() >= 1 and all(tags.nth(i).is_visible() for i in range(tags.count()))
    said = [t.strip() for t in tags.all_text_contents()]
    assert "Rapid" in said or "Structure" in said, said
    # The Time timeline, each seat's marker named.
    assert board.locator(".timeline").is_visible()
    markers = [" ".join(t.split()) for t in board.locator(".time-marker").all_inner_texts()]
    assert sorted(markers) == ["You", "bob"], markers
    assert inside(page, "[data-board] .unit-name, [data-board] .slot-seat, [data-board] .unit-tags") == []
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    screenshot(page, f"live-read-tempofront-{width}-mid")
    page.locator(".tf-fronts").evaluate("node => node.scrollIntoView({block: 'start'})")
    screen_shot(page, f"live-read-tempofront-{width}-mid")


@pytest.mark.django_db(transaction=True)
def test_tempofront_rows_tags_timeline_and_the_clocks_in_view_at_both_widths(
        django_db_blocker, asgi_server, browser_page, screenshot):
    spot = position(django_db_blocker, "tempofront", tf_mid)
    page = browser_page
    errors = open_board(page, asgi_server, spot.match_id, spot.cookies[0], 1400)
    for width in SIZES:
        at_width(page, width)
        rows_tags_and_timeline_are_shown(page, width, screenshot)
        clocks_and_your_move_stay_in_view(page, "tempofront", width)
        assert errors == [], width


@pytest.mark.django_db(transaction=True)
def test_conquest_locations_say_whose_unit_is_whose_at_both_widths(
        django_db_blocker, asgi_server, browser_page, screenshot):
    spot = position(django_db_blocker, "conquest", cq_both_revealed)
    page = browser_page
    errors = open_board(page, asgi_server, spot.match_id, spot.cookies[0], 1400)
    for width in SIZES:
        at_width(page, width)
        slots = page.locator("[data-board] section.location .slot")
        assert slots.count() >= 4
        mine = page.locator("[data-board] section.location .slot.seat-0 .slot-seat")
        theirs = page.locator("[data-board] section.location .slot.seat-1 .slot-seat")
        assert mine.count() == theirs.count() == slots.count() // 2
        for i in range(mine.count()):
            assert mine.nth(i).is_visible() and mine.nth(i).inner_text().strip() == "You"
            assert theirs.nth(i).is_visible() and theirs.nth(i).inner_text().strip() == "bob"
        assert page.locator("[data-board] section.location .unit-revealed").count() >= 2
        assert inside(page, "[data-board] .unit-name, [data-board] .slot-seat, [data-board] .location h4") == []
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        screenshot(page, f"live-read-conquest-{width}-mid")
        page.locator(".cq-locations").evaluate("node => node.scrollIntoView({block: 'start'})")
        screen_shot(page, f"live-read-conquest-{width}-mid")
        assert errors == [], width


# ------------------------------------------------------------------ 16: the end, in view


def play_rest(match_id: int, game: str) -> None:
    """Play the scripted game to its end (from a thread: this one runs Playwright's loop)."""
    from board_positions import script
    from django.contrib.auth.models import User

    from live import moves as live_moves
    from live.models import LiveMatch

    def run():
        live = LiveMatch.objects.get(match_id=match_id)
        users = [User.objects.get(username=n) for n in ("alice", "bob")]
        seed_rng = TF_RNG if game == "tempofront" else CQ_RNG
        for seat, action in script(live, seed_rng)[len(live.log):]:
            live_moves.live_act(match_id=match_id, user=users[seat], action_json=action)

    in_thread(run)


def the_end_is_in_view(page, game: str, width: int, errors: list[str], screenshot) -> None:
    """The end as one page saw it come, then once more after a reload."""
    assert page.evaluate("[document.documentElement.clientWidth, window.innerHeight]") == list(SIZES[width])
    result = page.locator("[data-result]")
    head = page.locator("[data-final]")
    visible_box(page, head)
    # Not under the bar of clocks either.
    bar = page.locator("[data-live-bar]").bounding_box()
    assert head.bounding_box()["y"] >= bar["y"] + bar["height"] - 1, (head.bounding_box(), bar)
    text = " ".join(result.inner_text().split())
    assert text.startswith("You won by"), text
    totals = page.locator("[data-totals]")
    words = " ".join(totals.inner_text().split())
    if game == "conquest":
        assert words == "Conquest Pool: You 104, bob 70", words
        # The final board: the last Battle's units as they were scored, not an empty zone.
        final = page.locator("[data-board] [data-final-board]")
        assert "as it was scored" in final.inner_text()
        assert page.locator("[data-board] section.location .unit-revealed").count() >= 2
    else:
        assert re.fullmatch(r"Integrity: You \d+, bob 0 · Dominion: You \d+, bob \d+", words), words
        # The game is over: nothing is left on the Chain, and no Integrity is below 0.
        assert page.locator("[data-board] .response-window").count() == 0
        assert not re.search(r"Integrity\s*-\d", page.locator("[data-board]").inner_text())
    screenshot(page, f"live-read-{game}-{width}-end")
    screen_shot(page, f"live-read-{game}-{width}-end")
    # Opened again once it is over: the same, from the top.
    page.reload()
    page.locator(f"{LIVE}[data-state='done']").wait_for(timeout=20_000)
    page.wait_for_timeout(500)
    visible_box(page, head)
    assert " ".join(page.locator("[data-totals]").inner_text().split()) == words
    assert errors == [], width


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_the_end_comes_into_view_with_the_totals_and_the_final_board_at_both_widths(
        game, django_db_blocker, asgi_server, browser_page, screenshot):
    # Two moves before the end the player, on a desktop and on a phone at once, has
    # scrolled down to the bottom of the page.
    seed, rng = (TF_SEED, TF_RNG) if game == "tempofront" else (CQ_SEED, CQ_RNG)
    total = game_length(game, seed=seed, rng_seed=rng)
    count = {"n": 0}

    def stop(_state):
        count["n"] += 1
        return count["n"] >= total - 2

    spot = position(django_db_blocker, game, stop)
    pages = {1400: browser_page, 390: browser_page.context.new_page()}
    errors = {width: open_board(page, asgi_server, spot.match_id, spot.cookies[0], width)
              for width, page in pages.items()}
    for page in pages.values():
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    browser_page.wait_for_timeout(300)
    with django_db_blocker.unblock():
        play_rest(spot.match_id, game)
    for page in pages.values():
        page.wait_for_function(f"document.querySelector('{LIVE}').dataset.state === 'done'", timeout=20_000)
    browser_page.wait_for_timeout(1200)
    for width, page in pages.items():
        the_end_is_in_view(page, game, width, errors[width], screenshot)


# ------------------------------------------------------------------ 17: "you", names, plurals


@pytest.mark.django_db(transaction=True)
def test_the_conquest_board_says_you_and_names_and_keeps_the_clocks_in_view_at_both_widths(
        django_db_blocker, asgi_server, browser_page, screenshot):
    spot = position(django_db_blocker, "conquest", cq_window_for_alice)
    page = browser_page
    errors = open_board(page, asgi_server, spot.match_id, spot.cookies[0], 1400)
    for width in SIZES:
        at_width(page, width)
        board = page.locator("[data-board]")
        window = board.locator(".response-window")
        assert "Waiting for you" in window.inner_text(), window.inner_text()
        assert "Seat 0" not in board.inner_text() and "Seat 1" not in board.inner_text()
        log = page.locator("[data-log] li").all_inner_texts()
        assert log and not [t for t in log if "Seat 0" in t or "Seat 1" in t], log
        assert "You drew " in " ".join(log)
        # My own draw is told once ("You drew ..."), not again as "alice drew 7 cards".
        assert not [t for t in log if t.startswith(("alice drew", "You drew 7"))], log
        assert [t for t in log if t.startswith("bob drew 7 cards")], log
        assert page.locator(".live-head .eyebrow").text_content().startswith("Conquest")
        screenshot(page, f"live-read-conquest-{width}-you")
        clocks_and_your_move_stay_in_view(page, "conquest", width)
        assert errors == [], width


@pytest.mark.django_db(transaction=True)
def test_the_tempofront_board_and_log_say_you_names_and_numbers_that_add_up_at_both_widths(
        django_db_blocker, asgi_server, browser_page, screenshot):
    spot = position(django_db_blocker, "tempofront", None)
    page = browser_page
    errors = open_board(page, asgi_server, spot.match_id, spot.cookies[1], 1400)  # bob, who lost
    for width in SIZES:
        at_width(page, width)
        assert page.locator(".live-head .eyebrow").text_content().startswith("TempoFront")
        board = page.locator("[data-board]").inner_text()
        assert "Seat 0" not in board and "Seat 1" not in board
        log = page.locator("[data-log] li").all_inner_texts()
        text = "\n".join(log)
        assert "Seat 0" not in text and "Seat 1" not in text
        assert "alice " in text and "You " in text
        assert not re.search(r"-\d+ Integrity", text), [t for t in log if "Integrity" in t]
        assert not re.search(r"\d+ damage, \d+/\d+", text), [t for t in log if "damage" in t]
        assert re.search(r"\d+ damage, destroyed", text)
        assert not [t for t in log if re.match(r"You drew \d+ cards?$", t) or t.startswith("bob drew")], log
        assert not [t for t in log if re.search(r"\b1 cards\b|\b1 actions\b", t)]
        # "You" takes the verb that goes with it.
        assert not re.search(r"\bYou (plays|deploys|passes|keeps|has|is)\b", text), text
        screenshot(page, f"live-read-tempofront-{width}-log")
        assert errors == [], width


# ------------------------------------------------------------------ 18: clocks in view
# Checked on the positions above where alice is to move: TempoFront's mid-game
# (test_tempofront_rows_tags_timeline_and_the_clocks_in_view_at_both_widths) and Conquest's
# response window (test_the_conquest_board_says_you_and_names_and_keeps_the_clocks_in_view_...).


def clocks_and_your_move_stay_in_view(page, game: str, width: int) -> None:
    prompt = page.locator("[data-prompt]")
    prompt.wait_for(timeout=10_000)
    assert prompt.inner_text().startswith(("Your move", "Respond"))
    for y in ("document.documentElement.scrollHeight / 2", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(200)
        assert page.evaluate("window.scrollY") > 100
        visible_box(page, page.locator("[data-clocks]"))
        visible_box(page, prompt)
        clocks = page.locator("[data-clock-seat]")
        assert clocks.count() == 2 and all(clocks.nth(i).is_visible() for i in range(2))
    if width == 390:
        # The bar stays short: the board still has most of the screen.
        bar = page.locator("[data-live-bar]").bounding_box()
        assert bar["height"] <= 100, bar
    screen_shot(page, f"live-read-{game}-{width}-scrolled")
