"""Card pages and the cards API: every card of both pools drawn as a readable face,
browsing with filters and search, pagination, one page per card."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest
from django.template.loader import render_to_string
from rest_framework.test import APIClient

from decks.cards.selectors import card_get, card_pool, card_search
from engine import games

GAMES = ["tempofront", "conquest"]


def visible_text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# --------------------------------------------------------------------------- faces


@pytest.mark.parametrize("game", GAMES)
def test_every_card_of_the_pool_has_a_face_with_its_data(game):
    """Name, costs, stats, keywords, type line and rules text of every card appear on its face.
    Each kind of field is checked on at least one card of the pool: a pool whose cards all lost
    a field would otherwise pass by checking nothing."""
    pool = card_pool(game)
    assert len(pool) == len(games[game].cards())
    checked: Counter[str] = Counter()
    for card in pool:
        data = card.data
        text = visible_text(render_to_string("cards/_card_face.html", {"card": card}))
        assert data["name"] in text
        assert card.type_line in text
        for key in ("focus", "time"):
            if isinstance(data.get(key), int):
                assert f"{key.capitalize()} {data[key]}" in render_to_string("cards/_card_face.html", {"card": card})
                checked[key] += 1
        if game == "conquest" and isinstance(data.get("cq"), int):
            assert f"CQ {data['cq']}" in text
            checked["cq"] += 1
        if game == "tempofront" and data["type"] == "entity":
            for key, short in (("power", "PWR"), ("vitality", "VIT"), ("presence", "PRE")):
                assert f"{short} {data[key]}" in text, (card.name, text)
            checked["entity stats"] += 1
        for keyword in data.get("keywords") or []:
            assert keyword in text
            checked["keywords"] += 1
        for sentence in filter(None, (data.get("text") or "").splitlines()):
            assert sentence.strip() in text
            checked["text"] += 1
    expected = {"tempofront": {"focus", "time", "entity stats", "keywords", "text"},
                "conquest": {"cq", "keywords", "text"}}[game]
    assert expected <= set(checked), f"no card of {game} had {sorted(expected - set(checked))}"


def test_attachment_bonuses_are_signed():
    attachment = next(c for c in card_pool("tempofront") if c.type == "attachment" and c.stats)
    text = visible_text(render_to_string("cards/_card_face.html", {"card": attachment}))
    assert any(f"{f.short} +{f.value}" in text for f in attachment.stats if f.value > 0)


def test_commanders_are_marked_and_listed_first():
    for game, kind in (("tempofront", "leader"), ("conquest", "celestial")):
        pool = card_pool(game)
        commanders = [c for c in pool if c.is_commander]
        assert commanders and all(c.type == kind for c in commanders)
        assert pool[: len(commanders)] == tuple(commanders)


def test_search_needs_every_word():
    target = card_pool("conquest")[5]
    words = target.name.split()
    assert target in card_search(q=" ".join(words).upper())
    assert card_search(q=target.name + " zzzz-not-a-word") == []


# --------------------------------------------------------------------------- pages


@pytest.mark.django_db
def test_card_browser_filters_by_game_type_and_text(client):
    html = client.get("/cards/").content.decode()
    total = sum(len(games[g].cards()) for g in GAMES)
    assert f"{total} cards" in html and "Page 1 of" in html
    html = client.get("/cards/", {"game": "conquest", "type": "celestial"}).content.decode()
    celestials = [c for c in games["conquest"].cards() if c["type"] == "celestial"]
    assert f"{len(celestials)} card" in html
    assert html.count('class="card-face ') == len(celestials)
    first = celestials[0]["name"]
    html = client.get("/cards/", {"q": first}).content.decode()
    assert unescape(first) in unescape(html)


@pytest.mark.django_db
def test_card_browser_pages_through_the_pool(client):
    pages = []
    page = 1
    while True:
        response = client.get("/cards/", {"game": "tempofront", "page": page})
        pages.append(re.findall(r'data-card-id="([^"]+)"', response.content.decode()))
        if 'rel="next"' not in response.content.decode():
            break
        page += 1
    seen = [card for ids in pages for card in ids]
    assert sorted(seen) == sorted(c["id"] for c in games["tempofront"].cards())
    assert all(len(ids) <= 24 for ids in pages)


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES)
def test_card_page(client, game):
    starter = next(iter(games[game].starter_decks().items()))
    card_name = starter[1].cards[0][0]
    card = next(c for c in card_pool(game) if c.name == card_name)
    html = client.get(f"/cards/{game}/{card.id}/").content.decode()
    assert unescape(card.name) in unescape(html)
    assert f"{card_name}" in unescape(html) and starter[0] in unescape(html)  # listed in its starter deck
    assert f"/api/cards/{game}/{card.id}/" in html


@pytest.mark.django_db
def test_unknown_card_page_is_404(client):
    for path in ("/cards/conquest/no-such-card/", "/cards/chess/pawn/"):
        response = client.get(path)
        assert response.status_code == 404 and "This page is not in the deck." in response.content.decode(), path


# --------------------------------------------------------------------------- API


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.mark.django_db
def test_api_cards_of_a_game_paginated(api):
    body = api.get("/api/cards/", {"game": "tempofront"}).json()
    assert body["count"] == len(games["tempofront"].cards())
    assert len(body["results"]) == 20 and body["next"]
    everything = api.get("/api/cards/", {"game": "tempofront", "page_size": 100}).json()
    assert {c["id"] for c in everything["results"]} == {c["id"] for c in games["tempofront"].cards()}
    card = everything["results"][0]
    assert set(card) >= {"game", "id", "name", "type", "type_line", "costs", "stats", "keywords", "text", "data"}


@pytest.mark.django_db
def test_api_cards_search_and_type_filter(api):
    units = api.get("/api/cards/", {"game": "conquest", "type": "unit", "page_size": 100}).json()
    assert units["count"] == sum(1 for c in games["conquest"].cards() if c["type"] == "unit")
    assert all(c["type"] == "unit" for c in units["results"])
    some = units["results"][0]
    found = api.get("/api/cards/", {"q": some["name"]}).json()
    assert some["id"] in [c["id"] for c in found["results"]]


@pytest.mark.django_db
def test_api_cards_bad_filters(api):
    error = api.get("/api/cards/", {"game": "chess"}).json()["error"]
    assert error["code"] == "validation_error" and "game" in error["fields"]
    response = api.get("/api/cards/", {"game": "conquest", "type": "entity"})
    assert response.status_code == 400 and "type" in response.json()["error"]["fields"]


@pytest.mark.django_db
def test_api_card_detail_and_404(api):
    card = card_get(game="conquest", card_id=card_pool("conquest")[0].id)
    body = api.get(f"/api/cards/conquest/{card.id}/").json()
    assert body["name"] == card.name and body["url"] == f"/cards/conquest/{card.id}/"
    response = api.get("/api/cards/conquest/nothing-here/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
