"""Idempotency keys are kept ``IDEMPOTENCY_KEY_HOURS`` (24 by default), not forever.

A key older than that is unknown: sent again it creates anew (and its stored answer is
replaced), whatever it was first sent with. Beat runs ``web.prune_idempotency_keys`` on
the ``periodic`` queue, which deletes the keys older than the window and keeps the rest.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import PERIODIC_TASKS, QUEUES
from config.celery import app as celery_app
from decks.models import Deck
from engine import games
from web.models import IdempotencyKey

pytestmark = pytest.mark.django_db

KEY = "9b2f4e1c-0d3a-4f5b-8c7d-6e5f4a3b2c1d"


def decklist() -> str:
    engine_game = games["tempofront"]
    return list(engine_game.starter_decks().values())[0].to_text(engine_game.commander_label)


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


def register(user: User, name: str, key: str = KEY):
    client = APIClient()
    client.force_authenticate(user)
    return client.post("/api/decks/", {"game": "tempofront", "name": name, "pilot": "random", "decklist": decklist()},
                       format="json", HTTP_IDEMPOTENCY_KEY=key)


def age(key: str, hours: float) -> None:
    IdempotencyKey.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=hours))


def test_the_window_is_a_setting_of_24_hours_by_default(settings):
    assert settings.IDEMPOTENCY_KEY_HOURS == 24


def test_a_key_within_the_window_still_replays_its_answer(alice):
    first = register(alice, "Kept")
    age(KEY, 23)
    again = register(alice, "Kept")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Deck.objects.filter(name="Kept").count() == 1


def test_a_key_older_than_the_window_is_unknown_and_creates_anew(alice):
    first = register(alice, "Old")
    assert first.status_code == 201
    age(KEY, 25)
    again = register(alice, "Old")
    assert again.status_code == 201, again.content
    assert "Idempotent-Replayed" not in again
    assert again.json()["id"] != first.json()["id"]
    assert Deck.objects.filter(name="Old").count() == 2
    # The key now names the new request, and answers it from now on.
    row = IdempotencyKey.objects.get(user=alice, key=KEY)
    assert row.body["id"] == again.json()["id"] and timezone.now() - row.created < timedelta(minutes=1)
    third = register(alice, "Old")
    assert third["Idempotent-Replayed"] == "true" and third.json()["id"] == again.json()["id"]


def test_an_expired_key_sent_with_other_data_is_not_refused(alice):
    register(alice, "First name")
    age(KEY, 25)
    other = register(alice, "Another name")
    assert other.status_code == 201, other.content
    assert Deck.objects.filter(name="Another name").count() == 1


@override_settings(IDEMPOTENCY_KEY_HOURS=2)
def test_the_window_follows_the_setting(alice):
    register(alice, "Short")
    age(KEY, 3)
    assert "Idempotent-Replayed" not in register(alice, "Short")
    assert Deck.objects.filter(name="Short").count() == 2


def test_the_periodic_task_deletes_the_keys_older_than_the_window_and_keeps_the_others(alice):
    from web.tasks import prune_idempotency_keys

    bob = User.objects.create_user("bob", password="pw-bob-123")
    for user, key, hours in [(alice, "old-key-alice-1", 30), (alice, "new-key-alice-2", 1),
                             (bob, "old-key-bob-001", 24.5), (bob, "new-key-bob-002", 23.5)]:
        assert register(user, f"{key} deck", key).status_code == 201
        age(key, hours)
    assert prune_idempotency_keys.apply().get() == 2
    assert sorted(IdempotencyKey.objects.values_list("key", flat=True)) == ["new-key-alice-2", "new-key-bob-002"]
    # The decks those keys created stay: only the record of the request goes.
    assert Deck.objects.filter(name__endswith="deck").count() == 4
    # Safe to run twice.
    assert prune_idempotency_keys.apply().get() == 0


def test_beat_runs_the_pruning_on_the_periodic_queue():
    entries = [e for e in celery_app.conf.beat_schedule.values() if e["task"] == "web.prune_idempotency_keys"]
    assert len(entries) == 1
    assert 0 < entries[0]["schedule"] <= 3600
    assert "web.prune_idempotency_keys" in PERIODIC_TASKS and "periodic" in QUEUES
    route = celery_app.amqp.router.route({}, "web.prune_idempotency_keys")
    assert route["queue"].name == "periodic"
