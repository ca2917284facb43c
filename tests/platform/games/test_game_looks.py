"""A game carries its looks: its rules page, glossary, guide parts, styles and board
renderer live in its own package (``site/``), and the platform finds them through the
registry alone. Highcard proves it: its package (``highcard/``) holds a rules document, a
glossary, a blurb and a lead, a stylesheet and a board renderer, and registering the game is
the one line that shows them; the pages of the platform name no game."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import tiny_game
from django.contrib.staticfiles import finders
from django.template.loader import get_template

from decks.services import deck_register
from engine import games
from matches.services import match_challenge
from matches.tasks import run_match

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PACKAGE = HERE / "highcard"
LOW = "Captain: Captain Red\n2 One\n2 Two\n2 Three\n"
HIGH = "Captain: Captain Blue\n2 Three\n2 Four\n2 Five\n"
NAMES = re.compile(r"tempofront|conquest", re.IGNORECASE)


@pytest.fixture
def highcard():
    """Highcard registered for one test (the one line a deployment adds), removed afterwards."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  (the views' imports see two games, as in production)
    tiny_game.register()
    yield games["highcard"]
    tiny_game.unregister()


def played_highcard_match(owner_name: str = "alice"):
    """A finished best-of-one Highcard challenge, played in this process by the real task."""
    from django.contrib.auth.models import User

    alice = User.objects.create_user(owner_name, password=f"pw-{owner_name}-123")
    bob = User.objects.create_user(f"{owner_name}-rival", password="pw-rival-123")
    low = deck_register(owner=alice, game="highcard", name="Low", decklist=LOW, pilot="random")
    high = deck_register(owner=bob, game="highcard", name="High", decklist=HIGH, pilot="random")
    match = match_challenge(created_by=alice, deck_versions=[low.latest_version, high.latest_version], best_of=1,
                            seed=11)
    run_match.apply(args=[match.pk])
    match.refresh_from_db()
    assert match.status == "done", match.error
    return match


# --------------------------------------------------------------------------- the rules, from the package


@pytest.mark.django_db
def test_the_rules_page_glossary_and_guide_parts_come_from_the_games_own_package(highcard, client):
    page = client.get("/rules/highcard/")
    assert page.status_code == 200
    html = page.content.decode()
    # Every section of the package's site/rules.md, in its table of contents and on the page.
    for heading in ("Overview", "Decks", "A match", "Winning", "Cards drawn and played"):
        assert f">{heading}</a>" in html and f">{heading}</h2>" in html, heading
    assert "The higher total wins; equal" in html
    # Its lead (site/templates/highcard/guide/lead.html), with a glossary term of its own.
    assert 'data-term="total">Total</span> wins.' in html
    # Its glossary (site/glossary.toml): the page, and the JSON the glossary script reads.
    glossary = client.get("/rules/highcard/glossary/").content.decode()
    assert 'id="captain"' in glossary and "The card that leads a deck" in glossary
    terms = client.get("/rules/glossary.json").json()["games"]["highcard"]
    assert {t["slug"] for t in terms} == {"captain", "number", "total"}
    # Its blurb on the rules index, next to the other games' own.
    index = client.get("/rules/").content.decode()
    assert "Two players, five numbers, the higher total wins." in index
    # Nothing of it on another game's rules page.
    assert "five numbers" not in client.get("/rules/tempofront/").content.decode()


@pytest.mark.django_db
def test_without_the_registry_line_the_site_knows_nothing_of_the_package(client):
    assert client.get("/rules/highcard/").status_code == 404
    assert finders.find("highcard/board.js") is None
    assert "highcard" not in client.get("/rules/glossary.json").json()["games"]
    assert "highcard/highcard.css" not in client.get("/rules/").content.decode()


# --------------------------------------------------------------------------- styles and board renderer


@pytest.mark.django_db
def test_its_styles_and_board_renderer_are_served_from_the_package_and_loaded_by_its_pages(highcard, client):
    # The static finder serves the package's files under /static/highcard/.
    assert Path(finders.find("highcard/board.js")) == PACKAGE / "site/static/highcard/board.js"
    assert Path(finders.find("highcard/highcard.css")) == PACKAGE / "site/static/highcard/highcard.css"
    # Every page links every game's stylesheet (its colours show wherever its name does).
    home = client.get("/").content.decode()
    assert 'href="/static/highcard/highcard.css"' in home and 'href="/static/tempofront/tempofront.css"' in home
    # The home page lists it from the registry, with its links, and the site's name says it.
    assert 'data-game="highcard"' in home and 'href="/rules/highcard/"' in home
    assert "<title>TempoFront, Conquest &amp; Highcard" in home
    # A Highcard replay loads Highcard's renderer, before the viewer, and no other game's.
    match = played_highcard_match()
    replay = client.get(f"/matches/{match.pk}/replay/").content.decode()
    script = '<script type="module" src="/static/highcard/board.js"></script>'
    assert script in replay and replay.index(script) < replay.index("matches/replay.js")
    assert "tempofront/board.js" not in replay and "conquest/board.js" not in replay
    # The card page prints the numbers the game declares (its card_stats): Five is worth 5.
    card = client.get("/cards/highcard/five/").content.decode()
    assert 'title="Value 5"><abbr title="Value">V</abbr> <strong>5</strong>' in card
    # A TempoFront card prints its own game's numbers, and no Value.
    tempofront_card = client.get("/cards/?game=tempofront").content.decode()
    assert "cf-cost--focus" in tempofront_card and "cf-stat--value" not in tempofront_card


