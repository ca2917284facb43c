"""The deck lab's services: starting a run (and every refusal changing nothing), playing
it chunk by chunk with each match recorded exactly once, the sweeper, cancelling, and a
Highcard run. The chunks are played in this process as the worker's task would
(``conftest.play_in_process``); tests/platform/lab/test_lab_worker.py uses real workers."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.utils import timezone

from decks.services import deck_register
from engine import games
from lab.models import LabChunk, LabMatch, LabRun
from lab.play import play_chunk
from lab.services import (
    PLAY_CHUNK,
    LabAlreadyRunning,
    LeaseLost,
    lab_cancel,
    lab_claim_chunk,
    lab_record_chunk,
    lab_start,
    lab_sweep_expired,
)
from ladder.models import Pool, Rating
from matches.models import Match
from web.apperrors import AppError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "games"))
import tiny_game  # noqa: E402  (the test game lives beside the games tests)
from lab_helpers import make_deck, play_in_process  # noqa: E402

# Real commits: what a service sends on commit is recorded when it commits.
pytestmark = pytest.mark.django_db(transaction=True)


def state() -> tuple[int, int, int]:
    return LabRun.objects.count(), LabChunk.objects.count(), LabMatch.objects.count()


def test_a_run_is_cut_into_chunks_covering_every_match_once_and_sent_to_the_lab_queue(alice, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=123, field_kind="starters", pilot="random")
    assert run.status == "queued" and run.matches_wanted == 123 and run.opponent_pilot == "random"
    numbers = [n for chunk in run.chunks.order_by("first") for n in chunk.numbers]
    assert numbers == list(range(1, 124))
    sent = [(name, args, queue) for name, args, queue, _ in effects_recorded.tasks]
    assert sent == [(PLAY_CHUNK, [c.pk], "lab") for c in run.chunks.order_by("first")]


def test_the_default_is_two_hundred_matches_against_the_top_eight_of_the_bot_ladder(alice, bob, effects_recorded):
    deck = make_deck(alice)
    rated = [make_deck(bob, index=i % 2, name=f"bob {i}") for i in range(10)]
    for i, other in enumerate(rated):
        Rating.objects.create(pool=Pool.BOTS, game="tempofront", deck=other, ordinal=float(i))
    Rating.objects.create(pool=Pool.BOTS, game="tempofront", deck=deck, ordinal=100.0)  # never its own opponent
    run = lab_start(owner=alice, deck=deck)
    assert run.matches_wanted == 200 and run.field_kind == "ladder"
    assert run.field_versions == [d.latest_version.pk for d in reversed(rated)][:8]


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"n": 0}, "n"),
    ({"n": 2001}, "n"),
    ({"n": "ten"}, "n"),
    ({"n": -5}, "n"),
    ({"pilot": "search:strong"}, "pilot"),
    ({"pilot": "nobody"}, "pilot"),
    ({"pilot": "search:fast/iterations=99999"}, "pilot"),
    ({"opponent_pilot": "grumpy"}, "opponent_pilot"),
    ({"field_kind": "everyone"}, "field_kind"),
    ({"field_kind": "decks", "field_decks": []}, "field_decks"),
    ({"field_kind": "decks", "field_decks": ["x"]}, "field_decks"),
    ({"field_kind": "decks", "field_decks": [999999]}, "field_decks"),
    ({"field_kind": "decks", "field_decks": list(range(1, 18))}, "field_decks"),
    ({"field_kind": "ladder", "top": 0}, "top"),
    ({"field_kind": "ladder"}, "field_kind"),  # no rated deck yet
])
def test_bad_input_is_refused_naming_the_field_and_changes_nothing(alice, effects_recorded, kwargs, field):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    before = state()
    with pytest.raises(ValidationError) as refused:
        lab_start(owner=alice, deck=deck, **{"field_kind": "starters", **kwargs})
    assert field in refused.value.message_dict
    assert state() == before and effects_recorded.tasks == []


def test_a_field_deck_of_another_game_is_refused(alice, bob, effects_recorded):
    deck = make_deck(alice)
    conquest = make_deck(bob, "conquest")
    with pytest.raises(ValidationError, match="Conquest deck") as refused:
        lab_start(owner=alice, deck=deck, field_kind="decks", field_decks=[conquest.pk])
    assert "field_decks" in refused.value.message_dict
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_a_field_deck_hidden_from_the_owner_is_refused_as_missing(alice, bob, effects_recorded, monkeypatch):
    """A deck entered in an event that has not published its decklists yet is hidden
    (decks.permissions.DeckVisibility): the lab refuses it exactly as a deck that does not exist."""
    deck = make_deck(alice)
    secret = make_deck(bob, name="Bob secret brew")
    until = timezone.now() + timedelta(hours=2)
    monkeypatch.setattr("decks.permissions.withheld_decks", lambda **kw: [
        {"deck": secret.pk, "owner": bob.pk, "organiser": None, "until": until}])
    with pytest.raises(ValidationError) as refused:
        lab_start(owner=alice, deck=deck, field_kind="decks", field_decks=[secret.pk])
    assert refused.value.message_dict["field_decks"] == [f"there is no deck {secret.pk} you may play against"]
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_public_decks_of_other_players_may_be_named(alice, bob, effects_recorded):
    deck = make_deck(alice)
    other = make_deck(bob, index=1)
    run = lab_start(owner=alice, deck=deck, n=4, field_kind="decks", field_decks=[other.pk, deck.pk])
    assert run.field_versions == [other.latest_version.pk, deck.latest_version.pk]


def test_only_the_owner_starts_a_lab_of_a_deck(alice, bob, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    with pytest.raises(PermissionDenied):
        lab_start(owner=bob, deck=deck, field_kind="starters")
    assert state() == (0, 0, 0) and effects_recorded.tasks == []


def test_someone_elses_hidden_deck_is_answered_as_missing(alice, bob, monkeypatch):
    deck = make_deck(alice)
    monkeypatch.setattr("decks.permissions.withheld_decks", lambda **kw: [
        {"deck": deck.pk, "owner": alice.pk, "organiser": None, "until": timezone.now() + timedelta(hours=1)}])
    with pytest.raises(Http404):
        lab_start(owner=bob, deck=deck, field_kind="starters")


def test_a_second_open_run_is_refused_with_409_and_changes_nothing(alice, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    first = lab_start(owner=alice, deck=deck, n=10, field_kind="starters")
    before, sent = state(), list(effects_recorded.tasks)
    with pytest.raises(LabAlreadyRunning) as refused:
        lab_start(owner=alice, deck=deck, n=10, field_kind="starters")
    assert refused.value.status == 409 and f"lab run {first.pk}" in refused.value.message
    assert state() == before and effects_recorded.tasks == sent


def test_the_database_refuses_a_second_open_run_even_past_the_check(alice):
    """The partial unique constraint holds when two requests race past the service's check."""
    from django.db import IntegrityError, transaction

    deck = make_deck(alice)
    LabRun.objects.create(owner=alice, game="tempofront", deck=deck, deck_version=deck.latest_version,
                          pilot="random", opponent_pilot="random", matches_wanted=1, seed=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        LabRun.objects.create(owner=alice, game="tempofront", deck=deck, deck_version=deck.latest_version,
                              pilot="random", opponent_pilot="random", matches_wanted=1, seed=2, status="running")


def test_a_run_plays_every_match_once_swapping_seats_and_naming_the_cards_used(alice, effects_recorded):
    deck = make_deck(alice)
    rival = make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=12, field_kind="starters", pilot="random")
    run = play_in_process(run)
    assert run.status == "done" and run.progress == 12 and run.finished is not None
    matches = list(run.matches.order_by("number"))
    assert [m.number for m in matches] == list(range(1, 13))
    assert [m.deck_seat for m in matches] == [0, 1] * 6
    assert {m.opponent_version_id for m in matches} == {rival.latest_version.pk}
    names = {name for name, _n in deck.latest_version.to_engine().cards}
    for match in matches:
        assert match.outcome in ("win", "loss", "draw") and match.actions > 0 and match.ending
        assert set(match.usage["deck"]["drawn"]) <= names
        assert set(match.usage["deck"]["played"]) <= set(match.usage["deck"]["drawn"])
        replay = match.load_replay()
        assert replay.outcome is not None and replay.decks[match.deck_seat].name == deck.name
    # Lab matches are unrated and enter no ladder: no Match row, no rating.
    assert Match.objects.count() == 0 and Rating.objects.count() == 0


