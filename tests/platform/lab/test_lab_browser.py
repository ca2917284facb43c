"""The deck lab end to end in Chromium, with the real ASGI server and a real Celery worker:
from the deck page the owner starts a lab of 10 matches against the starter decks; the
run's page, opened while the run waits for the worker, shows the progress bar move to the
end without a reload and then every table (the win rate with its interval and "needs more
games", each opponent, on the play and on the draw, each card, the games' length and
endings, a link to each match), whose replay opens in the viewer. For both games, at
desktop (1400 px: live updates over the socket) and phone (390 px: the lab's socket cannot
connect, so the page polls the run's JSON) widths."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from lab_helpers import make_deck

PASSWORD = "lab-passphrase-42"
#: Where the phone's lab socket is sent: a port with nothing listening.
DEAD_SOCKET = "ws://127.0.0.1:9/"


@pytest.fixture
def lab_owner(transactional_db, game):
    """The lab's owner and the site's starter decks, committed (the server is another process)."""
    user = User.objects.create_user(f"labber-{game}", password=PASSWORD)
    starter_owner = User.objects.create_user(f"site-{game}", password=PASSWORD)
    deck = make_deck(user, game, name=f"Lab subject {game}")
    make_deck(starter_owner, game, index=1, name=f"Starter {game}", starter=True)
    return {"user": user.username, "deck": deck.pk, "cards": len(deck.latest_version.to_engine().cards)}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_a_lab_runs_from_the_deck_page_to_every_table(lab_owner, asgi_server, celery_worker_process, browser_page,
                                                      screenshot, game):
    """Both widths on the same owner and deck: at each, logged out, the owner logs in and
    starts a lab run of their own (two runs of the deck, one after the other: the first is
    over before the second starts, one lab running at a time)."""
    owner = lab_owner
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" and DEAD_SOCKET not in message.text else None)
    for width in (1400, 390):
        errors.clear()
        page.context.clear_cookies()
        page.set_viewport_size({"width": width, "height": 900})
        if width < 600:
            # On the phone the lab's socket is down (its address leads nowhere): the page must
            # fall back to polling the run's JSON. (Added only now: it holds for every later
            # page load of this page, and the desktop pass above used the socket.)
            page.add_init_script(f"""window.WebSocket = class extends WebSocket {{
                constructor(url, protocols) {{ super(url.includes("/ws/lab/") ? "{DEAD_SOCKET}" : url, protocols); }}
            }};""")
        page.goto(asgi_server.url(f"/accounts/login/?next=/decks/{owner['deck']}/"))
        page.fill("#id_username", owner["user"])
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(re.compile(rf"/decks/{owner['deck']}/$"))
        assert page.evaluate("document.documentElement.clientWidth") == width

        page.click("[data-deck-lab]")
        page.wait_for_url(re.compile(rf"/decks/{owner['deck']}/lab/$"))
        page.fill("#id_n", "10")
        page.check("input[name=field_kind][value=starters]")
        page.select_option("#id_pilot", "random")
        page.click("[data-lab-start]")
        page.wait_for_url(re.compile(r"/lab/\d+/$"))
        url = page.url

        # The page was rendered before the run ended; it reaches the end by itself.
        page.wait_for_function(
            "document.querySelector('[data-lab-bar]').getAttribute('aria-valuenow') === '10'", timeout=120_000)
        page.wait_for_function("document.querySelector('[data-lab-status]').textContent.trim() === 'Done'")
        assert page.url == url
        assert page.locator("[data-lab-progress]").inner_text() == "Finished: 10 of 10 matches played."
        assert page.locator("[data-lab-bar] span").evaluate("el => el.style.width") == "100%"
        assert re.fullmatch(r"\d+\.\d% win rate", page.locator("[data-lab-overall] .lab-rate").inner_text())
        assert "95% interval" in page.locator("[data-lab-overall]").inner_text()
        assert page.locator("[data-lab-needs-more]").is_visible()  # 10 matches: far wider than 10 points
        assert page.locator("[data-lab-opponents] tbody tr").count() == 1
        assert f"Starter {game}" in page.locator("[data-lab-opponents] tbody").inner_text()
        seats = page.locator("[data-lab-seats] tbody tr")
        assert seats.count() == 2 and "On the play" in seats.nth(0).inner_text()
        assert seats.nth(0).locator("td").nth(1).inner_text() == "5"  # matches on the play
        assert page.locator("[data-lab-cards] tbody tr").count() >= owner["cards"]
        assert page.locator("[data-lab-endings] tbody tr").count() >= 1
        assert "actions on average" in page.locator("[data-lab-length]").inner_text()
        assert page.locator("[data-lab-matches] a").count() == 10
        assert page.locator("[data-lab-cancel]").is_hidden()
        assert page.locator("[data-live-state]").inner_text() == ""  # finished: no more updates
        # Nothing wider than the screen but the tables' own scrolling boxes.
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        screenshot(page, f"lab-{game}-{width}")

        with page.expect_download() as download:
            page.click("[data-lab-csv]")
        assert download.value.suggested_filename.endswith(".csv")

        page.locator("[data-lab-matches] a").nth(1).click()
        page.wait_for_url(re.compile(r"/lab/\d+/matches/2/replay/$"))
        page.wait_for_selector("[data-replay-body]:not([hidden])", timeout=30_000)
        assert "Action 0 of" in page.locator("[data-counter]").inner_text()
        page.click("[data-step=last]")
        assert page.locator("[data-replay-error]").is_hidden()
        # The game's own board, not the generic view a game without a renderer gets.
        assert "no board drawing yet" not in page.locator("[data-board]").inner_text()
        screenshot(page, f"lab-replay-{game}-{width}")
        assert errors == []
