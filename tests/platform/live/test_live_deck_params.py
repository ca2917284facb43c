"""Every deck of a live match is checked against the match's own rules parameters before
anything is written, queued or paired.

A live match created with ``params`` is refused naming the deck and the parameter.
Queues, challenges and bot games are played under the game's defaults: a deck whose
version does not fit them (a list recorded under other rules: versions are kept as
written, never re-validated) is refused when the player asks, with a 400 on ``deck``,
rather than when an opponent is paired with it or accepts.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from live_helpers import make_deck

from decks.models import DeckVersion
from engine import games
from live import creation
from live.creation import SeatSpec
from live.models import LiveChallenge, LiveMatch, QueueEntry
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

PROBLEM = "20 cards; a deck has exactly 30"


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(user: User, path: str, body: dict):
    return signed_in(user).post(path, body, content_type="application/json")


def short_deck(owner: User):
    """A TempoFront deck whose latest version holds 20 cards: recorded under rules other
    than the defaults a live match is played with."""
    deck = make_deck(owner, "tempofront")
    engine_game = games["tempofront"]
    cards, left = [], 20
    for name, count in deck.latest_version.to_engine().cards:
        take = min(count, left)
        if take:
            cards.append(f"{take} {name}")
        left -= take
    text = "\n".join([f"Leader: {deck.latest_version.commander}", *cards]) + "\n"
    DeckVersion.objects.create(deck=deck, number=2, decklist=text, commander=deck.latest_version.commander,
                               pilot=deck.pilot)
    assert engine_game.validate_deck(deck.latest_version.to_engine(), None) == [PROBLEM]
    return deck


def assert_deck_refused(response, deck) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["fields"]["deck"] == [f"deck '{deck.name}': {PROBLEM}"], error


def test_a_live_match_with_params_its_decks_do_not_fit_is_refused_naming_deck_size(alice, bob, sent):
    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    with pytest.raises(ValidationError) as caught:
        creation.live_create(seats=[SeatSpec(deck_version=a.latest_version, user=alice),
                                    SeatSpec(deck_version=b.latest_version, user=bob)], params={"deck_size": 20})
    problems = caught.value.message_dict["seats"]
    assert problems == [f"deck '{deck.name}': 30 cards; deck_size is 20 here, so a deck has exactly 20 "
                        f"(the game's default is 30)" for deck in (a, b)]
    assert not Match.objects.exists() and not LiveMatch.objects.exists() and sent.tasks == []


def test_a_live_match_with_params_its_decks_fit_is_created_with_them(alice, bob, sent):
    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    live = creation.live_create(seats=[SeatSpec(deck_version=a.latest_version, user=alice),
                                       SeatSpec(deck_version=b.latest_version, user=bob)],
                                params={"max_copies": 3})
    assert live.match.params == {"max_copies": 3}


def test_a_live_challenge_with_a_deck_that_does_not_fit_is_400_and_invites_nobody(alice, bob, sent):
    deck = short_deck(alice)
    assert_deck_refused(post(alice, "/api/live/challenges/", {"username": "bob", "deck": deck.pk}), deck)
    assert not LiveChallenge.objects.exists()


def test_accepting_a_challenge_with_a_deck_that_does_not_fit_is_400_and_the_challenge_waits(alice, bob, sent):
    mine = make_deck(alice, "tempofront")
    made = post(alice, "/api/live/challenges/", {"username": "bob", "deck": mine.pk})
    assert made.status_code == 201, made.content
    deck = short_deck(bob)
    assert_deck_refused(post(bob, f"/api/live/challenges/{made.json()['id']}/", {"accept": True, "deck": deck.pk}),
                        deck)
    assert LiveChallenge.objects.get().status == LiveChallenge.Status.PENDING
    assert not Match.objects.exists()


def test_a_bot_game_with_a_deck_that_does_not_fit_is_400_and_starts_nothing(alice, sent):
    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "tempofront", index=1, starter=True)
    deck = short_deck(alice)
    assert_deck_refused(post(alice, "/api/live/bot/", {"deck": deck.pk, "bot": "greedy"}), deck)
    assert not Match.objects.exists() and not LiveMatch.objects.exists() and sent.tasks == []


def test_joining_the_queue_with_a_deck_that_does_not_fit_is_400_and_pairs_nobody_with_it(alice, bob, sent):
    deck = short_deck(alice)
    assert_deck_refused(post(alice, "/api/live/queue/", {"deck": deck.pk, "seats": 2}), deck)
    assert not QueueEntry.objects.exists()
    # The next player waits instead of being refused for someone else's deck.
    joined = post(bob, "/api/live/queue/", {"deck": make_deck(bob, "tempofront", index=1).pk})
    assert joined.status_code == 201 and joined.json()["state"] == "waiting"