def test_a_chunk_is_written_once_a_second_write_or_a_lost_lease_writes_nothing(alice, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=4, field_kind="starters")
    chunk = run.chunks.get()
    claimed = lab_claim_chunk(chunk_id=chunk.pk, worker="a")
    assert lab_claim_chunk(chunk_id=chunk.pk, worker="b") is None  # held under a live lease
    played = play_chunk(claimed, worker="a")
    lab_record_chunk(chunk_id=chunk.pk, worker="a", played=played)
    with pytest.raises(LeaseLost):
        lab_record_chunk(chunk_id=chunk.pk, worker="a", played=played)
    assert lab_claim_chunk(chunk_id=chunk.pk, worker="b") is None  # done: never played again
    assert run.matches.count() == 4


def test_the_sweeper_hands_on_a_chunk_whose_worker_stopped_and_the_late_worker_writes_nothing(
        alice, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=3, field_kind="starters")
    chunk = run.chunks.get()
    stale = lab_claim_chunk(chunk_id=chunk.pk, worker="dead")
    played_by_dead = play_chunk(stale, worker="dead")
    assert lab_sweep_expired().requeued == []  # the lease still holds
    report = lab_sweep_expired(now=timezone.now() + timedelta(minutes=5))
    assert report.requeued == [chunk.pk]
    assert effects_recorded.tasks_named(PLAY_CHUNK) == [[chunk.pk], [chunk.pk]]  # sent at the start, then again
    fresh = lab_claim_chunk(chunk_id=chunk.pk, worker="alive")
    lab_record_chunk(chunk_id=chunk.pk, worker="alive", played=play_chunk(fresh, worker="alive"))
    with pytest.raises(LeaseLost):
        lab_record_chunk(chunk_id=chunk.pk, worker="dead", played=played_by_dead)
    run.refresh_from_db()
    assert run.status == "done" and run.matches.count() == 3 and fresh.attempts == 2
    # Replayed with the same seeds: the games the dead worker had played are dealt again.
    assert [m.outcome for m in run.matches.order_by("number")] == [p.outcome for p in played_by_dead]


