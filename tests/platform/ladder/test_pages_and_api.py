"""Leaderboards, rating histories and the activity page, as pages and through the API."""

from __future__ import annotations

import pytest
from ladder_helpers import finish, make_deck
from rest_framework.test import APIClient

from ladder.models import Pool, Rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def rated(alice, bob, carol):
    """Three TempoFront decks with results: A beat B twice, B beat C, C drew A."""
    a, b, c = make_deck(alice, name="Alpha"), make_deck(bob, index=1, name="Bravo"), make_deck(carol, index=2,
                                                                                                   name="Charlie")
    finish([a, b], [1, 2])
    finish([b, a], [2, 1])
    finish([b, c], [1, 2])
    finish([c, a], [1, 1])
    return a, b, c


def test_the_leaderboard_ranks_by_rating_with_games_win_rate_form_and_trend(rated, client):
    a, b, c = rated
    page = client.get("/ladder/tempofront/")
    assert page.status_code == 200
    html = page.content.decode()
    ratings = sorted(Rating.objects.filter(pool=Pool.BOTS), key=lambda r: -r.ordinal)
    names = [r.deck.name for r in ratings]
    assert [html.index(n) for n in names] == sorted(html.index(n) for n in names)
    assert "provisional" in html and "Win rate" in html and "Recent form" in html
    assert html.count("data-rating-row") == 3
    rows = client.get("/api/ladders/tempofront/").json()
    assert rows["count"] == 3
    assert [r["rank"] for r in rows["results"]] == [1, 2, 3]
    first = rows["results"][0]
    assert first["deck"]["name"] == names[0] and first["rating"] == ratings[0].ordinal
    alpha = next(r for r in rows["results"] if r["deck"]["name"] == "Alpha")
    assert (alpha["games"], alpha["wins"], alpha["draws"], alpha["losses"], alpha["form"]) == (3, 2, 1, 0, "WWD")
    assert alpha["win_rate"] == pytest.approx(2 / 3) and alpha["provisional"] is True and alpha["trend"] > 0


def test_search_keeps_each_rows_overall_rank(rated, client, api):
    body = api.get("/api/ladders/tempofront/", {"q": "charl"}).json()
    assert body["count"] == 1
    overall = {r["deck"]["name"]: r["rank"] for r in api.get("/api/ladders/tempofront/").json()["results"]}
    assert body["results"][0]["rank"] == overall["Charlie"]
    by_owner = api.get("/api/ladders/tempofront/", {"q": "bob"}).json()
    assert [r["deck"]["name"] for r in by_owner["results"]] == ["Bravo"]
    page = client.get("/ladder/tempofront/", {"q": "nobody-like-this"})
    assert "Nobody on this leaderboard matches" in page.content.decode()


def test_ties_share_a_rank_and_pages_continue_the_ranks(alice, bob, settings, api):
    decks = [make_deck(alice if i % 2 else bob, index=i, name=f"Deck {i:02}") for i in range(5)]
    finish([decks[0], decks[1]], [1, 2])
    finish([decks[2], decks[3]], [1, 2])  # the same result: equal ratings
    finish([decks[4], decks[1]], [2, 1])
    rows = api.get("/api/ladders/tempofront/", {"page_size": 2}).json()
    assert rows["count"] == 5
    all_rows = api.get("/api/ladders/tempofront/").json()["results"]
    ranks = [r["rank"] for r in all_rows]
    ratings = [r["rating"] for r in all_rows]
    for i in range(1, 5):
        assert (ranks[i] == ranks[i - 1]) == (ratings[i] == ratings[i - 1])
        assert ranks[i] == (ranks[i - 1] if ratings[i] == ratings[i - 1] else i + 1)
    page2 = api.get("/api/ladders/tempofront/", {"page_size": 2, "page": 2}).json()["results"]
    assert [r["rank"] for r in page2] == ranks[2:4]


