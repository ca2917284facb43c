"""Writes of the tournaments app: creating and editing events, entries, the state machine,
and advancing rounds as matches finish.

States (docs/tournaments.md, "States")::

    draft --publish--> open --start--> running <--pause/resume--> paused
                                          |
                                          +--(last round decided)--> finished
    draft, open, running, paused --cancel--> cancelled

Every transition locks the tournament row (``select_for_update``) for its whole
transaction and re-checks its preconditions after locking, so two workers racing to
advance the same event do the work once: the second finds the round already paired. The
``(tournament, number)`` unique constraint on rounds backs the lock: a second set of
pairings for the same round cannot be written even by a writer that skipped it.

Matches are created with ``matches.services.match_challenge(kind="tournament")``; their
``run_match`` messages go to the ``tournaments`` queue on commit. When a match finishes,
``tournaments.receivers`` sends ``tournaments.advance`` after the commit, so the next round
is paired at once; beat's ``tournaments.tick`` repairs what a lost message left behind.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from decks.models import Deck
from engine import games as engine_games
from engine.core import Rng, seed_from
from ladder.selectors import ratings_for_decks
from matches.models import Match
from matches.services import match_challenge, match_deck_problems, reserved_params
from tournaments import conf, formats, live, plan
from tournaments.errors import Conflict
from tournaments.models import Entry, Pairing, Round, Tiebreak, Tournament
from tournaments.permissions import can_drop_entry, can_manage_tournament
from tournaments.selectors import tournament_progress
from tournaments.tiebreaks import run_match_the_twos
from web import effects
from web.inputs import date_problem

logger = logging.getLogger(__name__)

#: Fields an organiser may set when creating or editing an event.
EDITABLE_FIELDS = (
    "game", "name", "description", "starts_at", "registration_opens", "registration_closes", "entry_limit",
    "min_entries", "format", "rounds", "best_of", "top_cut", "third_place", "players_per_game",
    "late_entry_rounds", "params", "entrants", "bot_cap", "external_bots", "check_in_minutes", "round_start",
    "round_minutes",
    "clock_initial", "clock_increment", "no_show_minutes", "round_limit_minutes", "spectator_delay", "publish_at",
)
MAX_ADVANCE_STEPS = 64
#: The settings that are dates, each within ``web.inputs.EARLIEST_DATE`` .. ``LATEST_DATE``.
DATE_FIELDS = ("starts_at", "registration_opens", "registration_closes", "publish_at")


def group_name(tournament_id: int) -> str:
    """The channel-layer group of one tournament's page."""
    return f"tournament.{tournament_id}"


# --------------------------------------------------------------------------- settings