def test_the_site_s_shared_styles_scripts_and_templates_name_no_game():
    """What the platform ships for every game (static/ and templates/) names none: a game's
    looks are in its package, and a page names the games from the registry."""
    found = []
    for folder in ("static", "templates"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".html", ".css", ".js"} and NAMES.search(path.read_text(encoding="utf-8")):
                found.append(str(path.relative_to(ROOT)))
    assert found == [], found


def test_the_platform_s_python_modules_name_no_game():
    """No module of the platform (platform/, its migrations apart: they are the tables'
    history) names a game: what differs between games is asked of the game through the
    registry. The games' own packages (engine/<game>/) and the bot client's example bots
    (one per game, botclient/examples/) are where games are named."""
    found = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "platform").rglob("*.py"))
             if "migrations" not in path.parts and NAMES.search(path.read_text(encoding="utf-8"))]
    assert found == [], found


def test_the_engine_games_parts_are_found_in_their_packages():
    for name in ("tempofront", "conquest"):
        assert Path(finders.find(f"{name}/board.js")).is_relative_to(ROOT / "engine" / name / "site")
        assert Path(finders.find(f"{name}/{name}.css")).is_relative_to(ROOT / "engine" / name / "site")
        for part in ("blurb", "lead", "board", ):
            assert Path(get_template(f"{name}/guide/{part}.html").origin.name).is_relative_to(ROOT / "engine" / name)


# --------------------------------------------------------------------------- in a browser


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HighcardSite:
    """uvicorn serving the site with Highcard registered (``highcard_site:application``), on
    this run's test database, as a deployment of a game of its own would serve it."""

    def __init__(self, env: dict[str, str], port: int, log_dir: Path):
        self.port = port
        self.log_path = log_dir / "highcard-site.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "highcard_site:application", "--host", "127.0.0.1", "--port",
                 str(port), "--lifespan", "off"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the server exited:\n{self.log_path.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(self.url("/healthz"), timeout=5):
                    return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.2)
        pytest.fail(f"the server did not answer within {timeout:g} s:\n{self.log_path.read_text()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture
def finished_highcard(highcard, transactional_db):
    """A finished Highcard match, committed (the server is another process): its id and scores."""
    match = played_highcard_match("carol")
    return match.pk, list(match.games.get(number=1).outcome["scores"])


@pytest.mark.browser
def test_in_a_browser_the_rules_page_and_the_replay_board_are_highcards_own(finished_highcard, service_env,
                                                                            browser_page, screenshot, tmp_path):
    match_id, scores = finished_highcard
    env = service_env()
    env["PYTHONPATH"] = os.pathsep.join((str(HERE), env["PYTHONPATH"]))
    site = HighcardSite(env, free_port(), tmp_path)
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        site.wait_ready()
        for width in (1400, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(site.url("/rules/highcard/"))
            assert page.inner_text("h1") == "Highcard"
            assert page.locator("#winning").is_visible()
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll"
            screenshot(page, f"highcard-rules-{width}")

            page.goto(site.url(f"/matches/{match_id}/replay/?game=1"))
            board = page.wait_for_selector(".board-highcard", timeout=30_000)
            # The last frame: each seat's three played cards and its total, drawn by board.js.
            page.click("[data-step=\"last\"]")
            page.wait_for_function("document.querySelectorAll('.hc-played .hc-card').length === 6", timeout=10_000)
            for seat, score in enumerate(scores):
                total = page.inner_text(f".hc-seat[data-seat='{seat}'] .stat:first-child strong")
                assert int(total) == score, (seat, total, score)
            # Its styles came from its package: a played card has Highcard's green border.
            colour = page.eval_on_selector(".hc-card", "node => getComputedStyle(node).borderTopColor")
            assert colour == "rgb(123, 198, 123)", colour
            assert board.evaluate("node => node.getBoundingClientRect().right <= window.innerWidth + 1")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll"
            screenshot(page, f"highcard-replay-{width}")
    finally:
        site.stop()
    assert not errors, errors
