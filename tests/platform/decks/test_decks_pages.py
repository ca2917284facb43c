"""The deck pages: list with filters, the deck builder form (every problem at once, the
commander select, the paste box), a deck's page with its versions, edit and delete."""

from __future__ import annotations

import re
from html import unescape

import pytest
from deck_helpers import first_card, replace_line, starter_decklist, starter_text
from django.contrib.auth.models import User
from django.utils.html import escape

from decks.models import Deck, DeckVersion
from decks.services import deck_register
from engine import games

pytestmark = pytest.mark.django_db


def make(owner: User, game: str = "conquest", name: str = "deck", index: int = 0) -> Deck:
    return deck_register(owner=owner, game=game, name=name, decklist=starter_text(game, index), pilot="greedy")


def cards_only(game: str, index: int = 0) -> str:
    """The starter deck's card lines, without its commander line."""
    return "\n".join(f"{n} {card}" for card, n in starter_decklist(game, index).cards) + "\n"


def form_errors(html: str, field: str) -> list[str]:
    """The error messages shown under ``field`` of the deck form."""
    match = re.search(rf'<ul class="field-errors" id="id_{field}-errors">(.*?)</ul>', html, re.S)
    if not match:
        return []
    items = re.findall(r"<li>(.*?)</li>", match.group(1), re.S)
    return [unescape(re.sub(r"\s+", " ", item).strip()) for item in items]


# --------------------------------------------------------------------------- the list


def test_deck_list_filters_and_links(alice, bob, client):
    make(alice, "conquest", "Alpha")
    make(bob, "tempofront", "Beta")
    html = client.get("/decks/").content.decode()
    assert "Alpha" in html and "Beta" in html and "2 decks" in html
    html = client.get("/decks/", {"game": "tempofront"}).content.decode()
    assert "Beta" in html and "Alpha" not in html
    html = client.get("/decks/", {"owner": "alice"}).content.decode()
    assert "Alpha" in html and "Beta" not in html
    assert 'href="/players/alice/"' in html


def test_deck_list_is_paginated(alice, client):
    for i in range(25):
        DeckVersion.objects.create(
            deck=Deck.objects.create(owner=alice, game="conquest", name=f"deck-{i:02}", pilot="greedy"),
            number=1, decklist=starter_text("conquest"), commander="x", pilot="greedy",
        )
    first = client.get("/decks/").content.decode()
    assert "Page 1 of 2" in first and first.count("<tr>") == 21  # the header row and 20 decks
    second = client.get("/decks/", {"page": 2}).content.decode()
    assert second.count("<tr>") == 6


def test_nav_links_to_decks_and_cards(client):
    html = client.get("/").content.decode()
    assert 'href="/decks/"' in html and 'href="/cards/"' in html


# --------------------------------------------------------------------------- the form


def test_new_deck_needs_login(client):
    response = client.get("/decks/new/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=/decks/new/")


def test_builder_page_offers_both_pools_commanders_and_pilots(alice, client):
    client.force_login(alice)
    html = client.get("/decks/new/").content.decode()
    for game in ("tempofront", "conquest"):
        assert f'data-pool="{game}"' in html
        engine_game = games[game]
        commander = starter_decklist(game).commander
        assert f'<option value="{escape(commander)}"' in html
        assert html.count(f'data-game="{game}" data-card-id=') == len(engine_game.cards())
    for pilot in ("greedy", "random", "search:fast"):
        assert f'<option value="{pilot}"' in html
    assert 'name="decklist"' in html and "deck-builder.js" in html


def test_register_by_pasting_a_decklist_with_its_commander_line(alice, client):
    client.force_login(alice)
    response = client.post(
        "/decks/new/",
        {"game": "conquest", "name": "Pasted", "pilot": "greedy", "commander": "",
         "decklist": starter_text("conquest")},
    )
    deck = Deck.objects.get(name="Pasted")
    assert response.status_code == 302 and response["Location"] == f"/decks/{deck.pk}/"
    assert deck.latest_version.commander == starter_decklist("conquest").commander
    assert deck.latest_version.to_engine().counts() == starter_decklist("conquest").counts()


def test_register_with_the_commander_select_and_the_cards_in_the_box(alice, client):
    client.force_login(alice)
    commander = starter_decklist("tempofront").commander
    client.post(
        "/decks/new/",
        {"game": "tempofront", "name": "Built", "pilot": "search:fast", "commander": commander.lower(),
         "decklist": cards_only("tempofront")},
    )
    version = Deck.objects.get(name="Built").latest_version
    assert version.commander == commander and version.pilot == "search:fast"
    assert version.decklist.splitlines()[0] == f"Leader: {commander}"


def test_form_shows_every_problem_at_once_next_to_its_field(alice, client):
    client.force_login(alice)
    card, count = first_card("conquest")
    limit = games["conquest"].default_params()["max_copies"]
    text = replace_line(cards_only("conquest"), card, f"{limit + 1} {card}")
    text += "1 Ambush Lancr\nthree of them\n"
    response = client.post(
        "/decks/new/", {"game": "conquest", "name": "", "pilot": "greedy", "commander": "", "decklist": text}
    )
    assert response.status_code == 200
    html = response.content.decode()
    decklist_errors = form_errors(html, "decklist")
    malformed_line = len(text.splitlines())
    assert any(f"line {malformed_line}" in e and "three of them" in e for e in decklist_errors), decklist_errors
    assert any("no Celestial" in e for e in decklist_errors)
    assert any(f"{limit + 1} copies of {card}" in e for e in decklist_errors)
    assert any("did you mean Ambush Lancer?" in e for e in decklist_errors)
    assert any("a deck has exactly 40" in e for e in decklist_errors)
    assert form_errors(html, "name")
    assert "This deck cannot be saved yet" in html
    assert Deck.objects.count() == 0
    # What was typed stays in the box.
    assert "1 Ambush Lancr" in html and "three of them" in html


