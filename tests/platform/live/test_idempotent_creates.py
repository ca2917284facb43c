"""Every button that creates something is safe to press twice (web/idempotency.py).

The same ``Idempotency-Key`` sent twice by one player creates one row, and both requests
get it: sequentially (the second is a replay) and at the same moment (two threads, on
PostgreSQL: the second waits on the key's unique row). Pages do the same with the
``idempotency_key`` field their forms carry.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test import Client
from live_helpers import make_deck, starter_text
from rest_framework.test import APIClient

from decks.models import Deck
from live import challenges as live_challenges
from live.models import LiveChallenge, LiveMatch, QueueEntry
from matches.models import Match
from tournaments.models import Entry, Tournament
from web.models import IdempotencyKey

KEY = "3f0c2a8e-6b1d-4c55-9e7a-1d2b3c4d5e6f"


@pytest.fixture
def world(db):
    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "tempofront", index=1, starter=True)
    alice = User.objects.create_user("alice", password="pw-alice-123")
    bob = User.objects.create_user("bob", password="pw-bob-123")
    return {"site": site, "alice": alice, "bob": bob,
            "deck": make_deck(alice, "tempofront"), "bob_deck": make_deck(bob, "tempofront")}


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def requests(world) -> dict:
    """What each create endpoint is sent, and how many rows of what it creates exist."""
    deck, bob_deck = world["deck"], world["bob_deck"]
    return {
        "live bot": ("/api/live/bot/", {"deck": deck.pk, "bot": "random", "seats": 2},
                     lambda: LiveMatch.objects.count()),
        "live challenge": ("/api/live/challenges/", {"username": "bob", "deck": deck.pk},
                           lambda: LiveChallenge.objects.count()),
        "live queue": ("/api/live/queue/", {"deck": deck.pk, "seats": 2},
                       lambda: QueueEntry.objects.count()),
        "deck register": ("/api/decks/", {"game": "tempofront", "name": "Twice", "pilot": "random",
                                          "decklist": starter_text("tempofront", 0)},
                          lambda: Deck.objects.filter(name="Twice").count()),
        "bot match": ("/api/matches/", {"decks": [deck.pk, bob_deck.pk]}, lambda: Match.objects.count()),
        "tournament": ("/api/tournaments/", {"game": "tempofront", "name": "Once", "format": "swiss",
                                             "starts_at": "2099-01-01T12:00:00Z", "best_of": 1},
                       lambda: Tournament.objects.filter(name="Once").count()),
    }


ENDPOINTS = ["live bot", "live challenge", "live queue", "deck register", "bot match", "tournament"]


@pytest.mark.parametrize("name", ENDPOINTS)
def test_the_same_key_twice_creates_one_row_and_answers_it_twice(world, name, sent):
    url, body, count = requests(world)[name]
    client = api(world["alice"])
    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert first.status_code == 201, first.content
    second = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert second.status_code == 201, second.content
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert count() == 1
    assert IdempotencyKey.objects.filter(user=world["alice"], key=KEY).count() == 1


def test_without_a_key_each_request_creates(world, sent):
    client = api(world["alice"])
    body = {"deck": world["deck"].pk, "bot": "random"}
    ids = {client.post("/api/live/bot/", body, format="json").json()["match"] for _ in range(2)}
    assert len(ids) == 2 and LiveMatch.objects.count() == 2


def test_a_key_is_per_player(world, sent):
    for user, deck in ((world["alice"], world["deck"]), (world["bob"], world["bob_deck"])):
        response = api(user).post("/api/live/bot/", {"deck": deck.pk, "bot": "random"}, format="json",
                                  HTTP_IDEMPOTENCY_KEY=KEY)
        assert response.status_code == 201, response.content
    assert LiveMatch.objects.count() == 2
    assert {m.seats.get(seat=0).user.username for m in LiveMatch.objects.all()} == {"alice", "bob"}


def test_a_key_sent_again_with_other_data_is_refused_and_creates_nothing(world, sent):
    client = api(world["alice"])
    client.post("/api/live/bot/", {"deck": world["deck"].pk, "bot": "random"}, format="json",
                HTTP_IDEMPOTENCY_KEY=KEY)
    other = client.post("/api/live/bot/", {"deck": world["deck"].pk, "bot": "greedy"}, format="json",
                        HTTP_IDEMPOTENCY_KEY=KEY)
    assert other.status_code == 409, other.content
    error = other.json()["error"]
    assert error["code"] == "idempotency_key_reused"
    assert "Idempotency-Key was already used for another request" in error["message"]
    assert LiveMatch.objects.count() == 1


def test_a_refused_request_keeps_no_key_so_it_can_be_sent_again(world, sent):
    client = api(world["alice"])
    refused = client.post("/api/live/challenges/", {"username": "zed", "deck": world["deck"].pk}, format="json",
                          HTTP_IDEMPOTENCY_KEY=KEY)
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"]["username"] == ["there is no player named 'zed'"]
    assert not IdempotencyKey.objects.exists()
    User.objects.create_user("zed", password="pw-zed-123")
    again = client.post("/api/live/challenges/", {"username": "zed", "deck": world["deck"].pk}, format="json",
                        HTTP_IDEMPOTENCY_KEY=KEY)
    assert again.status_code == 201, again.content
    assert LiveChallenge.objects.get().challenged.username == "zed"


@pytest.mark.parametrize("key", ["short", "x" * 101, "has space in it", "semi;colon-key"])
def test_a_malformed_key_is_a_400_naming_the_header(world, key, sent):
    response = api(world["alice"]).post("/api/live/bot/", {"deck": world["deck"].pk}, format="json",
                                        HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400
    assert "Idempotency-Key must be 8 to 100 letters" in response.json()["error"]["fields"]["Idempotency-Key"][0]
    assert not LiveMatch.objects.exists()


def test_accepting_a_challenge_twice_answers_the_same_match(world, sent):
    challenge = live_challenges.live_challenge(challenger=world["alice"], challenged_username="bob",
                                               deck_version=world["deck"].latest_version)
    client = api(world["bob"])
    body = {"accept": True, "deck": world["bob_deck"].pk}
    first = client.post(f"/api/live/challenges/{challenge.pk}/", body, format="json")
    second = client.post(f"/api/live/challenges/{challenge.pk}/", body, format="json")
    assert first.status_code == second.status_code == 200, second.content
    assert first.json()["match"] == second.json()["match"] is not None
    assert LiveMatch.objects.count() == 1


# --------------------------------------------------------------------------- pages


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_registering_a_deck_from_the_page_twice_makes_one_deck(world):
    client = page_client(world["alice"])
    page = client.get("/decks/new/").content.decode()
    assert 'name="idempotency_key"' in page
    form = {"game": "tempofront", "name": "Clicked twice", "pilot": "random", "decklist": starter_text("tempofront"),
            "idempotency_key": KEY}
    first = client.post("/decks/new/", form)
    second = client.post("/decks/new/", form)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Deck.objects.filter(name="Clicked twice").count() == 1


def test_creating_an_event_from_the_page_twice_makes_one_event(world):
    client = page_client(world["alice"])
    assert 'name="idempotency_key"' in client.get("/tournaments/new/").content.decode()
    form = {"name": "Double", "game": "tempofront", "format": "single_elim", "starts_at": "2099-01-01T12:00",
            "best_of": 1, "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0,
            "params_text": "", "idempotency_key": KEY}
    first = client.post("/tournaments/new/", form)
    assert first.status_code == 302, first.content.decode()[:2000]
    second = client.post("/tournaments/new/", form)
    assert second.status_code == 302 and first["Location"] == second["Location"]
    assert Tournament.objects.filter(name="Double").count() == 1


def test_entering_an_event_from_the_page_twice_says_you_are_entered_both_times(world):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.services import tournament_create

    event = tournament_create(organiser=world["bob"], game="tempofront", name="Open", format="swiss",
                              starts_at=timezone.now() + timedelta(hours=1), best_of=1)
    client = page_client(world["alice"])
    assert 'name="idempotency_key"' in client.get(f"/tournaments/{event.pk}/").content.decode()
    form = {"action": "enter", "deck": world["deck"].pk, "idempotency_key": KEY}
    for _ in range(2):
        page = client.post(f"/tournaments/{event.pk}/action/", form, follow=True).content.decode()
        assert "You are entered." in page
        assert "already" not in page
    assert Entry.objects.filter(tournament=event).count() == 1


def test_challenging_from_the_page_twice_queues_one_match(world, sent):
    client = page_client(world["alice"])
    assert 'name="idempotency_key"' in client.get("/matches/new/").content.decode()
    form = {"deck": world["deck"].pk, "opponent": world["bob_deck"].pk, "best_of": 1, "idempotency_key": KEY}
    first = client.post("/matches/new/", form)
    second = client.post("/matches/new/", form)
    assert first.status_code == second.status_code == 302, first.content.decode()[:2000]
    assert first["Location"] == second["Location"]
    assert Match.objects.count() == 1


# --------------------------------------------------------------------------- at the same moment


def _postgres() -> None:
    if connection.vendor != "postgresql":
        reason = "two requests at the same moment need PostgreSQL; set DATABASE_URL=postgres://..."
        if os.environ.get("REQUIRE_SERVICES") == "1":  # CI: a missing service fails, never skips
            pytest.fail(f"REQUIRE_SERVICES=1 and {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ENDPOINTS)
def test_two_requests_at_the_same_moment_with_one_key_create_one_row_and_both_get_it(world, name, monkeypatch,
                                                                                    effects_recorded):
    """A double click: two threads post the same key together; the create is slowed so
    that the second arrives while the first's transaction is open."""
    _postgres()
    from web import idempotency

    original = idempotency.create_once

    def slow_create_once(*, create, **kwargs):
        def slow():
            answer = create()
            time.sleep(0.4)
            return answer
        return original(create=slow, **kwargs)

    monkeypatch.setattr(idempotency, "create_once", slow_create_once)
    url, body, count = requests(world)[name]
    start = threading.Barrier(2)
    answers: list = [None, None]

    def post(index: int) -> None:
        try:
            client = api(world["alice"])
            start.wait()
            answers[index] = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(a is not None for a in answers)
    assert [a.status_code for a in answers] == [201, 201], [a.content for a in answers]
    assert answers[0].json() == answers[1].json()
    assert sorted(a.get("Idempotent-Replayed", "") for a in answers) == ["", "true"]
    assert count() == 1
