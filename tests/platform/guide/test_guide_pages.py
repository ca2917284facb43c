"""The guide: rules pages rendered from each game's own rules document, glossaries, the glossary JSON and the
status page."""

from __future__ import annotations

import re
import tomllib

import pytest

from decks.cards.selectors import card_pool
from guide.selectors import glossary, glossary_path, rules_page, term_lookup

GAMES = ["tempofront", "conquest"]

#: The words issue 16 names, each of which must have a glossary entry of its game.
REQUIRED_TERMS = {
    "tempofront": [
        "Presence", "Dominion", "Timeline", "Initiative", "Chain", "Focus", "Integrity", "Reserve",
        "Armor", "Barrier", "Rapid", "Mobile", "Ranged", "Structure", "Stun", "Root", "Silence", "Expose", "Protected",
    ],
    "conquest": ["CQ", "Conquest Pool", "Skirmish", "Celestial", "Lightspeed", "Upload Zone", "muted", "Plagued"],
}


@pytest.mark.parametrize("game", GAMES)
def test_every_issue_term_and_every_card_keyword_has_a_glossary_entry(game):
    missing = [word for word in REQUIRED_TERMS[game] if term_lookup(game=game, word=word) is None]
    keywords = {k for face in card_pool(game) for k in face.keywords}
    missing += [k for k in sorted(keywords) if term_lookup(game=game, word=k) is None]
    assert missing == []


@pytest.mark.parametrize("game", GAMES)
def test_glossary_files_have_unique_slugs_and_every_field(game):
    data = tomllib.loads(glossary_path(game).read_text(encoding="utf-8"))
    slugs = [entry["slug"] for entry in data["term"]]
    assert len(slugs) == len(set(slugs))
    for entry in data["term"]:
        assert re.fullmatch(r"[a-z0-9-]+", entry["slug"]), entry
        assert entry["term"] and entry["kind"] and entry["short"].endswith("."), entry


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES)
def test_rules_page_renders_the_rules_document_with_a_diagram_and_contents(client, game):
    response = client.get(f"/rules/{game}/")
    assert response.status_code == 200
    html = response.content.decode()
    page = rules_page(game=game)
    # One source: every player section of the game's site/rules.md is on the page, with its anchor.
    assert page.player_sections
    for heading, _ in page.player_sections:
        assert f'id="{heading.id}"' in html
        assert f'href="#{heading.id}"' in html
    assert "Our rulings" in html  # the platform's rulings are part of the guide
    assert "<svg" in html and 'role="img"' in html
    assert "test_R" not in html  # references to the engine's tests are left out
    if game == "tempofront":
        svg = html[html.index("<svg"):html.index("</svg>")]
        assert svg.count(">Vanguard<") == 6 and svg.count(">Support<") == 6 and svg.count(">Site (shared)<") == 3
    else:
        for n in range(1, 8):
            assert f'class="bd-big">{n}<' in html
        assert "Forward Skirmish" in html and "Rear Skirmish" in html and "Extra Locations" in html


@pytest.mark.django_db
def test_rules_page_follows_an_edit_of_the_rules_document(client, tmp_path, monkeypatch):
    import guide.selectors as selectors

    source = tmp_path / "tempofront.md"
    source.write_text("# T\n\n## How a match runs\n\nFirst version.\n", encoding="utf-8")
    monkeypatch.setattr(selectors, "rules_path", lambda game: source)
    assert "First version." in client.get("/rules/tempofront/").content.decode()
    source.write_text("# T\n\n## How a match runs\n\nSecond version.\n", encoding="utf-8")
    import os

    stat = source.stat()
    os.utime(source, (stat.st_atime, stat.st_mtime + 5))
    assert "Second version." in client.get("/rules/tempofront/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES)
def test_glossary_page_lists_every_term_with_an_anchor(client, game):
    html = client.get(f"/rules/{game}/glossary/").content.decode()
    for term in glossary(game=game):
        assert f'id="{term.slug}"' in html
        assert term.short.replace("'", "&#x27;") in html


@pytest.mark.django_db
def test_unknown_game_is_a_404(client):
    for path in ("/rules/chess/", "/rules/chess/glossary/"):
        response = client.get(path)
        assert response.status_code == 404 and "This page is not in the deck." in response.content.decode(), path


@pytest.mark.django_db
def test_glossary_json_serves_both_games_with_links(client):
    response = client.get("/rules/glossary.json")
    assert response.status_code == 200
    data = response.json()["games"]
    assert set(data) == set(GAMES)
    presence = next(t for t in data["tempofront"] if t["slug"] == "presence")
    assert presence["url"] == "/rules/tempofront/glossary/#presence"
    assert "Presence" in presence["short"]


@pytest.mark.django_db
def test_status_page_reports_the_worker_heartbeat(client):
    from web.services import heartbeat_record

    html = client.get("/status/").content.decode()
    assert "No worker heartbeat recorded yet" in html and 'href="/healthz"' in html
    heartbeat_record(worker="celery@box-7")
    assert "celery@box-7" in client.get("/status/").content.decode()


@pytest.mark.django_db
def test_every_page_links_the_rules_and_the_status_page_from_its_footer(client):
    html = client.get("/cards/").content.decode()
    footer = html[html.index('<footer class="site-footer">'):]
    assert 'href="/rules/"' in footer and 'href="/status/"' in footer
