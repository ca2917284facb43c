"""Live events (docs/tournaments.md, "Live events"): who plays, check-in, live tables with
the event's clock, no-shows, drops after two absences, the round's hard limit, best-of
series and scheduled rounds, driven through the services in this process (the real
sockets and workers are in tests/platform/e2e/test_live_tournament_e2e.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from tournament_helpers import make_deck, make_event, make_player

from engine.core import Replay, verify_replay
from live.models import LiveMatch, LiveSeat
from live.moves import live_resign, live_seat_present
from matches.models import Match
from tournaments import live as live_events
from tournaments.errors import Conflict
from tournaments.models import Entry, Pairing, Tournament
from tournaments.selectors import entry_names, my_match, pairing_rows, standings_rows
from tournaments.services import (
    tournament_advance,
    tournament_drop,
    tournament_enter,
    tournament_start,
    tournament_tiebreak_resolve,
)


class Asked:
    """The tasks recorded, as (name, id) for a task of one id sent at once, (name, args)
    for others sent at once, (name, {"args", "queue", "countdown"}) for those sent with a
    countdown."""

    def __init__(self, record):
        self.record = record

    def __iter__(self):
        for name, args, queue, countdown in self.record.tasks:
            if countdown is not None:
                yield name, {"args": args, "queue": queue, "countdown": countdown}
            else:
                yield name, args[0] if len(args) == 1 else args

    def clear(self) -> None:
        self.record.tasks.clear()


@pytest.fixture(autouse=True)
def quiet(effects_recorded):
    """Tasks and views are recorded instead of sent: these tests drive the event themselves."""
    return Asked(effects_recorded)


def people_event(organiser, **values):
    values.setdefault("entrants", "people")
    values.setdefault("check_in_minutes", 0)
    values.setdefault("starts_at", timezone.now() + timedelta(minutes=30))
    return make_event(organiser, **values)


def enter_people(event, count, *, prefix="p", plays=None):
    entries = []
    for i in range(count):
        player = make_player(f"{prefix}{event.pk}x{i}")
        deck = make_deck(player, event.game, index=i)
        entries.append(tournament_enter(tournament_id=event.pk, player=player, deck_id=deck.pk, plays=plays))
    return entries


def tables(event, number=None):
    event.refresh_from_db()
    rnd = event.round_set.get(number=number or event.current_round)
    return list(rnd.pairings.select_related("match").order_by("table"))


def seat_user(pairing, index):
    return Entry.objects.get(pk=(pairing.seat_entries or pairing.entries)[index]).player


def show_up(pairing):
    """Both players open their boards (what the board socket does on connect)."""
    for index in range(len(pairing.entries)):
        live_seat_present(match_id=pairing.match_id, user=seat_user(pairing, index))


def finish_by_resignation(pairing, loser_index=1):
    """The player in seat ``loser_index`` resigns: the game ends at once, the other wins."""
    show_up(pairing)
    live_resign(match_id=pairing.match_id, user=seat_user(pairing, loser_index))


# --------------------------------------------------------------------------- settings and entries


@pytest.mark.django_db
def test_live_settings_are_checked_all_at_once_and_named(organiser):
    with pytest.raises(ValidationError) as caught:
        people_event(organiser, clock_initial=5, no_show_minutes=10, round_limit_minutes=10,
                     round_start="scheduled", bot_cap="greedy", entrants="people")
    errors = caught.value.message_dict
    assert "clock_initial" in errors and "from 10 to 7200" in errors["clock_initial"][0]
    assert "longer than the no-show time" in errors["round_limit_minutes"][0]
    assert "round_minutes" in errors and "bot_cap" in errors and "mixed" in errors["bot_cap"][0]
    assert Tournament.objects.count() == 0
    with pytest.raises(ValidationError) as caught:
        people_event(organiser, entrants="mixed", bot_cap="godlike")
    assert "random, greedy, search:fast, search:strong" in caught.value.message_dict["bot_cap"][0]
    with pytest.raises(ValidationError) as caught:
        people_event(organiser, round_start="scheduled", round_minutes=10, round_limit_minutes=30)
    assert "would overlap" in caught.value.message_dict["round_minutes"][0]


@pytest.mark.django_db
def test_who_plays_an_entry_follows_the_event_and_the_bot_cap(organiser):
    """Issue 21 (1): people-only takes no bot; a mixed event takes bots up to its cap; a
    bot event is played by pilots only."""
    people = people_event(organiser)
    mixed = people_event(organiser, entrants="mixed", bot_cap="greedy", name="Mixed")
    bots = make_event(organiser, name="Bots")
    player = make_player("deckowner")
    strong = make_deck(player, "tempofront", pilot="search:strong")
    weak = make_deck(player, "tempofront", index=1, pilot="greedy")
    with pytest.raises(ValidationError, match="bots cannot enter"):
        tournament_enter(tournament_id=people.pk, player=player, deck_id=weak.pk, plays="bot")
    with pytest.raises(ValidationError, match="stronger than this event's cap 'greedy'"):
        tournament_enter(tournament_id=mixed.pk, player=player, deck_id=strong.pk, plays="bot")
    with pytest.raises(ValidationError, match="bot pilots only"):
        tournament_enter(tournament_id=bots.pk, player=player, deck_id=weak.pk, plays="person")
    assert Entry.objects.count() == 0
    assert tournament_enter(tournament_id=mixed.pk, player=player, deck_id=weak.pk, plays="bot").plays == "bot"
    assert tournament_enter(tournament_id=people.pk, player=player, deck_id=strong.pk).plays == "person"
    assert tournament_enter(tournament_id=bots.pk, player=player, deck_id=strong.pk).plays == "bot"
    # One entry per person: the same account cannot enter twice, as itself or as its bot.
    other = make_deck(player, "tempofront", index=2, pilot="random")
    with pytest.raises(Conflict, match="already entered"):
        tournament_enter(tournament_id=mixed.pk, player=player, deck_id=other.pk, plays="person")


# --------------------------------------------------------------------------- check-in


@pytest.mark.django_db
def test_check_in_window_and_who_is_dropped_at_the_start(organiser):
    """Issue 21 (2): check-in opens ``check_in_minutes`` before the start; entrants who did
    not check in leave the field at the start, and checked-in waitlisted players move up."""
    start = timezone.now() + timedelta(minutes=60)
    event = people_event(organiser, check_in_minutes=15, starts_at=start, entry_limit=3)
    entries = enter_people(event, 4)
    assert entries[3].waitlisted
    players = [e.player for e in entries]
    with pytest.raises(Conflict, match="Check-in opens at"):
        live_events.tournament_check_in(tournament_id=event.pk, player=players[0], now=start - timedelta(minutes=20))
    assert Entry.objects.filter(checked_in__isnull=False).count() == 0
    opened = start - timedelta(minutes=10)
    for player in (players[0], players[1], players[3]):
        live_events.tournament_check_in(tournament_id=event.pk, player=player, now=opened)
    again = live_events.tournament_check_in(tournament_id=event.pk, player=players[0], now=opened)
    assert again.checked_in == opened  # idempotent: the first time stands
    stranger = make_player("stranger")
    with pytest.raises(Conflict, match="no entry"):
        live_events.tournament_check_in(tournament_id=event.pk, player=stranger, now=opened)
    assert my_match(tournament=event, user=players[0])["check_in"]["closes"] == start

    tournament_start(tournament_id=event.pk, now=start)
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=event)}
    missed = entries[players[2].pk]
    assert missed.dropped and missed.drop_reason == "did not check in" and missed.dropped_round == 0
    assert not entries[players[3].pk].waitlisted  # moved up into the freed place
    assert sorted(e for p in tables(event) for e in p.entries) == sorted(
        entries[p.pk].pk for p in (players[0], players[1], players[3]))
    with pytest.raises(Conflict, match="Check-in is over"):
        live_events.tournament_check_in(tournament_id=event.pk, player=players[0])


# --------------------------------------------------------------------------- rounds


@pytest.mark.django_db
def test_each_table_is_a_live_match_with_the_events_clock(organiser):
    """Issue 21 (2): each pairing becomes a live match with the event's clock (initial +
    increment per seat) and spectator delay; the round's deadline is set."""
    event = people_event(organiser, clock_initial=240, clock_increment=3, spectator_delay=20,
                         round_limit_minutes=25)
    entries = enter_people(event, 4)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    rnd = event.round_set.get(number=1)
    assert rnd.deadline - rnd.starts_at == timedelta(minutes=25)
    for pairing in tables(event):
        live = LiveMatch.objects.get(match=pairing.match)
        assert pairing.match.kind == Match.Kind.LIVE
        assert (live.initial_ms, live.increment_ms, live.spectator_delay) == (240_000, 3_000, 20)
        seats = list(live.seats.order_by("seat"))
        assert [s.user_id for s in seats] == [Entry.objects.get(pk=e).player_id for e in pairing.seat_entries]
        assert all(not s.bot for s in seats)
    first = entries[0].player
    mine = my_match(tournament=event, user=first)
    assert mine["status"] == "playing" and mine["board_url"].startswith("/live/")
    assert "your game is on" in mine["text"]
    # The clock of each live table is on the event page.
    row = pairing_rows(tournament=event)[0]
    assert row["live"]["active"] and [c["remaining_ms"] > 200_000 for c in row["live"]["clocks"]] == [True, True]


