"""In Chromium, against the real ASGI server and a real Celery worker: an organiser
creates a tournament on the site, two players enter their decks from the event page, the
organiser starts it, the workers play it, and the page (without a reload) shows the
winner, the bracket and the standings. At 1400 and 390 px wide the list and the event
page do not overflow sideways. A page opened while the event was still open turns into
the finished event's page without a reload (no countdown, no Drop). Finished events show
each bracket match's score, no unneeded bracket reset, final standings, and each round
has a page of its own. Screenshots: artifacts/tournament-*.png."""

from __future__ import annotations

import re

import pytest

PASSWORD = "tournament-pass-42"


@pytest.fixture
def people(transactional_db):
    """The organiser and two players with a deck each, made before the browser opens (while
    Playwright's loop runs in this thread the test cannot query the database)."""
    from django.contrib.auth.models import User
    from tournament_helpers import make_deck

    users = {}
    for name in ("orga", "ann", "bob"):
        users[name] = User.objects.create_user(name, password=PASSWORD)
    decks = {name: make_deck(users[name], "tempofront", index=i) for i, name in enumerate(("ann", "bob"))}
    return users, decks


def log_in(page, server, name: str, next_path: str, password: str = PASSWORD) -> None:
    page.context.clear_cookies()
    page.goto(server.url(f"/accounts/login/?next={next_path}"))
    page.fill("#id_username", name)
    page.fill("#id_password", password)
    page.click("button[type=submit]:has-text('Log in')")
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


def no_sideways_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_organiser_creates_players_enter_it_runs_and_the_pages_show_the_winner(people, asgi_server,
                                                                               celery_worker_process, browser_page,
                                                                               screenshot):
    users, decks = people
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    log_in(page, asgi_server, "orga", "/tournaments/new/")
    page.select_option("#id_game", "tempofront")
    page.fill("#id_name", "Browser Cup")
    page.fill("#id_description", "Two decks, one final.")
    page.select_option("#id_format", "single_elim")
    page.fill("#id_starts_at", "2099-01-01T12:00")
    page.select_option("#id_best_of", "1")
    page.check("#id_publish")
    page.click("button[type=submit]:has-text('Create the event')")
    page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    event_path = re.search(r"(/tournaments/\d+/)$", page.url).group(1)
    assert "Organiser tools" in page.inner_text("main")

    for name in ("ann", "bob"):
        log_in(page, asgi_server, name, event_path)
        page.select_option("select[name=deck]", str(decks[name].pk))
        page.click("[data-enter]")
        page.wait_for_selector("text=You are entered.")

    log_in(page, asgi_server, "orga", event_path)
    page.click("[data-start-now]")
    page.wait_for_selector("text=The event has started")
    page.evaluate("window.__sameDocument = true")
    page.wait_for_selector("[data-winner]", timeout=120_000)
    assert page.evaluate("window.__sameDocument") is True  # updated live, no reload
    winner = page.inner_text("[data-winner]")
    assert "ann" in winner or "bob" in winner
    champion = page.inner_text("[data-champion]")
    assert champion in ("ann", "bob") and champion in winner
    standings = page.inner_text("[data-standings]")
    assert "ann" in standings and "bob" in standings
    assert page.locator("[data-bracket] .bracket-match a.bracket-link").count() >= 1
    assert page.inner_text("[data-tournament-state]").strip() == "Finished"

    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(asgi_server.url(event_path))
        assert no_sideways_overflow(page), f"the event page overflows at {width} px"
        screenshot(page, f"tournament-event-{width}")
        page.goto(asgi_server.url("/tournaments/"))
        assert no_sideways_overflow(page), f"the tournament list overflows at {width} px"
        screenshot(page, f"tournament-list-{width}")
    assert errors == []


def console_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


@pytest.fixture
def open_event(people):
    """Ann's and Bob's entries in an open single elimination (best of 3) whose start time
    has passed: the beat tick would start it now, and its countdown says so."""
    from datetime import timedelta

    from django.utils import timezone
    from tournament_helpers import make_event

    from tournaments.models import Tournament
    from tournaments.services import tournament_enter

    users, decks = people
    event = make_event(users["orga"], name="Late cup", format="single_elim", best_of=3)
    for name in ("ann", "bob"):
        tournament_enter(tournament_id=event.pk, player=users[name], deck_id=decks[name].pk)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
    return f"/tournaments/{event.pk}/"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_page_opened_before_the_start_shows_the_finished_event_without_a_reload(open_event, asgi_server,
                                                                                  celery_worker_process,
                                                                                  browser_page, screenshot):
    page = browser_page
    errors = console_errors(page)
    log_in(page, asgi_server, "ann", open_event)
    page.wait_for_function("document.querySelector('[data-countdown]')?.textContent.includes('starting now')")
    assert page.locator("button[value=drop]").count() == 1
    page.evaluate("window.__sameDocument = true")

    organiser = page.context.browser.new_context().new_page()
    log_in(organiser, asgi_server, "orga", open_event)
    organiser.click("[data-start-now]")
    organiser.wait_for_selector("text=The event has started")
    organiser.context.close()

    page.wait_for_selector("[data-winner]", timeout=120_000)
    page.wait_for_selector("button[value=drop]", state="detached", timeout=15_000)
    assert page.evaluate("window.__sameDocument") is True  # updated live, no reload
    assert page.inner_text("[data-tournament-state]").strip() == "Finished"
    main = page.inner_text("main")
    assert "starting now" not in main and page.locator("[data-countdown]").count() == 0
    assert page.locator("[data-enter]").count() == 0 and page.locator("[data-live-state]").is_hidden()
    assert "Final standings" in main
    final = page.locator("[data-bracket] [data-key='W1-1']")
    assert re.fullmatch(r"\d–\d", final.get_attribute("data-score"))
    winner = int(final.locator(".bracket-slot.is-winner .bracket-score").inner_text())
    loser = int(final.locator(".bracket-slot.is-loser .bracket-score").inner_text())
    assert winner > loser
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        assert no_sideways_overflow(page), f"the finished event page overflows at {width} px"
        screenshot(page, f"tournament-finished-live-{width}")
    assert errors == []


