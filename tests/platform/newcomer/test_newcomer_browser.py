"""A newcomer's first visit, in headless Chromium against the real ASGI server, at a
desktop width (1400 px) and a phone's (390 px).

Every page reachable from the home page is visited: each must answer with the site's
styled page, log no console error, and have no element whose content overflows its box
(the document included). Screenshots are kept under artifacts/ (newcomer-<page>-<width>).
At 1400 px, axe-core (served from tests/assets/, not by the site) is run on each of those
pages right after it is checked, and finds no serious or critical accessibility problem
(report: artifacts/newcomer-axe.json). A glossary term explains itself on hover and on
keyboard focus, both rules pages read as guides, and a decklist built by clicking starts
with its first card.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "artifacts"
AXE = ROOT / "tests" / "assets" / "axe.min.js"
PASSWORD = "newcomer-passphrase-42"
WIDTHS = [1400, 390]
#: The width at which axe-core is run on every page.
AXE_WIDTH = 1400

#: Problems found on pages another part of the project owns, reported to its owner and
#: tolerated here until fixed (page name or path, and the offending element). Anything
#: else, and any problem on the guide, home, card and deck pages, fails.
KNOWN_OVERFLOWS: set[tuple[str, str]] = set()
KNOWN_AXE: set[tuple[str, str]] = set()

#: Finds boxes whose content sticks out: the document wider than the window, or any
#: element (overflow visible) whose content is wider than itself.
OVERFLOW_JS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) out.push(`document: ${doc.scrollWidth} > ${doc.clientWidth}`);
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") || el.clientWidth === 0) continue;
    const style = getComputedStyle(el);
    if (style.overflowX !== "visible" || style.display === "inline") continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      const name = el.tagName.toLowerCase() + (el.className && typeof el.className === "string"
        ? "." + el.className.trim().split(/\\s+/).join(".") : "");
      out.push(`${name}: ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  return out;
}"""


@pytest.fixture
def site(db):
    """The demo data a newcomer finds: starter decks, the demo player and its decks, and
    one finished match (played here, in-process) with its replay."""
    from django.contrib.auth.models import User

    from decks.demo import demo_deck
    from decks.demo import load_demo_data as load_decks
    from decks.selectors import starter_decks
    from matches.services import match_challenge
    from matches.tasks import run_match
    from web.demo import load_demo_data as load_demo_player

    load_demo_player(log=lambda message: None)
    load_decks(log=lambda message: None)
    User.objects.create_user("newcomer", password=PASSWORD)
    own = demo_deck(game="tempofront")
    opponent = starter_decks(game="tempofront").order_by("name")[1]
    match = match_challenge(created_by=own.owner, best_of=1, seed=77,
                            deck_versions=[own.latest_version, opponent.latest_version])
    run_match.apply(args=[match.pk])
    match.refresh_from_db()
    assert match.status == "done", match.error
    card = next(iter(own.latest_version.to_engine().counts()))
    from decks.cards.selectors import card_by_name

    return {"match": match, "deck": own, "card": card_by_name(game="tempofront", name=card)}


def _pages(site) -> list[tuple[str, str]]:
    match, deck, card = site["match"], site["deck"], site["card"]
    return [
        ("home", "/"),
        ("rules", "/rules/"),
        ("rules-tempofront", "/rules/tempofront/"),
        ("rules-conquest", "/rules/conquest/"),
        ("glossary-tempofront", "/rules/tempofront/glossary/"),
        ("glossary-conquest", "/rules/conquest/glossary/"),
        ("cards", "/cards/"),
        ("card", f"/cards/{card.game}/{card.id}/"),
        ("decks", "/decks/"),
        ("deck", f"/decks/{deck.pk}/"),
        ("matches", "/matches/"),
        ("match", f"/matches/{match.pk}/"),
        ("replay", f"/matches/{match.pk}/replay/"),
        ("tournaments", "/tournaments/"),
        ("ladder", "/ladder/"),
        ("player", "/players/demo/"),
        ("signup", "/accounts/signup/"),
        ("login", "/accounts/login/"),
        ("status", "/status/"),
    ]


