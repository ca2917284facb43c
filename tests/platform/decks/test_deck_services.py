"""Deck services: registration, validation of every field at once, and versioning."""

from __future__ import annotations

import pytest
from deck_helpers import starter_text
from django.core.exceptions import PermissionDenied, ValidationError

from decks.models import Deck, DeckVersion
from decks.services import deck_archive, deck_register, deck_update
from engine import games

pytestmark = pytest.mark.django_db


def test_register_creates_deck_and_version_one(alice):
    deck = deck_register(owner=alice, game="conquest", name="  My   Deck ", decklist=starter_text("conquest"),
                         pilot="Greedy")
    assert deck.name == "My Deck"
    assert deck.pilot == "greedy"
    version = deck.latest_version
    assert version.number == 1
    assert version.pilot == "greedy"
    assert version.commander == games["conquest"].parse_deck(starter_text("conquest")).commander
    assert version.to_engine().name == "My Deck"
    assert version.to_engine().counts() == games["conquest"].parse_deck(starter_text("conquest")).counts()


def test_register_reports_every_field_problem_at_once(alice):
    with pytest.raises(ValidationError) as info:
        deck_register(owner=alice, game="conquest", name=" ", decklist="2 Nonexistent Card\nbad line", pilot="chess")
    errors = info.value.message_dict
    assert set(errors) == {"name", "pilot", "decklist"}
    assert any("unknown bot 'chess'" in m for m in errors["pilot"])
    assert any("bad line" in m for m in errors["decklist"])
    assert Deck.objects.count() == 0


def test_unknown_card_suggests_the_closest_name(alice):
    text = starter_text("conquest").replace("Ambush Lancer", "Ambush Lancr")
    if text == starter_text("conquest"):
        first = games["conquest"].parse_deck(text).cards[0][0]
        text = text.replace(first, first[:-1])
    with pytest.raises(ValidationError) as info:
        deck_register(owner=alice, game="conquest", name="typo", decklist=text, pilot="greedy")
    assert any("did you mean" in m for m in info.value.message_dict["decklist"])


def test_unknown_game_is_a_game_error(alice):
    with pytest.raises(ValidationError) as info:
        deck_register(owner=alice, game="chess", name="x", decklist="1 Pawn", pilot="greedy")
    assert "game" in info.value.message_dict


def test_update_with_new_cards_or_pilot_makes_a_new_version_and_keeps_the_old(alice):
    deck = deck_register(owner=alice, game="conquest", name="d", decklist=starter_text("conquest"), pilot="greedy")
    first = deck.latest_version
    v2 = deck_update(deck=deck, actor=alice, pilot="random")
    assert v2.number == 2 and v2.pilot == "random" and v2.decklist == first.decklist
    first.refresh_from_db()
    assert first.pilot == "greedy"
    # The same cards in another order are the same deck: no new version.
    lines = starter_text("conquest").splitlines()
    reordered = "\n".join([lines[0]] + list(reversed(lines[1:])))
    assert deck_update(deck=deck, actor=alice, decklist=reordered).number == 2


def test_rename_alone_keeps_the_version(alice):
    deck = deck_register(owner=alice, game="conquest", name="d", decklist=starter_text("conquest"), pilot="greedy")
    version = deck_update(deck=deck, actor=alice, name="renamed")
    assert version.number == 1
    assert Deck.objects.get(pk=deck.pk).name == "renamed"
    assert DeckVersion.objects.filter(deck=deck).count() == 1


def test_nobody_edits_or_deletes_another_players_deck(alice, bob):
    deck = deck_register(owner=alice, game="conquest", name="d", decklist=starter_text("conquest"), pilot="greedy")
    with pytest.raises(PermissionDenied):
        deck_update(deck=deck, actor=bob, pilot="random")
    with pytest.raises(PermissionDenied):
        deck_archive(deck=deck, actor=bob)
    assert DeckVersion.objects.filter(deck=deck).count() == 1


def test_archive_keeps_versions(alice):
    deck = deck_register(owner=alice, game="conquest", name="d", decklist=starter_text("conquest"), pilot="greedy")
    deck_archive(deck=deck, actor=alice)
    assert deck.archived
    assert deck.versions.count() == 1
    with pytest.raises(PermissionDenied):
        deck_update(deck=deck, actor=alice, pilot="random")
