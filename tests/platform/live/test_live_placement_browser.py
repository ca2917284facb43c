"""Conquest placement on the live board, in Chromium: the form offers at each Location only
the cards the engine takes there (never a Fragment or a Lightspeed card), a card chosen for
one Location leaves the others' choices once its copies are used, the plan is spelled out
before Confirm, and after Confirm the board holds the cards where they were planned. The
choices come from the server, in the placing seat's own view only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck

from decks.services import deck_register
from engine.conquest.pool import BY_ID, POOL

# The bot's deck: units only, none of which destroys, moves or returns an enemy unit, and a
# Celestial without an effect on the other seat, so the placed cards stay where they went.
BOT_DECK = """Celestial: The Quiet Sun
3 Iron Legionnaire
3 Recruit of the Line
3 Shieldbearer
3 Vanguard Drone
3 Starlit Sentinel
3 Star Hound
3 Data Thief
3 Sky Lantern
3 Forward Commander
3 Harvest Engine
3 Signal Beacon
3 Archive Warden
3 Fragment Scholar
1 Gate Keeper
"""
# With this seed alice (Fragment Archive) opens with Black Energy Fragment, Quick Upload
# (Lightspeed), Bulwark Titan, Starlit Sentinel, Upload Adept and two Echo of the Null;
# the test checks it holds them before relying on it.
SEED = 5
SINGLE, PAIR = "starlit-sentinel", "echo-of-the-null"


@pytest.fixture
def placement_match(django_db_setup, django_db_blocker) -> tuple[int, str]:
    """A live two-seat Conquest match of alice (seat 0) against the random bot, and her cookie."""
    from live import creation
    from live.creation import SeatSpec

    with django_db_blocker.unblock():
        alice = User.objects.create_user("alice", password="pw-alice-123")
        site = User.objects.create_user("site", password="pw-site-123")
        mine = make_deck(alice, "conquest", index=0).latest_version
        theirs = deck_register(owner=site, game="conquest", name="Quiet Line", decklist=BOT_DECK,
                               pilot="random", is_starter=True).latest_version
        live = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice),
                                           SeatSpec(deck_version=theirs, bot="random")], seed=SEED)
        client = Client()
        client.force_login(alice)
        return live.match_id, client.cookies["sessionid"].value


def index_of(page) -> int:
    return int(page.locator("[data-live-match]").get_attribute("data-index") or -1)


def options_at(page, location: int) -> list[str]:
    return page.locator(f'[data-placement] select[data-location="{location}"] option').evaluate_all(
        "options => options.map(o => o.value)")


def slot_text(page, location: int) -> str:
    return page.locator(f'[data-board] section.location[data-location="{location}"] .slot.seat-0').inner_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_placement_offers_only_placeable_cards_once_each_and_places_them_as_planned(
        placement_match, asgi_server, celery_worker_process, browser_page, screenshot):
    match_id, cookie = placement_match
    page = browser_page
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1400, "height": 900})
    page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": asgi_server.origin}])
    page.goto(asgi_server.url(f"/live/{match_id}/"))
    page.locator("[data-live-match][data-index]").wait_for(timeout=30_000)

    # Keep the hand and pass the Celestial phase (the bot decides on the worker meanwhile).
    form = page.locator("[data-placement] [data-confirm-placement]")
    choices = page.locator("[data-bar] button[data-choice='{\"kind\":\"keep\"}']:not([disabled]), "
                           "[data-bar] button[data-choice='{\"kind\":\"pass\"}']:not([disabled])")
    for _ in range(200):
        if form.is_visible():
            break
        if choices.count():
            before = index_of(page)
            choices.first.click()
            page.wait_for_function(f"Number(document.querySelector('[data-live-match]').dataset.index) > {before}",
                                   timeout=30_000)
        else:
            page.wait_for_timeout(250)
    assert form.is_visible(), "no placement decision was reached"
    # The plan is made on the board; the same choices are offered as lists (for keyboards).
    page.locator("[data-placement-lists] summary").click()

    names = page.locator("[data-hand='0'] .hand-card").evaluate_all("cards => cards.map(c => c.dataset.cardName)")
    by_name = {card.name: card for card in POOL}
    hand = [by_name[name] for name in names]
    unplaceable = {card.id for card in hand if card.type != "unit"}
    units = {card.id for card in hand if card.type == "unit"}
    assert {"black-energy-fragment", "quick-upload"} <= unplaceable, names
    assert [c.id for c in hand].count(SINGLE) == 1 and [c.id for c in hand].count(PAIR) == 2, names
    locations = [int(n) for n in page.locator("[data-placement] select").evaluate_all(
        "selects => selects.map(s => s.dataset.location)")]
    assert locations == [1, 2, 3, 4]

    # Only units are offered, at every Location; never a Fragment or a Lightspeed card.
    for location in locations:
        offered = options_at(page, location)
        assert offered[0] == "empty" and set(offered[1:]) == units, (location, offered)
    texts = page.locator("[data-placement]").inner_text()
    for card_id in unplaceable:
        assert BY_ID[card_id].name not in texts

    # On the board: a Fragment or a Lightspeed card in hand cannot be chosen; a unit lights
    # every Location that takes it, and a click on one puts it there, in the plan.
    for card_id in unplaceable:
        assert page.locator(f'[data-hand] .hand-card[data-card-id="{card_id}"]').first.get_attribute(
            "aria-disabled") == "true"
    page.locator(f'[data-hand] .hand-card[data-card-id="{SINGLE}"]').click()
    lit = page.locator("[data-board] section.location.lb-target").evaluate_all(
        "nodes => nodes.map(n => Number(n.dataset.location))")
    assert lit == [1, 2, 3, 4], lit
    page.locator('[data-board] section.location[data-location="1"]').click()
    assert page.locator("[data-placement-summary]").inner_text().startswith("Location 1: Starlit Sentinel;")
    # Its only copy is planned: it lights no Location any more, and the lists agree.
    assert page.locator(f'[data-hand] .hand-card.planned[data-card-id="{SINGLE}"]').count() == 1
    assert page.locator(f'[data-hand] .hand-card.playable:not(.planned)[data-card-id="{SINGLE}"]').count() == 0
    assert page.locator('[data-placement] select[data-location="1"]').input_value() == SINGLE
    for location in (2, 3, 4):
        assert SINGLE not in options_at(page, location)
    assert SINGLE in options_at(page, 1)
    # A card held twice stays on offer after one is chosen, and leaves once both are.
    page.locator('[data-placement] select[data-location="2"]').select_option(PAIR)
    assert PAIR in options_at(page, 3) and PAIR in options_at(page, 4)
    screenshot(page, "live-placement-1400")

    page.set_viewport_size({"width": 390, "height": 844})
    page.locator('[data-placement] select[data-location="3"]').select_option(PAIR)
    for location in (1, 4):
        assert PAIR not in options_at(page, location)
    summary = page.locator("[data-placement-summary]")
    plan = ("Location 1: Starlit Sentinel; Location 2: Echo of the Null; Location 3: Echo of the Null; "
            "Location 4: empty")
    assert summary.inner_text() == plan
    box = page.locator("[data-placement]").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.locator("[data-confirm-placement]").bounding_box()["width"] > 0
    screenshot(page, "live-placement-390")

    page.locator("[data-confirm-placement]").click()
    # Once every seat has confirmed, the board holds the cards where they were planned.
    page.wait_for_function(
        "() => { const slot = document.querySelector('[data-board] section.location[data-location=\"1\"] "
        ".slot.seat-0 .unit-name'); return slot && slot.textContent.includes('Starlit Sentinel'); }",
        timeout=60_000)
    assert "Starlit Sentinel" in slot_text(page, 1)
    assert "Echo of the Null" in slot_text(page, 2)
    assert "Echo of the Null" in slot_text(page, 3)
    assert page.locator('[data-board] section.location[data-location="4"] .slot.seat-0 .unit-empty').count() == 1
    log = page.locator("[data-log]").inner_text()
    assert "You place Starlit Sentinel face down at Location 1" in log
    assert "You place Echo of the Null face down at Location 3" in log
    assert "You leave Location 4 empty" in log
    assert "You leave Location 1 empty" not in log and "You leave Location 3 empty" not in log
    assert page.locator("[data-error]").is_hidden()
    screenshot(page, "live-placement-placed-390")
    page.set_viewport_size({"width": 1400, "height": 900})
    screenshot(page, "live-placement-placed-1400")
    assert errors == []


@pytest.mark.django_db(transaction=True)
def test_only_the_placing_seat_is_sent_what_it_may_place_at_each_location(alice, bob, sent):
    from live import broadcasts as live_broadcasts
    from live import creation, selectors
    from live import moves as live_moves
    from live.creation import SeatSpec

    mine = make_deck(alice, "conquest", index=0).latest_version
    theirs = make_deck(bob, "conquest", index=1).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=mine, user=alice), SeatSpec(deck_version=theirs,
                                                                                         user=bob)], seed=SEED)
    users = [alice, bob]

    def last(group: str) -> dict:
        messages = sent.for_group(group)
        if messages:
            return messages[-1]
        # A new match broadcasts nothing: before the first move, a board reads its opening view.
        seat = None if group == live_broadcasts.group_public(live.match_id) else int(group.rsplit(".", 1)[1])
        return selectors.opening_payload(match_id=live.match_id, seat=seat)

    for _ in range(10):  # both keep their hands and pass the Celestial phase
        seat_payloads = [last(live_broadcasts.group_for_seat(live.match_id, s)) for s in (0, 1)]
        if seat_payloads[0]["placement"] is not None:
            break
        seat = next(s for s in (0, 1) if seat_payloads[s]["legal"])
        choice = next(a for a in seat_payloads[seat]["legal"] if a["kind"] in ("keep", "pass"))
        live_moves.live_act(match_id=live.match_id, user=users[seat], action_json=choice)
    own = last(live_broadcasts.group_for_seat(live.match_id, 0))
    hand = [card["id"] for card in own["view"]["hand"]]
    units = sorted({card for card in hand if BY_ID[card].type == "unit"})
    choices = own["placement"]
    assert [loc["location"] for loc in choices["locations"]] == [1, 2, 3, 4]
    assert all(sorted(loc["cards"]) == units for loc in choices["locations"])
    assert choices["copies"] == {card: hand.count(card) for card in units}
    assert last(live_broadcasts.group_public(live.match_id))["placement"] is None
    # Bob's message carries his own choices, never alice's hand.
    bobs = last(live_broadcasts.group_for_seat(live.match_id, 1))
    bob_hand = {card["id"] for card in bobs["view"]["hand"]}
    assert {card for loc in bobs["placement"]["locations"] for card in loc["cards"]} <= bob_hand
    assert set(bobs["placement"]["copies"]) <= bob_hand

    # Every card the choices allow goes down where it was chosen: both copies of the pair.
    for location, card in ((1, PAIR), (2, PAIR), (3, SINGLE)):
        live_moves.live_act(match_id=live.match_id, user=alice,
                            action_json={"kind": "place", "card": card, "location": location})
        now = last(live_broadcasts.group_for_seat(live.match_id, 0))["placement"]
        assert now["locations"][0]["location"] == location + 1
    assert now["copies"].get(PAIR, 0) == 0 and PAIR not in now["locations"][0]["cards"]
