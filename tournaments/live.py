"""Writes of live events: people (and, in mixed events, bots) play their rounds live.

A live event (``Tournament.entrants`` people or mixed) differs from a bot event only in
how a table is played; pairing, standings and brackets are the same formats. Here:

- **Settings** (:func:`check_settings`): the clock, the check-in window, when rounds
  start, the no-show and round limits, the bot cap of a mixed event.
- **Check-in** (:func:`tournament_check_in`): in the window before the start; at the
  start (:func:`apply_check_in`) people who did not check in leave the field.
- **Games** (:func:`create_game`): each table is a live match (``live.creation.live_create``)
  with the event's clock and spectator delay; its players are told on any page
  (``live.notify.live_notify_seats``).
- **Rounds** (:func:`round_opened`, :func:`sync_pairing`): a player not connected
  ``no_show_minutes`` after their game started forfeits the match
  (``live.endings.live_forfeit``); two absences in a row drop the entry; a game still
  running at the round's deadline is decided by the rules' own end condition, or drawn
  (``live.endings.live_adjudicate``). A best-of match is a series of live games, each
  linked to the next (``live.endings.live_link_next``), so the board carries the
  players from one game to the next.

Everything here runs under the tournament's row lock, taken by the caller
(``tournaments.services``); timers are advance messages sent with a countdown, and beat's
``tournaments.tick`` repairs any that were lost, so no round waits forever.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.selectors import bot_of
from engine import games as engine_games
from engine.bots import STRENGTH_ORDER, bot_strength
from engine.core import seed_from
from live.creation import SeatSpec, live_create_many, live_plan
from live.endings import live_adjudicate, live_forfeit, live_link_next
from live.models import TITLE_MAX, LiveMatch, LiveSeat
from live.notify import live_notify_many, live_notify_seats
from matches.models import Match
from tournaments import conf
from tournaments.errors import Conflict
from tournaments.models import Entry, Pairing, Round, Tournament
from web import effects
from web.inputs import shift

#: Bounds of the live settings, as the form and the API say them.
CLOCK_INITIAL = (10, 7200)
CLOCK_INCREMENT = (0, 120)
NO_SHOW_MINUTES = (1, 60)
ROUND_LIMIT_MINUTES = (2, 600)
CHECK_IN_MINUTES = (0, 240)
SPECTATOR_DELAY = (0, 600)
#: Minutes between the starts of scheduled rounds (at most a day).
ROUND_MINUTES = (1, 1440)
#: Rounds in a row a player may miss before the entry is dropped.
ABSENCES_TO_DROP = 2
NO_SHOW = "no-show"
TIME_LIMIT = "round time limit"


# --------------------------------------------------------------------------- settings


def check_settings(clean: dict[str, Any], errors: dict[str, list[str]]) -> None:
    """Check (and default) the live settings of ``clean``, adding a message per bad field
    to ``errors``. A bot event keeps its settings but ignores them: each is checked against
    its own bounds (what the event stores), but how they relate to each other (the round
    limit against the no-show time, scheduled rounds against the round limit) is checked
    only for an event played live, the only kind that uses them."""
    entrants = clean.get("entrants") or Tournament.Entrants.BOTS
    clean["entrants"] = entrants
    if entrants not in Tournament.Entrants.values:
        errors["entrants"] = [f"entrants must be one of {', '.join(Tournament.Entrants.values)}, not {entrants!r}"]
    played_live = entrants != Tournament.Entrants.BOTS
    for name, (low, high), default in (
        ("clock_initial", CLOCK_INITIAL, 300), ("clock_increment", CLOCK_INCREMENT, 5),
        ("no_show_minutes", NO_SHOW_MINUTES, 3), ("round_limit_minutes", ROUND_LIMIT_MINUTES, 30),
        ("check_in_minutes", CHECK_IN_MINUTES, 10), ("spectator_delay", SPECTATOR_DELAY, 15),
    ):
        value = clean.get(name)
        if value is None:
            value = clean[name] = default
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors[name] = [f"{name} must be a whole number from {low} to {high}, not {value!r}"]
    if played_live and "no_show_minutes" not in errors and "round_limit_minutes" not in errors \
            and clean["round_limit_minutes"] <= clean["no_show_minutes"]:
        errors["round_limit_minutes"] = [f"the round limit ({clean['round_limit_minutes']} minutes) must be longer "
                                         f"than the no-show time ({clean['no_show_minutes']} minutes)"]
    round_start = clean.get("round_start") or Tournament.RoundStart.AT_ONCE
    clean["round_start"] = round_start
    minutes = clean.get("round_minutes")
    if round_start not in Tournament.RoundStart.values:
        errors["round_start"] = [f"round_start must be one of {', '.join(Tournament.RoundStart.values)}, "
                                 f"not {round_start!r}"]
    elif round_start == Tournament.RoundStart.SCHEDULED and (played_live or minutes is not None):
        low, high = ROUND_MINUTES
        if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
            errors["round_minutes"] = ["scheduled rounds need round_minutes, the minutes between round starts"]
        elif not low <= minutes <= high:
            errors["round_minutes"] = [f"round_minutes must be a whole number from {low} to {high}, not {minutes!r}"]
        elif played_live and "round_limit_minutes" not in errors and minutes < clean["round_limit_minutes"]:
            errors["round_minutes"] = [f"rounds {minutes} minutes apart would overlap: the round limit is "
                                       f"{clean['round_limit_minutes']} minutes"]
    else:
        clean["round_minutes"] = None
    cap = str(clean.get("bot_cap") or "").strip()
    clean["bot_cap"] = cap
    if cap:
        if entrants != Tournament.Entrants.MIXED:
            errors["bot_cap"] = ["a bot cap is for mixed events (people and bots)"]
        elif cap not in STRENGTH_ORDER:
            errors["bot_cap"] = [f"bot_cap must be one of {', '.join(STRENGTH_ORDER)}, or empty for any bot, "
                                 f"not {cap!r}"]
    external = clean.get("external_bots", False)
    if not isinstance(external, bool):
        errors["external_bots"] = ["external_bots is true or false"]
    elif external and entrants != Tournament.Entrants.MIXED:
        errors["external_bots"] = ["bots run by their owners play live among people: a mixed event's setting"]
    if entrants != Tournament.Entrants.BOTS and clean.get("game") in engine_games:
        seats = clean.get("players_per_game") or 2
        game = engine_games[clean["game"]]
        if isinstance(seats, int) and not game.min_seats <= seats <= game.max_seats:
            errors.setdefault("players_per_game", []).append(
                f"{game.title} is played live by {game.min_seats} to {game.max_seats} seats")


def entry_plays(tournament: Tournament, plays: str | None, deck_version) -> str:
    """Who plays an entry of ``deck_version`` in ``tournament``: ``plays`` checked against the
    event (``ValidationError`` naming the problem), or the event's default (a person in a
    live event, the bot pilot in a bot event). A bot run by its owner (docs/bots-api.md)
    enters only a mixed event that takes them (``Tournament.external_bots``), and its program
    plays its tables as a person does."""
    if bot_of(user=deck_version.deck.owner) is not None:
        if tournament.entrants != Tournament.Entrants.MIXED or not tournament.external_bots:
            raise ValidationError({"plays": ["this event does not take bots run by their owners: its organiser "
                                             "allows them in mixed events only"]})
        if plays not in (None, "", Entry.Plays.PERSON):
            raise ValidationError({"plays": ["a bot run by its owner plays its tables itself (plays: person)"]})
        return Entry.Plays.PERSON
    if not tournament.is_live:
        if plays not in (None, "", Entry.Plays.BOT):
            raise ValidationError({"plays": ["this event is played by bot pilots only: enter your deck's bot"]})
        return Entry.Plays.BOT
    plays = plays or Entry.Plays.PERSON
    if plays not in Entry.Plays.values:
        raise ValidationError({"plays": [f"plays must be one of {', '.join(Entry.Plays.values)}, not {plays!r}"]})
    if plays == Entry.Plays.BOT:
        if tournament.entrants == Tournament.Entrants.PEOPLE:
            raise ValidationError({"plays": ["this event is for people playing live: bots cannot enter"]})
        pilot, deck = deck_version.pilot, deck_version.deck
        if tournament.bot_cap:
            try:
                too_strong = bot_strength(pilot) > bot_strength(tournament.bot_cap)
            except ValueError as exc:
                raise ValidationError({"plays": [f"deck '{deck.name}': {exc}"]}) from None
            if too_strong:
                raise ValidationError({"plays": [
                    f"deck '{deck.name}' is piloted by '{pilot}', stronger than this event's cap "
                    f"'{tournament.bot_cap}': choose a weaker pilot in the deck, or play it yourself"]})
    return plays


# --------------------------------------------------------------------------- check-in


def check_in_window(tournament: Tournament) -> tuple[datetime, datetime] | None:
    """When check-in is open (``(opens, closes)``, closing at the start), or None when the
    event has none (a bot event, or ``check_in_minutes`` 0)."""
    if not tournament.is_live or not tournament.check_in_minutes:
        return None
    # shift(): a row stored before dates were bounded (year 1, say) must not break the page or the tick.
    return shift(tournament.starts_at, minutes=-tournament.check_in_minutes), tournament.starts_at


def tournament_check_in(*, tournament_id: int, player, now: datetime | None = None) -> Entry:
    """Check ``player``'s entry in: they will be there when round 1 starts. Idempotent.
    Refused (409) outside the window or for an event without check-in, and for a player
    with no entry, or one that dropped. Locks the tournament row."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            raise Tournament.DoesNotExist(f"there is no tournament {tournament_id}")
        entry = tournament.entries.filter(player=player).first()
        if entry is None or entry.dropped:
            raise Conflict("You have no entry in this event to check in." if entry is None
                           else "Your entry has dropped: enter again to play.")
        window = check_in_window(tournament)
        if window is None:
            raise Conflict("This event has no check-in: your entry plays as it is.")
        if tournament.state != Tournament.State.OPEN:
            raise Conflict(f"Check-in is over: the event is {tournament.get_state_display().lower()}.")
        opens, closes = window
        if now < opens:
            raise Conflict(f"Check-in opens at {opens:%Y-%m-%d %H:%M} UTC, {tournament.check_in_minutes} minutes "
                           "before the start.")
        if entry.checked_in is None:
            entry.checked_in = now
            entry.save(update_fields=["checked_in"])
        from tournaments.services import _broadcast_on_commit  # cycle: tournaments.services imports this module

        _broadcast_on_commit(tournament.pk)
    return entry


