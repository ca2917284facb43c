"""Each setting of an event is checked where it applies (issue 27): the live rounds'
settings relate to each other only in an event played by people, so a bots-only event is
not refused for them (through the API and the organiser's form alike); their own bounds
still hold, since the event stores them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournaments.models import Tournament


@pytest.fixture
def api(organiser) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=organiser).key}")
    return client


def body(**values) -> dict:
    starts = (timezone.now() + timedelta(hours=2)).isoformat()
    return {"game": "tempofront", "name": "Settings cup", "starts_at": starts, **values}


def test_a_bots_event_takes_a_round_limit_no_longer_than_the_no_show_time(api):
    response = api.post("/api/tournaments/", body(entrants="bots", round_limit_minutes=3, round_minutes=3),
                        format="json")
    assert response.status_code == 201, response.content
    event = Tournament.objects.get(pk=response.json()["id"])
    assert (event.entrants, event.round_limit_minutes, event.no_show_minutes) == ("bots", 3, 3)


@pytest.mark.parametrize("entrants", ["people", "mixed"])
def test_a_live_event_is_still_refused_a_round_limit_within_the_no_show_time(api, entrants):
    response = api.post("/api/tournaments/", body(entrants=entrants, round_limit_minutes=3, round_minutes=3),
                        format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert fields["round_limit_minutes"] == [
        "the round limit (3 minutes) must be longer than the no-show time (3 minutes)"]
    assert not Tournament.objects.exists()


def test_scheduled_rounds_relate_to_the_round_limit_only_when_played_live(api):
    settings = {"round_start": "scheduled", "round_minutes": 10, "round_limit_minutes": 30}
    assert api.post("/api/tournaments/", body(entrants="bots", **settings), format="json").status_code == 201
    refused = api.post("/api/tournaments/", body(entrants="people", **settings), format="json")
    assert refused.status_code == 400
    assert "would overlap" in refused.json()["error"]["fields"]["round_minutes"][0]
    # A bots event with scheduled rounds needs no spacing; a live one does.
    assert api.post("/api/tournaments/", body(entrants="bots", round_start="scheduled"),
                    format="json").status_code == 201
    refused = api.post("/api/tournaments/", body(entrants="people", round_start="scheduled"), format="json")
    assert "scheduled rounds need round_minutes" in refused.json()["error"]["fields"]["round_minutes"][0]
    assert Tournament.objects.count() == 2


@pytest.mark.parametrize("entrants", ["bots", "people"])
def test_every_event_keeps_each_setting_within_its_bounds(api, organiser, entrants):
    from django.core.exceptions import ValidationError

    from tournaments.services import tournament_create

    response = api.post("/api/tournaments/", body(entrants=entrants, round_start="scheduled", round_minutes=50000,
                                                  clock_initial=5), format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert fields["round_minutes"] == ["Ensure this value is less than or equal to 1440."]
    assert fields["clock_initial"] == ["Ensure this value is greater than or equal to 10."]
    with pytest.raises(ValidationError) as refused:  # the service says the same to the form and the admin
        tournament_create(organiser=organiser, game="tempofront", name="Bounds cup", entrants=entrants,
                          starts_at=timezone.now() + timedelta(hours=2), round_start="scheduled",
                          round_minutes=50000, clock_initial=5)
    messages = refused.value.message_dict
    assert messages["round_minutes"] == ["round_minutes must be a whole number from 1 to 1440, not 50000"]
    assert messages["clock_initial"] == ["clock_initial must be a whole number from 10 to 7200, not 5"]
    assert not Tournament.objects.exists()


def test_the_organisers_form_takes_a_bots_event_with_leftover_live_settings(organiser, client):
    client.force_login(organiser)
    starts = (timezone.now() + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", {
        "entrants": "bots", "game": "tempofront", "name": "Form bots cup", "format": "swiss", "starts_at": starts,
        "best_of": 1, "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0,
        "publish": "on", "no_show_minutes": 3, "round_limit_minutes": 3, "round_start": "scheduled",
        "round_minutes": 3,
    })
    assert response.status_code == 302, response.content.decode()[-2000:]
    event = Tournament.objects.get(name="Form bots cup")
    assert (event.entrants, event.round_limit_minutes, event.round_minutes) == ("bots", 3, 3)
