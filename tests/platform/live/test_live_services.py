"""The one door of every live move (live_act), clocks and time-outs, bots, matchmaking,
challenges: services called directly, as views, consumers and tasks call them."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from live_helpers import make_deck

from engine.core import Rng
from live import broadcasts, creation, endings, engine_state, selectors
from live import challenges as live_challenges
from live import matchmaking as live_matchmaking
from live import moves as live_moves
from live.creation import SeatSpec
from live.errors import LiveError
from live.models import LiveChallenge, LiveMatch, LiveSeat, QueueEntry
from matches.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def tempofront_match(alice, bob, **kwargs) -> LiveMatch:
    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    return creation.live_create(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)],
                                **kwargs)


def state_of(live: LiveMatch):
    """The live match as stored and its engine state (the process's cached state: read it
    before the next move, which advances it)."""
    live = LiveMatch.objects.select_related("match").get(pk=live.pk)
    with engine_state.state_of(live) as state:
        return live, state


def user_for(seat: int, live: LiveMatch):
    return LiveSeat.objects.get(live=live, seat=seat).user


def test_a_live_match_is_a_running_match_of_kind_live_that_no_worker_claims(alice, bob, sent):
    live = tempofront_match(alice, bob)
    match = Match.objects.get(pk=live.match_id)
    assert (match.kind, match.status, match.lease_expires) == ("live", "running", None)
    assert [s.pilot for s in match.seats.order_by("seat")] == ["human", "human"]
    assert not any(name.startswith("matches.") for name, _, _ in sent.tasks)


def test_every_seat_gets_its_own_view_and_spectators_the_public_one_after_a_move(alice, bob, sent):
    live = tempofront_match(alice, bob)
    live, state = state_of(live)
    seat = state.to_act()[0]
    sent.messages.clear()
    live_moves.live_act(match_id=live.match_id, user=user_for(seat, live), action_json={"kind": "keep"},
                        expected_index=0)
    live, state = state_of(live)
    assert live.log[0][:2] == [seat, {"kind": "keep"}]
    for s in (0, 1):
        (message,) = sent.for_group(broadcasts.group_for_seat(live.match_id, s))
        assert message["view"] == state.view(s)
        assert message["index"] == 1
    (public,) = sent.for_group(broadcasts.group_public(live.match_id))
    assert public["view"] == state.view(None)
    assert public["legal"] == []


def test_acting_out_of_turn_for_another_seat_or_unseated_is_refused_and_changes_nothing(alice, bob, carol, sent):
    live = tempofront_match(alice, bob)
    live, state = state_of(live)
    waiting = 1 - state.to_act()[0]
    cases = [
        (user_for(waiting, live), {"kind": "keep"}, None, "not_your_turn"),
        (carol, {"kind": "keep"}, None, "not_seated"),
        (user_for(state.to_act()[0], live), {"kind": "keep"}, waiting, "not_your_seat"),
        (user_for(state.to_act()[0], live), {"kind": "fly"}, None, "illegal_action"),
        (user_for(state.to_act()[0], live), ["keep"], None, "malformed_action"),
        (user_for(state.to_act()[0], live), {"kind": "keep", "x": {"deep": 1}}, None, "malformed_action"),
    ]
    for user, action, seat, code in cases:
        with pytest.raises(LiveError) as refused:
            live_moves.live_act(match_id=live.match_id, user=user, action_json=action, seat=seat)
        assert refused.value.code == code, (action, refused.value.message)
    assert LiveMatch.objects.get(pk=live.pk).log == []


def test_a_double_submitted_move_is_refused_as_stale(alice, bob, sent):
    live = tempofront_match(alice, bob)
    live, state = state_of(live)
    user = user_for(state.to_act()[0], live)
    live_moves.live_act(match_id=live.match_id, user=user, action_json={"kind": "keep"}, expected_index=0)
    with pytest.raises(LiveError) as refused:
        live_moves.live_act(match_id=live.match_id, user=user, action_json={"kind": "keep"}, expected_index=0)
    assert refused.value.code in ("stale", "not_your_turn")
    assert len(LiveMatch.objects.get(pk=live.pk).log) == 1


def play_randomly(live: LiveMatch, rng: Rng, limit: int = 2000) -> LiveMatch:
    for _ in range(limit):
        live, state = state_of(live)
        if live.is_over:
            return live
        seat = state.to_act()[0]
        action = rng.choice(state.legal_actions(seat))
        live_moves.live_act(match_id=live.match_id, user=user_for(seat, live), action_json=action.to_json(),
                            expected_index=len(live.log))
    raise AssertionError("the match did not end")


def test_a_match_played_to_the_end_is_stored_as_a_replay_that_reproduces_and_finishes_the_match(alice, bob, sent):
    from engine.core import Replay, verify_replay

    live = play_randomly(tempofront_match(alice, bob), Rng(7))
    assert live.status == "done" and live.outcome is not None
    replay = Replay.from_json(live.replay)
    assert len(replay.actions) == len(live.log)
    assert verify_replay(replay) == []
    match = Match.objects.get(pk=live.match_id)
    assert match.status == "done"
    assert match.result["places"] is not None
    with pytest.raises(LiveError) as refused:
        live_moves.live_act(match_id=live.match_id, user=alice, action_json={"kind": "pass"})
    assert refused.value.code == "finished"


def test_resigning_ends_the_match_with_the_other_seat_winning(alice, bob, sent):
    live = tempofront_match(alice, bob)
    live_moves.live_resign(match_id=live.match_id, user=bob)
    live = LiveMatch.objects.get(pk=live.pk)
    assert live.status == "done"
    assert live.outcome["winner"] == 0 and live.outcome["reason"] == "concession"
    assert LiveSeat.objects.get(live=live, seat=1).resigned


def test_clock_runs_for_the_seat_to_act_and_an_action_adds_the_increment(alice, bob, sent):
    live = tempofront_match(alice, bob, initial_ms=60_000, increment_ms=5_000)
    live, state = state_of(live)
    seat = state.to_act()[0]
    row = LiveSeat.objects.get(live=live, seat=seat)
    assert row.running_since is not None
    LiveSeat.objects.filter(pk=row.pk).update(running_since=timezone.now() - timedelta(seconds=10))
    live_moves.live_act(match_id=live.match_id, user=row.user, action_json={"kind": "keep"})
    row.refresh_from_db()
    assert 54_000 <= row.remaining_ms <= 55_100  # 60 s - 10 s spent + 5 s increment


def test_a_move_writes_its_log_deadline_and_changed_clocks_in_one_statement(alice, bob, sent):
    """live.queries.write_move: what the next move reads back is what this one changed (the
    log, the deadline, the clock of the seat that acted and of the seat now to act), in one
    statement on PostgreSQL (a WITH of the seats' UPDATE) and one per row on SQLite."""
    live = tempofront_match(alice, bob, initial_ms=60_000, increment_ms=5_000)
    for user in (alice, bob):  # present already: a first move would also record that
        live_moves.live_seat_present(match_id=live.match_id, user=user)
    live, state = state_of(live)
    seat = state.to_act()[0]
    LiveSeat.objects.filter(live=live, seat=seat).update(running_since=timezone.now() - timedelta(seconds=10))
    with CaptureQueriesContext(connection) as queries:
        live_moves.live_act(match_id=live.match_id, user=user_for(seat, live), action_json={"kind": "keep"},
                            expected_index=0)
    writes = [q["sql"] for q in queries.captured_queries
              if q["sql"].lstrip().upper().startswith(("UPDATE", "WITH", "INSERT", "DELETE"))]
    changed = 2  # the seat that acted and the seat now to act
    assert len(writes) == (1 if connection.vendor == "postgresql" else 1 + changed), writes
    stored, after = state_of(live)
    assert [entry[:2] for entry in stored.log] == [[seat, {"kind": "keep"}]]
    rows = {row.seat: row for row in LiveSeat.objects.filter(live=live)}
    assert 54_000 <= rows[seat].remaining_ms <= 55_100  # 60 s - 10 s spent + 5 s increment
    assert {s for s, row in rows.items() if row.running_since is not None} == set(after.to_act())
    assert seat not in after.to_act() and stored.next_deadline is not None
    running = rows[after.to_act()[0]]
    assert stored.next_deadline == running.running_since + timedelta(milliseconds=running.remaining_ms)


def test_a_seat_out_of_time_loses_tempofront(alice, bob, sent):
    live = tempofront_match(alice, bob, initial_ms=1_000)
    for user in (alice, bob):  # both came (a player who never did forfeits instead: test_live_no_show_clock.py)
        live_moves.live_seat_present(match_id=live.match_id, user=user)
    live, state = state_of(live)
    seat = state.to_act()[0]
    assert endings.live_enforce_clocks(now=timezone.now()) == []
    assert endings.live_enforce_clocks(now=timezone.now() + timedelta(seconds=2)) == [live.match_id]
    live = LiveMatch.objects.get(pk=live.pk)
    assert live.status == "done"
    assert live.outcome["places"][seat] == 2
    assert live.log[-1][1] == {"kind": "concede", "reason": "out of time"}


def test_games_created_together_share_one_clock_check_that_flags_each_of_them(alice, bob, monkeypatch):
    """A round of a live event creates its games in one batch (``live_create_many``): their
    clock checks, all due at the same moment, go as one ``live.check_clock`` message with
    every match, and that task applies each match's clock."""
    from config.celery import app
    from live import tasks
    from web import effects

    a = make_deck(alice, "tempofront", index=0).latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    plans = [creation.live_plan(seats=[SeatSpec(deck_version=a, user=alice), SeatSpec(deck_version=b, user=bob)],
                                initial_ms=1_000, increment_ms=0) for _ in range(3)]
    sent: list[tuple[str, list, float | None]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args, options["countdown"])))
    with effects.batched():
        lives = creation.live_create_many(plans)
    ids = [live.match_id for live in lives]
    checks = [(args, countdown) for name, args, countdown in sent if name == "live.check_clock"]
    assert len(checks) == 1 and checks[0][0] == [ids]
    assert 0.9 <= checks[0][1] <= 1.3  # due when the first clock runs out, plus a quarter second
    flagged = tasks.check_clock.run(ids)
    assert flagged == {str(i): [] for i in ids}  # not out of time yet
    LiveSeat.objects.filter(live__in=lives, running_since__isnull=False).update(
        running_since=timezone.now() - timedelta(seconds=2))
    flagged = tasks.check_clock.run(ids)
    assert all(len(seats) == 1 for seats in flagged.values()) and sorted(flagged) == sorted(map(str, ids))
    assert all(live.status == "done" for live in LiveMatch.objects.filter(pk__in=[lv.pk for lv in lives]))


