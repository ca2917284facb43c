"""Bots in the live matchmaking queue (docs/bots-api.md): a bot whose owner opted in waits
in the queue while it is online and not playing, is paired with people, never with another
bot there, and leaves the queue when it goes offline."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from live_helpers import make_deck

from accounts.services import bot_create, bot_seen
from live import matchmaking
from live.models import LiveMatch, QueueEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(db) -> User:
    return User.objects.create_user("ada", password="pw-ada-123456")


def online_bot(owner, name: str, *, matchmaking_on: bool = True, game: str = "tempofront"):
    bot = bot_create(owner=owner, name=name, games=[game], matchmaking=matchmaking_on)
    make_deck(bot.user, game)
    bot_seen(user_id=bot.user_id, online=True)
    return bot


def test_an_online_bot_that_opted_in_waits_in_the_queue_and_is_paired_with_a_person(
        ada, effects_recorded, django_capture_on_commit_callbacks):
    bot = online_bot(ada, "Queuer")
    online_bot(ada, "Homebody", matchmaking_on=False)
    assert matchmaking.live_pair_queues() == []
    assert list(QueueEntry.objects.values_list("user__username", "match")) == [("Queuer", None)]
    alice = User.objects.create_user("alice", password="pw-alice-123")
    with django_capture_on_commit_callbacks(execute=True):
        entry = matchmaking.live_queue_join(user=alice, deck_version=make_deck(alice, "tempofront").latest_version)
    assert entry.match_id is not None
    live = LiveMatch.objects.get(match_id=entry.match_id)
    assert {s.user.username for s in live.seats.all()} == {"alice", "Queuer"}
    # The bot hears of its match like any seated player.
    notices = [m for g, m in effects_recorded.sends if g == f"user.{bot.user_id}" and m["type"] == "notify.match"]
    assert [n["match"]["id"] for n in notices] == [entry.match_id]
    # Playing, it is not queued again.
    matchmaking.live_pair_queues()
    assert QueueEntry.objects.filter(user=bot.user, match__isnull=True).count() == 0


def test_bots_are_not_paired_with_each_other_in_the_queue(ada, effects_recorded):
    online_bot(ada, "One")
    online_bot(ada, "Two")
    assert matchmaking.live_pair_queues() == []
    assert QueueEntry.objects.filter(match__isnull=True).count() == 2 and not LiveMatch.objects.exists()


def test_a_bot_that_goes_offline_leaves_the_queue(ada, effects_recorded):
    bot = online_bot(ada, "Queuer")
    matchmaking.live_pair_queues()
    assert QueueEntry.objects.filter(user=bot.user).exists()
    bot_seen(user_id=bot.user_id, online=False, reason="disconnected")
    matchmaking.live_pair_queues()
    assert not QueueEntry.objects.filter(user=bot.user).exists()


def test_a_bots_name_is_marked_on_the_live_pages_and_the_deck_lists(ada, client, effects_recorded):
    """A bot is shown as a bot wherever a name appears: here the live board's players, the
    lobby's matches being played, and a deck list's owner."""
    bot = online_bot(ada, "Queuer")
    matchmaking.live_pair_queues()
    alice = User.objects.create_user("alice", password="pw-alice-123")
    entry = matchmaking.live_queue_join(user=alice, deck_version=make_deck(alice, "tempofront").latest_version)
    board = client.get(f"/live/{entry.match_id}/").content.decode()
    assert 'Queuer <span class="bot-badge"' in board and "alice <span" not in board
    lobby = client.get("/live/").content.decode()
    assert 'Queuer <span class="bot-badge"' in lobby
    decks = client.get("/decks/?game=tempofront").content.decode()
    assert 'Queuer <span class="bot-badge"' in decks and 'alice <span class="bot-badge"' not in decks
    profile = client.get(f"/players/{bot.user.username}/").content.decode()
    assert ">BOT<" in profile


def test_the_lobby_lists_the_bots_online_and_offers_them_to_the_challenge_form(ada, client):
    online_bot(ada, "Awake")
    asleep = bot_create(owner=ada, name="Asleep", games=["tempofront"])
    shy = online_bot(ada, "Shy")
    from accounts.services import bot_update

    bot_update(bot=shy, owner=ada, accepts_people=False)
    client.force_login(User.objects.create_user("alice", password="pw-alice-123"))
    make_deck(User.objects.get(username="alice"), "tempofront")
    page = client.get("/live/").content.decode()
    section = page[page.index("data-online-bots"):page.index('id="now-heading"')]
    assert "Awake" in section and "Shy" in section and asleep.name not in section
    assert "takes no challenges from people" in section
    datalist = page[page.index('<datalist id="online-bots">'):page.index("</datalist>")]
    assert 'value="Awake"' in datalist and "Shy" not in datalist
