"""The live pages and the /api/live/ endpoints: queue, play a bot, challenges, errors in the
API's one shape, and what anonymous visitors may do."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from live_helpers import make_deck

from live.models import LiveMatch, QueueEntry

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_queue_join_status_match_and_leave(alice, bob, sent):
    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    alice_client, bob_client = signed_in(alice), signed_in(bob)
    joined = alice_client.post("/api/live/queue/", {"deck": a.pk, "seats": 2}, content_type="application/json")
    assert joined.status_code == 201 and joined.json()["state"] == "waiting"
    assert alice_client.get("/api/live/queue/").json()["state"] == "waiting"
    matched = bob_client.post("/api/live/queue/", {"deck": b.pk}, content_type="application/json").json()
    assert matched["state"] == "matched"
    assert alice_client.get("/api/live/queue/").json()["match"] == matched["match"]
    page = alice_client.get(matched["url"])
    assert page.status_code == 200 and b"you play seat 0" in page.content
    assert alice_client.delete("/api/live/queue/").json()["left"] is False


def test_queue_errors_name_the_problem_and_change_nothing(alice, bob, sent):
    a = make_deck(alice, "tempofront")
    client = signed_in(bob)
    for body, field in [({"deck": a.pk}, "deck"), ({"deck": "x"}, "deck"), ({"deck": 999999}, "deck"),
                        ({"deck": make_deck(bob, "tempofront").pk, "seats": 4}, "seats"),
                        ({"deck": make_deck(bob, "conquest").pk, "seats": "two"}, "seats")]:
        response = client.post("/api/live/queue/", body, content_type="application/json")
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "validation_error" and field in error["fields"], error
    assert not QueueEntry.objects.exists()
    anonymous = Client().post("/api/live/queue/", {"deck": a.pk}, content_type="application/json")
    assert anonymous.status_code in (401, 403)


def test_play_a_bot_starts_a_live_match_against_starter_decks(alice, sent):
    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "conquest", index=1, starter=True)
    deck = make_deck(alice, "conquest")
    response = signed_in(alice).post("/api/live/bot/", {"deck": deck.pk, "bot": "greedy", "seats": 4},
                                     content_type="application/json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [p["pilot"] for p in body["players"]] == ["human", "greedy", "greedy", "greedy"]
    bad = signed_in(alice).post("/api/live/bot/", {"deck": deck.pk, "bot": "oracle"}, content_type="application/json")
    assert bad.status_code == 400 and "unknown bot" in bad.json()["error"]["fields"]["bot"][0]
    assert LiveMatch.objects.count() == 1


def test_challenge_accept_and_errors(alice, bob, carol, sent):
    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    made = signed_in(alice).post("/api/live/challenges/", {"username": "bob", "deck": a.pk},
                                 content_type="application/json")
    assert made.status_code == 201
    challenge = made.json()
    assert signed_in(bob).get("/api/live/challenges/").json()["received"][0]["id"] == challenge["id"]
    stranger = signed_in(carol).post(f"/api/live/challenges/{challenge['id']}/", {"accept": False},
                                     content_type="application/json")
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "permission_denied"
    missing = signed_in(bob).post("/api/live/challenges/999999/", {"accept": False}, content_type="application/json")
    assert missing.status_code == 404
    accepted = signed_in(bob).post(f"/api/live/challenges/{challenge['id']}/", {"accept": True, "deck": b.pk},
                                   content_type="application/json")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    # Accepting again (a double click) answers with the same match; declining now is too late.
    again = signed_in(bob).post(f"/api/live/challenges/{challenge['id']}/", {"accept": True, "deck": b.pk},
                                content_type="application/json")
    assert again.status_code == 200 and again.json()["match"] == accepted.json()["match"]
    late = signed_in(bob).post(f"/api/live/challenges/{challenge['id']}/", {"accept": False},
                               content_type="application/json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "not_pending"


def test_live_pages_render_for_anyone_and_unknown_matches_are_404(alice, bob, sent):
    from live import creation
    from live.creation import SeatSpec

    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    live = creation.live_create(seats=[SeatSpec(deck_version=a.latest_version, user=alice),
                                       SeatSpec(deck_version=b.latest_version, user=bob)])
    index = Client().get("/live/")
    assert index.status_code == 200 and f"/live/{live.match_id}/".encode() in index.content
    page = Client().get(f"/live/{live.match_id}/")
    assert page.status_code == 200 and b"watching" in page.content
    assert Client().get("/live/999999/").status_code == 404
    assert Client().get("/api/live/now/").json()["results"][0]["match"] == live.match_id