def _watch_console(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def _settle(page) -> None:
    """Load lazy images (for the screenshot) and let scripts finish."""
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach((img) => { img.loading = 'eager'; })")
    page.wait_for_load_state("networkidle")


def _check_page(page, url: str, name: str, width: int, errors: list[str]) -> list[str]:
    problems = []
    response = page.goto(url, wait_until="networkidle")
    status = response.status if response else None
    if status != 200:
        problems.append(f"{name}: HTTP {status}")
    _settle(page)
    styled = page.evaluate(
        "() => [...document.styleSheets].some((s) => (s.href || '').includes('/static/css/site.css'))"
        " && getComputedStyle(document.body).backgroundColor === 'rgb(15, 20, 32)'"
    )
    if not styled:
        problems.append(f"{name}: not the site's styled page")
    for overflow in page.evaluate(OVERFLOW_JS):
        if (name, overflow.split(":")[0]) not in KNOWN_OVERFLOWS:
            problems.append(f"{name} at {width}px overflows: {overflow}")
    if errors:
        problems.append(f"{name}: console errors {errors}")
        errors.clear()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"newcomer-{name}-{width}.png"), full_page=True)
    return problems


def _axe(page, url: str) -> list[dict]:
    """The serious and critical violations axe-core finds on ``url``: on the page as loaded
    (loaded again if it has left that path; the replay page only writes its position into
    the query string)."""
    if urlsplit(page.url).path != urlsplit(url).path:
        page.goto(url, wait_until="networkidle")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "targets": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"] if v["impact"] in ("serious", "critical")
    ]


