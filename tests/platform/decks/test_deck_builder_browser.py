"""The deck builder in Chromium against the real ASGI server: sign up, build a Conquest
deck card by card from the pool, see the live count and a problem, fix it in the paste
box, register the deck, and find it on its page."""

from __future__ import annotations

import re

import pytest
from deck_helpers import starter_decklist

PASSWORD = "builder-passphrase-42"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_build_a_deck_in_the_builder(asgi_server, browser_page, screenshot):
    deck = starter_decklist("conquest")
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(asgi_server.url("/accounts/signup/?next=/decks/new/"))
    page.fill("#id_username", "builder")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/decks/new/$"))

    page.check("input[name=game][value=conquest]")
    page.fill("#id_name", "Built by hand")
    page.select_option("#id_pilot", "greedy")
    pool = page.locator('[data-pool="conquest"]')
    assert page.locator('[data-pool="tempofront"]').is_hidden()

    # The commander from the pool, then every card but the last one card by card.
    page.fill("[data-pool-search]", deck.commander)
    pool.locator(f'[data-pool-item][data-name="{deck.commander}"] [data-choose-commander]').click()
    assert page.input_value("[data-commander-select]") == deck.commander
    *most, (last_card, last_count) = deck.cards
    for card, count in most:
        page.fill("[data-pool-search]", card)
        add = pool.locator(f'[data-pool-item][data-name="{card}"] [data-add-card]')
        for _ in range(count):
            add.click()
    summary = page.locator("[data-builder-summary]")
    assert f"{deck.size - last_count} cards of 40" in summary.inner_text()
    assert f"{last_count} to go" in summary.inner_text()

    # "+ Add" stops at the copy limit; one copy too many typed in the box is seen at once
    # in the list, and fixed with its minus button.
    first_card, first_count = most[0]
    page.fill("[data-pool-search]", first_card)
    add = pool.locator(f'[data-pool-item][data-name="{first_card}"] [data-add-card]')
    for _ in range(3 - first_count):
        add.click()
    assert add.is_disabled() and add.get_attribute("title") == "at most 3 copies"
    page.locator("[data-decklist-input]").evaluate(
        "(el, name) => { el.value = el.value.replace(new RegExp(`^3 ${name}$`, 'm'), `4 ${name}`);"
        " el.dispatchEvent(new Event('input')); }", first_card)
    assert "at most 3" in summary.inner_text()
    row = page.locator(".builder-row", has_text=first_card)
    for _ in range(4 - first_count):
        row.get_by_role("button", name=f"One less {first_card}").click()

    # The paste box is the same list: type the last line by hand.
    box = page.locator("[data-decklist-input]")
    box.press("End")
    box.evaluate("(el) => el.setSelectionRange(el.value.length, el.value.length)")
    box.type(f"{last_count} {last_card}\n")
    assert "40 cards of 40" in summary.inner_text()
    screenshot(page, "deck-builder")

    page.click("button[type=submit]:has-text('Register the deck')")
    page.wait_for_url(re.compile(r"/decks/\d+/$"))
    assert "Registered “Built by hand” (version 1)." in page.inner_text("main")
    text = page.inner_text("[data-decklist]")
    assert text.splitlines()[0] == f"Celestial: {deck.commander}"
    listed = {line.split(" ", 1)[1]: int(line.split(" ", 1)[0]) for line in text.splitlines()[1:]}
    assert listed == deck.counts()
    assert errors == []