def apply_check_in(tournament: Tournament, now: datetime) -> list[Entry]:
    """At the start of a live event with check-in: people who did not check in leave the
    field (dropped before round 1, the reason said), and waitlisted people who checked in
    take the places freed, in the order they entered. Bot entries need no check-in.
    Returns the entries dropped. The caller holds the tournament's lock."""
    if check_in_window(tournament) is None:
        return []
    missing = list(tournament.entries.filter(dropped=False, plays=Entry.Plays.PERSON, checked_in__isnull=True))
    for entry in missing:
        entry.dropped, entry.dropped_round, entry.drop_reason = True, 0, "did not check in"
        entry.save(update_fields=["dropped", "dropped_round", "drop_reason"])
    if tournament.entry_limit is not None:
        playing = tournament.entries.filter(waitlisted=False, dropped=False).count()
        free = max(0, tournament.entry_limit - playing)
        waiting = (tournament.entries.filter(waitlisted=True, dropped=False)
                   .exclude(plays=Entry.Plays.PERSON, checked_in__isnull=True).order_by("created", "id"))
        for entry in list(waiting[:free]):
            entry.waitlisted = False
            entry.save(update_fields=["waitlisted"])
    return missing


# --------------------------------------------------------------------------- games


def create_game(tournament: Tournament, pairing: Pairing, seat_entries: Sequence[int], *,
                entries: Mapping[int, Entry] | None = None,
                announce: list[tuple[int, str, str | None]] | None = None) -> Match:
    """Create the next live game of ``pairing`` with ``seat_entries`` in seat order: a
    person's entry is played by its player, a bot entry by its deck's pilot; the event's
    clock, parameters and spectator delay; a seed from the event's seed (table, attempt,
    game). Its players are told on commit, on any page (with ``announce``, a list, the
    announcement is added to it instead, for :func:`announce_games` to send with the
    others). ``ValidationError`` when a deck can no longer play (the caller marks the
    table failed)."""
    plan = plan_game(tournament, pairing, seat_entries, entries=entries)
    return create_games(tournament, [(pairing, plan)], announce=announce)[0]


