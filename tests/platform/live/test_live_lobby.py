"""The live lobby as the API and the pages serve it: a finished match releases its players
(the queue says idle, they queue, challenge and play a bot again at once, and neither a
stale row nor a restart brings the lock back), and challenges are announced to the
challenged player on every page and listed, bounded, over the API."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from live_helpers import make_deck

from live import matchmaking, moves, selectors
from live.models import LiveChallenge, LiveMatch, QueueEntry
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client: Client, url: str, body: dict):
    return client.post(url, body, content_type="application/json")


def matched_pair(alice, bob) -> tuple[Client, Client, int, dict]:
    """Alice and Bob queue over the API and are paired; their clients, the match id and
    their deck ids."""
    decks = {"alice": make_deck(alice, "tempofront").pk, "bob": make_deck(bob, "tempofront", index=1).pk}
    alice_client, bob_client = signed_in(alice), signed_in(bob)
    assert post(alice_client, "/api/live/queue/", {"deck": decks["alice"]}).json()["state"] == "waiting"
    matched = post(bob_client, "/api/live/queue/", {"deck": decks["bob"]}).json()
    assert matched["state"] == "matched"
    return alice_client, bob_client, matched["match"], decks


def test_the_queue_says_idle_once_the_matched_match_is_over_and_both_play_again_at_once(alice, bob, sent):
    make_deck(User.objects.create_user("site"), "tempofront", index=2, starter=True)
    alice_client, bob_client, match_id, decks = matched_pair(alice, bob)
    assert alice_client.get("/api/live/queue/").json() == {"state": "matched", "match": match_id,
                                                          "url": f"/live/{match_id}/"}

    moves.live_resign(match_id=match_id, user=alice)
    assert LiveMatch.objects.get(match_id=match_id).is_over

    for client in (alice_client, bob_client):
        assert client.get("/api/live/queue/").json() == {"state": "idle"}
    # A restart keeps nothing in memory: a fresh read of the database says the same.
    assert selectors.queue_status(user=bob) == {"state": "idle"}

    bot = post(alice_client, "/api/live/bot/", {"deck": decks["alice"], "bot": "random"})
    assert bot.status_code == 201 and bot.json()["match"] != match_id
    challenge = post(bob_client, "/api/live/challenges/", {"username": "alice", "deck": decks["bob"]})
    assert challenge.status_code == 201
    assert post(bob_client, "/api/live/queue/", {"deck": decks["bob"]}).json()["state"] == "waiting"
    assert post(alice_client, "/api/live/queue/", {"deck": decks["alice"]}).json()["state"] == "waiting"
    # The match rated them apart; once the windows have widened they meet again.
    [again] = matchmaking.live_pair_queues(now=timezone.now() + timedelta(minutes=10))
    assert again not in (match_id, bot.json()["match"])
    for client in (alice_client, bob_client):
        assert client.get("/api/live/queue/").json()["match"] == again


def test_the_tick_and_the_migration_delete_queue_entries_of_finished_matches(alice, bob, carol, sent):
    _, _, match_id, _ = matched_pair(alice, bob)
    matchmaking.live_queue_join(user=carol, deck_version=make_deck(carol, "conquest").latest_version)
    moves.live_resign(match_id=match_id, user=bob)
    assert QueueEntry.objects.filter(match_id=match_id).count() == 2  # released lazily, ignored meanwhile

    migration = importlib.import_module("live.migrations.0002_release_finished_queue_entries")
    migration.release_finished_entries(apps, None)
    assert not QueueEntry.objects.filter(match_id=match_id).exists()
    assert QueueEntry.objects.get().user == carol  # a player still waiting keeps their place

    # The same clean-up runs with every tick (through live_pair_queues).
    _, _, second, _ = matched_pair(*[User.objects.create_user(n) for n in ("dan", "eve")])
    moves.live_resign(match_id=second, user=User.objects.get(username="dan"))
    matchmaking.live_pair_queues()
    assert not QueueEntry.objects.filter(match_id=second).exists()
    assert selectors.queue_status(user=carol)["state"] == "waiting"


def test_a_deleted_match_takes_its_queue_entries_with_it_instead_of_putting_them_back_in_line(alice, bob, sent):
    _, _, match_id, _ = matched_pair(alice, bob)
    Match.objects.filter(pk=match_id).delete()
    assert not QueueEntry.objects.exists()
    assert matchmaking.live_pair_queues() == []
    assert selectors.queue_status(user=alice) == {"state": "idle"}


def test_the_challenger_is_not_sent_back_to_the_match_of_a_finished_challenge(alice, bob, sent):
    a, b = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    made = post(signed_in(alice), "/api/live/challenges/", {"username": "bob", "deck": a.pk}).json()
    accepted = post(signed_in(bob), f"/api/live/challenges/{made['id']}/", {"accept": True, "deck": b.pk}).json()
    assert [c["match"] for c in signed_in(alice).get("/api/live/challenges/").json()["accepted"]] == [accepted["match"]]
    moves.live_resign(match_id=accepted["match"], user=bob)
    assert signed_in(alice).get("/api/live/challenges/").json()["accepted"] == []


def test_waiting_challenges_are_counted_announced_on_every_page_and_gone_once_answered(alice, bob, carol, sent):
    a, c = make_deck(alice, "tempofront"), make_deck(carol, "conquest")
    bob_client = signed_in(bob)
    assert bob_client.get("/api/live/challenges/waiting/").json() == {"count": 0, "latest": None}
    quiet = bob_client.get("/decks/").content.decode()
    assert 'aria-label="Live challenges" hidden>' in quiet and "challenges you" not in quiet

    first = post(signed_in(alice), "/api/live/challenges/", {"username": "bob", "deck": a.pk}).json()
    waiting = bob_client.get("/api/live/challenges/waiting/").json()
    assert waiting["count"] == 1 and waiting["latest"]["challenger"] == "alice"
    assert waiting["latest"]["game_title"] == "TempoFront"
    for path in ("/", "/decks/", "/matches/"):
        page = bob_client.get(path).content.decode()
        assert "alice</strong> challenges you to a live TempoFront match" in page, path
        assert 'href="/live/" data-live-notice-link' in page and 'aria-label="Live challenges">' in page
    # The lobby lists the challenge itself; the challenger and visitors get no notice.
    assert "data-live-notice-link" not in bob_client.get("/live/").content.decode()
    assert "challenges you" not in signed_in(alice).get("/decks/").content.decode()
    assert "challenges you" not in Client().get("/").content.decode()

    post(signed_in(carol), "/api/live/challenges/", {"username": "bob", "deck": c.pk})
    assert "carol</strong> and 1 more challenge you" in bob_client.get("/decks/").content.decode()
    waiting = bob_client.get("/api/live/challenges/waiting/").json()
    assert waiting["count"] == 2 and waiting["latest"]["game_title"] == "Conquest"

    declined = post(bob_client, f"/api/live/challenges/{first['id']}/", {"accept": False})
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert bob_client.get("/api/live/challenges/waiting/").json()["count"] == 1
    mine = signed_in(alice).get("/api/live/challenges/").json()
    assert mine["sent"] == [] and [d["id"] for d in mine["declined"]] == [first["id"]]


def test_challenging_the_same_player_again_replaces_the_waiting_challenge(alice, bob, sent):
    a = make_deck(alice, "tempofront")
    client = signed_in(alice)
    first = post(client, "/api/live/challenges/", {"username": "bob", "deck": a.pk}).json()
    second = post(client, "/api/live/challenges/", {"username": "bob", "deck": a.pk}).json()
    assert LiveChallenge.objects.get(pk=first["id"]).status == "cancelled"
    assert [c["id"] for c in signed_in(bob).get("/api/live/challenges/").json()["received"]] == [second["id"]]
    cancelled = post(client, f"/api/live/challenges/{second['id']}/", {"accept": False})
    assert cancelled.json()["status"] == "cancelled"
    assert signed_in(bob).get("/api/live/challenges/waiting/").json()["count"] == 0


def test_challenge_lists_are_bounded_newest_first(alice, sent):
    deck_version = make_deck(alice, "tempofront").latest_version
    challengers = [User.objects.create_user(f"player{i}") for i in range(selectors.CHALLENGES_LISTED + 5)]
    expires = timezone.now() + timedelta(minutes=2)
    LiveChallenge.objects.bulk_create([
        LiveChallenge(challenger=u, challenged=alice, game="tempofront", deck_version=deck_version, expires=expires)
        for u in challengers])
    found = signed_in(alice).get("/api/live/challenges/").json()
    assert len(found["received"]) == selectors.CHALLENGES_LISTED
    assert found["received"][0]["challenger"] == challengers[-1].username
    assert signed_in(alice).get("/api/live/challenges/waiting/").json()["count"] == len(challengers)


def test_the_new_endpoint_is_in_the_api_schema(alice):
    schema = Client().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/live/challenges/waiting/"]["get"]
    assert operation["operationId"] == "live_challenges_waiting"
    listed = schema["components"]["schemas"]["ChallengeList"]["properties"]
    assert {"received", "sent", "accepted", "declined"} <= set(listed)
