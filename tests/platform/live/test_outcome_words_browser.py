"""How a finished game's places are said, in Chromium at 1400x900 and 390x844: the live
board's standings as a person says them ("1st: alice", "2nd: you"; no list number before
the place), the replay's outcome naming the players of a live match and the decks of a
bot match with ordinals ("1st alice, 2nd bob"; never "seat 0: 1"), and the TempoFront
Timeline's end labels (the ticks 0 and 12 and a marker at either end) whole on the track."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from board_positions import Position, script, two_people
from db_thread import in_thread
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIVE = "[data-live-match]"
SIZES = {1400: (1400, 900), 390: (390, 844)}
#: Each test checks both, on the same data: the page loaded afresh at each width.
WIDTHS = (1400, 390)
# TempoFront, seed 1 and moves of random.Random(7): alice (seat 0) beats bob by Integrity.
TF_SEED, TF_RNG = 1, 7
LAST = 100_000  # a replay position past the end: the viewer opens the last frame
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"


def people(game: str, names: list[str], *, seed: int, rng_seed: int) -> Position:
    """A live ``game`` match of ``names`` (seat by seat) played to its end by seeded random moves."""
    from live import creation
    from live import moves as live_moves
    from live.creation import SeatSpec
    from live.models import LiveMatch

    users = [User.objects.get_or_create(username=name)[0] for name in names]
    decks = [make_deck(user, game, index=i % 2).latest_version for i, user in enumerate(users)]
    live = creation.live_create(seats=[SeatSpec(deck_version=d, user=u) for d, u in zip(decks, users, strict=True)],
                                seed=seed)
    for seat, action in script(LiveMatch.objects.get(pk=live.pk), rng_seed):
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=action)
    cookies = []
    for user in users:
        client = Client()
        client.force_login(user)
        cookies.append(client.cookies["sessionid"].value)
    return Position(live.match_id, cookies)


@pytest.fixture
def finished_tempofront(django_db_setup, django_db_blocker) -> Position:
    with django_db_blocker.unblock():
        return in_thread(lambda: two_people("tempofront", seed=TF_SEED, rng_seed=TF_RNG))


@pytest.fixture
def finished_bot_match(django_db_setup, django_db_blocker) -> int:
    """A bot match of two TempoFront decks, alice's "Ember Tempo" against bob's "Stone Wall",
    played by the worker's task (run here)."""

    def play() -> int:
        from matches.models import Match
        from matches.services import match_challenge
        from matches.tasks import run_match

        alice, bob = (User.objects.get_or_create(username=name)[0] for name in ("alice", "bob"))
        decks = [make_deck(alice, "tempofront", index=0), make_deck(bob, "tempofront", index=1)]
        for deck, name in zip(decks, ("Ember Tempo", "Stone Wall"), strict=True):
            deck.name = name
            deck.save(update_fields=["name"])
        match = match_challenge(created_by=alice, deck_versions=[d.latest_version for d in decks], best_of=1,
                                seed=5)
        run_match.apply(args=[match.pk])
        match.refresh_from_db()
        assert match.status == Match.Status.DONE, match.error
        return match.pk

    with django_db_blocker.unblock():
        return in_thread(play)


def open_page(page, asgi_server, path: str, width: int, cookie: str | None = None) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    w, h = SIZES[width]
    page.set_viewport_size({"width": w, "height": h})
    if cookie:
        page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page.goto(asgi_server.url(path))
    assert page.evaluate("document.documentElement.clientWidth") == w  # the page really is at this width
    return errors


def words(locator) -> str:
    return " ".join(locator.inner_text().split())


def standings(page) -> list[str]:
    """The live board's standings as read, and checked to draw no list numbers of their own."""
    places = page.locator("[data-result] .result-places")
    places.wait_for(timeout=20_000)
    assert places.evaluate("node => getComputedStyle(node).listStyleType") == "none"
    return [" ".join(t.split()) for t in places.locator("li").all_inner_texts()]


# ------------------------------------------------------------------ the live board


def test_a_spectator_reads_the_places_as_a_person_says_them(finished_tempofront, asgi_server, browser_page,
                                                           screenshot):
    page = browser_page
    for width in WIDTHS:
        errors = open_page(page, asgi_server, f"/live/{finished_tempofront.match_id}/", width)
        page.locator(f"{LIVE}[data-state='done']").wait_for(timeout=30_000)
        assert standings(page) == ["1st: alice", "2nd: bob"]
        result = words(page.locator("[data-result]"))
        assert result.startswith("alice won by"), result
        assert not re.search(r"\b\d\.\s*\d(st|nd|rd|th)\b", result) and "Seat" not in result, result
        screenshot(page, f"outcome-live-spectator-{width}")
        page.locator("[data-result]").screenshot(path=str(ARTIFACTS / f"outcome-live-spectator-{width}-result.png"))
        assert errors == []


def test_a_player_of_three_reads_their_own_place_as_you(django_db_blocker, asgi_server, browser_page, screenshot):
    with django_db_blocker.unblock():
        spot = in_thread(lambda: people("conquest", ["alice", "bob", "carol"], seed=3, rng_seed=2))
    page = browser_page
    for width in WIDTHS:
        errors = open_page(page, asgi_server, f"/live/{spot.match_id}/", width, spot.cookies[0])
        page.locator(f"{LIVE}[data-state='done']").wait_for(timeout=30_000)
        said = standings(page)
        assert len(said) == 3, said
        assert all(re.fullmatch(r"(1st|2nd|3rd): (you|bob|carol)", line) for line in said), said
        assert sorted(line.split(": ")[1] for line in said) == ["bob", "carol", "you"], said
        mine = next(line for line in said if line.endswith(": you"))
        head = words(page.locator("[data-final]"))
        assert head.startswith(f"You finished {'joint ' if 'joint' in head else ''}{mine.split(':')[0]} of 3"), (
            head, said)
        screenshot(page, f"outcome-live-three-{width}")
        page.locator("[data-result]").screenshot(path=str(ARTIFACTS / f"outcome-live-three-{width}-result.png"))
        assert errors == []


