"""Pages of the tournaments app: the list, the organiser's form, an event page with its
live section and the parts that change with its state, one page per round, and the POST
actions (enter, check in, drop, start, pause, resume, cancel, re-run).

Live events (people, or people and bots) add to the event page: who plays (a badge by the
title and in the enter box), the entrant's own "Your match" panel with check-in, each
table's live game (players on their board, both clocks, a link to watch) and the results
decided by the event's rules rather than by play (a no-show's forfeit, the round's time
limit, a seed)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from decks.permissions import request_deck_visibility
from matches.views import live_updates_enabled
from tournaments import formats, plan
from tournaments.api import list_filters
from tournaments.errors import Conflict
from tournaments.forms import CancelForm, EnterForm, TournamentForm
from tournaments.live import check_in_window, tournament_check_in
from tournaments.models import Entry, Pairing, Tournament
from tournaments.permissions import can_manage_tournament, can_see_decklists, can_view_tournament
from tournaments.selectors import (
    FINISHED,
    RUNNING,
    bracket_view,
    entry_deck,
    entry_list,
    entry_names,
    failed_pairings,
    my_match,
    pairing_rows,
    round_list,
    standings_rows,
    tiebreak_list,
    tournament_get,
    tournament_list,
    tournament_progress,
)
from tournaments.services import (
    tournament_cancel,
    tournament_create,
    tournament_drop,
    tournament_enter,
    tournament_pause,
    tournament_publish,
    tournament_rerun_pairing,
    tournament_resume,
    tournament_start,
    tournament_update,
)
from web.games import game_choices
from web.idempotency import page_create_once
from web.inputs import parse_id

PAGE_SIZE = 20


def _visible(request: HttpRequest, tournament_id: int) -> Tournament:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except Tournament.DoesNotExist:
        raise Http404(f"There is no tournament {tournament_id}.") from None
    if not can_view_tournament(request.user, tournament):
        raise Http404(f"There is no tournament {tournament_id}.")
    return tournament


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """Upcoming events (with countdowns), running ones, finished ones; filter by game and format."""
    try:
        filters = list_filters(request.GET)
        filter_errors: list[str] = []
    except ValidationError as exc:
        filters = {}
        filter_errors = [m for ms in exc.message_dict.values() for m in ms]
    filters.pop("state", None)
    rows = tournament_list(user=request.user, **filters)
    upcoming = rows.filter(state__in=(Tournament.State.OPEN, Tournament.State.DRAFT)).order_by("starts_at", "id")
    running = rows.filter(state__in=RUNNING).order_by("-started", "-id")
    finished = Paginator(rows.filter(state__in=FINISHED).order_by("-finished", "-id"), PAGE_SIZE).get_page(
        request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "tournaments/index.html", {
        "upcoming": upcoming, "running": running, "page_obj": finished, "filters": filters,
        "filter_errors": filter_errors, "query": query.urlencode(), "games": game_choices(),
        "formats": [(f.key, f.label) for f in formats.all_formats()], "now": timezone.now(),
    })


#: Where the form shows a service's message about a setting it asks under another name.
FORM_FIELD_OF = {"params": "params_text", "clock_initial": "clock_minutes"}


def _form_errors(form, exc: ValidationError) -> None:
    for field, field_messages in exc.message_dict.items():
        target = field if field in form.fields else FORM_FIELD_OF.get(field)
        for message in field_messages:
            form.add_error(target, message)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new(request: HttpRequest) -> HttpResponse:
    """The organiser's form; a valid event is created and you land on its page."""
    initial = {"starts_at": (timezone.now() + timezone.timedelta(hours=1)).replace(second=0, microsecond=0),
               "best_of": 1, "min_entries": 2}
    form = TournamentForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        def create() -> tuple[str, str]:
            tournament = tournament_create(organiser=request.user, publish=form.cleaned_data.get("publish", False),
                                           **form.values())
            return tournament.get_absolute_url(), f"'{tournament.name}' is created."

        try:
            location, said, _ = page_create_once(request, scope="tournaments.create", create=create)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, said)
            return redirect(location)
    return render(request, "tournaments/form.html", {"form": form, "tournament": None})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Edit the settings before the start (organiser)."""
    tournament = _visible(request, tournament_id)
    if not can_manage_tournament(request.user, tournament):
        raise PermissionDenied
    form = TournamentForm(request.POST or None, instance=Tournament.objects.get(pk=tournament.pk), editing=True)
    if request.method == "POST" and form.is_valid():
        try:
            tournament_update(tournament_id=tournament.pk, by=request.user, **form.values())
        except ValidationError as exc:
            _form_errors(form, exc)
        except Conflict as exc:
            messages.error(request, exc.message)
            return redirect(tournament.get_absolute_url())
        else:
            messages.success(request, "Settings saved.")
            return redirect(tournament.get_absolute_url())
    return render(request, "tournaments/form.html", {"form": form, "tournament": tournament})


def entrants_badge(tournament: Tournament) -> str:
    """Who plays the event, as its badge says it ("" for an event of bot pilots)."""
    if tournament.entrants == Tournament.Entrants.PEOPLE:
        return "Live event: people play"
    if tournament.entrants == Tournament.Entrants.MIXED:
        bots = f"bots up to {tournament.bot_cap}" if tournament.bot_cap else "any bot"
        if tournament.external_bots:
            bots += "; bots run by their owners welcome"
        return f"Mixed: people and bots ({bots})"
    return ""


def clock_words(seconds: int) -> str:
    """An event's clock as its settings say it: "5 min", "1 min 30 s", "45 s"."""
    minutes, rest = divmod(max(0, seconds), 60)
    parts = ([f"{minutes} min"] if minutes else []) + ([f"{rest} s"] if rest or not minutes else [])
    return " ".join(parts)