def _log_in(page, server) -> None:
    page.goto(server.url("/accounts/login/?next=/decks/new/"))
    page.fill("#id_username", "newcomer")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/decks/new/$"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_a_newcomer_reaches_looks_finished(site, asgi_server, browser_page, width):
    page = browser_page
    page.set_viewport_size({"width": width, "height": 900})
    errors = _watch_console(page)
    problems: list[str] = []

    # Every page in the list is reached from the home page by links.
    page.goto(asgi_server.url("/"), wait_until="networkidle")
    hrefs = set(page.eval_on_selector_all("a[href]", "(links) => links.map((a) => a.getAttribute('href'))"))
    for required in ("/rules/", "/cards/", "/decks/", "/matches/", "/decks/new/", "/status/", "/accounts/login/?next=/",
                     "/accounts/signup/", "/rules/tempofront/", "/rules/conquest/"):
        assert required in hrefs, f"the home page has no link to {required}"

    report: dict[str, list[dict]] = {}  # axe's serious and critical violations, by path
    for name, path in _pages(site):
        problems += _check_page(page, asgi_server.url(path), name, width, errors)
        if width == AXE_WIDTH:
            found = _axe(page, asgi_server.url(path))
            if found:
                report[path] = found
    if width == AXE_WIDTH:
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "newcomer-axe.json").write_text(json.dumps(report, indent=2))

    # The builder, once logged in; and "Copy to a new deck" from a starter deck.
    _log_in(page, asgi_server)
    problems += _check_page(page, asgi_server.url("/decks/new/"), "builder", width, errors)
    page.goto(asgi_server.url(f"/decks/{site['deck'].pk}/"))
    page.click("[data-copy-deck]")
    page.wait_for_url(re.compile(r"/decks/new/\?copy="))
    assert page.input_value("#id_name").endswith("(copy)")
    assert page.input_value("[data-decklist-input]").strip()
    assert problems == []
    if width == AXE_WIDTH:
        known = {(p.format(match=site["match"].pk), rule) for p, rule in KNOWN_AXE}
        unexpected = {path: [v for v in found if (path, v["id"]) not in known] for path, found in report.items()}
        assert {path: found for path, found in unexpected.items() if found} == {}, json.dumps(unexpected, indent=2)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_term_explains_itself_on_hover_and_on_focus(site, asgi_server, browser_page):
    page = browser_page
    errors = _watch_console(page)
    page.goto(asgi_server.url("/rules/tempofront/"), wait_until="networkidle")
    term = page.locator('#board [data-term="presence"] a.term-link')
    term.wait_for()
    assert term.get_attribute("href") == "/rules/tempofront/glossary/#presence"
    tooltip = page.locator("#term-tooltip")

    term.hover()
    tooltip.wait_for(state="visible")
    assert "Presence" in tooltip.inner_text() and "controls it" in tooltip.inner_text()
    assert "term-tooltip" in term.get_attribute("aria-describedby")
    page.mouse.move(0, 0)
    tooltip.wait_for(state="hidden")

    # Keyboard: focus alone shows the same explanation; Escape hides it.
    term.focus()
    tooltip.wait_for(state="visible")
    assert "Presence" in tooltip.inner_text()
    page.keyboard.press("Escape")
    tooltip.wait_for(state="hidden")

    # In an element marked data-glossary, the terms its text names explain themselves too.
    page.goto(asgi_server.url("/rules/tempofront/glossary/"), wait_until="networkidle")
    front = page.locator('#presence dd [data-term="front"] a.term-link').first
    front.wait_for()
    assert front.get_attribute("href") == "/rules/tempofront/glossary/#front"

    # A keyword on a card face does the same and leads to its glossary entry.
    page.goto(asgi_server.url("/cards/?game=tempofront&q=ranged"), wait_until="networkidle")
    keyword = page.locator('.cf-keywords [data-term="Ranged"] a.term-link').first
    keyword.hover()
    tooltip.wait_for(state="visible")
    assert "Strike from Support" in tooltip.inner_text()
    keyword.click()
    page.wait_for_url(re.compile(r"/rules/tempofront/glossary/#ranged$"))
    assert page.locator("#ranged").is_visible()

    # The replay board's terms explain themselves too.
    page.goto(asgi_server.url(f"/matches/{site['match'].pk}/replay/?game=1"), wait_until="networkidle")
    dominion = page.locator('[data-board] [data-term="Dominion"] a.term-link').first
    dominion.wait_for()
    assert dominion.get_attribute("href") == "/rules/tempofront/glossary/#dominion"
    dominion.hover()
    tooltip.wait_for(state="visible")
    assert "Dominion" in tooltip.inner_text()
    assert errors == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("game", "sections", "board"), [
    ("tempofront", ["How a match runs", "Our rulings", "Keywords and statuses"], "The TempoFront board"),
    ("conquest", ["A match, step by step", "Our rulings", "Keywords and statuses"], "The Conquest Battle Zone"),
])
def test_each_rules_page_reads_as_a_guide(site, asgi_server, browser_page, game, sections, board):
    page = browser_page
    errors = _watch_console(page)
    page.goto(asgi_server.url(f"/rules/{game}/"), wait_until="networkidle")
    assert page.locator("#board svg title").first.text_content() == board
    assert page.locator("#board svg").is_visible()
    headings = page.locator(".rules-article h2").all_inner_texts()
    for section in sections:
        assert section in headings
    # The table of contents leads to each section.
    toc = page.get_by_role("navigation", name="On this page")
    toc.get_by_role("link", name="Our rulings").click()
    page.wait_for_url(re.compile(r"#our-rulings$"))
    assert page.locator("#our-rulings").is_visible()
    assert page.evaluate("document.querySelector('#our-rulings').getBoundingClientRect().top") < 200
    assert errors == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_decklist_built_by_clicking_starts_with_its_first_card(site, asgi_server, browser_page):
    page = browser_page
    _log_in(page, asgi_server)
    page.check("input[name=game][value=conquest]")
    pool = page.locator('[data-pool="conquest"]')
    pool.locator("[data-choose-commander]").first.click()  # the commander first, as newcomers do
    pool.locator("[data-add-card]").first.click()
    pool.locator("[data-add-card]").nth(1).click()
    text = page.input_value("[data-decklist-input]")
    assert re.match(r"1 \S", text), repr(text)
    assert text.endswith("\n") and "\n\n" not in text