def test_the_humans_pool_has_its_own_leaderboard(alice, bob, api, client):
    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, b], [2, 1], kind="live", pilots=["human", "human"])
    body = api.get("/api/ladders/tempofront/", {"pool": "humans"}).json()
    assert [(r["player"], r["rank"]) for r in body["results"]] == [("bob", 1), ("alice", 2)]
    assert api.get("/api/ladders/tempofront/").json()["count"] == 0
    assert "bob" in client.get("/ladder/tempofront/", {"pool": "humans"}).content.decode()


def test_leaderboard_errors_are_in_the_api_error_shape(api, db):
    bad_pool = api.get("/api/ladders/tempofront/", {"pool": "robots"})
    assert bad_pool.status_code == 400
    assert bad_pool.json()["error"]["code"] == "validation_error" and "pool" in bad_pool.json()["error"]["fields"]
    unknown = api.get("/api/ladders/chess/")
    assert unknown.status_code == 404 and "chess" in unknown.json()["error"]["message"]
    long_q = api.get("/api/ladders/tempofront/", {"q": "x" * 101})
    assert long_q.status_code == 400 and "q" in long_q.json()["error"]["fields"]
    past_end = api.get("/api/ladders/tempofront/", {"page": 9})
    assert past_end.status_code == 404 and past_end.json()["error"]["code"] == "not_found"


def test_a_decks_rating_history_names_each_match_and_version(rated, api, client):
    a, b, c = rated
    body = api.get(f"/api/decks/{a.pk}/rating-history/").json()
    assert body["deck"] == a.pk and body["rating"]["games"] == 3 and body["rating"]["rank"] >= 1
    assert body["count"] == 3
    newest = body["results"][0]
    assert newest["outcome"] == "D" and newest["version"] == 1 and newest["entries"] == 2
    assert [r["rating"] for r in body["results"]][-1] == body["results"][-1]["rating"]
    assert body["results"][0]["rating"] == body["rating"]["rating"]
    assert body["results"][1]["rating_before"] == body["results"][2]["rating"]
    unrated = make_deck(a.owner, index=3, name="Unrated")
    assert api.get(f"/api/decks/{unrated.pk}/rating-history/").json() == {
        "deck": unrated.pk, "rating": None, "count": 0, "next": None, "previous": None, "results": []}
    assert api.get("/api/decks/999999/rating-history/").status_code == 404

    page = client.get(f"/decks/{a.pk}/").content.decode()
    assert "data-rating-chart" in page and "<svg" in page and "Head to head" in page
    assert "Bravo" in page and "Charlie" in page and "Provisional" in page


def test_head_to_head_counts_wins_draws_and_losses_per_opponent(rated):
    from ladder.selectors import deck_rating, head_to_head

    a, b, c = rated
    rows = {h.opponent.deck.name: (h.wins, h.draws, h.losses) for h in head_to_head(rating=deck_rating(deck_id=a.pk))}
    assert rows == {"Bravo": (2, 0, 0), "Charlie": (0, 1, 0)}


def test_a_players_rating_history_is_their_live_matches(alice, bob, api, client):
    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, b], [1, 2], kind="live", pilots=["human", "human"])
    finish([a, b], [1, 2])  # a bot match: not in the player's history
    body = api.get("/api/players/alice/rating-history/").json()
    assert body["player"] == "alice" and body["count"] == 1
    assert [(r["game"], r["pool"], r["rank"]) for r in body["ratings"]] == [("tempofront", "humans", 1)]
    assert api.get("/api/players/alice/rating-history/", {"game": "conquest"}).json()["count"] == 0
    assert api.get("/api/players/alice/rating-history/", {"game": "go"}).status_code == 400
    assert api.get("/api/players/nobody/rating-history/").status_code == 404
    page = client.get("/players/alice/").content.decode()
    assert "Rating in live matches" in page and "data-rating-chart" in page


def test_the_index_and_activity_pages(rated, client, monkeypatch):
    index = client.get("/ladder/").content.decode()
    assert "TempoFront" in index and "Alpha" in index and "provisional" in index.lower()
    from ladder import selectors

    monkeypatch.setattr(selectors, "queue_depths", lambda timeout=2.0: dict.fromkeys(("periodic", "ladder")))
    page = client.get("/ladder/activity/").content.decode()
    assert "unknown (the broker did not answer)" in page and "Queue depths" in page