def test_a_conquest_seat_out_of_time_in_four_is_played_by_the_random_bot_and_ranks_last(alice, bob, carol, sent):
    from django.contrib.auth.models import User

    dave = User.objects.create_user("dave", password="pw-dave-123")
    users = [alice, bob, carol, dave]
    specs = [SeatSpec(deck_version=make_deck(u, "conquest", index=i % 2).latest_version, user=u)
             for i, u in enumerate(users)]
    live = creation.live_create(seats=specs, initial_ms=1_000)
    for user in users:  # all came: a player who never did forfeits instead
        live_moves.live_seat_present(match_id=live.match_id, user=user)
    live, state = state_of(live)
    late = state.to_act()[0]
    assert endings.live_enforce_clock(match_id=live.match_id, now=timezone.now() + timedelta(seconds=2)) == [late]
    row = LiveSeat.objects.get(live=live, seat=late)
    assert row.timed_out_at is not None and row.pilot == "random"
    assert any(args[1] == late for args in sent.bot_calls())
    with pytest.raises(LiveError) as refused:
        live_moves.live_act(match_id=live.match_id, user=row.user, action_json={"kind": "keep"})
    assert refused.value.code == "timed_out"
    # Everyone else concedes nothing: play on, the late seat through its bot, to the end.
    rng = Rng(3)
    for _ in range(3000):
        live, state = state_of(live)
        if live.is_over:
            break
        seat = state.to_act()[0]
        if seat == late:
            assert live_moves.live_bot_move(match_id=live.match_id, seat=seat, index=len(live.log)) == "acted"
            continue
        LiveSeat.objects.filter(live=live).exclude(seat=late).update(remaining_ms=10**9)
        action = rng.choice(state.legal_actions(seat))
        live_moves.live_act(match_id=live.match_id, user=user_for(seat, live), action_json=action.to_json())
    assert live.is_over
    assert live.outcome["places"][late] == 4
    assert live.outcome["timed_out"] == [late]