@pytest.mark.django_db
def test_a_no_show_forfeits_and_two_absences_in_a_row_drop_the_entry(organiser):
    """Issue 21 (3): a player not connected ``no_show_minutes`` after the round's start
    loses that match, recorded as a forfeit; absent two rounds in a row, they are dropped
    and not paired again."""
    event = people_event(organiser, rounds=3, no_show_minutes=3)
    entries = enter_people(event, 4)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    absent_entry = entries[0]
    for rnd_number in (1, 2):
        pairings = tables(event, rnd_number)
        start = event.round_set.get(number=rnd_number).starts_at
        for pairing in pairings:
            if absent_entry.pk in pairing.entries:
                other = [i for i, e in enumerate(pairing.seat_entries) if e != absent_entry.pk][0]
                live_seat_present(match_id=pairing.match_id, user=seat_user(pairing, other))
            else:
                finish_by_resignation(pairing)
        # Two minutes in: nobody is forfeited yet.
        tournament_advance(tournament_id=event.pk, now=start + timedelta(minutes=2))
        mine = next(p for p in tables(event, rnd_number) if absent_entry.pk in p.entries)
        assert mine.status == Pairing.Status.PLAYING
        tournament_advance(tournament_id=event.pk, now=start + timedelta(minutes=3, seconds=1))
        mine = Pairing.objects.get(pk=mine.pk)
        assert mine.status == Pairing.Status.DONE and mine.result["forfeit"] == [absent_entry.pk]
        winner_index = 1 - mine.entries.index(absent_entry.pk)
        assert mine.result["places"][winner_index] == 1 and mine.result["game_wins"][winner_index] == 1
        # The live match ended with the absent seat's forfeit, and its replay still verifies.
        live = LiveMatch.objects.get(match_id=mine.match_id)
        assert live.status == LiveMatch.Status.DONE and live.outcome["forfeited"]
        assert verify_replay(Replay.from_json(live.replay)) == []
    absent = Entry.objects.get(pk=absent_entry.pk)
    assert absent.dropped and absent.absences == 2 and absent.drop_reason == "absent 2 rounds in a row"
    assert absent.dropped_round == 2
    event.refresh_from_db()
    assert event.current_round == 3
    assert all(absent.pk not in p.entries or p.is_bye for p in tables(event, 3))
    standing = next(r for r in standings_rows(tournament=event) if r["entry"]["id"] == absent.pk)
    assert standing["entry"]["drop_reason"] == "absent 2 rounds in a row" and standing["losses"] == 2