def _validate_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """Check an event's settings all at once; ``ValidationError`` names every bad field.
    The format settings (``formats.SETTING_NAMES``) are checked by the event's format."""
    errors: dict[str, list[str]] = {}
    clean = dict(values)
    game = clean.get("game")
    if game not in engine_games:
        errors["game"] = [f"game must be one of {', '.join(engine_games)}, not {game!r}"]
    name = str(clean.get("name") or "").strip()
    if not name:
        errors["name"] = ["an event needs a name"]
    elif len(name) > 100:
        errors["name"] = ["a name is at most 100 characters"]
    clean["name"] = name
    clean["description"] = str(clean.get("description") or "")
    fmt = formats.find_format(clean.get("format"))
    if fmt is None:
        known = ", ".join(f.key for f in formats.all_formats())
        errors["format"] = [f"format must be one of {known}, not {clean.get('format')!r}"]
    best_of = clean.get("best_of")
    if isinstance(best_of, bool) or best_of not in (1, 3, 5):
        errors["best_of"] = [f"best_of must be 1, 3 or 5, not {best_of!r}"]
    limit = clean.get("entry_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 2):
        errors["entry_limit"] = [f"entry_limit must be at least 2, or empty for no limit, not {limit!r}"]
    min_entries = clean.get("min_entries") or 2
    clean["min_entries"] = min_entries
    if isinstance(min_entries, bool) or not isinstance(min_entries, int) or min_entries < 2:
        errors["min_entries"] = [f"min_entries must be at least 2, not {min_entries!r}"]
    elif isinstance(limit, int) and min_entries > limit:
        errors["min_entries"] = [f"min_entries ({min_entries}) is more than the entry limit ({limit})"]
    if fmt is not None:
        format_clean, format_errors = fmt.validate(clean)
        clean.update(format_clean)
        for name, messages in format_errors.items():
            errors.setdefault(name, []).extend(messages)
    starts_at = clean.get("starts_at")
    if not isinstance(starts_at, datetime):
        errors["starts_at"] = ["starts_at must be a date and time"]
    opens, closes = clean.get("registration_opens"), clean.get("registration_closes")
    if isinstance(opens, datetime) and isinstance(closes, datetime) and opens >= closes:
        errors["registration_closes"] = ["registration must close after it opens"]
    if isinstance(closes, datetime) and isinstance(starts_at, datetime) and closes > starts_at:
        errors["registration_closes"] = ["registration must close by the start time"]
    publish_at = clean.get("publish_at")
    if publish_at is not None and not isinstance(publish_at, datetime):
        errors["publish_at"] = ["publish_at must be a date and time, or empty to publish decklists at the start"]
    for name in DATE_FIELDS:
        problem = date_problem(clean.get(name), name)
        if problem:
            errors[name] = [problem]
    live.check_settings(clean, errors)
    params = clean.get("params") or {}
    clean["params"] = params
    if not isinstance(params, Mapping):
        errors["params"] = ["params must be an object of rules parameter names and values"]
    else:
        for reserved in reserved_params(engine_games.get(game) if isinstance(game, str) else None):
            if reserved in params:
                errors.setdefault("params", []).append(f"'{reserved}' is set by the platform and cannot be chosen")
        if "params" not in errors and game in engine_games:
            try:
                engine_games[game].check_params(dict(params))
            except ValueError as exc:
                errors["params"] = [str(exc)]
    if errors:
        raise ValidationError(errors)
    return clean


def tournament_create(*, organiser, publish: bool = True, **values: Any) -> Tournament:
    """Create an event (open for entries when ``publish``, else a draft) from ``values``
    (the names of ``EDITABLE_FIELDS``). Everything is checked at once, the rules
    parameters by the engine itself; ``ValidationError`` names every bad field."""
    unknown = sorted(set(values) - set(EDITABLE_FIELDS))
    if unknown:
        raise ValidationError({name: ["not a tournament setting"] for name in unknown})
    values.setdefault("format", Tournament.Format.SWISS)
    values.setdefault("best_of", 1)
    clean = _validate_settings(values)
    state = Tournament.State.OPEN if publish else Tournament.State.DRAFT
    tournament = Tournament.objects.create(organiser=organiser, state=state, seed=secrets.randbits(53), **clean)
    return tournament


def tournament_update(*, tournament_id: int, by, **values: Any) -> Tournament:
    """Edit a draft or open event before it starts. Locks the tournament row."""
    unknown = sorted(set(values) - set(EDITABLE_FIELDS))
    if unknown:
        raise ValidationError({name: ["not a tournament setting"] for name in unknown})
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_manager(by, tournament)
        if tournament.state not in (Tournament.State.DRAFT, Tournament.State.OPEN):
            raise Conflict(f"The event is {tournament.get_state_display().lower()}: settings can only change "
                           "before it starts.")
        current = {name: getattr(tournament, name) for name in EDITABLE_FIELDS}
        current.update(values)
        clean = _validate_settings(current)
        if clean["game"] != tournament.game and tournament.entries.exists():
            raise ValidationError({"game": ["players have entered decks of this game: the game cannot change"]})
        if clean["params"] != tournament.params:
            _check_entries_fit(tournament, clean["params"])
        for name, value in clean.items():
            setattr(tournament, name, value)
        tournament.save()
        _broadcast_on_commit(tournament.pk)
    return tournament


def _check_entries_fit(tournament: Tournament, params: Mapping[str, Any]) -> None:
    """Raise ``ValidationError`` (``params``) naming every entered deck that the rules
    ``params`` would refuse: new rules may not strand decks already in the event. Dropped
    entries never play again and are not checked. The caller holds the tournament's lock."""
    versions = [e.deck_version for e in tournament.entries.filter(dropped=False)
                .select_related("deck_version", "deck_version__deck").order_by("pk")]
    problems = match_deck_problems(deck_versions=versions, params=params)
    if problems:
        raise ValidationError({"params": [f"entered decks do not fit these parameters: {p}" for p in problems]})


def tournament_publish(*, tournament_id: int, by) -> Tournament:
    """Open a draft for entries. Locks the tournament row."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_manager(by, tournament)
        if tournament.state != Tournament.State.DRAFT:
            raise Conflict(f"Only a draft can be opened; the event is {tournament.get_state_display().lower()}.")
        tournament.state = Tournament.State.OPEN
        tournament.save(update_fields=["state", "updated"])
    return tournament


# --------------------------------------------------------------------------- entries


def tournament_enter(*, tournament_id: int, player, deck_id: int, plays: str | None = None,
                     now: datetime | None = None) -> Entry:
    """Enter ``player`` with their deck ``deck_id``; its current version is frozen in.

    ``plays`` says who plays it (``Entry.Plays``): in a live event the player in person
    (the default) or, in a mixed event, the deck's bot pilot, within the event's bot cap
    (``live.entry_plays``); in a bot event the pilot. A late entry of a live event is
    checked in at once: entering proves the player is there.

    Refusals, each changing nothing: a deck that does not exist or is not the player's
    (403), an archived deck or one of another game (400), a second entry, an event that
    is not open, closed for entries, cancelled or finished, or full with a full waitlist
    (409). Before the start, entries past ``entry_limit`` join the waitlist (up to as many
    again); after it, late entry is open while ``current_round <= late_entry_rounds`` (a
    late entry plays from the next round on; the rounds it missed count as not played).
    Locks the tournament row, so two players cannot both take the last place.
    """
    now = now or timezone.now()
    deck = Deck.objects.select_related("owner").filter(pk=deck_id).first()
    if deck is None:
        raise ValidationError({"deck": [f"there is no deck {deck_id}"]})
    if deck.owner_id != player.pk:
        raise PermissionDenied(f"Deck '{deck.name}' is not yours: enter with one of your own decks.")
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.state == Tournament.State.CANCELLED:
            raise Conflict("The event was cancelled: it takes no entries.")
        if tournament.state == Tournament.State.FINISHED:
            raise Conflict("The event is finished: it takes no entries.")
        if tournament.state == Tournament.State.DRAFT:
            raise Conflict("The event is not open for entries yet.")
        if deck.archived:
            raise ValidationError({"deck": [f"deck '{deck.name}' was deleted and cannot enter"]})
        if deck.game != tournament.game:
            raise ValidationError({"deck": [f"deck '{deck.name}' is a {deck.get_game_display()} deck; this is a "
                                            f"{tournament.get_game_display()} event"]})
        version = deck.latest_version
        if version is None:
            raise ValidationError({"deck": [f"deck '{deck.name}' has no version to enter"]})
        # Checked under the row lock that tournament_update takes to change the rules: an
        # entry fits the rules its matches will be played with.
        problems = match_deck_problems(deck_versions=[version], params=tournament.params)
        if problems:
            raise ValidationError({"deck": problems})
        who = live.entry_plays(tournament, plays, version)
        if tournament.entries.filter(player=player).exists():
            raise Conflict("You have already entered this event: drop your entry first to enter another deck.")
        late = tournament.state in (Tournament.State.RUNNING, Tournament.State.PAUSED)
        if late:
            if (not plan.format_of(tournament).takes_late_entries
                    or tournament.current_round > tournament.late_entry_rounds):
                raise Conflict(f"Late entry is closed: the event is in round {tournament.current_round}"
                               + (f" and took late entries during rounds 1 to {tournament.late_entry_rounds}"
                                  if tournament.late_entry_rounds else " and takes no late entries") + ".")
        else:
            if tournament.registration_opens and now < tournament.registration_opens:
                raise Conflict(f"Registration opens at {tournament.registration_opens:%Y-%m-%d %H:%M} UTC.")
            if tournament.registration_closes and now > tournament.registration_closes:
                raise Conflict("Registration is closed.")
        active = tournament.entries.filter(waitlisted=False).count()
        waiting = tournament.entries.filter(waitlisted=True, dropped=False).count()
        waitlisted = False
        if tournament.entry_limit is not None and active >= tournament.entry_limit:
            if late or waiting >= tournament.entry_limit:
                raise Conflict(f"The event is full: {tournament.entry_limit} entries"
                               + ("" if late else f" and {waiting} on the waitlist") + ".")
            waitlisted = True
        seed = None
        if late:
            seed = (max(tournament.entries.exclude(seed=None).values_list("seed", flat=True), default=0) or 0) + 1
        try:
            with transaction.atomic():
                entry = Entry.objects.create(tournament=tournament, player=player, deck=deck, deck_version=version,
                                             waitlisted=waitlisted, late=late, seed=seed, plays=who,
                                             checked_in=now if late and tournament.is_live else None)
        except IntegrityError:
            raise Conflict("You have already entered this event.") from None
        _broadcast_on_commit(tournament.pk)
    return entry


def tournament_drop(*, entry_id: int, by) -> Entry:
    """Drop an entry (its player's own wish, or the organiser's). Before the start the
    entry is removed and the first waitlisted entry moves up; after it, the entry is not
    paired again and its finished matches stand. Locks the tournament row."""
    entry = Entry.objects.select_related("tournament").filter(pk=entry_id).first()
    if entry is None:
        raise ValidationError({"entry": [f"there is no entry {entry_id}"]})
    if not can_drop_entry(by, entry):
        raise PermissionDenied("Only the player or the organiser may drop this entry.")
    with transaction.atomic():
        tournament = _locked(entry.tournament_id)
        entry = Entry.objects.get(pk=entry_id)
        if tournament.is_over:
            raise Conflict(f"The event is {tournament.get_state_display().lower()}: entries can no longer drop.")
        if entry.dropped:
            raise Conflict("This entry has already dropped.")
        if not tournament.has_started or entry.waitlisted:
            was_waitlisted = entry.waitlisted
            entry.delete()
            if not was_waitlisted:
                _promote_waitlist(tournament)
        else:
            entry.dropped = True
            entry.dropped_round = tournament.current_round
            entry.save(update_fields=["dropped", "dropped_round"])
        _broadcast_on_commit(tournament.pk)
    return entry


def _promote_waitlist(tournament: Tournament) -> None:
    if tournament.entry_limit is None:
        return
    active = tournament.entries.filter(waitlisted=False).count()
    free = tournament.entry_limit - active
    if free > 0:
        waiting = list(tournament.entries.filter(waitlisted=True, dropped=False).order_by("created", "id")[:free])
        for entry in waiting:
            entry.waitlisted = False
            entry.save(update_fields=["waitlisted"])


# --------------------------------------------------------------------------- state machine


def tournament_start(*, tournament_id: int, by=None, now: datetime | None = None) -> Tournament:
    """Start an open event: seed the entries from the tournament seed and pair round 1.

    ``by`` None is the scheduler (beat's tick); a person must manage the event. With fewer
    than ``min_entries`` entries the event is cancelled instead, with the reason. Locks the
    tournament row; an event that already started is left alone (returned as it is) when
    the scheduler calls, and is a 409 for a person.
    """
    now = now or timezone.now()
    with effects.batched(), transaction.atomic():
        tournament = _locked(tournament_id)
        if by is not None:
            _require_manager(by, tournament)
        if tournament.state != Tournament.State.OPEN:
            if by is None:
                return tournament
            raise Conflict(f"Only an open event can start; this one is {tournament.get_state_display().lower()}.")
        live.apply_check_in(tournament, now)
        entries = list(tournament.entries.filter(waitlisted=False, dropped=False).order_by("created", "id"))
        if len(entries) < tournament.min_entries:
            _cancel(tournament, f"Not enough entries at the start time: {len(entries)} entered, "
                                f"{tournament.min_entries} needed.", now)
            return tournament
        order = _seeding_order(tournament, entries)
        for number, entry in enumerate(order, start=1):
            entry.seed = number
        Entry.objects.bulk_update(order, ["seed"], batch_size=1000)
        tournament.state = Tournament.State.RUNNING
        tournament.started = now
        tournament.total_rounds = plan.group_rounds(tournament, len(entries))
        tournament.save(update_fields=["state", "started", "total_rounds", "updated"])
        _advance_locked(tournament, now)
        _broadcast_on_commit(tournament.pk)
    return tournament


def _seeding_order(tournament: Tournament, entries: list[Entry]) -> list[Entry]:
    """Entries from the top seed down: by the deck's ladder rating (its conservative
    ordinal, bots pool), equal ratings (unrated decks among
    them) in a shuffle from the tournament seed, so the same event always seeds the same way."""

    order = list(entries)
    Rng(seed_from(tournament.seed, "seeding")).shuffle(order)
    ratings = ratings_for_decks(entry.deck_id for entry in order)
    order.sort(key=lambda entry: -ratings[entry.deck_id])  # stable: ties keep the shuffle
    return order


def tournament_pause(*, tournament_id: int, by) -> Tournament:
    """Pause a running event: matches already playing finish, no new round is paired."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_manager(by, tournament)
        if tournament.state != Tournament.State.RUNNING:
            raise Conflict(f"Only a running event can pause; this one is {tournament.get_state_display().lower()}.")
        tournament.state = Tournament.State.PAUSED
        tournament.save(update_fields=["state", "updated"])
        _broadcast_on_commit(tournament.pk)
    return tournament


def tournament_resume(*, tournament_id: int, by) -> Tournament:
    """Resume a paused event and advance it at once (a round may have ended meanwhile)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_manager(by, tournament)
        if tournament.state != Tournament.State.PAUSED:
            raise Conflict(f"Only a paused event can resume; this one is {tournament.get_state_display().lower()}.")
        tournament.state = Tournament.State.RUNNING
        tournament.save(update_fields=["state", "updated"])
        _advance_locked(tournament, timezone.now())
        _broadcast_on_commit(tournament.pk)
    return tournament


def tournament_cancel(*, tournament_id: int, by, reason: str) -> Tournament:
    """Cancel an event that has not finished, with the reason shown on its page. Matches
    already playing finish but count for nothing."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": ["say why the event is cancelled: players see it on the event page"]})
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_manager(by, tournament)
        if tournament.is_over:
            raise Conflict(f"The event is already {tournament.get_state_display().lower()}.")
        _cancel(tournament, f"Cancelled by the organiser: {reason}", timezone.now())
    return tournament