def test_a_bot_seat_moves_on_a_worker_task_not_in_the_request(alice, sent):
    deck = make_deck(alice, "tempofront", index=0)
    from django.contrib.auth.models import User

    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "tempofront", index=1, starter=True)
    live = live_challenges.live_play_bot(user=alice, deck_version=deck.latest_version, bot="greedy")
    live, state = state_of(live)
    bot_seat = 1
    if bot_seat in state.to_act():
        assert sent.bot_calls() == [[live.match_id, bot_seat, 0]]
        assert live_moves.live_bot_move(match_id=live.match_id, seat=bot_seat, index=0) == "acted"
        assert live_moves.live_bot_move(match_id=live.match_id, seat=bot_seat, index=0) in ("already acted",
                                                                                           "not to act")
    live, state = state_of(live)
    assert all(entry[0] == bot_seat for entry in live.log)
    assert state.to_act() == (0,)


def test_play_bot_refuses_an_unknown_bot_and_a_deck_not_yours(alice, bob, sent):
    deck = make_deck(alice, "tempofront", index=0)
    with pytest.raises(ValidationError) as bad_bot:
        live_challenges.live_play_bot(user=alice, deck_version=deck.latest_version, bot="oracle")
    assert "unknown bot" in str(bad_bot.value)
    with pytest.raises(ValidationError) as not_yours:
        live_challenges.live_play_bot(user=bob, deck_version=deck.latest_version, bot="random")
    assert "not yours" in str(not_yours.value)