def clock_text(ms: int) -> str:
    """A clock's time left as a player reads it: 4:05, or 1:02:03 past an hour."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def result_marks(result: dict | None, entries: list[dict]) -> list[str]:
    """What decided a table besides play, in words: a no-show's forfeit, the round's time
    limit, the better seed going through."""
    result = result or {}
    names = {e.get("id"): e.get("player", f"entry {e.get('id')}") for e in entries}
    marks = []
    forfeit = [names.get(e, f"entry {e}") for e in result.get("forfeit") or ()]
    if forfeit:
        marks.append(f"forfeit (no-show): {', '.join(forfeit)}")
    if result.get("adjudicated"):
        marks.append("decided at the time limit")
    if result.get("decided_by") == "seed":
        places = result.get("places") or []
        winners = [names.get(e["id"]) for e, place in zip(entries, places, strict=False) if place == 1]
        marks.append(f"{', '.join(w for w in winners if w) or 'the better seed'} went through on seed")
    return marks


def table_rows(rows: list[dict], tournament: Tournament) -> list[dict]:
    """The selector's pairing rows with what the tables show of each seat (its player, on
    the board or not, their clock) and the marks of the result."""
    for row in rows:
        live = row.get("live")
        clocks = (live or {}).get("clocks") or []
        forfeit = set((row.get("result") or {}).get("forfeit") or ())
        row["seats"] = [{"entry": entry, "clock": clock, "forfeit": entry.get("id") in forfeit,
                         "clock_text": clock_text(clock["remaining_ms"]) if clock else ""}
                        for entry, clock in zip(row["entries"], clocks + [None] * len(row["entries"]), strict=False)]
        row["marks"] = result_marks(row.get("result"), row["entries"])
        row["game_of"] = (f"game {live['game']} of {tournament.best_of}"
                          if live and tournament.best_of > 1 and live.get("game") else "")
    return rows


def decided_by_rules(tournament: Tournament) -> list[dict]:
    """Every table of the event decided by a forfeit, the time limit or a seed: round,
    table, players and the marks, in round and table order (the note under the standings)."""
    if not tournament.is_live or not tournament.has_started:
        return []
    names = entry_names(tournament)
    out = []
    for pairing in (Pairing.objects.filter(round__tournament=tournament, status=Pairing.Status.DONE)
                    .select_related("round").order_by("round__number", "table")):
        result = pairing.result or {}
        if not (result.get("forfeit") or result.get("adjudicated") or result.get("decided_by")):
            continue
        entries = [names.get(e, {"id": e}) for e in pairing.entries]
        out.append({"round": pairing.round.number, "table": pairing.table,
                    "players": " vs ".join(e.get("player", "?") for e in entries),
                    "marks": result_marks(result, entries)})
    return out


def _live_context(request: HttpRequest, tournament: Tournament) -> dict:
    current = table_rows(pairing_rows(tournament=tournament, viewer=request.user), tournament)
    rounds = round_list(tournament=tournament)
    mine = my_match(tournament=tournament, user=request.user) if tournament.is_live else None
    if mine is not None:
        # The panel goes on from the sentence to the board's link ("…your game is on — Open your board").
        mine["lead"] = mine["text"].rstrip(".") if mine["status"] == "playing" and mine["board_url"] else mine["text"]
    return {
        "tournament": tournament,
        "event_format": plan.format_of(tournament),
        "progress": tournament_progress(tournament=tournament),
        "pairings": current,
        "current_round": tournament.round_set.filter(number=tournament.current_round).first(),
        "rounds": rounds,
        "standings": standings_rows(tournament=tournament, viewer=request.user),
        "bracket": bracket_view(tournament=tournament, viewer=request.user),
        "tiebreaks": tiebreak_list(tournament=tournament),
        "can_manage": can_manage_tournament(request.user, tournament),
        "failed": failed_pairings(tournament=tournament) if can_manage_tournament(request.user, tournament) else [],
        "score_label": tournament.engine_game.standings_score_label,
        "my_match": mine,
        "entrants_badge": entrants_badge(tournament),
        "decided": decided_by_rules(tournament),
        "now": timezone.now(),
        "show_decklists": can_see_decklists(request.user, tournament),
        "winner_deck": (entry_deck(tournament.winner, viewer=request.user, visibility=request_deck_visibility(request))
                        if tournament.winner_id else None),
    }


def _page_context(request: HttpRequest, tournament: Tournament) -> dict:
    """What the parts of the event page outside its live section show: settings, the
    organiser's tools, entries and the forms to enter or drop (none once it is over)."""
    entries = entry_list(tournament=tournament)
    manager = can_manage_tournament(request.user, tournament)
    visibility = request_deck_visibility(request)
    for entry in entries:  # each deck as this viewer may see it
        entry.tournament = tournament
        entry.shown = entry_deck(entry, viewer=request.user, visibility=visibility, manager=manager)
    mine = next((e for e in entries if request.user.is_authenticated and e.player_id == request.user.pk), None)
    enter_form = None
    if request.user.is_authenticated and mine is None and not tournament.is_over:
        enter_form = EnterForm(user=request.user, game=tournament.game, entrants=tournament.entrants)
    event_format = plan.format_of(tournament)
    window = check_in_window(tournament)
    show_check_in = window is not None and tournament.state in (Tournament.State.DRAFT, Tournament.State.OPEN)
    people = [e for e in entries if e.plays == Entry.Plays.PERSON and not e.dropped]
    return {
        "tournament": tournament,
        "event_format": event_format,
        "rounds_text": event_format.rounds_text(plan.settings_of(tournament), tournament.total_rounds),
        "entries": entries,
        "mine": mine,
        "enter_form": enter_form,
        "cancel_form": CancelForm(),
        "can_manage": can_manage_tournament(request.user, tournament),
        "show_decklists": can_see_decklists(request.user, tournament),
        "entrants_badge": entrants_badge(tournament),
        "clock_label": clock_words(tournament.clock_initial),
        "check_in_window": window,
        "show_check_in": show_check_in,
        "checked_in_count": sum(1 for e in people if e.checked_in),
        "people_count": len(people),
    }