def _cancel(tournament: Tournament, reason: str, now: datetime) -> None:
    tournament.state = Tournament.State.CANCELLED
    tournament.cancel_reason = reason
    tournament.finished = now
    tournament.save(update_fields=["state", "cancel_reason", "finished", "updated"])
    _broadcast_on_commit(tournament.pk)


def tournament_rerun_pairing(*, pairing_id: int, by) -> Pairing:
    """Play a failed match again: a new match of the same entries (a fresh seed from the
    tournament seed); the failed one is kept in ``replaced``. Locks the tournament row."""
    pairing = Pairing.objects.select_related("round").filter(pk=pairing_id).first()
    if pairing is None:
        raise ValidationError({"pairing": [f"there is no pairing {pairing_id}"]})
    with transaction.atomic():
        tournament = _locked(pairing.round.tournament_id)
        _require_manager(by, tournament)
        pairing = Pairing.objects.select_related("round", "match").get(pk=pairing_id)
        if pairing.status != Pairing.Status.FAILED:
            raise Conflict("Only a failed match can be re-run.")
        if tournament.is_over:
            raise Conflict(f"The event is {tournament.get_state_display().lower()}.")
        dropped = set(Entry.objects.filter(pk__in=pairing.entries, dropped=True).values_list("pk", flat=True))
        if pairing.match_id:
            pairing.replaced = [*pairing.replaced, {"match": pairing.match_id, "why": "failed"}]
        live = [e for e in pairing.entries if e not in dropped]
        if dropped and len(pairing.entries) == 2:
            # The organiser dropped a player of the failed table: the other goes through.
            pairing.status = Pairing.Status.DONE
            pairing.result = plan.walkover_result(pairing.entries, live[0] if live else pairing.entries[0])
            pairing.save(update_fields=["replaced", "status", "result"])
        else:
            try:
                match = _create_match(tournament, pairing, pairing.seat_entries or pairing.entries,
                                      best_of=tournament.best_of)
            except ValidationError as exc:
                raise Conflict(f"The match cannot be played: {'; '.join(exc.messages)}. Drop the player whose "
                               "deck cannot play, then re-run it.") from None
            pairing.status = Pairing.Status.PLAYING
            pairing.match = match
            pairing.result = None
            pairing.save(update_fields=["replaced", "status", "match", "result"])
        if tournament.state == Tournament.State.RUNNING:
            _advance_locked(tournament, timezone.now())
        _broadcast_on_commit(tournament.pk)
    return pairing