def plan_game(tournament: Tournament, pairing: Pairing, seat_entries: Sequence[int], *,
              entries: Mapping[int, Entry] | None = None):
    """The next live game of ``pairing`` (see :func:`create_game`) checked and dealt, not
    yet written (``live.creation.LivePlan``); ``ValidationError`` when a deck can no
    longer play."""
    if entries is None:
        entries = {e.pk: e for e in Entry.objects.select_related("player", "deck_version", "deck_version__deck")
                   .filter(pk__in=seat_entries)}
    specs = []
    for entry_id in seat_entries:
        entry = entries[entry_id]
        if entry.plays == Entry.Plays.PERSON:
            specs.append(SeatSpec(deck_version=entry.deck_version, user=entry.player))
        else:
            specs.append(SeatSpec(deck_version=entry.deck_version, bot=entry.deck_version.pilot))
    number = pairing.round.number
    seed = seed_from(tournament.seed, "match", number, pairing.table, len(pairing.replaced), len(pairing.series)) >> 11
    return live_plan(seats=specs, created_by=None, initial_ms=tournament.clock_initial * 1000,
                     increment_ms=tournament.clock_increment * 1000, spectator_delay=tournament.spectator_delay,
                     seed=seed, params=dict(tournament.params or {}), title=game_title(tournament, pairing))


