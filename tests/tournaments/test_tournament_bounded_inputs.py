"""Bounded inputs of tournaments (issue 27): ids read as ASCII digits of bounded length,
dates within 2000-01-01 .. 2100-01-01, and events stored with a far date still served.

Each case used to answer 500 (or log an error at every tick): an entry id of ``²`` or of
5,000 digits, an event starting in year 1.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

#: Text that ``str.isdigit()`` calls digits but ``int()`` refuses, and a number past any id.
NOT_INT = ["²", "①", "9" * 5000]


@pytest.fixture
def alice(db) -> User:
    from tournament_helpers import make_player

    return make_player("alice-bounds")


@pytest.fixture
def alice_api(alice) -> APIClient:
    token, _ = Token.objects.get_or_create(user=alice)
    client = APIClient()
    client.raise_request_exception = False
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"} and error["message"]
    if code:
        assert error["code"] == code
    return error


@pytest.fixture
def event_with_entry(alice):
    """An open event of alice's with her entry, and a second player's entry."""
    from tournament_helpers import fill, make_deck, make_event

    from tournaments.services import tournament_enter

    event = make_event(alice)
    mine = tournament_enter(tournament_id=event.pk, player=alice, deck_id=make_deck(alice, "tempofront").pk)
    other = fill(event, 1)[0]
    return event, mine, other


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
def test_dropping_an_entry_named_by_a_non_number_is_a_400_naming_entry(alice_api, event_with_entry, raw):
    event, mine, other = event_with_entry
    error = assert_error(alice_api.delete(f"/api/tournaments/{event.pk}/entries/?entry={raw}"), 400,
                         "validation_error")
    assert "entry" in error["fields"] and "18 digits" in error["fields"]["entry"][0]
    assert event.entries.count() == 2 and not event.entries.filter(dropped=True).exists()


@pytest.mark.django_db
def test_dropping_an_entry_of_no_such_id_is_a_404_and_a_real_id_still_drops(alice_api, event_with_entry):
    event, mine, other = event_with_entry
    assert_error(alice_api.delete(f"/api/tournaments/{event.pk}/entries/?entry={'9' * 18}"), 404, "not_found")
    assert event.entries.count() == 2
    assert alice_api.delete(f"/api/tournaments/{event.pk}/entries/?entry={other.pk}").status_code == 204
    assert list(event.entries.values_list("pk", flat=True)) == [mine.pk]  # before the start, a drop removes it


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
def test_the_tournament_pages_actions_refuse_a_non_number_with_a_message(client, alice, event_with_entry, raw):
    event, mine, other = event_with_entry
    client.raise_request_exception = False
    client.force_login(alice)
    for action, name, said in (("drop", "entry", "choose an entry of this event"),
                               ("rerun", "pairing", "choose a failed match")):
        response = client.post(f"/tournaments/{event.pk}/action/", {"action": action, name: raw}, follow=True)
        assert response.status_code == 200, (action, response.status_code)
        assert said in response.content.decode()
    assert event.entries.count() == 2 and not event.entries.filter(dropped=True).exists()


# --------------------------------------------------------------------------- dates


#: The organiser form's other fields, as the page fills them.
FORM_DEFAULTS = {"entrants": "people", "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0}
DATE_FIELDS = ["starts_at", "registration_opens", "registration_closes", "publish_at"]
FAR_DATES = ["0001-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]


@pytest.mark.django_db
@pytest.mark.parametrize("when", FAR_DATES)
@pytest.mark.parametrize("field", DATE_FIELDS)
@pytest.mark.parametrize("entrants", ["bots", "people"])
def test_an_event_date_outside_2000_to_2100_is_a_400_naming_the_field(alice_api, field, when, entrants):
    from tournaments.models import Tournament

    body = {"game": "tempofront", "name": "far", "starts_at": "2030-06-01T12:00:00Z", "entrants": entrants,
            "registration_opens": None, "registration_closes": None, "publish_at": None}
    if field == "registration_opens":
        body["registration_closes"] = "2030-06-01T11:00:00Z"
    if field == "registration_closes":
        body["registration_opens"] = "2000-01-01T00:00:00Z"
    body[field] = when
    error = assert_error(alice_api.post("/api/tournaments/", body, format="json"), 400, "validation_error")
    assert field in error["fields"], error
    assert any("from 2000-01-01 to before 2100-01-01" in m for m in error["fields"][field])
    assert not Tournament.objects.exists()


@pytest.mark.django_db
def test_an_event_date_at_the_ends_of_the_range_is_accepted(alice_api):
    body = {"game": "tempofront", "name": "edges", "starts_at": "2099-12-31T23:59:00Z",
            "registration_opens": "2000-01-01T00:00:00Z", "entrants": "people"}
    response = alice_api.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["starts_at"] == "2099-12-31T23:59:00Z"


@pytest.mark.django_db
def test_editing_an_event_to_year_one_is_refused_and_changes_nothing(client, alice):
    from tournament_helpers import make_event

    event = make_event(alice)
    before = event.starts_at
    client.force_login(alice)
    response = client.post(f"/tournaments/{event.pk}/edit/", {
        "game": "tempofront", "name": "edited", "format": "swiss", "best_of": 1, "starts_at": "0001-01-01T00:00",
        **FORM_DEFAULTS})
    assert response.status_code == 200
    assert "starts_at must be from 2000-01-01 to before 2100-01-01" in response.content.decode()
    event.refresh_from_db()
    assert event.starts_at == before and event.name == "Test event"


@pytest.mark.django_db
def test_the_new_event_form_refuses_year_one_naming_the_field(client, alice):
    from tournaments.models import Tournament

    client.force_login(alice)
    response = client.post("/tournaments/new/", {"game": "tempofront", "name": "y1", "format": "swiss",
                                                 "best_of": 1, "starts_at": "0001-01-01T00:00", "publish": "on",
                                                 **FORM_DEFAULTS})
    assert response.status_code == 200
    page = response.content.decode()
    assert "starts_at must be from 2000-01-01 to before 2100-01-01" in page
    assert not Tournament.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("year", [1, 9999])
def test_an_event_stored_with_a_far_date_still_shows_and_the_tick_handles_it(client, alice, caplog, year, sent):
    """Rows written before dates were bounded: the page answers for every visitor and the
    tick starts (here: cancels, for too few entries) the event without an error."""
    from datetime import UTC, datetime

    from tournament_helpers import make_event

    from tournaments.models import Tournament
    from tournaments.services import tournament_tick

    event = make_event(alice, entrants="people", round_start="scheduled", round_minutes=40, check_in_minutes=30)
    far = datetime(year, 1, 1, tzinfo=UTC) if year == 1 else datetime(9999, 12, 31, 23, 59, tzinfo=UTC)
    Tournament.objects.filter(pk=event.pk).update(starts_at=far)
    client.raise_request_exception = False
    for viewer in (None, alice):
        if viewer:
            client.force_login(viewer)
        response = client.get(f"/tournaments/{event.pk}/")
        assert response.status_code == 200, response.status_code
        assert f"{far:%Y-%m-%d}" in response.content.decode()
    assert client.get("/tournaments/").status_code == 200
    report = tournament_tick()
    assert not [r for r in caplog.records if r.levelname == "ERROR"], [r.getMessage() for r in caplog.records]
    event.refresh_from_db()
    if year == 1:
        assert report["cancelled"] == [event.pk] and event.state == Tournament.State.CANCELLED
    else:
        assert event.state == Tournament.State.OPEN


@pytest.mark.django_db
def test_a_scheduled_round_of_an_event_stored_in_year_9999_waits_without_an_error(alice, sent):
    from datetime import UTC, datetime

    from django.utils import timezone
    from tournament_helpers import make_event

    from tournaments import live
    from tournaments.models import Tournament

    event = make_event(alice, entrants="people", round_start="scheduled", round_minutes=1440)
    Tournament.objects.filter(pk=event.pk).update(starts_at=datetime(9999, 12, 31, 23, 59, tzinfo=UTC))
    event.refresh_from_db()
    assert live.scheduled_start(event, 3) == datetime.max.replace(tzinfo=UTC)
    assert live.wait_for_schedule(event, 3, timezone.now()) == "round 3 starts at 23:59 UTC"