def test_queue_depths_are_read_from_the_broker_or_unknown_in_bounded_time(db, closed_port):
    import time

    from ladder.selectors import queue_depths

    depths = queue_depths()
    assert set(depths) >= {"live", "periodic", "tournaments", "matches", "ladder", "default"}
    assert all(isinstance(v, int) for v in depths.values()), depths  # the test broker answers
    start = time.monotonic()
    down = queue_depths(timeout=1.0, broker_url=f"redis://127.0.0.1:{closed_port}/0")
    assert set(down.values()) == {None}
    assert time.monotonic() - start < 30  # bounded, not a hang (generous for a slow machine)


def test_the_schema_lists_the_ladder_endpoints(api, db):
    import yaml
    from drf_spectacular.validation import validate_schema

    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json() if response["Content-Type"].endswith("json") else yaml.safe_load(response.content)
    validate_schema(schema)
    for path in ("/api/ladders/{game}/", "/api/decks/{deck_id}/rating-history/",
                 "/api/players/{username}/rating-history/"):
        assert path in schema["paths"], path


def test_an_archived_deck_leaves_the_leaderboard_and_the_ranks_close_up(rated, api, client):
    from decks.services import deck_archive

    a, b, c = rated
    before = {r["deck"]["name"]: r["rank"] for r in api.get("/api/ladders/tempofront/").json()["results"]}
    top = min(before, key=before.get)
    deck = {"Alpha": a, "Bravo": b, "Charlie": c}[top]
    deck_archive(deck=deck, actor=deck.owner)
    body = api.get("/api/ladders/tempofront/").json()
    assert body["count"] == 2 and top not in [r["deck"]["name"] for r in body["results"]]
    assert [r["rank"] for r in body["results"]] == [1, 2]
    searched = api.get("/api/ladders/tempofront/", {"q": "o"}).json()["results"]  # Bravo, Charlie (and Alpha)
    assert sorted(r["rank"] for r in searched) == [1, 2][: len(searched)]
    assert api.get(f"/api/decks/{deck.pk}/rating-history/").json()["rating"]["rank"] is None


@pytest.fixture(params=["short board", "long board"])
def board_length(request, monkeypatch):
    """A long board (``COUNT_CACHE_FROM`` ratings or more) reads the pages of its lower half
    from the bottom of the index, with its cached length, and ranks a search's rows from a
    snapshot of its ordinals: both must give exactly the ranks of a short board (nothing
    changes between the reads here)."""
    from django.core.cache import cache

    from ladder import selectors

    cache.delete("ladder:count:tempofront:bots")
    selectors._SNAPSHOTS.clear()
    if request.param == "long board":
        monkeypatch.setattr(selectors, "COUNT_CACHE_FROM", 2)
    yield request.param
    cache.delete("ladder:count:tempofront:bots")
    selectors._SNAPSHOTS.clear()