def test_form_reports_a_commander_of_the_other_game(alice, client):
    client.force_login(alice)
    tf_leader = starter_decklist("tempofront").commander
    response = client.post(
        "/decks/new/",
        {"game": "conquest", "name": "x", "pilot": "greedy", "commander": tf_leader,
         "decklist": cards_only("conquest")},
    )
    assert any(f"'{tf_leader}' is not a Celestial" in e for e in form_errors(response.content.decode(), "commander"))


def test_form_reports_two_different_commanders(alice, client):
    client.force_login(alice)
    celestials = [c["name"] for c in games["conquest"].cards() if c["type"] == "celestial"]
    other = next(c for c in celestials if c != starter_decklist("conquest").commander)
    response = client.post(
        "/decks/new/",
        {"game": "conquest", "name": "x", "pilot": "greedy", "commander": other, "decklist": starter_text("conquest")},
    )
    assert any("keep one" in e for e in form_errors(response.content.decode(), "commander"))
    assert Deck.objects.count() == 0


# --------------------------------------------------------------------------- a deck and its versions


def test_deck_page_shows_cards_commander_history_and_challenge_link(alice, client):
    deck = make(alice, "tempofront")
    html = client.get(f"/decks/{deck.pk}/").content.decode()
    decklist = starter_decklist("tempofront")
    assert escape(decklist.commander) in html
    for card, _ in decklist.cards:
        assert escape(card) in html
    assert f'href="/matches/new/?deck={deck.pk}"' in html
    assert "Version 1" in html
    assert "Edit" not in html  # not the owner


def test_edit_creates_a_new_version_and_the_old_one_stays_viewable(alice, client):
    deck = make(alice, "conquest")
    client.force_login(alice)
    form = client.get(f"/decks/{deck.pk}/edit/").content.decode()
    assert escape(starter_decklist("conquest").commander) in form
    second = starter_decklist("conquest", 1)
    response = client.post(
        f"/decks/{deck.pk}/edit/",
        {"name": "deck", "pilot": "random", "commander": second.commander, "decklist": cards_only("conquest", 1)},
    )
    assert response.status_code == 302
    versions = list(deck.versions.order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].to_engine().counts() == starter_decklist("conquest").counts()
    assert versions[1].to_engine().counts() == second.counts() and versions[1].pilot == "random"
    page = client.get(f"/decks/{deck.pk}/").content.decode()
    assert "Version 2" in page and "Version 1" in page and "Pilot: <code>random</code>" in page
    old = client.get(f"/decks/{deck.pk}/", {"version": 1}).content.decode()
    assert "an older version" in old and escape(starter_decklist("conquest").commander) in old
    assert client.get(f"/decks/{deck.pk}/", {"version": 7}).status_code == 404


def test_saving_unchanged_cards_keeps_the_version(alice, client):
    deck = make(alice, "conquest")
    client.force_login(alice)
    client.post(
        f"/decks/{deck.pk}/edit/",
        {"name": "new name", "pilot": "greedy", "commander": "", "decklist": starter_text("conquest")},
    )
    deck.refresh_from_db()
    assert deck.name == "new name" and deck.versions.count() == 1


def test_edit_shows_every_problem_and_saves_nothing(alice, client):
    deck = make(alice, "conquest")
    client.force_login(alice)
    response = client.post(
        f"/decks/{deck.pk}/edit/", {"name": "", "pilot": "greedy", "commander": "", "decklist": "2 Nothing"}
    )
    html = response.content.decode()
    assert form_errors(html, "name") and form_errors(html, "decklist")
    assert deck.versions.count() == 1


def test_nobody_edits_or_deletes_another_players_deck(alice, bob, client):
    deck = make(alice)
    client.force_login(bob)
    assert client.get(f"/decks/{deck.pk}/edit/").status_code == 403
    response = client.post(
        f"/decks/{deck.pk}/edit/", {"name": "stolen", "pilot": "random", "decklist": starter_text("conquest", 1)}
    )
    assert response.status_code == 403
    assert client.post(f"/decks/{deck.pk}/delete/").status_code == 403
    deck.refresh_from_db()
    assert deck.name == "deck" and deck.versions.count() == 1 and not deck.archived


def test_owner_deletes_a_deck(alice, client):
    deck = make(alice)
    client.force_login(alice)
    assert "Delete “deck”?" in client.get(f"/decks/{deck.pk}/delete/").content.decode()
    response = client.post(f"/decks/{deck.pk}/delete/")
    assert response.status_code == 302
    listing = client.get("/decks/").content.decode()
    assert "0 decks" in listing and f'href="/decks/{deck.pk}/"' not in listing
    page = client.get(f"/decks/{deck.pk}/").content.decode()
    assert "deleted by its owner" in page