@pytest.fixture
def finished_events(transactional_db, sent):
    """Events played to their end in this process before the browser opens: a double
    elimination whose grand final needed no reset, a single elimination and a Swiss of
    three rounds, all best of 3; what the pages must show is read here (the test cannot
    query the database while Playwright runs)."""
    from django.contrib.auth.models import User
    from tournament_helpers import fill, finished_double_elim, make_event, play_out

    from tournaments.models import Pairing
    from tournaments.services import tournament_start

    organiser = User.objects.create_user("orga", password=PASSWORD)
    double = finished_double_elim(organiser, reset=False)
    single = make_event(organiser, name="Single cup", format="single_elim", best_of=3)
    swiss = make_event(organiser, name="Swiss night", format="swiss", rounds=3, best_of=3)
    for event in (single, swiss):
        fill(event, 4, prefix=f"e{event.pk}-")
        tournament_start(tournament_id=event.pk, by=organiser)
        assert play_out(event).state == "finished"

    def scores(event) -> dict[str, str]:
        rows = Pairing.objects.filter(round__tournament=event)
        return {p.key: "–".join(map(str, p.result["game_wins"])) for p in rows}

    entrant = double.entries.select_related("player").first().player.username
    return {
        "double": f"/tournaments/{double.pk}/", "double_scores": scores(double),
        "single": f"/tournaments/{single.pk}/", "single_scores": scores(single),
        "swiss": f"/tournaments/{swiss.pk}/", "swiss_id": swiss.pk,
        "round_1_matches": list(Pairing.objects.filter(round__tournament=swiss, round__number=1)
                                .values_list("match_id", flat=True)),
        "entrant": entrant, "entrant_password": f"pw-{entrant}-123",
    }


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_finished_events_show_scores_final_standings_and_round_pages(finished_events, asgi_server, browser_page,
                                                                     screenshot):
    events = finished_events
    page = browser_page
    errors = console_errors(page)
    log_in(page, asgi_server, events["entrant"], events["double"], password=events["entrant_password"])

    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})

        page.goto(asgi_server.url(events["double"]))
        assert page.inner_text("[data-tournament-state]").strip() == "Finished"
        assert page.locator("[data-winner]").is_visible()
        main = page.inner_text("main")
        assert "Bracket reset" not in main and page.locator("[data-key='GF-reset']").count() == 0
        assert "starting now" not in main and page.locator("[data-countdown]").count() == 0
        assert page.locator("button[value=drop]").count() == 0 and page.locator("[data-enter]").count() == 0
        for key, score in events["double_scores"].items():
            match = page.locator(f"[data-bracket] [data-key='{key}']")
            assert match.get_attribute("data-score") == score, key
            assert match.locator(".bracket-slot.is-winner .bracket-score").inner_text() == max(score.split("–")), key
            assert match.locator(".bracket-slot .bracket-score").all_inner_texts() == score.split("–"), key
        assert "Order: match points" not in main  # elimination: places, not Swiss tiebreakers
        assert no_sideways_overflow(page), f"the double elimination page overflows at {width} px"
        screenshot(page, f"tournament-double-finished-{width}")

        page.goto(asgi_server.url(events["single"]))
        for key, score in events["single_scores"].items():
            assert page.get_attribute(f"[data-bracket] [data-key='{key}']", "data-score") == score, key
        assert no_sideways_overflow(page), f"the single elimination page overflows at {width} px"

        page.goto(asgi_server.url(events["swiss"]))
        assert page.inner_text("#standings-heading") == "Final standings"
        assert page.locator("[data-standings] tbody tr").count() == 4
        assert page.locator("[data-tiebreak-note]").is_visible()
        with page.expect_navigation() as navigation:
            page.click("[data-round-links] a:text-is('1')")
        response = navigation.value
        assert response.status == 200 and response.headers["content-type"].startswith("text/html")
        assert page.url.endswith(f"/tournaments/{events['swiss_id']}/rounds/1/")
        assert page.inner_text("h1").startswith("Round 1")
        assert page.locator(".pairings-table tbody tr").count() == 2
        for match_id in events["round_1_matches"]:
            assert page.locator(f".pairings-table a[href='/matches/{match_id}/']").count() == 1
        assert no_sideways_overflow(page), f"the round page overflows at {width} px"
        screenshot(page, f"tournament-round-{width}")
        page.click("[data-event-link]")
        page.wait_for_url(re.compile(re.escape(events["swiss"]) + "$"))
    assert errors == []