def game_title(tournament: Tournament, pairing: Pairing) -> str:
    """What the board and the players' banner call a table's game: "Spring Swiss, round 2"
    (", game 2" in a best-of series), shortened to fit if the event's name is long."""
    tail = f", round {pairing.round.number}"
    if tournament.best_of > 1:
        tail += f", game {len(pairing.series) + 1}"
    name = " ".join(tournament.name.split())
    if len(name) + len(tail) > TITLE_MAX:
        name = name[:TITLE_MAX - len(tail) - 1].rstrip() + "…"
    return name + tail


def create_games(tournament: Tournament, planned: Sequence[tuple[Pairing, Any]], *,
                 announce: list[tuple[int, str, str | None]] | None = None) -> list[Match]:
    """Write the games of ``planned`` (``(pairing, plan)``, :func:`plan_game`) together
    (``live.creation.live_create_many``: a round's tables in a few statements) and tell
    their players, as :func:`create_game` does; their matches, in order."""
    lives = live_create_many([plan for _, plan in planned])
    for live in lives:
        if announce is None:
            live_notify_seats(match_id=live.match_id, title=live.title)
        else:
            announce.append((live.match_id, live.title, None))
    return [live.match for live in lives]


def announce_games(announce: Sequence[tuple[int, str, str | None]]) -> None:
    """Tell the players of a round's new games, all at once on commit (one read of their
    seats; the sends go out together when the caller batches them)."""
    live_notify_many(list(announce))


def round_opened(tournament: Tournament, rnd: Round, now: datetime) -> None:
    """A live round's games have started: its start and deadline are stored, and advance
    messages are sent for the moments something must be checked (no-shows, the limit),
    each due at its moment however long the commit and the announcements take."""
    rnd.starts_at = now
    rnd.deadline = now + timedelta(minutes=tournament.round_limit_minutes)
    rnd.save(update_fields=["starts_at", "deadline"])
    _advance_at(tournament.pk, now + timedelta(minutes=tournament.no_show_minutes, seconds=1), now)
    _advance_at(tournament.pk, rnd.deadline + timedelta(seconds=1), now)


def scheduled_start(tournament: Tournament, number: int) -> datetime | None:
    """When round ``number`` may start, for an event with scheduled rounds (else None)."""
    if not tournament.is_live or tournament.round_start != Tournament.RoundStart.SCHEDULED:
        return None
    return shift(tournament.starts_at, minutes=(tournament.round_minutes or 0) * (number - 1))


def wait_for_schedule(tournament: Tournament, number: int, now: datetime) -> str | None:
    """What the event waits for before pairing round ``number`` (None: pair it now); an
    advance message is sent for that time."""
    due = scheduled_start(tournament, number)
    if due is None or now >= due:
        return None
    _advance_at(tournament.pk, shift(due, seconds=0.5), now)
    return f"round {number} starts at {due:%H:%M} UTC"


def _advance_at(tournament_id: int, moment: datetime, now: datetime) -> None:
    """Send an advance message on commit, due at ``moment`` (``now`` is the time of the
    step that asks for it): the time spent until it is sent (committing, announcing a
    round) comes off its countdown instead of being added to it."""
    # At most a day ahead: a message due later (a round scheduled far off) is sent again by
    # the advance it causes, so no countdown leaves what the broker's dates hold.
    seconds = min((moment - now).total_seconds(), 86400.0)
    effects.send_task_on_commit(conf.ADVANCE, args=[tournament_id], queue=conf.QUEUE, due_in=seconds)