# --------------------------------------------------------------------------- advancing


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> str:
    """Record finished matches of the current round and, once every table is decided,
    pair the next round (or wait for a tiebreak, or finish the event).

    Safe to call any number of times from any worker: locks the tournament row, and the
    round's unique number refuses a second set of pairings. Does nothing unless the
    event is running. Returns what happened, for the worker's log.
    """
    moment = now or timezone.now()
    # A live round's games due now are decided first, each in its own short transaction
    # (``live.settle_due_games``), so that the locked step below only records them; a
    # round paired next starts when it is paired, after them. Their ends ask for no
    # advance: this one follows.
    with effects.withholding(conf.ADVANCE, [tournament_id]):
        live.settle_due_games(tournament_id, moment)
    now = now or timezone.now()
    # Its effects (a new round's games and notices, the event's update) go out together
    # after the commit (``web.effects.batched``).
    with effects.batched(), transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return "no such tournament"
        if tournament.state != Tournament.State.RUNNING:
            return f"not running ({tournament.state})"
        outcome = _advance_locked(tournament, now)
        _broadcast_on_commit(tournament.pk)
    return outcome


def _advance_locked(tournament: Tournament, now: datetime) -> str:
    """The body of :func:`tournament_advance`, for a locked running tournament."""
    what = "nothing to do"
    for _ in range(MAX_ADVANCE_STEPS):
        current = tournament.round_set.filter(number=tournament.current_round).first()
        if current is not None and current.finished is None:
            waiting = _sync_round(tournament, current, now)
            if waiting:
                return f"round {current.number}: {waiting} table(s) still playing"
            current.finished = now
            current.save(update_fields=["finished"])
            what = f"round {current.number} done"
        if tournament.tiebreaks.filter(status=Tiebreak.Status.PENDING).exists():
            return "waiting for a tiebreak"
        step = plan.next_step(tournament)
        if step.kind == "tiebreak":
            _start_tiebreak(tournament, step.key, step.purpose, step.entries)
            return f"tiebreak '{step.key}' between entries {step.entries}"
        if step.kind == "finish":
            tournament.state = Tournament.State.FINISHED
            tournament.finished = now
            tournament.winner_id = step.winner
            tournament.save(update_fields=["state", "finished", "winner", "updated"])
            return f"finished: entry {step.winner} won"
        if step.kind == "wait":
            return step.purpose
        scheduled = live.wait_for_schedule(tournament, tournament.current_round + 1, now)
        if scheduled is not None:
            return scheduled
        _pair_round(tournament, step, now)
        what = f"round {tournament.current_round} paired"
    return what