@pytest.mark.django_db
def test_both_players_absent_lose_and_a_player_who_shows_up_again_starts_from_no_absences(organiser):
    event = people_event(organiser, rounds=2)
    enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    start = event.round_set.get(number=1).starts_at
    tournament_advance(tournament_id=event.pk, now=start + timedelta(minutes=4))
    (pairing,) = tables(event, 1)
    pairing.refresh_from_db()
    assert sorted(pairing.result["forfeit"]) == sorted(pairing.entries) and pairing.result["places"] == [2, 2]
    rows = standings_rows(tournament=event)
    assert [r["points"] for r in rows] == [0, 0] and [r["losses"] for r in rows] == [1, 1]
    (pairing,) = tables(event, 2)
    finish_by_resignation(pairing)
    tournament_advance(tournament_id=event.pk, now=timezone.now())
    assert list(Entry.objects.filter(tournament=event).values_list("absences", flat=True)) == [0, 0]
    event.refresh_from_db()
    assert event.state == Tournament.State.FINISHED


@pytest.mark.django_db
def test_the_round_limit_decides_games_still_running_and_says_so(organiser):
    """Issue 21 (3): a game still running at the round's hard limit is decided by the rules'
    own end condition where the game has one (TempoFront has none: a draw)."""
    event = people_event(organiser, rounds=1, round_limit_minutes=10)
    enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event)
    show_up(pairing)
    rnd = event.round_set.get(number=1)
    tournament_advance(tournament_id=event.pk, now=rnd.deadline - timedelta(seconds=1))
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.PLAYING
    tournament_advance(tournament_id=event.pk, now=rnd.deadline + timedelta(seconds=1))
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.DONE
    assert pairing.result["adjudicated"] and pairing.result["places"] == [1, 1]
    assert pairing.series[0]["adjudicated"]
    assert [r["draws"] for r in standings_rows(tournament=event)] == [1, 1]
    # The two share first place: Match the Twos decides the winner, then the event ends.
    (tiebreak,) = event.tiebreaks.all()
    tournament_tiebreak_resolve(tiebreak_id=tiebreak.pk)
    event.refresh_from_db()
    assert event.state == Tournament.State.FINISHED