def test_a_chunk_out_of_attempts_fails_its_run(alice, effects_recorded, settings):
    settings.LAB_MAX_ATTEMPTS = 1
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=2, field_kind="starters")
    chunk = run.chunks.get()
    lab_claim_chunk(chunk_id=chunk.pk, worker="dead")
    report = lab_sweep_expired(now=timezone.now() + timedelta(minutes=5))
    assert report.failed == [chunk.pk]
    run.refresh_from_db()
    assert run.status == "failed" and "attempts" in run.error


def test_cancelling_stops_the_run_and_a_worker_playing_it_writes_nothing(alice, effects_recorded):
    deck = make_deck(alice)
    make_deck(alice, index=1, starter=True)
    run = lab_start(owner=alice, deck=deck, n=4, field_kind="starters")
    chunk = lab_claim_chunk(chunk_id=run.chunks.get().pk, worker="w")
    played = play_chunk(chunk, worker="w")
    lab_cancel(run_id=run.pk, user=alice)
    with pytest.raises(LeaseLost):
        lab_record_chunk(chunk_id=chunk.pk, worker="w", played=played)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.matches.count() == 0
    with pytest.raises(AppError) as again:
        lab_cancel(run_id=run.pk, user=alice)
    assert again.value.status == 409
    # The owner may start another lab now.
    assert lab_start(owner=alice, deck=deck, n=2, field_kind="starters").status == "queued"


@pytest.fixture
def highcard():
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  (schema lists read the registry when first imported)
    tiny_game.register()
    yield games["highcard"]
    tiny_game.unregister()


def test_a_highcard_lab_run_reports_every_card_and_the_high_road_always_winning(alice, bob, highcard,
                                                                                 effects_recorded):
    """Highcard (tests/platform/games/tiny_game.py): three rounds draw all six cards of a
    deck, and High Road (Three to Five) beats Low Road (One to Three) every time."""
    high = deck_register(owner=alice, game="highcard", name="High", pilot="random",
                         decklist="Captain: Captain Blue\n2 Three\n2 Four\n2 Five\n")
    low = deck_register(owner=bob, game="highcard", name="Low", pilot="random",
                        decklist="Captain: Captain Red\n2 One\n2 Two\n2 Three\n")
    run = play_in_process(lab_start(owner=alice, deck=high, n=6, field_kind="decks", field_decks=[low.pk]))
    assert run.status == "done"
    assert [m.outcome for m in run.matches.order_by("number")] == ["win"] * 6
    for match in run.matches.all():
        assert match.usage["deck"]["drawn"] == ["Five", "Four", "Three"]
        assert match.usage["opponent"]["drawn"] == ["One", "Three", "Two"]
