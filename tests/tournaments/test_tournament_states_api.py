"""The state machine and the rest of the API: creating (the engine checks the rules
parameters), starting (organiser only, once), the tick starting due events or cancelling
them for too few entries, advancing twice pairing a round once, pause and resume, a
failed match shown and re-run, a drawn elimination match replayed with seats swapped,
and the tournament seed kept secret while the event runs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from tournament_helpers import fill, make_event, make_player, play_out

from matches.models import Match
from tournaments.models import Pairing, Round, Tournament
from tournaments.services import (
    tournament_advance,
    tournament_pause,
    tournament_rerun_pairing,
    tournament_resume,
    tournament_start,
    tournament_tick,
)

pytestmark = pytest.mark.django_db


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def create_body(**extra):
    body = {"game": "conquest", "name": "Friday pods", "starts_at": (timezone.now() + timedelta(hours=2)).isoformat(),
            "format": "conquest_pods", "players_per_game": 4, "best_of": 1}
    body.update(extra)
    return body


def test_create_through_the_api_makes_you_the_organiser(organiser):
    response = client_for(organiser).post("/api/tournaments/", create_body(params={"battles": 5}), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["organiser"] == "orga" and body["state"] == "open" and body["params"] == {"battles": 5}
    assert body["seed"] is None
    listed = client_for().get("/api/tournaments/?game=conquest&format=conquest_pods").json()
    assert [t["id"] for t in listed["results"]] == [body["id"]]


def test_create_refuses_bad_settings_naming_each_field(organiser):
    response = client_for(organiser).post("/api/tournaments/", create_body(
        params={"battles": -3}, players_per_game=5, top_cut=8), format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert {"params", "players_per_game", "top_cut"} <= set(fields)
    assert Tournament.objects.count() == 0


def test_create_needs_a_signed_in_player():
    response = client_for().post("/api/tournaments/", create_body(), format="json")
    assert response.status_code in (401, 403)
    assert Tournament.objects.count() == 0


def test_bad_list_filter_is_400():
    response = client_for().get("/api/tournaments/?format=knockout")
    assert response.status_code == 400
    assert "format" in response.json()["error"]["fields"]


def test_start_is_for_the_organiser_and_happens_once(organiser, sent):
    event = make_event(organiser)
    fill(event, 4)
    stranger = make_player("stranger")
    assert client_for(stranger).post(f"/api/tournaments/{event.pk}/start/").status_code == 403
    assert Tournament.objects.get(pk=event.pk).state == "open"
    response = client_for(organiser).post(f"/api/tournaments/{event.pk}/start/")
    assert response.status_code == 200 and response.json()["state"] == "running"
    assert response.json()["seed"] is None  # secret while it runs
    again = client_for(organiser).post(f"/api/tournaments/{event.pk}/start/")
    assert again.status_code == 409
    assert Round.objects.filter(tournament=event).count() == 1


def test_tick_starts_due_events_and_cancels_those_with_too_few_entries(organiser, sent):
    due = make_event(organiser, name="due", starts_at=timezone.now() + timedelta(minutes=5))
    fill(due, 3)
    lonely = make_event(organiser, name="lonely", starts_at=timezone.now() + timedelta(minutes=5), min_entries=4)
    fill(lonely, 3, prefix="q")
    later = make_event(organiser, name="later", starts_at=timezone.now() + timedelta(hours=5))
    report = tournament_tick(now=timezone.now() + timedelta(minutes=6))
    assert report["started"] == [due.pk] and report["cancelled"] == [lonely.pk]
    lonely.refresh_from_db()
    assert lonely.state == "cancelled"
    assert "3 entered, 4 needed" in lonely.cancel_reason
    assert Tournament.objects.get(pk=later.pk).state == "open"
    page = Client().get(f"/tournaments/{lonely.pk}/")
    assert "3 entered, 4 needed" in page.content.decode()


def test_advancing_twice_pairs_the_next_round_once(organiser, sent):
    from matches.tasks import run_match

    event = make_event(organiser, rounds=3)
    fill(event, 6)
    tournament_start(tournament_id=event.pk, by=organiser)
    for match in Match.objects.filter(kind="tournament"):
        run_match.apply(args=[match.pk])
    tournament_advance(tournament_id=event.pk)
    tournament_advance(tournament_id=event.pk)
    assert Round.objects.filter(tournament=event).count() == 2
    assert Pairing.objects.filter(round__tournament=event, round__number=2).count() == 3
    # The database refuses a second round 2 even to a writer that skipped the lock.
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(tournament=event, number=2, stage="swiss")


def test_pause_holds_the_next_round_until_resume(organiser, sent):
    from matches.tasks import run_match

    event = make_event(organiser, rounds=2)
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    tournament_pause(tournament_id=event.pk, by=organiser)
    for match in Match.objects.filter(kind="tournament"):
        run_match.apply(args=[match.pk])
    assert tournament_advance(tournament_id=event.pk).startswith("not running")
    assert Round.objects.filter(tournament=event).count() == 1
    tournament_resume(tournament_id=event.pk, by=organiser)
    assert Round.objects.filter(tournament=event).count() == 2


def test_failed_match_waits_for_the_organiser_who_reruns_it(organiser, sent):
    from matches.services import _fail

    event = make_event(organiser, rounds=1)
    fill(event, 2)
    tournament_start(tournament_id=event.pk, by=organiser)
    pairing = Pairing.objects.get(round__tournament=event)
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=pairing.match_id)
        _fail(match, timezone.now(), "playing the match raised RuntimeError: engine bug")
    tournament_advance(tournament_id=event.pk)
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.FAILED
    browser = Client()
    browser.force_login(organiser)
    page = browser.get(f"/tournaments/{event.pk}/")
    assert "Failed matches" in page.content.decode() and "engine bug" in page.content.decode()
    assert Tournament.objects.get(pk=event.pk).state == "running"
    with pytest.raises(PermissionDenied):
        tournament_rerun_pairing(pairing_id=pairing.pk, by=make_player("nobody"))
    tournament_rerun_pairing(pairing_id=pairing.pk, by=organiser)
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.PLAYING and pairing.match_id != match.pk
    assert pairing.replaced == [{"match": match.pk, "why": "failed"}]
    assert play_out(event).state == Tournament.State.FINISHED


def test_drawn_elimination_match_is_replayed_with_seats_swapped(organiser, sent):
    from matches.services import _finish

    event = make_event(organiser, format="single_elim")
    entries = fill(event, 2)
    tournament_start(tournament_id=event.pk, by=organiser)
    pairing = Pairing.objects.get(round__tournament=event)
    first = pairing.match
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=first.pk)
        _finish(locked)  # no games: 0-0, a draw
    tournament_advance(tournament_id=event.pk)
    pairing.refresh_from_db()
    assert pairing.replaced == [{"match": first.pk, "why": "drawn"}]
    assert pairing.seat_entries == list(reversed(pairing.entries))
    replay = pairing.match
    assert replay.best_of == 1
    assert [s.deck_version_id for s in replay.seats.order_by("seat")] == [
        next(e.deck_version_id for e in entries if e.pk == entry_id) for entry_id in pairing.seat_entries]
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED and event.winner_id in pairing.entries


def test_round_endpoint_and_standings(organiser, sent):
    event = make_event(organiser, rounds=2)
    fill(event, 5)
    tournament_start(tournament_id=event.pk, by=organiser)
    round_1 = client_for().get(f"/api/tournaments/{event.pk}/rounds/1/").json()
    assert len(round_1["pairings"]) == 3
    assert sum(1 for p in round_1["pairings"] if p["bye"]) == 1
    assert all(p["match"] for p in round_1["pairings"] if not p["bye"])
    assert client_for().get(f"/api/tournaments/{event.pk}/rounds/9/").status_code == 404
    play_out(event)
    standings = client_for().get(f"/api/tournaments/{event.pk}/standings/").json()
    assert len(standings) == 5
    keys = [(-row["points"], -row["omw"], -row["gwp"], -row["ogw"]) for row in standings]
    assert keys == sorted(keys)
    detail = client_for().get(f"/api/tournaments/{event.pk}/").json()
    assert detail["state"] == "finished" and detail["seed"] == Tournament.objects.get(pk=event.pk).seed
    entries = client_for().get(f"/api/tournaments/{event.pk}/entries/").json()
    assert all(e["decklist"] for e in entries["results"])  # public once started


def test_a_deck_deleted_after_entering_fails_its_table_until_the_organiser_drops_the_player(organiser, sent):
    from decks.services import deck_archive
    from matches.tasks import run_match

    event = make_event(organiser, rounds=2)
    entries = fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    gone = entries[0]
    deck_archive(deck=gone.deck, actor=gone.player)
    for pairing in Pairing.objects.filter(round__tournament=event):
        run_match.apply(args=[pairing.match_id])
    tournament_advance(tournament_id=event.pk)
    broken = next(p for p in Pairing.objects.filter(round__tournament=event, round__number=2) if gone.pk in p.entries)
    assert broken.status == Pairing.Status.FAILED and "deleted" in broken.result["error"]
    from tournaments.errors import Conflict

    with pytest.raises(Conflict):
        tournament_rerun_pairing(pairing_id=broken.pk, by=organiser)
    from tournaments.services import tournament_drop

    tournament_drop(entry_id=gone.pk, by=organiser)
    tournament_rerun_pairing(pairing_id=broken.pk, by=organiser)
    broken.refresh_from_db()
    assert broken.status == Pairing.Status.DONE and broken.result["walkover"]
    assert play_out(event).state == Tournament.State.FINISHED