@pytest.mark.django_db
def test_games_at_the_limit_are_decided_each_on_its_own_before_the_next_round_is_paired(organiser):
    """Issue 21 (3): at the round's limit the games still running are decided one by one,
    each in its own transaction (``settle_due_games``), before the advance takes the event's
    lock; the advance then records them and pairs the next round, which starts when it is
    paired. A game not yet due is left alone."""
    event = people_event(organiser, rounds=2, round_limit_minutes=10)
    enter_people(event, 4)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    pairings = tables(event)
    for pairing in pairings:
        show_up(pairing)
    rnd = event.round_set.get(number=1)
    assert live_events.settle_due_games(event.pk, rnd.deadline - timedelta(seconds=1)) == 0
    assert LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE).count() == 2
    assert live_events.settle_due_games(event.pk, rnd.deadline + timedelta(seconds=1)) == 2
    for pairing in pairings:
        live = LiveMatch.objects.get(match_id=pairing.match_id)
        assert live.status == LiveMatch.Status.DONE and live.outcome["detail"]["adjudicated"] == "round time limit"
        pairing.refresh_from_db()
        assert pairing.status == Pairing.Status.PLAYING  # recorded by the advance, under the lock
    # Nothing is due any more: a second call decides nothing.
    assert live_events.settle_due_games(event.pk, rnd.deadline + timedelta(seconds=2)) == 0
    tournament_advance(tournament_id=event.pk, now=rnd.deadline + timedelta(seconds=2))
    assert all(p.status == Pairing.Status.DONE and p.result["adjudicated"] for p in tables(event, 1))
    event.refresh_from_db()
    assert event.current_round == 2
    assert event.round_set.get(number=2).starts_at == rnd.deadline + timedelta(seconds=2)