def _sync_round(tournament: Tournament, current: Round, now: datetime) -> int:
    """Record the results of the round's finished matches; replay drawn elimination
    matches with seats swapped; mark failed ones; in a live event, bring each table's live
    games up to date (``live.sync_pairings``: no-shows, the round's limit, the next game of
    a series). Returns how many tables still wait."""
    waiting = 0
    live_tables: list[Pairing] = []
    for pairing in current.pairings.select_related("match").filter(status__in=(Pairing.Status.PLAYING,
                                                                             Pairing.Status.FAILED)):
        match = pairing.match
        if match is None:
            waiting += 1
            continue
        if match.kind == Match.Kind.LIVE:
            live_tables.append(pairing)
            continue
        if match.status == Match.Status.FAILED:
            if pairing.status != Pairing.Status.FAILED:
                pairing.status = Pairing.Status.FAILED
                pairing.save(update_fields=["status"])
            waiting += 1
            continue
        if match.status != Match.Status.DONE:
            waiting += 1
            continue
        result = plan.result_from_match(match, pairing.seat_entries or pairing.entries, pairing.entries)
        elimination = current.stage in (Round.Stage.ELIMINATION, Round.Stage.TOP_CUT)
        if elimination and len(pairing.entries) == 2 and result["places"][0] == result["places"][1]:
            # A drawn elimination match is replayed, seats swapped, best of 1, until decided.
            seat_entries = list(reversed(pairing.seat_entries or pairing.entries))
            pairing.replaced = [*pairing.replaced, {"match": match.pk, "why": "drawn"}]
            pairing.seat_entries = seat_entries
            try:
                pairing.match = _create_match(tournament, pairing, seat_entries, best_of=1)
            except ValidationError as exc:
                pairing.match = None
                pairing.status = Pairing.Status.FAILED
                pairing.result = {"error": "; ".join(exc.messages)}
            pairing.save(update_fields=["replaced", "seat_entries", "match", "status", "result"])
            waiting += 1
            continue
        pairing.result = result
        pairing.status = Pairing.Status.DONE
        pairing.save(update_fields=["result", "status"])
    if live_tables:
        waiting += live.sync_pairings(tournament, current, live_tables, now)
    return waiting


