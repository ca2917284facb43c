"""Generated card art: every card of both games gets a valid SVG of its own, served with
long cache headers, and the card faces and pages use it and link the rules they rely on."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from decks.cards.art import card_art_svg
from decks.cards.selectors import card_pool

GAMES = ["tempofront", "conquest"]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("game", GAMES)
def test_every_card_has_a_valid_distinct_deterministic_picture(game):
    pictures = {}
    for face in card_pool(game):
        svg = card_art_svg(game=game, data=face.data)
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 240 140"
        assert len(list(root.iter())) > 10  # a picture, not a placeholder
        assert card_art_svg(game=game, data=dict(face.data)) == svg  # same data, same picture
        pictures[face.id] = svg
    assert len(set(pictures.values())) == len(pictures)  # no two cards share a picture


def test_a_card_type_is_told_by_its_emblem_and_a_change_of_data_changes_the_picture():
    pool = {face.id: face for face in card_pool("tempofront")}
    entity = next(f for f in pool.values() if f.type == "entity")
    changed = {**entity.data, "focus": (entity.data.get("focus") or 0) + 1}
    assert card_art_svg(game="tempofront", data=changed) != card_art_svg(game="tempofront", data=entity.data)
    site = next(f for f in pool.values() if f.type == "site")
    # Sites are drawn as a landscape whose hills run along the bottom edge.
    assert "0.0,140.0" in card_art_svg(game="tempofront", data=site.data)


@pytest.mark.django_db
def test_art_url_serves_the_svg_with_long_cache_headers(client):
    face = card_pool("conquest")[0]
    response = client.get(f"/cards/conquest/{face.id}/art.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert "max-age=31536000" in response["Cache-Control"] and "public" in response["Cache-Control"]
    assert response.content.decode() == card_art_svg(game="conquest", data=face.data)
    assert client.get("/cards/conquest/no-such-card/art.svg").status_code == 404
    assert client.get("/cards/chess/x/art.svg").status_code == 404


@pytest.mark.django_db
def test_card_faces_show_the_art_and_mark_keywords_as_glossary_terms(client):
    html = client.get("/cards/?game=tempofront&q=armor").content.decode()
    assert '/art.svg?v=' in html
    assert 'data-term="Armor 1"' in html or 'data-term="Armor 2"' in html
    assert 'data-term="entity"' in html


@pytest.mark.django_db
def test_card_page_links_the_rules_it_uses(client):
    face = next(f for f in card_pool("tempofront") if "Ranged" in f.keywords)
    html = client.get(f"/cards/tempofront/{face.id}/").content.decode()
    assert 'href="/rules/tempofront/glossary/#ranged"' in html
    assert f'href="/rules/tempofront/glossary/#{face.type}"' in html
    assert 'href="/rules/tempofront/"' in html