@pytest.mark.django_db
def test_games_decided_by_the_advance_at_the_limit_ask_for_no_advance_of_their_own(
        organiser, quiet, django_capture_on_commit_callbacks):
    """The advance at a round's limit decides its games first, and then records them: their
    ends send no ``tournaments.advance`` each (one per table once ran, one after another,
    while the next round's players were opening their boards). A game that ends by itself
    still asks for one."""
    event = people_event(organiser, rounds=2, round_limit_minutes=10)
    enter_people(event, 6)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament_id=event.pk, now=event.starts_at)
    pairings = tables(event)
    for pairing in pairings:
        show_up(pairing)
    quiet.clear()
    with django_capture_on_commit_callbacks(execute=True):
        finish_by_resignation(pairings[0])
    assert [name for name, _ in quiet if name == "tournaments.advance"] == ["tournaments.advance"]
    quiet.clear()
    rnd = event.round_set.get(number=1)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_advance(tournament_id=event.pk, now=rnd.deadline + timedelta(seconds=1))
    event.refresh_from_db()
    assert event.current_round == 2
    assert all(p.status == Pairing.Status.DONE for p in tables(event, 1))
    # Only round 2's own timers (its no-show time and its limit, sent with a countdown),
    # none asked by the games decided.
    asked = [what for name, what in quiet if name == "tournaments.advance" and not isinstance(what, dict)]
    timers = [what for name, what in quiet if name == "tournaments.advance" and isinstance(what, dict)]
    assert asked == [] and len(timers) == 2 and all(kw["countdown"] > 0 for kw in timers)


@pytest.mark.django_db
def test_the_advance_messages_are_due_at_the_no_show_time_and_the_limit(organiser, quiet,
                                                                        django_capture_on_commit_callbacks):
    """A round's advance messages are counted from the round's start, whatever time the
    commit and the announcements took before they were sent."""
    event = people_event(organiser, rounds=1, no_show_minutes=3, round_limit_minutes=20)
    enter_people(event, 2)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament_id=event.pk, now=event.starts_at)
    advances = sorted(kw["countdown"] for name, kw in quiet if name == "tournaments.advance")
    assert len(advances) == 2
    assert 170 < advances[0] <= 181 and 1190 < advances[1] <= 1201


@pytest.mark.django_db
def test_best_of_three_carries_the_players_from_one_game_to_the_next(organiser):
    """Issue 21 (4): a best-of-3 live table is a series of live games, seats swapped each
    game, each linked from the last one's board, until a player has two wins."""
    event = people_event(organiser, rounds=1, best_of=3)
    enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event)
    first_seats = list(pairing.seat_entries)
    first_match = pairing.match_id
    winner_entry = first_seats[0]
    finish_by_resignation(pairing, loser_index=1)
    tournament_advance(tournament_id=event.pk)
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.PLAYING and pairing.match_id != first_match
    assert pairing.seat_entries == list(reversed(first_seats))
    assert LiveMatch.objects.get(match_id=first_match).next_match_id == pairing.match_id
    assert my_match(tournament=event, user=seat_user(pairing, 0))["game"] == 2
    # Each game's board and banner say which event, round and game it is.
    assert LiveMatch.objects.get(match_id=first_match).title == f"{event.name}, round 1, game 1"
    assert LiveMatch.objects.get(match_id=pairing.match_id).title == f"{event.name}, round 1, game 2"
    # The same player wins game 2 from the other seat: 2-0, the series is over.
    finish_by_resignation(pairing, loser_index=0)
    tournament_advance(tournament_id=event.pk)
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.DONE and len(pairing.series) == 2
    index = pairing.entries.index(winner_entry)
    assert pairing.result["game_wins"][index] == 2 and pairing.result["places"][index] == 1
    assert pairing.result["games"] == 2


@pytest.mark.django_db
def test_a_mixed_event_seats_the_bot_entry_with_its_pilot(organiser, quiet):
    event = people_event(organiser, entrants="mixed", bot_cap="greedy", rounds=1)
    enter_people(event, 1)
    owner = make_player("botowner")
    deck = make_deck(owner, "tempofront", index=1, pilot="greedy")
    bot_entry = tournament_enter(tournament_id=event.pk, player=owner, deck_id=deck.pk, plays="bot")
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event)
    live = LiveMatch.objects.get(match=pairing.match)
    bot_seat = pairing.seat_entries.index(bot_entry.pk)
    seat = LiveSeat.objects.get(live=live, seat=bot_seat)
    assert seat.bot == "greedy" and seat.user_id is None
    # A bot never forfeits for absence: only the person's seat is waited for.
    person_index = 1 - bot_seat
    live_seat_present(match_id=pairing.match_id, user=seat_user(pairing, person_index))
    tournament_advance(tournament_id=event.pk, now=event.round_set.get(number=1).starts_at + timedelta(minutes=5))
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.PLAYING