# --------------------------------------------------------------------------- a table's games


def sync_pairings(tournament: Tournament, rnd: Round, pairings: Sequence[Pairing], now: datetime) -> int:
    """:func:`sync_pairing` for the live tables of a round; returns how many still play.

    Every game end advances the event, so this runs often on rounds of many tables: the
    live games are read in two queries for the whole round, and a table whose game is
    being played, with its no-show time and the round's deadline still ahead, costs
    nothing more. The round's entries are read once, and the tables it decides are
    written together (one statement), so that closing a round of many tables before the
    next one is paired does not cost a few statements per table."""
    lives = {lm.match_id: lm for lm in LiveMatch.objects.filter(match_id__in=[p.match_id for p in pairings])}
    absent = _absent_seats(lives.values())
    entries: dict[int, Entry] | None = None
    decided: list[Pairing] = []
    waiting = 0
    for pairing in pairings:
        live = lives.get(pairing.match_id)
        if live is not None and live.status == LiveMatch.Status.ACTIVE and _decision(
                tournament, rnd, pairing, live, absent.get(live.pk, []), now) is None:
            waiting += 1
            continue
        if entries is None:
            entries = {e.pk: e for e in Entry.objects.filter(tournament=tournament)}
        waiting += sync_pairing(tournament, rnd, pairing, now, live=live, entries=entries, decided=decided)
    if decided:
        Pairing.objects.bulk_update(decided, ["series", "result", "status"], batch_size=500)
    return waiting


def _absent_seats(lives) -> dict[int, list[int]]:
    """Live match pk -> the seats of people who have not connected yet, in one query."""
    absent: dict[int, list[int]] = {}
    for live_id, seat in (LiveSeat.objects.filter(live__in=[lm.pk for lm in lives], user__isnull=False,
                                                   connected_at__isnull=True).values_list("live_id", "seat")):
        absent.setdefault(live_id, []).append(seat)
    return absent


def _game_started(rnd: Round, pairing: Pairing, live) -> datetime:
    """A table's first game starts with its round; a later game when it was created."""
    first = not pairing.series and not pairing.replaced and rnd.starts_at is not None
    return rnd.starts_at if first else live.created


def _decision(tournament: Tournament, rnd: Round, pairing: Pairing, live, absent: Sequence[int],
              now: datetime) -> tuple[str, list[int]] | None:
    """What the active live game of a table needs at ``now``: ``("forfeit", seats)`` when
    seated players (``absent``: those who never connected) missed the no-show time,
    ``("adjudicate", [])`` at the round's deadline, None while it plays on."""
    if absent and now >= _game_started(rnd, pairing, live) + timedelta(minutes=tournament.no_show_minutes):
        return "forfeit", list(absent)
    if rnd.deadline is not None and now >= rnd.deadline:
        return "adjudicate", []
    return None


#: Games decided together by :func:`settle_due_games` before their effects go out.
SETTLE_CHUNK = 32


def settle_due_games(tournament_id: int, now: datetime) -> int:
    """Decide the current round's live games that are due at ``now`` (no-shows forfeited,
    games at the round's limit adjudicated), each in a transaction of its own, before the
    advance takes the event's lock: a round of many tables no longer decides them all in
    the one transaction that then pairs the next round. Their final views and notices go
    out a chunk at a time. Returns how many were decided; a game that is not due, or that
    something else decided meanwhile, is left alone (``sync_pairing`` still decides any
    game left over under the lock)."""
    tournament = (Tournament.objects.filter(pk=tournament_id, state=Tournament.State.RUNNING)
                  .exclude(entrants=Tournament.Entrants.BOTS).first())
    if tournament is None:
        return 0
    rnd = tournament.round_set.filter(number=tournament.current_round, finished__isnull=True).first()
    if rnd is None:
        return 0
    pairings = {p.match_id: p for p in rnd.pairings.filter(status=Pairing.Status.PLAYING, match__isnull=False)}
    lives = list(LiveMatch.objects.filter(match_id__in=list(pairings), status=LiveMatch.Status.ACTIVE))
    absent = _absent_seats(lives)
    due = [(live.match_id, decision) for live in lives
           if (decision := _decision(tournament, rnd, pairings[live.match_id], live, absent.get(live.pk, []), now))]
    for start in range(0, len(due), SETTLE_CHUNK):
        with effects.batched():
            for match_id, (kind, seats) in due[start:start + SETTLE_CHUNK]:
                if kind == "forfeit":
                    live_forfeit(match_id=match_id, seats=seats, reason=NO_SHOW)
                else:
                    live_adjudicate(match_id=match_id, reason=TIME_LIMIT)
    return len(due)