@require_safe
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """An event: settings, entries, the current round, standings, the bracket; live."""
    tournament = _visible(request, tournament_id)
    context = _live_context(request, tournament)
    context.update(_page_context(request, tournament))
    context.update({"live": live_updates_enabled(), "now": timezone.now()})
    return render(request, "tournaments/detail.html", context)


@require_safe
def live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live section of the event page alone (what the page swaps in on each update)."""
    tournament = _visible(request, tournament_id)
    return render(request, "tournaments/_live.html", _live_context(request, tournament))


@require_safe
def parts(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The parts of the event page that change with its state (notice, settings, organiser
    tools, entries), each marked ``data-state-part``: the page swaps them in when the state
    changes, so that a finished event no longer offers Drop, Enter or a countdown."""
    tournament = _visible(request, tournament_id)
    return render(request, "tournaments/_parts.html", _page_context(request, tournament))


@require_safe
def round_detail(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    """One round of an event: its pairings with their matches and results (the page of
    what ``/api/tournaments/<id>/rounds/<n>/`` returns as JSON)."""
    tournament = _visible(request, tournament_id)
    rnd = tournament.round_set.filter(number=number).first()
    if rnd is None:
        raise Http404(f"Tournament {tournament.pk} has no round {number}.")
    pairings = table_rows(pairing_rows(tournament=tournament, number=number, viewer=request.user), tournament)
    done = sum(1 for p in pairings if p["status"] == "done")
    return render(request, "tournaments/round.html", {
        "tournament": tournament,
        "entrants_badge": entrants_badge(tournament),
        "round": rnd,
        "rounds": round_list(tournament=tournament),
        "pairings": pairings,
        "done": done,
        "previous": number - 1 if number > 1 else None,
        "next": number + 1 if tournament.round_set.filter(number=number + 1).exists() else None,
    })


@login_required
@require_POST
def action(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """One POSTed action: enter, check_in, drop, publish, start, pause, resume, cancel, rerun."""
    tournament = _visible(request, tournament_id)
    name = request.POST.get("action", "")
    user = request.user
    try:
        if name == "enter":
            form = EnterForm(request.POST, user=user, game=tournament.game, entrants=tournament.entrants)
            if not form.is_valid():
                raise ValidationError({"deck": [m for ms in form.errors.values() for m in ms]})

            def enter() -> tuple[str, str]:
                entry = tournament_enter(tournament_id=tournament.pk, player=user,
                                         deck_id=form.cleaned_data["deck"].pk,
                                         plays=form.cleaned_data.get("plays") or None)
                said = "You are on the waitlist." if entry.waitlisted else "You are entered."
                if entry.plays == Entry.Plays.BOT and tournament.is_live:
                    said += f" Your deck's bot pilot ({entry.deck_version.pilot}) plays your games."
                return tournament.get_absolute_url(), said

            _, said, _ = page_create_once(request, scope=f"tournaments.enter.{tournament.pk}", create=enter)
            messages.success(request, said)
        elif name == "check_in":
            tournament_check_in(tournament_id=tournament.pk, player=user)
            messages.success(request, "You are checked in: your games start with round 1.")
        elif name == "drop":
            entry_id = parse_id(request.POST.get("entry", ""))
            entry = tournament.entries.filter(pk=entry_id).first() if entry_id is not None else None
            if entry is None:
                raise ValidationError({"entry": ["choose an entry of this event"]})
            tournament_drop(entry_id=entry.pk, by=user)
            messages.success(request, f"{entry.player.username} dropped.")
        elif name == "publish":
            tournament_publish(tournament_id=tournament.pk, by=user)
            messages.success(request, "The event is open for entries.")
        elif name == "start":
            result = tournament_start(tournament_id=tournament.pk, by=user)
            if result.state == Tournament.State.CANCELLED:
                messages.error(request, result.cancel_reason)
            else:
                messages.success(request, "The event has started: round 1 is being played.")
        elif name == "pause":
            tournament_pause(tournament_id=tournament.pk, by=user)
            messages.success(request, "Paused: matches playing now finish; no new round starts.")
        elif name == "resume":
            tournament_resume(tournament_id=tournament.pk, by=user)
            messages.success(request, "Resumed.")
        elif name == "cancel":
            form = CancelForm(request.POST)
            reason = form.data.get("reason", "")
            tournament_cancel(tournament_id=tournament.pk, by=user, reason=reason)
            messages.success(request, "The event is cancelled.")
        elif name == "rerun":
            pairing_id = parse_id(request.POST.get("pairing", ""))
            if pairing_id is None:
                raise ValidationError({"pairing": ["choose a failed match"]})
            tournament_rerun_pairing(pairing_id=pairing_id, by=user)
            messages.success(request, "The match is played again.")
        else:
            raise ValidationError({"action": [f"unknown action '{name}'"]})
    except ValidationError as exc:
        for field_messages in exc.message_dict.values() if hasattr(exc, "error_dict") else [exc.messages]:
            for message in field_messages:
                messages.error(request, message)
    except Conflict as exc:
        messages.error(request, exc.message)
    except PermissionDenied as exc:
        messages.error(request, str(exc) or "You may not do this.")
    return redirect(tournament.get_absolute_url())
