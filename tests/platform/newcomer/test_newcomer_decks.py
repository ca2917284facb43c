"""Deck pages as a newcomer meets them: "Copy to a new deck" on every deck page, the whole
decklist shown, and a name that is too long explained instead of cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from decks.demo import load_demo_data as load_starter_decks
from decks.models import Deck
from decks.services import NAME_MAX_LENGTH
from engine import games


@pytest.fixture
def starters(db):
    load_starter_decks(log=lambda message: None)
    return Deck.objects.filter(is_starter=True)


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.mark.django_db
def test_every_starter_deck_page_offers_copy_to_a_new_deck(client, starters):
    assert starters.count() >= 4
    for deck in starters:
        html = client.get(f"/decks/{deck.pk}/").content.decode()
        assert f'href="/decks/new/?copy={deck.pk}"' in html and "Copy to a new deck" in html


@pytest.mark.django_db
def test_copy_opens_the_builder_prefilled_with_the_deck(client, starters, alice):
    deck = starters.filter(game="conquest").first()
    version = deck.latest_version
    client.force_login(alice)
    response = client.get(f"/decks/new/?copy={deck.pk}")
    assert response.status_code == 200
    form = response.context["form"]
    assert form.initial["game"] == "conquest"
    assert form.initial["name"] == f"{deck.name} (copy)"
    assert form.initial["commander"] == version.commander
    assert form.initial["pilot"] == version.pilot
    label = games["conquest"].commander_label
    assert not form.initial["decklist"].startswith("\n") and f"{label}:" not in form.initial["decklist"]
    assert "A copy of" in response.content.decode()
    # Registering the prefilled form makes a new deck of alice's with the same cards.
    data = {k: v for k, v in form.initial.items()}
    response = client.post("/decks/new/", data)
    assert response.status_code == 302
    copy = Deck.objects.get(owner=alice)
    assert copy.latest_version.to_engine().counts() == version.to_engine().counts()


@pytest.mark.django_db
def test_copy_of_an_unknown_deck_starts_an_empty_builder(client, alice):
    client.force_login(alice)
    response = client.get("/decks/new/?copy=999999")
    assert response.status_code == 200
    assert not response.context["form"].initial.get("decklist")


@pytest.mark.django_db
def test_the_whole_conquest_decklist_shows_on_its_page(client, starters):
    deck = starters.filter(game="conquest").first()
    html = client.get(f"/decks/{deck.pk}/").content.decode()
    for line in deck.latest_version.decklist.strip().splitlines():
        assert line.replace("'", "&#x27;") in html
    css = (Path(__file__).resolve().parents[3] / "static" / "decks" / "pages.css").read_text()
    block = css[css.index(".decklist-text, .token-box {"):]
    block = block[: block.index("}")]
    assert "max-height" not in block  # the list is never cut to a scroll box


@pytest.mark.django_db
def test_a_long_deck_name_gets_a_message_not_a_silent_cut(client, starters, alice):
    client.force_login(alice)
    page = client.get("/decks/new/").content.decode()
    name_input = page[page.index('name="name"') - 200: page.index('name="name"') + 200]
    assert "maxlength" not in name_input  # the browser does not cut a pasted name
    deck = starters.filter(game="tempofront").first()
    long_name = "N" * (NAME_MAX_LENGTH + 20)
    response = client.post(
        "/decks/new/",
        {"game": "tempofront", "name": long_name, "pilot": "greedy", "commander": deck.latest_version.commander,
         "decklist": "\n".join(deck.latest_version.decklist.splitlines()[1:])},
    )
    assert response.status_code == 200
    assert (f"the name is {NAME_MAX_LENGTH + 20} characters long; at most {NAME_MAX_LENGTH} are allowed"
            in response.content.decode())
    assert not Deck.objects.filter(owner=alice).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("extra", [1, 150])
def test_the_api_refuses_a_long_deck_name_with_a_message(starters, alice, extra):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    deck = starters.filter(game="tempofront").first()
    response = api.post(
        "/api/decks/",
        {"game": "tempofront", "name": "N" * (NAME_MAX_LENGTH + extra), "decklist": deck.latest_version.decklist,
         "pilot": "greedy"},
        format="json",
    )
    assert response.status_code == 400
    assert "name" in str(response.json())
    assert not Deck.objects.filter(owner=alice).exists()