def sync_pairing(tournament: Tournament, rnd: Round, pairing: Pairing, now: datetime, *, live=None,
                 entries: Mapping[int, Entry] | None = None, decided: list[Pairing] | None = None) -> bool:
    """Bring a live table up to date at ``now``; True while it still plays.

    A game whose player has not connected ``no_show_minutes`` after it started is
    forfeited by them; one still running at the round's deadline is decided there. A
    finished game joins the table's series; the series either decides the table (its
    result written, absences counted) or goes on with the next game, seats rotated,
    linked from the last one's board.

    ``live`` (the table's live game), ``entries`` (the event's entries by key): when the
    caller has read them. ``decided``: a table decided here is added to it, for the caller
    to write (``series``, ``result``, ``status``), instead of being saved at once."""
    match = pairing.match
    if live is None or live.match_id != match.pk:
        live = LiveMatch.objects.filter(match=match).first()
    if live is None:
        return True
    if live.status == LiveMatch.Status.ACTIVE:
        absent = [s.seat for s in live.seats.all() if s.user_id is not None and s.connected_at is None]
        decision = _decision(tournament, rnd, pairing, live, absent, now)
        if decision is None:
            return True
        if decision[0] == "forfeit":
            live_forfeit(match_id=match.pk, seats=decision[1], reason=NO_SHOW)
        else:
            live_adjudicate(match_id=match.pk, reason=TIME_LIMIT)
        live.refresh_from_db()
        match.refresh_from_db()
    if match.status != Match.Status.DONE or live.status != LiveMatch.Status.DONE:
        return True
    _record_game(pairing, live)
    elimination = rnd.stage in (Round.Stage.ELIMINATION, Round.Stage.TOP_CUT)
    if entries is None:
        entries = {e.pk: e for e in Entry.objects.filter(pk__in=pairing.entries)}
    seeds = {pk: entries[pk].seed for pk in pairing.entries if pk in entries}
    result = series_result(pairing, best_of=tournament.best_of, elimination=elimination,
                           past_deadline=rnd.deadline is not None and now >= rnd.deadline, seeds=seeds)
    if result is None:
        seat_entries = _rotate(pairing.seat_entries or pairing.entries)
        previous = match.pk
        try:
            pairing.match = create_game(tournament, pairing, seat_entries)
        except ValidationError as exc:
            pairing.status = Pairing.Status.FAILED
            pairing.result = {"error": "; ".join(exc.messages)}
            pairing.save(update_fields=["series", "status", "result"])
            return True
        pairing.seat_entries = list(seat_entries)
        pairing.save(update_fields=["series", "match", "seat_entries"])
        live_link_next(match_id=previous, next_match_id=pairing.match_id)
        return True
    pairing.result = result
    pairing.status = Pairing.Status.DONE
    if decided is None:
        pairing.save(update_fields=["series", "result", "status"])
    else:
        decided.append(pairing)
    _count_absences(tournament, [entries[pk] for pk in pairing.entries if pk in entries], result)
    return False


def _record_game(pairing: Pairing, live) -> None:
    """Append the finished live game to the table's series (once), by pairing entry."""
    if any(game["match"] == live.match_id for game in pairing.series):
        return
    outcome = live.outcome or {}
    seat_entries = list(pairing.seat_entries or pairing.entries)
    by_entry = {entry: seat for seat, entry in enumerate(seat_entries)}
    places = [int(outcome["places"][by_entry[e]]) for e in pairing.entries]
    forfeited = [seat_entries[s] for s in outcome.get("forfeited") or ()]
    detail = outcome.get("detail") or {}
    adjudicated = outcome.get("reason") == "adjudicated" or "adjudicated" in detail
    engine_game = engine_games[live.game]
    scores = engine_game.standings_scores(outcome) if engine_game.standings_score_label else None
    score = [int((scores or [0] * len(seat_entries))[by_entry[e]] or 0) for e in pairing.entries] \
        if scores is not None else None
    pairing.series = [*pairing.series, {"match": live.match_id, "places": places, "forfeit": forfeited,
                                        "adjudicated": adjudicated, "score": score}]