def _pair_round(tournament: Tournament, step: plan.Step, now: datetime) -> Round:
    """Write round ``current_round + 1`` with ``step``'s pairings and create their matches
    (live games in a live event, whose round clock starts ``now``)."""
    number = tournament.current_round + 1
    try:
        with transaction.atomic():
            new_round = Round.objects.create(tournament=tournament, number=number, stage=step.stage)
    except IntegrityError:
        # Only reachable without the row lock (it cannot happen under it): the round
        # exists, so somebody else paired it.
        raise Conflict(f"Round {number} is already paired.") from None
    entries = {e.pk: e for e in tournament.entries.select_related("player", "deck_version", "deck_version__deck")}
    announce: list[tuple[int, str, str | None]] = []
    pairings: list[Pairing] = []
    # A live round's games are checked and dealt table by table, then written together.
    planned: list[tuple[Pairing, Any]] = []
    for table, spec in enumerate(step.pairings, start=1):
        pairing = Pairing(round=new_round, table=table, key=spec.key, entries=list(spec.entries),
                          seat_entries=list(spec.entries))
        if len(spec.entries) == 1:
            pairing.status = Pairing.Status.DONE
            pairing.result = plan.sit_out_result() if spec.sit_out else plan.bye_result(tournament)
        elif spec.walkover is not None:
            pairing.status = Pairing.Status.DONE
            pairing.result = plan.walkover_result(spec.entries, spec.walkover)
        else:
            try:
                if tournament.is_live:
                    planned.append((pairing, live.plan_game(tournament, pairing, pairing.entries, entries=entries)))
                else:
                    pairing.match = _create_match(tournament, pairing, pairing.entries, best_of=tournament.best_of,
                                                  entries=entries)
            except ValidationError as exc:
                # A deck that can no longer play (deleted after entering): the table waits
                # for the organiser, who drops the player and re-runs it as a walkover.
                pairing.status = Pairing.Status.FAILED
                pairing.result = {"error": "; ".join(exc.messages)}
        pairings.append(pairing)
    if planned:
        for (pairing, _), match in zip(planned, live.create_games(tournament, planned, announce=announce),
                                       strict=True):
            pairing.match = match
    # Every table in one statement, each written once its match exists.
    Pairing.objects.bulk_create(pairings, batch_size=500)
    tournament.current_round = number
    tournament.save(update_fields=["current_round", "updated"])
    if tournament.is_live:
        live.announce_games(announce)
        live.round_opened(tournament, new_round, now)
    return new_round