@pytest.mark.django_db
def test_scheduled_rounds_wait_for_their_time(organiser):
    event = people_event(organiser, rounds=2, round_start="scheduled", round_minutes=40)
    enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event, 1)
    finish_by_resignation(pairing)
    early = event.starts_at + timedelta(minutes=12)
    due = event.starts_at + timedelta(minutes=40)
    assert tournament_advance(tournament_id=event.pk, now=early) == f"round 2 starts at {due:%H:%M} UTC"
    event.refresh_from_db()
    assert event.current_round == 1
    tournament_advance(tournament_id=event.pk, now=event.starts_at + timedelta(minutes=40))
    event.refresh_from_db()
    assert event.current_round == 2


@pytest.mark.django_db
def test_decklists_and_seed_stay_hidden_until_the_publication_time(organiser, client):
    """Issue 21 (6): the seed and decklists stay hidden until the organiser's publication time."""
    later = timezone.now() + timedelta(days=1)
    event = people_event(organiser, rounds=1, publish_at=later)
    entries = enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    assert all(name["deck_id"] is None for name in entry_names(event).values())
    body = client.get(f"/api/tournaments/{event.pk}/entries/").json()
    assert [e["decklist"] for e in body["results"]] == [None, None]
    assert [e["deck_id"] for e in body["results"]] == [None, None]
    # The player sees their own deck.
    client.force_login(entries[0].player)
    own = {e["id"]: e for e in client.get(f"/api/tournaments/{event.pk}/entries/").json()["results"]}
    assert own[entries[0].pk]["deck_id"] == entries[0].deck_id and own[entries[1].pk]["deck_id"] is None
    Tournament.objects.filter(pk=event.pk).update(publish_at=timezone.now() - timedelta(seconds=1))
    body = client.get(f"/api/tournaments/{event.pk}/entries/").json()
    assert all(e["decklist"] for e in body["results"])


@pytest.mark.django_db
def test_drops_work_as_in_bot_events(organiser):
    """Issue 21 (6): a dropped player is not paired again; their finished games stand."""
    event = people_event(organiser, rounds=2)
    entries = enter_people(event, 4)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    for pairing in tables(event, 1):
        finish_by_resignation(pairing)
    tournament_drop(entry_id=entries[0].pk, by=entries[0].player)
    tournament_advance(tournament_id=event.pk)
    round_two = tables(event, 2)
    assert all(entries[0].pk not in p.entries for p in round_two if not p.is_bye)


# --------------------------------------------------------------------------- the API


@pytest.mark.django_db
def test_check_in_and_my_match_over_the_api(organiser, client):
    start = timezone.now() + timedelta(minutes=5)
    event = people_event(organiser, check_in_minutes=10, starts_at=start, rounds=1)
    entries = enter_people(event, 2)
    player = entries[0].player
    assert client.post(f"/api/tournaments/{event.pk}/check-in/").status_code in (401, 403)
    client.force_login(player)
    response = client.post(f"/api/tournaments/{event.pk}/check-in/")
    assert response.status_code == 200, response.content
    assert response.json()["checked_in"] is not None and response.json()["check_in"]["open"]
    mine = client.get(f"/api/tournaments/{event.pk}/my-match/").json()
    assert mine["status"] == "waiting" and mine["text"] == "The event has not started yet."
    client.force_login(make_player("nobody"))
    missing = client.get(f"/api/tournaments/{event.pk}/my-match/")
    assert missing.status_code == 404 and "no entry" in missing.json()["error"]["message"]
    refused = client.post(f"/api/tournaments/{event.pk}/check-in/")
    assert refused.status_code == 409 and "no entry" in refused.json()["error"]["message"]
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    assert "/api/tournaments/{tournament_id}/check-in/" in text and "/api/tournaments/{tournament_id}/my-match/" in text