# ------------------------------------------------------------------ the replay viewer


def banner(page, asgi_server, match_id: int, action: int) -> str:
    page.goto(asgi_server.url(f"/matches/{match_id}/replay/?game=1&action={action}"))
    page.locator("[data-replay-body]:not([hidden]) [data-board] .board-tempofront").wait_for(timeout=30_000)
    outcome = page.locator("[data-outcome]")
    return words(outcome) if outcome.count() else ""


def timeline_shot(page, name: str) -> None:
    """The outcome and the Timeline at full size (the whole-page shots are tall)."""
    ARTIFACTS.mkdir(exist_ok=True)
    box = page.locator("[data-board]").bounding_box()
    line = page.locator("[data-board] .timeline").bounding_box()
    scrolled = page.evaluate("window.scrollY")
    clip = {"x": box["x"], "y": box["y"] + scrolled, "width": box["width"],
            "height": line["y"] + line["height"] - box["y"] + 32}
    page.screenshot(path=str(ARTIFACTS / f"{name}-timeline.png"), full_page=True, clip=clip)


def timeline_clipped(page) -> list[str]:
    """The Timeline's ticks and markers that are not whole in view: painted past the
    track's clip edge (a track that clips draws nothing past its box: Chromium applies
    ``overflow-clip-margin`` only when both axes clip), the board, or the viewport."""
    return page.evaluate("""() => {
      const track = document.querySelector('[data-board] .timeline-track');
      const style = getComputedStyle(track);
      const clips = style.overflowX !== 'visible';
      const both = style.overflowX === 'clip' && style.overflowY === 'clip';
      const margin = !clips ? Infinity : both ? parseFloat(style.overflowClipMargin) || 0 : 0;
      const edge = track.getBoundingClientRect();
      const board = document.querySelector('[data-board]').getBoundingClientRect();
      const out = [];
      for (const node of track.querySelectorAll('.tick, .time-marker')) {
        const box = node.getBoundingClientRect();
        const left = Math.max(edge.left - margin, board.left, 0);
        const right = Math.min(edge.right + margin, board.right, document.documentElement.clientWidth);
        if (box.left < left - 0.5 || box.right > right + 0.5) {
          out.push(`${node.className} "${node.textContent}" ${box.left.toFixed(1)}..${box.right.toFixed(1)}`
            + ` outside ${left.toFixed(1)}..${right.toFixed(1)}`);
        }
      }
      // Nor is a marker drawn over the "Timeline" label.
      const label = track.parentElement.querySelector('.stat-label').getBoundingClientRect();
      for (const node of track.querySelectorAll('.time-marker')) {
        const box = node.getBoundingClientRect();
        if (box.top < label.bottom - 0.5 && box.left < label.right && box.right > label.left) {
          out.push(`${node.textContent} over the label`);
        }
      }
      return out;
    }""")


def test_the_replay_of_a_live_match_names_its_players_with_ordinals(finished_tempofront, asgi_server,
                                                                   browser_page, screenshot):
    page = browser_page
    match_id = finished_tempofront.match_id
    for width in WIDTHS:
        page.context.clear_cookies()  # a visitor again: the last width ended as alice
        errors = open_page(page, asgi_server, f"/matches/{match_id}/replay/?game=1&action={LAST}", width)
        said = banner(page, asgi_server, match_id, LAST)
        assert re.fullmatch(r"alice wins by \w+\. 1st alice, 2nd bob", said), said
        assert "seat" not in said.lower()
        assert timeline_clipped(page) == []
        screenshot(page, f"outcome-replay-live-{width}")
        timeline_shot(page, f"outcome-replay-live-{width}-end")
        # The start: both markers at Time 0, the first tick and the last.
        banner(page, asgi_server, match_id, 0)
        assert timeline_clipped(page) == []
        timeline_shot(page, f"outcome-replay-live-{width}-start")
        # alice reads "you" where her name was.
        page.context.add_cookies([{"name": "sessionid", "value": finished_tempofront.cookies[0],
                                   "url": asgi_server.origin}])
        said = banner(page, asgi_server, match_id, LAST)
        assert re.fullmatch(r"You win by \w+\. 1st you, 2nd bob", said), said
        assert errors == []


def test_the_replay_of_a_bot_match_names_its_decks_with_ordinals(finished_bot_match, asgi_server, browser_page,
                                                                 screenshot):
    page = browser_page
    for width in WIDTHS:
        errors = open_page(page, asgi_server, f"/matches/{finished_bot_match}/replay/?game=1&action={LAST}", width)
        said = banner(page, asgi_server, finished_bot_match, LAST)
        decks = r"(Ember Tempo|Stone Wall)"
        found = re.fullmatch(rf"(?:{decks} wins|The game is a draw) by \w+\. 1st {decks}, (1st|2nd) {decks}", said)
        assert found, said
        assert "seat" not in said.lower()
        if found.group(1):
            assert found.group(1) == found.group(2), said  # the winner is the one placed 1st
        assert timeline_clipped(page) == []
        screenshot(page, f"outcome-replay-bot-{width}")
        timeline_shot(page, f"outcome-replay-bot-{width}-end")
        banner(page, asgi_server, finished_bot_match, 0)
        assert timeline_clipped(page) == []
        timeline_shot(page, f"outcome-replay-bot-{width}-start")
        assert errors == []