def test_the_spectator_view_never_names_a_card_in_a_hand(alice, bob, sent):
    """Hidden information: whatever a spectator is sent never contains a hand card's name
    (TempoFront's public view lists no decklist, so a hand card has no reason to appear)."""
    live = tempofront_match(alice, bob)
    rng = Rng(11)
    checked = 0
    for _ in range(60):
        live, state = state_of(live)
        if live.is_over:
            break
        hand_names = {c["name"] for s in (0, 1) for c in state.view(s).get("hand", [])}
        shown = {c["name"] for c in json.loads(json.dumps(state.view(None))).get("board_cards", [])}
        public = json.dumps(selectors.opening_payload(match_id=live.match_id, seat=None))
        public_now = json.dumps([m for g, m in sent.messages if g.endswith(".public")][-1:])
        for name in hand_names - shown:
            if name in json.dumps(state.view(None)):
                continue  # the same card is also on the board or in a discard pile
            checked += 1
            assert name not in public and name not in public_now, name
        seat = state.to_act()[0]
        live_moves.live_act(match_id=live.match_id, user=user_for(seat, live),
                            action_json=rng.choice(state.legal_actions(seat)).to_json())
    assert checked, "some hand card was off the board while the spectator watched: the check ran"


def test_reconnecting_gets_the_same_view_and_the_whole_event_log(alice, bob, sent):
    live = tempofront_match(alice, bob)
    live = play_randomly_some(live, 12)
    live, state = state_of(live)
    first = selectors.opening_payload(match_id=live.match_id, seat=0)
    again = selectors.opening_payload(match_id=live.match_id, seat=0)
    assert first["view"] == again["view"] == state.view(0)
    assert first["index"] == len(live.log)
    assert len(first["events"]) >= len(live.log)


def play_randomly_some(live: LiveMatch, count: int) -> LiveMatch:
    rng = Rng(5)
    for _ in range(count):
        live, state = state_of(live)
        seat = state.to_act()[0]
        live_moves.live_act(match_id=live.match_id, user=user_for(seat, live),
                            action_json=rng.choice(state.legal_actions(seat)).to_json())
    return LiveMatch.objects.get(pk=live.pk)


def test_a_delayed_spectator_sees_the_position_as_it_was(alice, bob, sent):
    live = tempofront_match(alice, bob, spectator_delay=30)
    live = play_randomly_some(live, 3)
    payload = selectors.opening_payload(match_id=live.match_id, seat=None)
    assert payload["index"] == 0
    later = selectors.opening_payload(match_id=live.match_id, seat=None, now=timezone.now() + timedelta(seconds=31))
    assert later["index"] == 3


def test_queue_pairs_two_players_of_the_same_game_and_seat_count(alice, bob, carol, sent):
    a = make_deck(alice, "tempofront").latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    c = make_deck(carol, "conquest").latest_version
    first = live_matchmaking.live_queue_join(user=alice, deck_version=a)
    assert first.match_id is None
    assert selectors.queue_status(user=alice)["state"] == "waiting"
    live_matchmaking.live_queue_join(user=carol, deck_version=c)
    second = live_matchmaking.live_queue_join(user=bob, deck_version=b)
    assert second.match_id is not None
    assert selectors.queue_status(user=alice) == {"state": "matched", "match": second.match_id,
                                                  "url": f"/live/{second.match_id}/"}
    assert selectors.queue_status(user=carol)["state"] == "waiting"
    live = LiveMatch.objects.get(match_id=second.match_id)
    assert sorted(r.user.username for r in live.seats.all()) == ["alice", "bob"]
    assert live_matchmaking.live_queue_leave(user=carol) is True
    assert selectors.queue_status(user=carol) == {"state": "idle"}


def test_the_rating_window_widens_with_waiting(alice, bob, settings, sent):
    settings.LIVE_WINDOW_BASE = 1.0
    settings.LIVE_WINDOW_PER_SECOND = 1.0
    a = make_deck(alice, "tempofront").latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    now = timezone.now()
    live_matchmaking.live_queue_join(user=alice, deck_version=a, now=now)
    QueueEntry.objects.filter(user=alice).update(rating=20.0)
    second = live_matchmaking.live_queue_join(user=bob, deck_version=b, now=now)
    assert second.match_id is None  # 20 points apart, windows of 1
    assert live_matchmaking.live_pair_queues(now=now + timedelta(seconds=5)) == []
    created = live_matchmaking.live_pair_queues(now=now + timedelta(seconds=25))
    assert len(created) == 1


