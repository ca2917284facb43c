"""Pages say "you" and get the words right: a live match's page and replay name the
players (the deck second), the lobby spells the games as they spell themselves, and a
rating change adds up as shown."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from live_helpers import make_deck

from live import challenges, creation, moves, selectors
from live.creation import SeatSpec

pytestmark = pytest.mark.django_db(transaction=True)


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text_of(html: str) -> str:
    return re.sub(r"\s+([.,)])", r"\1", " ".join(re.sub(r"<[^>]+>", " ", html).split()))


@pytest.fixture
def bot_match(alice, bob, sent):
    """Alice's finished live match against a random bot (she resigned)."""
    make_deck(bob, "tempofront", index=1, starter=True)
    deck = make_deck(alice, "tempofront", index=0)
    live = challenges.live_play_bot(user=alice, deck_version=deck.latest_version, bot="random")
    moves.live_resign(match_id=live.match_id, user=alice)
    return live, deck


def test_a_live_matchs_page_names_the_players_and_says_you(bot_match, alice, bob):
    live, deck = bot_match
    mine = text_of(client_of(alice).get(f"/matches/{live.match_id}/").content.decode())
    assert f"You ({deck.name}) vs bot random (bob tempofront 1)" in mine
    assert "bot random wins the match with bob tempofront 1." in mine
    assert "S0 you · S1 bot random" in mine
    theirs = text_of(Client().get(f"/matches/{live.match_id}/").content.decode())
    assert f"alice ({deck.name}) vs bot random (bob tempofront 1)" in theirs
    entries = json.loads(re.search(r'id="match-entries" type="application/json">(.*?)</script>',
                                   client_of(alice).get(f"/matches/{live.match_id}/").content.decode()).group(1))
    assert [(e["player"], e["name"], e["you"]) for e in entries] == [("You", "you", True),
                                                                    ("bot random", "bot random", False)]


def test_a_live_matchs_replay_names_the_players_first(bot_match, alice):
    live, deck = bot_match
    page = client_of(alice).get(f"/matches/{live.match_id}/replay/?game=1").content.decode()
    assert f"You ({deck.name}) vs bot random (bob tempofront 1)" in text_of(page)
    assert 'data-live="1"' in page


def test_a_bot_matchs_page_still_names_its_decks(alice, bob, sent):
    from matches.services import match_challenge

    a, b = make_deck(alice, "tempofront", index=0), make_deck(bob, "tempofront", index=1)
    match = match_challenge(created_by=alice, deck_versions=[a.latest_version, b.latest_version], best_of=1)
    page = text_of(client_of(alice).get(f"/matches/{match.pk}/").content.decode())
    assert f"{a.name} vs {b.name}" in page and "Player" not in page.split("Decks")[1][:40]


def test_the_lobby_spells_the_games_and_offers_each_games_seat_counts(bot_match, alice):
    make_deck(alice, "conquest", index=0)
    page = client_of(alice).get("/live/").content.decode()
    assert "Tempofront" not in page and "· TempoFront" in page
    decks = json.loads(re.search(r'id="live-decks" type="application/json">(.*?)</script>', page).group(1))
    assert {d["game"]: d["seats"] for d in decks} == {"tempofront": [2], "conquest": [2, 4]}
    assert "4 players (Conquest)" not in page
    assert "you vs bot random" in page


def test_a_rating_change_adds_up_as_shown(alice, bob, sent):
    from ladder.models import RatingChange
    from ladder.rating import ordinal

    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)])
    moves.live_resign(match_id=live.match_id, user=bob)
    change = RatingChange.objects.get(match_id=live.match_id, rating__player=alice)
    # Before 3.44 and after 6.16: shown as 3.4 and 6.2, so the change shown is +2.8, not +2.7.
    sigma = change.sigma_before
    change.mu_before = 3.44 - ordinal(0.0, sigma)
    change.ordinal = 6.16
    change.save()
    assert round(change.ordinal_before, 2) == 3.44
    rating = selectors.opening_payload(match_id=live.match_id, seat=0)["result"]["rating"]
    assert rating == {"before": 3.4, "after": 6.2, "change": 2.8}
