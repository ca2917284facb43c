"""What the live board is sent beyond the engine's view: the result of a finished match for
each seat (its rating change once recorded, how to ask for a rematch), never anything of
another seat's; and the game's public card texts the board shows on hover."""

from __future__ import annotations

import pytest
from django.test import Client
from live_helpers import make_deck

from live import creation, moves, selectors
from live.creation import SeatSpec

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_finished_human_match_tells_each_seat_its_rating_change_and_a_rematch_by_challenge(alice, bob, sent):
    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)])
    playing = selectors.opening_payload(match_id=live.match_id, seat=0)
    assert playing["result"] is None
    moves.live_resign(match_id=live.match_id, user=bob)

    mine = selectors.opening_payload(match_id=live.match_id, seat=0)
    theirs = selectors.opening_payload(match_id=live.match_id, seat=1)
    public = selectors.opening_payload(match_id=live.match_id, seat=None)
    assert mine["outcome"]["places"] == [1, 2]
    assert mine["result"]["rating"]["change"] > 0 > theirs["result"]["rating"]["change"]
    assert mine["result"]["rating"]["after"] == pytest.approx(
        mine["result"]["rating"]["before"] + mine["result"]["rating"]["change"], abs=0.11)
    assert mine["result"]["rematch"] == {"deck": a.deck_id, "seats": 2, "username": "bob"}
    assert theirs["result"]["rematch"] == {"deck": b.deck_id, "seats": 2, "username": "alice"}
    # Spectators learn no seat's deck id nor anyone's private link; the ratings are public.
    assert public["result"] == {"rating": None, "rematch": None}


def test_a_match_against_a_bot_offers_a_rematch_against_the_same_bot_and_is_not_rated(alice, bob, sent):
    a = make_deck(alice, "conquest", index=0).latest_version
    b = make_deck(bob, "conquest", index=1, starter=True).latest_version
    live = creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, bot="greedy")])
    moves.live_resign(match_id=live.match_id, user=alice)
    mine = selectors.opening_payload(match_id=live.match_id, seat=0)
    assert mine["result"] == {"rating": None, "rematch": {"deck": a.deck_id, "seats": 2, "bot": "greedy"}}
    bot_seat = selectors.opening_payload(match_id=live.match_id, seat=1)
    assert bot_seat["result"] == {"rating": None, "rematch": None}


@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_the_card_texts_of_a_game_are_one_bounded_public_document(game, db):
    response = Client().get(f"/cards/{game}/text.json")
    assert response.status_code == 200 and "max-age=3600" in response["Cache-Control"]
    cards = response.json()["cards"]
    from engine import games

    assert len(cards) == len(games[game].cards())
    card = next(iter(cards.values()))
    assert set(card) == {"id", "name", "type", "type_line", "costs", "stats", "keywords", "text", "art", "url"}
    assert card["art"].startswith(f"/cards/{game}/{card['id']}/art.svg")
    with_stats = [c for c in cards.values() if c["stats"]]
    assert with_stats and all({"key", "label", "short", "value"} <= set(s) for c in with_stats for s in c["stats"])


def test_an_unknown_game_has_no_card_texts(db):
    response = Client().get("/cards/chess/text.json")
    assert response.status_code == 404
