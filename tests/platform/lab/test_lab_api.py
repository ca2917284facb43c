"""The deck lab's API and pages: starting a run over HTTP, every refusal with its status
and the field it names (each changing nothing), the owner-and-staff rule, the figures,
the matches list, a replay page, the CSV, and the OpenAPI schema."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import User
from lab_helpers import make_deck, play_in_process
from rest_framework.test import APIClient

from lab.models import LabChunk, LabMatch, LabRun

pytestmark = pytest.mark.django_db(transaction=True)


def api(user: User | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def state() -> tuple[int, int, int]:
    return LabRun.objects.count(), LabChunk.objects.count(), LabMatch.objects.count()


@pytest.fixture
def decks(alice, bob):
    return {"mine": make_deck(alice), "starter": make_deck(bob, index=1, starter=True),
            "conquest": make_deck(bob, "conquest"), "bobs": make_deck(bob)}


def test_the_owner_starts_a_run_and_reads_its_figures(alice, decks, effects_recorded):
    response = api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/",
                               {"n": 6, "field_kind": "starters", "pilot": "random"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued" and body["matches_wanted"] == 6 and body["progress"] == 0
    assert body["by_opponent"][0]["deck"] == decks["starter"].name
    assert "seed" not in body
    run = play_in_process(LabRun.objects.get(pk=body["id"]))
    body = api(alice).get(f"/api/lab/{run.pk}/").json()
    assert body["status"] == "done" and body["overall"]["matches"] == 6
    assert body["by_seat"]["play"]["matches"] == 3 and body["by_seat"]["draw"]["matches"] == 3
    assert len(body["results"]) == 6
    names = [name for name, _n in decks["mine"].latest_version.to_engine().cards]
    assert [card["card"] for card in body["cards"]][:len(names)] == names


@pytest.mark.parametrize(("payload", "field"), [
    ({"n": 0}, "n"),
    ({"n": 2001}, "n"),
    ({"n": "many"}, "n"),
    ({"pilot": "search:strong"}, "pilot"),
    ({"pilot": "wizard"}, "pilot"),
    ({"opponent_pilot": "wizard"}, "opponent_pilot"),
    ({"field_kind": "nobody"}, "field_kind"),
])
def test_bad_input_answers_400_naming_the_field_and_changes_nothing(alice, decks, effects_recorded, payload,
                                                                    field):
    response = api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"field_kind": "starters", **payload},
                               format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_a_field_deck_of_another_game_answers_400(alice, decks, effects_recorded):
    response = api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/",
                               {"field_kind": "decks", "field_decks": [decks["conquest"].pk]}, format="json")
    assert response.status_code == 400
    assert "Conquest deck" in response.json()["error"]["fields"]["field_decks"][0]
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_a_deck_that_is_not_yours_answers_403_and_a_missing_one_404(alice, decks, effects_recorded):
    response = api(alice).post(f"/api/decks/{decks['bobs'].pk}/lab/", {"field_kind": "starters"}, format="json")
    assert response.status_code == 403
    assert api(alice).post("/api/decks/999999/lab/", {}, format="json").status_code == 404
    assert api().post(f"/api/decks/{decks['mine'].pk}/lab/", {}, format="json").status_code in (401, 403)
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_a_second_running_lab_answers_409_and_changes_nothing(alice, decks, effects_recorded):
    url = f"/api/decks/{decks['mine'].pk}/lab/"
    assert api(alice).post(url, {"n": 3, "field_kind": "starters"}, format="json").status_code == 201
    before, sent = state(), list(effects_recorded.tasks)
    response = api(alice).post(url, {"n": 3, "field_kind": "starters"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "lab_already_running"
    assert state() == before and effects_recorded.tasks == sent


def test_runs_are_the_owners_and_staffs_only(alice, bob, decks, effects_recorded, client):
    api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"n": 2, "field_kind": "starters"}, format="json")
    run = play_in_process(LabRun.objects.get())
    staff = User.objects.create_user("staff", password="pw-staff-123", is_staff=True)
    for path in (f"/api/lab/{run.pk}/", f"/api/lab/{run.pk}/matches/", f"/api/lab/{run.pk}/csv/",
                 f"/api/lab/{run.pk}/matches/1/replay/"):
        assert api(bob).get(path).status_code == 404, path
        assert api(staff).get(path).status_code == 200, path
        assert api(alice).get(path).status_code == 200, path
    for path in (f"/lab/{run.pk}/", f"/lab/{run.pk}/results.csv", f"/lab/{run.pk}/matches/1/replay/"):
        client.force_login(bob)
        assert client.get(path).status_code == 404, path
        client.force_login(alice)
        assert client.get(path).status_code == 200, path
    assert api(bob).post(f"/api/lab/{run.pk}/cancel/").status_code == 404
    assert [r["id"] for r in api(bob).get("/api/lab/").json()["results"]] == []
    assert [r["id"] for r in api(alice).get("/api/lab/").json()["results"]] == [run.pk]


def test_matches_are_listed_with_pages_and_each_replay_opens(alice, decks, effects_recorded, client):
    api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"n": 5, "field_kind": "starters"}, format="json")
    run = play_in_process(LabRun.objects.get())
    page = api(alice).get(f"/api/lab/{run.pk}/matches/?page_size=2").json()
    assert page["count"] == 5 and [m["number"] for m in page["results"]] == [1, 2] and page["next"]
    assert page["results"][0]["replay_url"] == f"/lab/{run.pk}/matches/1/replay/"
    replay = api(alice).get(f"/api/lab/{run.pk}/matches/2/replay/?from=0&count=3").json()
    assert replay["all_seats"] is True and replay["count"] == 3 and replay["total_frames"] > 3
    assert replay["seats"][1]["deck"] == decks["mine"].name  # match 2: the lab deck on the draw
    assert api(alice).get(f"/api/lab/{run.pk}/matches/9/replay/").status_code == 404
    assert api(alice).get(f"/api/lab/{run.pk}/matches/1/replay/?count=0").status_code == 400
    client.force_login(alice)
    page = client.get(f"/lab/{run.pk}/matches/2/replay/")
    assert page.status_code == 200 and f"/api/lab/{run.pk}/matches/2/replay/" in page.content.decode()


def test_the_csv_has_one_row_a_match(alice, decks, effects_recorded):
    api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"n": 4, "field_kind": "starters"}, format="json")
    run = play_in_process(LabRun.objects.get())
    response = api(alice).get(f"/api/lab/{run.pk}/csv/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [int(r["match"]) for r in rows] == [1, 2, 3, 4]
    assert [r["seat"] for r in rows] == ["play", "draw", "play", "draw"]
    assert {r["outcome"] for r in rows} <= {"win", "loss", "draw"}
    assert all(r["opponent_deck"] == decks["starter"].name for r in rows)


def test_cancel_over_the_api(alice, decks, effects_recorded):
    api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"n": 4, "field_kind": "starters"}, format="json")
    run = LabRun.objects.get()
    response = api(alice).post(f"/api/lab/{run.pk}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert api(alice).post(f"/api/lab/{run.pk}/cancel/").status_code == 409


def test_the_schema_lists_the_lab_endpoints(alice):
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/decks/{deck_id}/lab/", "/api/lab/", "/api/lab/{run_id}/", "/api/lab/{run_id}/cancel/",
                 "/api/lab/{run_id}/matches/", "/api/lab/{run_id}/matches/{number}/replay/",
                 "/api/lab/{run_id}/csv/"):
        assert path in schema["paths"], path
    start = schema["paths"]["/api/decks/{deck_id}/lab/"]["post"]
    assert {"201", "400", "403", "404", "409"} <= set(start["responses"])


def test_the_deck_page_offers_the_lab_to_its_owner_only(alice, bob, decks, client):
    client.force_login(alice)
    assert f"/decks/{decks['mine'].pk}/lab/" in client.get(f"/decks/{decks['mine'].pk}/").content.decode()
    client.force_login(bob)
    assert f"/decks/{decks['mine'].pk}/lab/" not in client.get(f"/decks/{decks['mine'].pk}/").content.decode()
    assert client.get(f"/decks/{decks['mine'].pk}/lab/").status_code == 403


def test_the_form_starts_a_run_and_shows_errors_without_starting_one(alice, decks, client, effects_recorded):
    client.force_login(alice)
    url = f"/decks/{decks['mine'].pk}/lab/"
    response = client.post(url, {"n": "5000", "field_kind": "starters", "pilot": "random"})
    assert response.status_code == 400 and "n must be a whole number" in response.content.decode()
    assert state() == (0, 0, 0)
    response = client.post(url, {"n": "4", "field_kind": "starters", "pilot": "greedy", "opponent_pilot": "random"})
    run = LabRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/lab/{run.pk}/"
    assert (run.pilot, run.opponent_pilot, run.matches_wanted) == ("greedy", "random", 4)


def test_an_opponent_deck_hidden_since_the_run_is_not_shown(alice, decks, effects_recorded, monkeypatch):
    """A field deck entered later in an event that has not published its decklists: the
    run's figures name it as hidden, and neither its cards nor its replays are shown."""
    from datetime import timedelta

    from django.utils import timezone

    api(alice).post(f"/api/decks/{decks['mine'].pk}/lab/", {"n": 2, "field_kind": "starters"}, format="json")
    run = play_in_process(LabRun.objects.get())
    starter = decks["starter"]
    monkeypatch.setattr("decks.permissions.withheld_decks", lambda **kw: [
        {"deck": starter.pk, "owner": starter.owner_id, "organiser": None,
         "until": timezone.now() + timedelta(hours=2)}])
    body = api(alice).get(f"/api/lab/{run.pk}/").json()
    assert body["by_opponent"][0]["deck_id"] is None and "hidden" in body["by_opponent"][0]["deck"]
    assert starter.name not in str(body)
    matches = api(alice).get(f"/api/lab/{run.pk}/matches/").json()["results"]
    assert all(m["usage"]["opponent"] is None and m["opponent_version"] is None for m in matches)
    assert api(alice).get(f"/api/lab/{run.pk}/matches/1/replay/").status_code == 403
    csv_text = b"".join(api(alice).get(f"/api/lab/{run.pk}/csv/").streaming_content).decode()
    assert starter.name not in csv_text