def _series(*games):
    pairing = Pairing(entries=[10, 20], series=[
        {"match": i, "places": list(places), "forfeit": list(forfeit), "adjudicated": adjudicated, "score": None}
        for i, (places, forfeit, adjudicated) in enumerate(games)])
    return pairing


def test_series_results_in_elimination_need_a_winner():
    """Issue 21 (4): a level elimination series goes on after ``best_of`` games; level at
    the round's limit, or with both players absent, the better seed goes through."""
    seeds = {10: 4, 20: 1}
    level = _series(([1, 2], [], False), ([2, 1], [], False), ([1, 1], [], False))
    assert live_events.series_result(level, best_of=3, elimination=False, past_deadline=False, seeds=seeds)["places"] \
        == [1, 1]
    assert live_events.series_result(level, best_of=3, elimination=True, past_deadline=False, seeds=seeds) is None
    at_limit = live_events.series_result(level, best_of=3, elimination=True, past_deadline=True, seeds=seeds)
    assert at_limit["places"] == [2, 1] and at_limit["decided_by"] == "seed"
    both_absent = _series(([2, 2], [10, 20], False))
    result = live_events.series_result(both_absent, best_of=1, elimination=True, past_deadline=False, seeds=seeds)
    assert result["places"] == [2, 1] and result["forfeit"] == [10, 20] and result["decided_by"] == "seed"
    group = live_events.series_result(both_absent, best_of=1, elimination=False, past_deadline=False, seeds=seeds)
    assert group["places"] == [2, 2] and group["games"] == 0
    # A forfeit in game 2 of a best of 3 loses the match: the winner is credited two games.
    late = _series(([1, 2], [], False), ([1, 2], [20], False))
    result = live_events.series_result(late, best_of=3, elimination=False, past_deadline=False, seeds=seeds)
    assert result["places"] == [1, 2] and result["game_wins"] == [2, 0] and result["forfeit"] == [20]


@pytest.mark.django_db
def test_a_live_pod_of_four_is_one_four_seat_live_match_and_the_tick_repairs_the_round(organiser):
    """Issue 21 (3, 4): Conquest pods of 4 play one 4-seat live match; beat's tick alone
    (no advance message) forfeits the player who never came, so the round does not wait."""
    from tournaments.services import tournament_tick

    event = people_event(organiser, game="conquest", format="conquest_pods", players_per_game=4, rounds=1)
    entries = enter_people(event, 4)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event)
    live = LiveMatch.objects.get(match=pairing.match)
    assert live.seats.count() == 4 and sorted(pairing.entries) == sorted(e.pk for e in entries)
    absent = pairing.seat_entries[2]
    for index in (0, 1, 3):
        live_seat_present(match_id=pairing.match_id, user=seat_user(pairing, index))
    tournament_tick(now=event.starts_at + timedelta(minutes=4))
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.DONE and pairing.result["forfeit"] == [absent]
    assert pairing.result["places"][pairing.entries.index(absent)] == 4
    rows = standings_rows(tournament=event)
    assert rows[-1]["entry"]["id"] == absent and rows[-1]["points"] == 0


@pytest.mark.django_db
def test_a_table_is_titled_with_the_whole_name_of_its_event(organiser):
    event = people_event(organiser, rounds=1, name="Grand " * 16 + "Open")
    enter_people(event, 2)
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    (pairing,) = tables(event)
    # The longest name an event may have (100 characters) fits whole.
    assert LiveMatch.objects.get(match_id=pairing.match_id).title == event.name + ", round 1"


def test_a_table_title_longer_than_a_live_match_title_is_shortened_at_the_events_name():
    from types import SimpleNamespace

    event = SimpleNamespace(name="N" * 100, best_of=3)
    pairing = SimpleNamespace(round=SimpleNamespace(number=1000), series=[1] * 9)
    title = live_events.game_title(event, pairing)
    assert len(title) == 120 and title.endswith("N…, round 1000, game 10")
