"""An event's rules parameters are checked against every entered deck: at entry, and when
the organiser changes them. A TempoFront event with ``deck_size`` 20 used to take 30-card
decks, and every one of its matches then failed in the worker; now the entry is refused
with a 400 (a message on the event page) naming the parameter, and nothing is written."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from rest_framework.test import APIClient
from tournament_helpers import make_deck, make_event, make_player, play_out

from decks.services import deck_register
from engine import games
from tournaments.models import Entry, Pairing, Tournament
from tournaments.services import tournament_start, tournament_update

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def enter(user, event, deck_id):
    return client_for(user).post(f"/api/tournaments/{event.pk}/entries/", {"deck": deck_id}, format="json")


def singleton_deck(owner, game: str, index: int = 0):
    """A deck holding every card once: legal under the default rules and under ``max_copies`` 1."""
    engine_game = games[game]
    starter = list(engine_game.starter_decks().values())[index]
    size = engine_game.default_params()["deck_size"]
    commanders = {"tempofront": "leader", "conquest": "celestial"}[game]
    names = [name for name, _ in starter.cards]
    names += [c["name"] for c in engine_game.cards() if c["type"] != commanders and c["name"] not in names]
    text = "\n".join([f"{engine_game.commander_label}: {starter.commander}"] + [f"1 {n}" for n in names[:size]])
    return deck_register(owner=owner, game=game, name=f"{owner.username} singles", decklist=text, pilot="random")


@pytest.mark.parametrize(("game", "size"), [("tempofront", 30), ("conquest", 40)])
def test_entering_a_deck_that_does_not_fit_the_events_deck_size_is_400_naming_it(organiser, game, size):
    response = client_for(organiser).post("/api/tournaments/", {
        "game": game, "name": "Short decks", "starts_at": "2099-01-01T12:00:00Z", "format": "swiss",
        "best_of": 1, "params": {"deck_size": 20}}, format="json")
    assert response.status_code == 201, response.content
    event = Tournament.objects.get(pk=response.json()["id"])
    alice = make_player("alice")
    deck = make_deck(alice, game)
    refused = enter(alice, event, deck.pk)
    assert refused.status_code == 400, refused.content
    error = refused.json()["error"]
    assert error["code"] == "validation_error"
    assert any(m.startswith(f"deck '{deck.name}': {size} cards; deck_size is 20 here, so a deck has exactly 20")
               for m in error["fields"]["deck"]), error
    assert not Entry.objects.filter(tournament=event).exists()


def test_the_event_page_shows_why_a_deck_cannot_enter(organiser):
    event = make_event(organiser, params={"max_copies": 1})
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    client = logged_in(alice)
    response = client.post(f"/tournaments/{event.pk}/action/", {"action": "enter", "deck": deck.pk}, follow=True)
    page = response.content.decode()
    assert "max_copies is 1 here, so at most 1 allowed" in page
    assert not Entry.objects.filter(tournament=event).exists()


def test_changing_the_params_to_rules_an_entered_deck_breaks_is_refused_naming_the_deck(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    assert enter(alice, event, deck.pk).status_code == 201
    with pytest.raises(ValidationError) as caught:
        tournament_update(tournament_id=event.pk, by=organiser, params={"deck_size": 20})
    assert any(f"deck '{deck.name}': 30 cards; deck_size is 20 here" in m
               for m in caught.value.message_dict["params"]), caught.value
    event.refresh_from_db()
    assert event.params == {}


def test_the_edit_form_shows_the_refusal_and_keeps_the_old_params(organiser):
    event = make_event(organiser, params={"integrity": 15})
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    assert enter(alice, event, deck.pk).status_code == 201
    form = {"game": "tempofront", "name": event.name, "format": "swiss",
            "starts_at": event.starts_at.strftime("%Y-%m-%dT%H:%M"), "best_of": 1, "min_entries": 2, "top_cut": 0,
            "players_per_game": 2, "late_entry_rounds": 0, "params_text": '{"deck_size": 20}'}
    response = logged_in(organiser).post(f"/tournaments/{event.pk}/edit/", form)
    assert response.status_code == 200
    assert f"deck &#x27;{deck.name}&#x27;: 30 cards; deck_size is 20 here" in response.content.decode()
    event.refresh_from_db()
    assert event.params == {"integrity": 15}


def test_decks_that_fit_the_events_params_enter_and_the_event_plays_to_its_end(organiser, sent):
    event = make_event(organiser, params={"max_copies": 1}, format="single_elim")
    players = [make_player(name) for name in ("alice", "bob")]
    starter = make_deck(players[0], "tempofront")
    assert enter(players[0], event, starter.pk).status_code == 400
    for index, player in enumerate(players):
        assert enter(player, event, singleton_deck(player, "tempofront", index).pk).status_code == 201
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED
    pairings = Pairing.objects.filter(round__tournament=event)
    assert pairings.exists() and not pairings.filter(status=Pairing.Status.FAILED).exists()