def _create_match(tournament: Tournament, pairing: Pairing, seat_entries: list[int], *, best_of: int,
                  entries: Mapping[int, Entry] | None = None,
                  announce: list[tuple[int, str, str | None]] | None = None) -> Match:
    if tournament.is_live:
        return live.create_game(tournament, pairing, seat_entries, entries=entries, announce=announce)
    if entries is None:
        entries = {e.pk: e for e in Entry.objects.select_related("deck_version", "deck_version__deck")
                   .filter(pk__in=seat_entries)}
    versions = [entries[entry_id].deck_version for entry_id in seat_entries]
    attempt = len(pairing.replaced)
    seed = seed_from(tournament.seed, "match", pairing.round.number, pairing.table, attempt) >> 11
    return match_challenge(created_by=None, deck_versions=versions, best_of=best_of, params=tournament.params,
                           seed=seed, kind=Match.Kind.TOURNAMENT)


def _start_tiebreak(tournament: Tournament, key: str, purpose: str, entries: list[int]) -> Tiebreak:
    tiebreak, created = Tiebreak.objects.get_or_create(
        tournament=tournament, key=key, defaults={"purpose": purpose, "entries": list(entries)})
    if tiebreak.status == Tiebreak.Status.PENDING:
        effects.send_task_on_commit(conf.TIEBREAK, args=[tiebreak.pk], queue=conf.QUEUE)
    return tiebreak