def _rotate(seat_entries: Sequence[int]) -> list[int]:
    """The next game's seats: two players swap; a pod turns by one seat."""
    order = list(seat_entries)
    return order[1:] + order[:1]


def series_result(pairing: Pairing, *, best_of: int, elimination: bool, past_deadline: bool,
                  seeds: Mapping[int, int | None]) -> dict[str, Any] | None:
    """The table's result from its finished games (``pairing.series``), or None while the
    series goes on.

    It ends when someone forfeits (they lose the match; a forfeit win counts as the games
    needed to win), when a game was decided at the round's limit or the deadline passed,
    when a player has the wins needed (best of 3: two), or after ``best_of`` games. Places
    follow games won (equal wins share). In elimination a series ends only with a winner:
    level after ``best_of`` games it goes on, and level past the deadline (or with every
    player absent) the better seed goes through (``decided_by`` says so)."""
    entries = list(pairing.entries)
    games = list(pairing.series)
    if not games:
        return None
    n = len(entries)
    needed = best_of // 2 + 1
    forfeit = sorted({e for game in games for e in game.get("forfeit") or ()}, key=entries.index)
    wins = [0] * n
    for game in games:
        firsts = [i for i, place in enumerate(game["places"]) if place == 1]
        if len(firsts) == 1:
            wins[firsts[0]] += 1
    adjudicated = any(game.get("adjudicated") for game in games)
    score = None
    if any(game.get("score") is not None for game in games):
        score = [sum((game.get("score") or [0] * n)[i] for game in games) for i in range(n)]
    result: dict[str, Any] = {"game_wins": wins, "games": len(games), "score": score}
    if forfeit:
        result["forfeit"] = forfeit
        present = [i for i, e in enumerate(entries) if e not in forfeit]
        if n == 2:
            if present:
                wins = [needed if i in present else 0 for i in range(n)]
                result.update(game_wins=wins, games=needed)
            else:
                result.update(game_wins=[0, 0], games=0)
        places = list(games[-1]["places"]) if n > 2 else [1 if i in present else 2 for i in range(n)]
        if elimination and not present:
            best = min(range(n), key=lambda i: (seeds.get(entries[i]) or 10**6, i))
            places = [1 if i == best else 2 for i in range(n)]
            result["decided_by"] = "seed"
        result["places"] = places
        return result
    decided = max(wins) >= needed or len(games) >= best_of or adjudicated or past_deadline
    if not decided:
        return None
    if n > 2 and best_of == 1:
        places = list(games[-1]["places"])
    else:
        places = [1 + sum(1 for other in wins if other > mine) for mine in wins]
    if elimination and places.count(1) > 1:
        if not (adjudicated or past_deadline):
            return None
        tied = [i for i, place in enumerate(places) if place == 1]
        best = min(tied, key=lambda i: (seeds.get(entries[i]) or 10**6, i))
        places = [1 if i == best else 2 for i in range(n)]
        result["decided_by"] = "seed"
    if adjudicated:
        result["adjudicated"] = True
    result["places"] = places
    return result


def _count_absences(tournament: Tournament, entries: Sequence[Entry], result: Mapping[str, Any]) -> None:
    """A person who forfeited for absence adds one to their absences in a row, and drops
    at two; one who showed up starts again from none (``entries``: the table's)."""
    forfeit = set(result.get("forfeit") or ())
    for entry in entries:
        if entry.plays != Entry.Plays.PERSON:
            continue
        if entry.pk in forfeit:
            entry.absences += 1
            fields = ["absences"]
            if entry.absences >= ABSENCES_TO_DROP and not entry.dropped:
                entry.dropped, entry.dropped_round = True, tournament.current_round
                entry.drop_reason = f"absent {entry.absences} rounds in a row"
                fields += ["dropped", "dropped_round", "drop_reason"]
            entry.save(update_fields=fields)
        elif entry.absences:
            entry.absences = 0
            entry.save(update_fields=["absences"])
