"""The tournament pages: the list with upcoming countdowns, running and finished events and
its filters; the organiser's form; an event page with settings, entries, pairings,
standings with every tiebreaker column, the bracket, tiebreaks and the organiser's tools;
entering and dropping from the page. The OpenAPI schema documents the endpoints."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from tournament_helpers import fill, make_deck, make_event, make_player, play_out

from tournaments.models import Entry, Tournament
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_navigation_links_to_the_tournaments_list(organiser):
    page = Client().get("/").content.decode()
    assert 'href="/tournaments/"' in page


def test_list_shows_upcoming_with_countdown_running_and_finished_and_filters(organiser, sent):
    upcoming = make_event(organiser, name="Upcoming cup")
    running = make_event(organiser, name="Running cup")
    fill(running, 2)
    tournament_start(tournament_id=running.pk, by=organiser)
    pods = make_event(organiser, name="Pods night", game="conquest", format="conquest_pods", players_per_game=4)
    html = Client().get("/tournaments/").content.decode()
    assert "Upcoming cup" in html and "Running cup" in html and "Pods night" in html
    assert f'data-countdown="{upcoming.starts_at.isoformat()}"' in html or "data-countdown" in html
    filtered = Client().get("/tournaments/?format=conquest_pods").content.decode()
    assert "Pods night" in filtered and "Upcoming cup" not in filtered
    by_game = Client().get("/tournaments/?game=tempofront").content.decode()
    assert "Pods night" not in by_game and "Upcoming cup" in by_game
    assert pods.pk


def test_organiser_creates_an_event_from_the_form(organiser):
    client = logged_in(organiser)
    starts = (timezone.now() + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", {
        "game": "tempofront", "name": "Form cup", "format": "single_elim", "starts_at": starts, "best_of": 3,
        "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0, "third_place": "on",
        "publish": "on", "params_text": "",
    })
    event = Tournament.objects.get(name="Form cup")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{event.pk}/"
    assert event.state == "open" and event.third_place and event.best_of == 3
    for path in (f"/tournaments/{event.pk}/", f"/tournaments/{event.pk}/live/", f"/tournaments/{event.pk}/edit/"):
        assert client.get(path).status_code == 200, path


def test_form_shows_the_engines_message_for_bad_parameters(organiser):
    client = logged_in(organiser)
    starts = (timezone.now() + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", {
        "game": "conquest", "name": "Bad", "format": "swiss", "starts_at": starts, "best_of": 1,
        "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0,
        "params_text": '{"battles": -1}',
    })
    assert response.status_code == 200
    assert "battles" in response.content.decode()
    assert not Tournament.objects.filter(name="Bad").exists()


def test_enter_and_drop_from_the_event_page(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    client = logged_in(alice)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Enter this deck" in page
    client.post(f"/tournaments/{event.pk}/action/", {"action": "enter", "deck": deck.pk})
    entry = Entry.objects.get(tournament=event, player=alice)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "You entered" in page and deck.name in page
    client.post(f"/tournaments/{event.pk}/action/", {"action": "drop", "entry": entry.pk})
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_a_player_cannot_use_the_organiser_tools(organiser, sent):
    event = make_event(organiser)
    fill(event, 2)
    stranger = make_player("stranger")
    logged_in(stranger).post(f"/tournaments/{event.pk}/action/", {"action": "start"})
    assert Tournament.objects.get(pk=event.pk).state == "open"
    page = logged_in(stranger).get(f"/tournaments/{event.pk}/").content.decode()
    assert "Organiser tools" not in page
    assert "Organiser tools" in logged_in(organiser).get(f"/tournaments/{event.pk}/").content.decode()


def test_finished_swiss_with_top_cut_page_shows_standings_bracket_and_winner(organiser, sent):
    event = make_event(organiser, format="swiss_cut", top_cut=4, rounds=3, third_place=True)
    fill(event, 9)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    for column in ("Pts", "W–D–L", "OMW%", "GW%", "OGW%", "H2H", "Place"):
        assert column in html
    assert "data-bracket" in html and "Champion:" in html
    assert f"Winner: <strong>{event.winner.player.username}</strong>" in html
    assert "Finished after" in html
    assert str(event.seed) in html  # revealed once over
    live = Client().get(f"/tournaments/{event.pk}/live/").content.decode()
    assert "data-standings" in live


def test_running_event_page_keeps_the_seed_secret_and_shows_progress(organiser, sent):
    event = make_event(organiser, rounds=3)
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    event.refresh_from_db()
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    assert str(event.seed) not in html
    assert "Round 1 of 3: 0 of 2 matches done" in html
    assert Client().get(f"/api/tournaments/{event.pk}/").json()["seed"] is None


def test_the_schema_documents_the_tournament_endpoints(db):
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in ("/api/tournaments/", "/api/tournaments/{tournament_id}/", "/api/tournaments/{tournament_id}/entries/",
                 "/api/tournaments/{tournament_id}/standings/", "/api/tournaments/{tournament_id}/rounds/{number}/",
                 "/api/tournaments/{tournament_id}/start/"):
        assert path in schema


@pytest.mark.parametrize("fmt", ["single_elim", "double_elim", "swiss_cut", "round_robin", "conquest_pods"])
def test_event_page_renders_while_running_in_every_format(organiser, sent, fmt):
    settings = {"format": fmt}
    if fmt == "swiss_cut":
        settings.update(top_cut=4, rounds=1)
    if fmt == "round_robin":
        settings.update(entry_limit=8)
    if fmt == "conquest_pods":
        settings.update(game="conquest", players_per_game=4)
    event = make_event(organiser, **settings)
    fill(event, 6)
    tournament_start(tournament_id=event.pk, by=organiser)
    for path in (f"/tournaments/{event.pk}/", f"/tournaments/{event.pk}/live/",
                 f"/api/tournaments/{event.pk}/standings/"):
        response = Client().get(path)
        assert response.status_code == 200, (path, response.content[:300])
    assert "Round 1" in Client().get(f"/tournaments/{event.pk}/").content.decode()


# --------------------------------------------------------------------------- finished events, rounds, brackets


def finished_event(organiser, count: int, **settings) -> Tournament:
    event = make_event(organiser, **settings)
    fill(event, count)
    tournament_start(tournament_id=event.pk, by=organiser)
    event = play_out(event)
    assert event.state == "finished"
    return event


def test_each_round_has_an_html_page_linked_from_the_event_page(organiser, sent):
    event = finished_event(organiser, 4, rounds=3)
    page = Client().get(f"/tournaments/{event.pk}/").content.decode()
    for number in (1, 2, 3):
        assert f'href="/tournaments/{event.pk}/rounds/{number}/"' in page
    assert f'href="/api/tournaments/{event.pk}/rounds/' not in page
    response = Client().get(f"/tournaments/{event.pk}/rounds/2/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "Round 2" in html and event.name in html and 'class="site-header"' in html
    from tournaments.models import Pairing

    for pairing in Pairing.objects.filter(round__tournament=event, round__number=2).select_related("match"):
        assert f'href="/matches/{pairing.match_id}/"' in html
        assert "–".join(str(w) for w in pairing.result["game_wins"]) in html
    assert "2 of 2 tables decided" in html
    # The API keeps its JSON.
    api = Client().get(f"/api/tournaments/{event.pk}/rounds/2/")
    assert api["Content-Type"].startswith("application/json") and api.json()["number"] == 2
    missing = Client().get(f"/tournaments/{event.pk}/rounds/9/")
    assert missing.status_code == 404


def test_round_pages_of_a_draft_are_as_hidden_as_the_event(organiser):
    draft = make_event(organiser, publish=False)
    response = Client().get(f"/tournaments/{draft.pk}/rounds/1/")
    assert response.status_code == 404 and "This page is not in the deck." in response.content.decode()
    assert draft.name not in response.content.decode()


def test_the_bracket_shows_each_matchs_score_and_no_unneeded_reset(organiser, sent):
    from tournament_helpers import finished_double_elim

    from tournaments.models import Pairing

    event = finished_double_elim(organiser, reset=False)
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    assert "Bracket reset" not in html and 'data-key="GF-reset"' not in html
    for pairing in Pairing.objects.filter(round__tournament=event):
        wins = pairing.result["game_wins"]
        assert f'data-key="{pairing.key}" data-score="{wins[0]}–{wins[1]}"' in html
        assert wins[0] != wins[1]  # every elimination match is decided
    assert html.count('class="bracket-score"') == 2 * Pairing.objects.filter(round__tournament=event).count()


def test_a_bracket_reset_that_was_played_is_shown_with_its_score(organiser, sent):
    from tournament_helpers import finished_double_elim

    from tournaments.models import Pairing

    event = finished_double_elim(organiser, reset=True, prefix="rs")
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    reset = Pairing.objects.get(round__tournament=event, key="GF-reset")
    wins = reset.result["game_wins"]
    assert "Bracket reset" in html and f'data-key="GF-reset" data-score="{wins[0]}–{wins[1]}"' in html


def test_a_running_double_elimination_shows_the_reset_as_if_needed(organiser, sent):
    event = make_event(organiser, format="double_elim")
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    html = Client().get(f"/tournaments/{event.pk}/").content.decode()
    assert "Bracket reset (if needed)" in html


def test_tiebreak_notes_only_for_formats_that_use_them(organiser, sent):
    elimination = finished_event(organiser, 4, format="single_elim", name="Knockout")
    html = Client().get(f"/tournaments/{elimination.pk}/").content.decode()
    assert "Order: match points" not in html and "OMW%" not in html
    assert "Place: by the round a player was knocked out in" in html
    swiss = finished_event(organiser, 4, rounds=2, name="Swiss night")
    html = Client().get(f"/tournaments/{swiss.pk}/").content.decode()
    assert "Order: match points, opponents' match-win %" in html
    assert "Final standings" in html


def test_a_finished_event_offers_no_drop_enter_or_countdown(organiser, sent):
    from tournaments.models import Entry

    event = make_event(organiser, format="single_elim")
    entries = fill(event, 2)
    entrant = entries[0].player
    newcomer = make_player("newcomer")
    make_deck(newcomer, "tempofront")
    open_page = logged_in(entrant).get(f"/tournaments/{event.pk}/parts/").content.decode()
    assert "data-countdown" in open_page and 'value="drop"' in open_page
    tournament_start(tournament_id=event.pk, by=organiser)
    play_out(event)
    assert Entry.objects.filter(tournament=event).count() == 2
    for client in (logged_in(entrant), logged_in(newcomer), logged_in(organiser)):
        for path in (f"/tournaments/{event.pk}/", f"/tournaments/{event.pk}/parts/"):
            html = client.get(path).content.decode()
            assert 'value="drop"' not in html and "data-enter" not in html and "data-countdown" not in html, path
            assert 'value="start"' not in html and 'value="cancel"' not in html, path
    parts = Client().get(f"/tournaments/{event.pk}/parts/").content.decode()
    for part in ("notice", "settings", "organiser", "entries"):
        assert f'data-state-part="{part}"' in parts
    assert "<html" not in parts and "Finished" in parts