def test_queue_refuses_a_deck_not_yours_and_a_bad_seat_count(alice, bob, sent):
    a = make_deck(alice, "tempofront").latest_version
    with pytest.raises(ValidationError, match="not yours"):
        live_matchmaking.live_queue_join(user=bob, deck_version=a)
    with pytest.raises(ValidationError, match="2 seats"):
        live_matchmaking.live_queue_join(user=alice, deck_version=a, seats=4)


def test_a_challenge_accepted_starts_a_match_and_declined_or_expired_does_not(alice, bob, sent):
    a = make_deck(alice, "tempofront").latest_version
    b = make_deck(bob, "tempofront", index=1).latest_version
    challenge = live_challenges.live_challenge(challenger=alice, challenged_username="BOB", deck_version=a)
    accepted = live_challenges.live_challenge_answer(challenge_id=challenge.pk, user=bob, accept=True, deck_version=b)
    assert accepted.status == "accepted" and accepted.match_id is not None
    declined = live_challenges.live_challenge(challenger=alice, challenged_username="bob", deck_version=a)
    assert live_challenges.live_challenge_answer(challenge_id=declined.pk, user=bob, accept=False).status == "declined"
    late = live_challenges.live_challenge(challenger=alice, challenged_username="bob", deck_version=a,
                                          now=timezone.now() - timedelta(hours=1))
    with pytest.raises(LiveError) as expired:
        live_challenges.live_challenge_answer(challenge_id=late.pk, user=bob, accept=True, deck_version=b)
    assert expired.value.code == "not_pending"
    assert LiveChallenge.objects.get(pk=late.pk).status == "expired"
    with pytest.raises(ValidationError, match="yourself"):
        live_challenges.live_challenge(challenger=alice, challenged_username="alice", deck_version=a)
    with pytest.raises(ValidationError, match="no player"):
        live_challenges.live_challenge(challenger=alice, challenged_username="nobody", deck_version=a)


def test_live_now_lists_matches_being_played(alice, bob, sent):
    live = tempofront_match(alice, bob)
    assert [m.match_id for m in selectors.live_now(10)] == [live.match_id]
    live_moves.live_resign(match_id=live.match_id, user=alice)
    assert list(selectors.live_now(10)) == []


def test_the_end_of_a_live_match_sends_match_finished_with_its_result(alice, bob, sent):
    """Other apps (the ladder's human pool) hear of a live result exactly as of any match."""
    from matches.signals import match_finished

    heard = []

    def receiver(sender, match, **kwargs):
        heard.append((match.pk, match.status, match.result["places"], match.winner_seat))

    match_finished.connect(receiver)
    try:
        live = tempofront_match(alice, bob)
        live_moves.live_resign(match_id=live.match_id, user=alice)
    finally:
        match_finished.disconnect(receiver)
    assert heard == [(live.match_id, "done", [2, 1], 1)]


def test_a_lost_bot_message_is_sent_again_by_the_tick(alice, sent):
    from django.contrib.auth.models import User

    site = User.objects.create_user("site", password="pw-site-123")
    make_deck(site, "tempofront", index=1, starter=True)
    live = live_challenges.live_play_bot(user=alice, deck_version=make_deck(alice, "tempofront").latest_version,
                                         bot="random")
    live, state = state_of(live)
    if 1 not in state.to_act():  # the person moves first: get to the bot's turn
        live_moves.live_act(match_id=live.match_id, user=alice, action_json=state.legal_actions(0)[0].to_json())
        live, state = state_of(live)
    assert 1 in state.to_act()
    sent.tasks.clear()
    assert live_moves.live_resend_bot_moves(now=timezone.now()) == []  # not idle yet
    assert live_moves.live_resend_bot_moves(now=timezone.now() + timedelta(seconds=31)) == [live.match_id]
    assert sent.bot_calls() == [[live.match_id, 1, len(live.log)]]


def test_the_home_page_lists_live_matches_being_played_now(client, alice, bob, sent):
    """Issue 16: the home page shows live matches as they arrive, and links each to its board."""
    assert "Nobody is playing live right now" in client.get("/").content.decode()
    live = tempofront_match(alice, bob)
    html = client.get("/").content.decode()
    assert "Live now" in html and f'href="{live.get_absolute_url()}"' in html
    assert "alice vs bob" in html