def test_every_page_size_gives_the_same_ranks_as_the_whole_board_and_a_search_too(alice, bob, api, board_length):
    decks = [make_deck(alice if i % 2 else bob, index=i, name=f"Deck {i:02}") for i in range(6)]
    finish([decks[0], decks[1]], [1, 2])
    finish([decks[2], decks[3]], [1, 2])  # the same result as the first: two runs of equal ratings
    finish([decks[4], decks[5]], [1, 1])
    whole = api.get("/api/ladders/tempofront/").json()["results"]
    ranks = {r["deck"]["id"]: r["rank"] for r in whole}
    assert sorted(ranks.values()) == [1, 1, 3, 3, 5, 5]
    for size in (1, 2, 3, 4):
        seen = []
        for number in range(1, 7 // size + 2):
            body = api.get("/api/ladders/tempofront/", {"page_size": size, "page": number})
            if body.status_code == 404:
                break
            seen += [(r["deck"]["id"], r["rank"]) for r in body.json()["results"]]
        assert seen == [(r["deck"]["id"], r["rank"]) for r in whole], size
    searched = api.get("/api/ladders/tempofront/", {"q": "deck 0"}).json()["results"]
    assert len(searched) == 6 and {r["deck"]["id"]: r["rank"] for r in searched} == ranks
    for deck in decks:  # one row a search, from the top and from the bottom of the board
        found = api.get("/api/ladders/tempofront/", {"q": deck.name}).json()["results"]
        assert [(r["deck"]["id"], r["rank"]) for r in found] == [(deck.pk, ranks[deck.pk])]
    bottom = sorted(whole, key=lambda r: r["rank"])[-2:]  # the two lowest, as one search
    found = api.get("/api/ladders/tempofront/", {"q": "deck 0"}).json()["results"]
    assert [(r["deck"]["id"], r["rank"]) for r in found][-2:] == [(r["deck"]["id"], r["rank"]) for r in bottom]


def test_a_result_recorded_after_its_deck_was_archived_stays_off_the_leaderboard(alice, bob, api):
    from decks.services import deck_archive

    a, b, c = make_deck(alice, name="Kept"), make_deck(bob, index=1, name="Gone"), make_deck(bob, index=2)
    finish([a, c], [1, 2])
    deck_archive(deck=b, actor=bob)  # b's first match was still running: its rating is created afterwards
    b.refresh_from_db()
    finish([b, a], [1, 2])
    body = api.get("/api/ladders/tempofront/").json()
    assert body["count"] == 2 and "Gone" not in [r["deck"]["name"] for r in body["results"]]
    assert [r["rank"] for r in body["results"]] == [1, 2]
    assert api.get("/api/ladders/tempofront/", {"q": "gone"}).json()["count"] == 0
    assert api.get(f"/api/decks/{b.pk}/rating-history/").json()["rating"]["rank"] is None


def test_a_leaderboard_page_is_served_from_the_shared_cache_for_a_few_seconds(alice, bob, api, client, settings):
    """With LADDER_CACHE_SECONDS on, a page and its API rows stay as they were for that
    long; another page, pool or search is its own entry; once the entry is gone the
    new result shows."""
    from django.core.cache import cache

    from ladder.views import board_cache_key

    settings.LADDER_CACHE_SECONDS = 5
    keys = [board_cache_key("html", "tempofront", "bots", "", None),
            board_cache_key("html", "tempofront", "bots", "", "1"),
            board_cache_key("api", "tempofront", "bots", "", None, "", "testserver")]
    assert keys[0] == keys[1]  # no page number is page 1
    cache.delete_many(keys)
    a, b = make_deck(alice, name="Alpha"), make_deck(bob, index=1, name="Bravo")
    finish([a, b], [1, 2])
    first_html = client.get("/ladder/tempofront/").content.decode()
    first_api = api.get("/api/ladders/tempofront/").json()
    assert first_html.index("Alpha") < first_html.index("Bravo")
    assert [r["deck"]["name"] for r in first_api["results"]] == ["Alpha", "Bravo"]

    for _ in range(3):  # Bravo now rates above Alpha
        finish([a, b], [2, 1])
    assert client.get("/ladder/tempofront/").content.decode().count("data-rating-row") == 2
    cached_html = client.get("/ladder/tempofront/").content.decode()
    assert cached_html.index("Alpha") < cached_html.index("Bravo")
    assert api.get("/api/ladders/tempofront/").json() == first_api
    searched = api.get("/api/ladders/tempofront/", {"q": "bravo"}).json()  # its own entry, read now
    assert searched["results"][0]["rank"] == 1 and searched["results"][0]["games"] == 4

    cache.delete_many(keys)  # what the expiry does after LADDER_CACHE_SECONDS
    fresh_html = client.get("/ladder/tempofront/").content.decode()
    assert fresh_html.index("Bravo") < fresh_html.index("Alpha")
    assert [r["deck"]["name"] for r in api.get("/api/ladders/tempofront/").json()["results"]] == ["Bravo", "Alpha"]
    cache.delete_many(keys + [board_cache_key("api", "tempofront", "bots", "bravo", None, "", "testserver")])
