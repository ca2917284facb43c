"""Entering, dropping and the waitlist through the API, and every refusal: someone else's
deck (403), an archived deck or one of the wrong game (400), twice, past the entry limit
and its waitlist, after late entry closed, into a cancelled or finished event (409).
Each refusal is in the API's error shape and changes nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient
from tournament_helpers import fill, make_deck, make_event, make_player, play_out

from decks.services import deck_archive
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_cancel, tournament_start

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def enter(user, event, deck_id):
    return client_for(user).post(f"/api/tournaments/{event.pk}/entries/", {"deck": deck_id}, format="json")


def assert_refused(response, status: int, code: str, text: str, event: Tournament, entries_before: int) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"]["code"] == code
    assert text in (body["error"]["message"] + " " + " ".join(m for ms in body["error"]["fields"].values()
                                                               for m in ms))
    assert Entry.objects.filter(tournament=event).count() == entries_before


def test_enter_with_own_deck_freezes_its_current_version(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    response = enter(alice, event, deck.pk)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["player"] == "alice" and body["deck_id"] == deck.pk and body["version"] == 1
    assert body["decklist"] is None  # not public before the start
    entry = Entry.objects.get(pk=body["id"])
    assert entry.deck_version == deck.latest_version


def test_someone_elses_deck_is_403(organiser):
    event = make_event(organiser)
    alice, bob = make_player("alice"), make_player("bob")
    deck = make_deck(bob, "tempofront")
    assert_refused(enter(alice, event, deck.pk), 403, "permission_denied", "not yours", event, 0)


def test_archived_deck_is_400(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    deck_archive(deck=deck, actor=alice)
    assert_refused(enter(alice, event, deck.pk), 400, "validation_error", "was deleted", event, 0)


def test_deck_of_the_wrong_game_is_400(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    deck = make_deck(alice, "conquest")
    assert_refused(enter(alice, event, deck.pk), 400, "validation_error", "Conquest deck", event, 0)


def test_unknown_deck_is_400(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    assert_refused(enter(alice, event, 999999), 400, "validation_error", "no deck 999999", event, 0)


def test_entering_twice_is_409(organiser):
    event = make_event(organiser)
    alice = make_player("alice")
    first, second = make_deck(alice, "tempofront", index=0), make_deck(alice, "tempofront", index=1)
    assert enter(alice, event, first.pk).status_code == 201
    assert_refused(enter(alice, event, second.pk), 409, "conflict", "already entered", event, 1)


def test_entry_limit_fills_the_waitlist_then_refuses(organiser):
    event = make_event(organiser, entry_limit=2)
    players = [make_player(f"p{i}") for i in range(5)]
    decks = [make_deck(p, "tempofront") for p in players]
    statuses = [enter(p, event, d.pk) for p, d in zip(players[:4], decks[:4], strict=True)]
    assert [r.json()["waitlisted"] for r in statuses] == [False, False, True, True]
    assert_refused(enter(players[4], event, decks[4].pk), 409, "conflict", "full", event, 4)


def test_drop_before_start_moves_the_waitlist_up(organiser):
    event = make_event(organiser, entry_limit=2)
    players = [make_player(f"p{i}") for i in range(3)]
    for p in players:
        enter(p, event, make_deck(p, "tempofront").pk)
    response = client_for(players[0]).delete(f"/api/tournaments/{event.pk}/entries/")
    assert response.status_code == 204
    waiting = Entry.objects.get(tournament=event, player=players[2])
    assert waiting.waitlisted is False
    assert not Entry.objects.filter(tournament=event, player=players[0]).exists()


def test_cancelled_and_finished_events_take_no_entries(organiser, sent):
    cancelled = make_event(organiser)
    tournament_cancel(tournament_id=cancelled.pk, by=organiser, reason="venue closed")
    alice = make_player("alice")
    deck = make_deck(alice, "tempofront")
    assert_refused(enter(alice, cancelled, deck.pk), 409, "conflict", "cancelled", cancelled, 0)

    finished = make_event(organiser, name="Done")
    fill(finished, 2)
    tournament_start(tournament_id=finished.pk, by=organiser)
    assert play_out(finished).state == Tournament.State.FINISHED
    assert_refused(enter(alice, finished, deck.pk), 409, "conflict", "finished", finished, 2)


def test_late_entry_up_to_its_round_then_closed(organiser, sent):
    event = make_event(organiser, late_entry_rounds=1, rounds=3)
    fill(event, 4)
    tournament_start(tournament_id=event.pk, by=organiser)
    late = make_player("late")
    response = enter(late, event, make_deck(late, "tempofront").pk)
    assert response.status_code == 201, response.content
    assert response.json()["late"] is True and response.json()["seed"] == 5
    later = make_player("later")
    Tournament.objects.filter(pk=event.pk).update(current_round=2)  # round 2 paired: late entry is over
    assert_refused(enter(later, event, make_deck(later, "tempofront").pk), 409, "conflict",
                   "Late entry is closed", event, 5)


def test_dropped_entry_is_not_paired_again_and_its_results_stand(organiser, sent):
    event = make_event(organiser, rounds=3)
    entries = fill(event, 6)
    tournament_start(tournament_id=event.pk, by=organiser)
    from matches.tasks import run_match
    from tournaments.models import Pairing
    from tournaments.services import tournament_advance

    for pairing in Pairing.objects.filter(round__tournament=event, round__number=1):
        if pairing.match_id:
            run_match.apply(args=[pairing.match_id])
    dropper = entries[0]
    response = client_for(dropper.player).delete(f"/api/tournaments/{event.pk}/entries/")
    assert response.status_code == 204
    tournament_advance(tournament_id=event.pk)
    later = Pairing.objects.filter(round__tournament=event, round__number__gt=1)
    assert later.exists()
    assert all(dropper.pk not in p.entries for p in later)
    first_round = Pairing.objects.filter(round__tournament=event, round__number=1)
    assert any(dropper.pk in p.entries and p.status == Pairing.Status.DONE for p in first_round)
    event = play_out(event)
    assert event.state == Tournament.State.FINISHED


def test_organiser_drops_anyone_but_a_player_only_themself(organiser):
    event = make_event(organiser)
    alice, bob = make_player("alice"), make_player("bob")
    enter(alice, event, make_deck(alice, "tempofront").pk)
    bob_entry = enter(bob, event, make_deck(bob, "tempofront").pk).json()["id"]
    refused = client_for(alice).delete(f"/api/tournaments/{event.pk}/entries/?entry={bob_entry}")
    assert refused.status_code == 403
    assert Entry.objects.filter(pk=bob_entry).exists()
    assert client_for(organiser).delete(f"/api/tournaments/{event.pk}/entries/?entry={bob_entry}").status_code == 204
    assert not Entry.objects.filter(pk=bob_entry).exists()