def tournament_tiebreak_resolve(*, tiebreak_id: int) -> Tiebreak | None:
    """Run Match the Twos for a pending tiebreak from the tournament seed and record every
    reveal; then advance the event. A decided tiebreak is left alone (None). Locks the
    tournament row."""

    with transaction.atomic():
        row = Tiebreak.objects.filter(pk=tiebreak_id).first()
        if row is None:
            return None
        tournament = _locked(row.tournament_id)
        row.refresh_from_db()
        if row.status != Tiebreak.Status.PENDING:
            return None
        entries = {e.pk: e for e in tournament.entries.select_related("deck_version", "deck_version__deck")
                   .filter(pk__in=row.entries)}
        decks = {entry_id: entries[entry_id].deck_version.to_engine() for entry_id in row.entries}
        row.record = run_match_the_twos(game=tournament.game, decks=decks,
                                        seed=seed_from(tournament.seed, "tiebreak", row.key))
        row.status = Tiebreak.Status.DONE
        row.finished = timezone.now()
        row.save(update_fields=["record", "status", "finished"])
        if tournament.state == Tournament.State.RUNNING:
            _advance_locked(tournament, timezone.now())
        _broadcast_on_commit(tournament.pk)
    return row


def tournament_tick(*, now: datetime | None = None) -> dict[str, list[int]]:
    """Beat's every-minute check: start open events whose start time has come (or cancel
    them for too few entries), advance every running event (repairing a round whose
    advance message was lost) and re-send pending tiebreaks. Each event in its own
    transaction."""
    now = now or timezone.now()
    report: dict[str, list[int]] = {"started": [], "cancelled": [], "advanced": [], "tiebreaks": []}
    due = Tournament.objects.filter(state=Tournament.State.OPEN, starts_at__lte=now).values_list("pk", flat=True)
    for tournament_id in list(due):
        try:
            tournament = tournament_start(tournament_id=tournament_id, now=now)
        except Exception:  # one broken event must not stop the others from starting
            logger.exception("tick: could not start tournament %s", tournament_id)
            continue
        report["cancelled" if tournament.state == Tournament.State.CANCELLED else "started"].append(tournament_id)
    running = Tournament.objects.filter(state=Tournament.State.RUNNING).values_list("pk", flat=True)
    for tournament_id in list(running):
        before = Tournament.objects.filter(pk=tournament_id).values_list("current_round", "state").first()
        try:
            tournament_advance(tournament_id=tournament_id, now=now)
        except Exception:
            logger.exception("tick: could not advance tournament %s", tournament_id)
            continue
        after = Tournament.objects.filter(pk=tournament_id).values_list("current_round", "state").first()
        if before != after:
            report["advanced"].append(tournament_id)
    pending = Tiebreak.objects.filter(status=Tiebreak.Status.PENDING, tournament__state=Tournament.State.RUNNING)
    for tiebreak_id in list(pending.values_list("pk", flat=True)):
        effects.send_task(conf.TIEBREAK, args=[tiebreak_id], queue=conf.QUEUE)
        report["tiebreaks"].append(tiebreak_id)
    return report


# --------------------------------------------------------------------------- helpers and side effects


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise Tournament.DoesNotExist(f"there is no tournament {tournament_id}")
    return tournament


def _require_manager(user, tournament: Tournament) -> None:
    if not can_manage_tournament(user, tournament):
        raise PermissionDenied("Only the organiser (or staff) may do this.")


def request_advance(tournament_id: int) -> None:
    """Send ``tournaments.advance`` after the current transaction commits; not while this
    thread is deciding the event's due games before advancing it (``tournament_advance``
    withholds it, ``web.effects.withholding``: the advance that follows records them; a
    round's hundred game ends at its limit once sent a message each, which then ran one
    after another while the next round's players were opening their boards)."""
    effects.send_task_on_commit(conf.ADVANCE, args=[tournament_id], queue=conf.QUEUE)


def _broadcast_on_commit(tournament_id: int) -> None:
    """After commit, tell the event's page that something changed (``tournament.update``
    with the progress line and state, read then); the page then re-reads what it shows."""
    effects.broadcast_on_commit(group_name(tournament_id), lambda: _update_event(tournament_id))


def _update_event(tournament_id: int) -> dict[str, Any]:
    tournament = Tournament.objects.get(pk=tournament_id)
    return {"type": "tournament.update", "tournament": tournament_id, "state": tournament.state,
            "round": tournament.current_round, "progress": tournament_progress(tournament=tournament)}
