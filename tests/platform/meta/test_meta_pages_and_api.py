"""The metagame page and API: what a reader sees and gets, paginated lists, the schema,
and bad input (an unknown game is a 404, a bad period or source a 400 naming it)."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.urls import reverse
from meta_helpers import make_deck, record

from meta.services import meta_tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(alice, bob, carol):
    """Three TempoFront decks: Alpha beats Bravo 10 times and loses 2; Alpha and Charlie
    draw 3 times (a thin cell: fewer than 10 matches)."""
    a, b, c = (make_deck(p, index=i, name=n) for i, (p, n) in enumerate([(alice, "Alpha"), (bob, "Bravo"),
                                                                         (carol, "Charlie")]))
    for _ in range(10):
        record([a, b], [1, 2])
    for _ in range(2):
        record([b, a], [1, 2])
    for _ in range(3):
        record([a, c], [1, 1])
    meta_tick()
    return a, b, c


def test_the_page_shows_the_matrix_cards_and_pilots_with_counts(client: Client, field):
    a, b, c = field
    response = client.get("/meta/tempofront/")
    assert response.status_code == 200
    text = html.unescape(response.content.decode())
    assert "TempoFront metagame" in text
    # The row Alpha against Bravo: 10 won of 12, 83.3 %, in a coloured cell with its count.
    assert "Alpha against Bravo: 83.3% in 12 matches (10 won, 0 drawn, 2 lost)" in text
    assert "Alpha against Charlie: 50.0% in 3 matches (0 won, 3 drawn, 0 lost)" in text
    assert 'class="meta-cell is-thin"' in text  # Alpha-Charlie: 3 matches
    assert text.count('class="meta-cell meta-mirror"') == 3
    assert text.index(">Alpha<") < text.index(">Bravo<") < text.index(">Charlie<")  # most played first
    assert "Improvement when drawn" in text and "data-card-table" in text
    assert reverse("meta:index") in client.get("/").content.decode()  # the navigation's link


def test_the_index_lists_every_game(client: Client, db):
    page = client.get("/meta/").content.decode()
    assert "/meta/tempofront/" in page and "/meta/conquest/" in page


@pytest.mark.parametrize("path", ["/meta/chess/", "/api/meta/chess/decks/", "/api/meta/chess/cards/"])
def test_an_unknown_game_is_not_found(client: Client, db, path):
    response = client.get(path)
    assert response.status_code == 404
    if path.startswith("/api/"):
        assert "no game 'chess'" in response.json()["error"]["message"]


@pytest.mark.parametrize(("query", "field_name", "words"), [
    ("period=week", "period", "unknown period 'week'"),
    ("source=casual", "source", "unknown source 'casual'"),
    ("source=ladder,friends", "source", "unknown source 'friends'"),
])
def test_a_bad_period_or_source_is_a_400_naming_it(client: Client, field, query, field_name, words):
    page = client.get(f"/meta/tempofront/?{query}")
    assert page.status_code == 400 and words in html.unescape(page.content.decode()).lower()
    for endpoint in ("decks", "matchups", "cards", "pilots"):
        response = client.get(f"/api/meta/tempofront/{endpoint}/?{query}")
        assert response.status_code == 400, endpoint
        error = response.json()["error"]
        assert error["code"] == "validation_error" and words in error["fields"][field_name][0]


def test_card_type_and_ordering_are_checked(client: Client, field):
    assert client.get("/api/meta/tempofront/cards/?type=dragon").json()["error"]["fields"]["type"]
    assert client.get("/api/meta/tempofront/cards/?ordering=power").json()["error"]["fields"]["ordering"]


def test_the_api_gives_the_same_figures_paginated(client: Client, field):
    a, b, c = field
    decks = client.get("/api/meta/tempofront/decks/").json()
    assert [(d["name"], d["matches"], d["wins"], d["draws"], d["losses"]) for d in decks["results"]] == [
        ("Alpha", 15, 10, 3, 2), ("Bravo", 12, 2, 0, 10), ("Charlie", 3, 0, 3, 0)]
    first = client.get("/api/meta/tempofront/matchups/?page_size=2").json()
    # Three decks: six ordered cells (a deck against itself left out), three pages of two.
    assert first["count"] == 6 and len(first["results"]) == 2 and first["next"] and first["previous"] is None
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    assert third["next"] is None and second["previous"]
    cells = first["results"] + second["results"] + third["results"]
    assert len({(x["deck"]["name"], x["opponent"]["name"]) for x in cells}) == 6
    ab = next(x for x in cells if (x["deck"]["name"], x["opponent"]["name"]) == ("Alpha", "Bravo"))
    assert (ab["matches"], ab["wins"], ab["losses"], ab["thin"]) == (12, 10, 2, False)
    assert ab["win_rate"] == pytest.approx(10 / 12)
    ac = next(x for x in cells if (x["deck"]["name"], x["opponent"]["name"]) == ("Alpha", "Charlie"))
    assert (ac["draws"], ac["thin"], ac["win_rate"]) == (3, True, 0.5)
    # Bravo and Charlie never met: the cell is there, with no match behind it.
    bc = next(x for x in cells if (x["deck"]["name"], x["opponent"]["name"]) == ("Bravo", "Charlie"))
    assert (bc["matches"], bc["win_rate"]) == (0, None)

    cards = client.get("/api/meta/tempofront/cards/?page_size=100").json()
    from engine import games

    assert cards["count"] == len(games["tempofront"].cards())
    leaders = client.get("/api/meta/tempofront/cards/?type=leader&ordering=decks").json()["results"]
    assert leaders and all(c["type"] == "leader" for c in leaders)
    assert [c["decks"] for c in leaders] == sorted((c["decks"] for c in leaders), reverse=True)
    assert client.get("/api/meta/tempofront/pilots/").json()["count"] == 0  # one pilot per deck here
    assert client.get("/api/meta/tempofront/decks/?source=tournament").json()["count"] == 0


def test_the_schema_lists_the_metagame_endpoints(client: Client, db):
    import yaml
    from drf_spectacular.validation import validate_schema

    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json() if response["Content-Type"].endswith("json") else yaml.safe_load(response.content)
    validate_schema(schema)
    for endpoint in ("decks", "matchups", "cards", "pilots"):
        operation = schema["paths"][f"/api/meta/{{game}}/{endpoint}/"]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"period", "source", "page", "page_size"} <= names, endpoint
        assert {"200", "400", "404"} <= set(operation["responses"]), endpoint
        body = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        assert {"count", "next", "previous", "results"} <= set(schema["components"]["schemas"][body]["properties"])


def test_a_tick_that_counts_something_shows_on_the_next_page_at_once(client: Client, field, settings):
    """The page's sums are kept in the cache under the tick's generation: the next tick
    that counts a result makes the next page sum again."""
    settings.META_CACHE_SECONDS = 600
    a, b, c = field
    first = client.get("/api/meta/tempofront/decks/").json()["results"]
    assert first == client.get("/api/meta/tempofront/decks/").json()["results"]  # kept
    record([b, c], [1, 2])
    assert client.get("/api/meta/tempofront/decks/").json()["results"] == first  # not counted yet
    meta_tick()
    after = {d["name"]: d["matches"] for d in client.get("/api/meta/tempofront/decks/").json()["results"]}
    assert after == {"Alpha": 15, "Bravo": 13, "Charlie": 4}
