"""Pages of the tournaments app: the list, the organiser's form, an event page with its
live section and the parts that change with its state, one page per round, and the POST
actions (enter, drop, start, pause, resume, cancel, re-run)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from matches.views import live_updates_enabled
from tournaments import formats, plan
from tournaments.api import list_filters
from tournaments.errors import Conflict
from tournaments.forms import CancelForm, EnterForm, TournamentForm
from tournaments.models import Tournament
from tournaments.permissions import can_manage_tournament, can_see_decklists, can_view_tournament
from tournaments.selectors import (
    FINISHED,
    RUNNING,
    bracket_view,
    entry_list,
    failed_pairings,
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


def _form_errors(form, exc: ValidationError) -> None:
    for field, field_messages in exc.message_dict.items():
        target = field if field in form.fields else ("params_text" if field == "params" else None)
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
        try:
            tournament = tournament_create(organiser=request.user, publish=form.cleaned_data.get("publish", False),
                                           **form.values())
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, f"'{tournament.name}' is created.")
            return redirect(tournament.get_absolute_url())
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
            messages.error(request, str(exc.detail))
            return redirect(tournament.get_absolute_url())
        else:
            messages.success(request, "Settings saved.")
            return redirect(tournament.get_absolute_url())
    return render(request, "tournaments/form.html", {"form": form, "tournament": tournament})


def _live_context(request: HttpRequest, tournament: Tournament) -> dict:
    current = pairing_rows(tournament=tournament)
    rounds = round_list(tournament=tournament)
    return {
        "tournament": tournament,
        "event_format": plan.format_of(tournament),
        "progress": tournament_progress(tournament=tournament),
        "pairings": current,
        "rounds": rounds,
        "standings": standings_rows(tournament=tournament),
        "bracket": bracket_view(tournament=tournament),
        "tiebreaks": tiebreak_list(tournament=tournament),
        "can_manage": can_manage_tournament(request.user, tournament),
        "failed": failed_pairings(tournament=tournament) if can_manage_tournament(request.user, tournament) else [],
        "score_label": tournament.engine_game.standings_score_label,
    }


def _page_context(request: HttpRequest, tournament: Tournament) -> dict:
    """What the parts of the event page outside its live section show: settings, the
    organiser's tools, entries and the forms to enter or drop (none once it is over)."""
    entries = entry_list(tournament=tournament)
    mine = next((e for e in entries if request.user.is_authenticated and e.player_id == request.user.pk), None)
    enter_form = None
    if request.user.is_authenticated and mine is None and not tournament.is_over:
        enter_form = EnterForm(user=request.user, game=tournament.game)
    event_format = plan.format_of(tournament)
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
    pairings = pairing_rows(tournament=tournament, number=number)
    done = sum(1 for p in pairings if p["status"] == "done")
    return render(request, "tournaments/round.html", {
        "tournament": tournament,
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
    """One POSTed action: enter, drop, publish, start, pause, resume, cancel, rerun."""
    tournament = _visible(request, tournament_id)
    name = request.POST.get("action", "")
    user = request.user
    try:
        if name == "enter":
            form = EnterForm(request.POST, user=user, game=tournament.game)
            if not form.is_valid():
                raise ValidationError({"deck": [m for ms in form.errors.values() for m in ms]})
            entry = tournament_enter(tournament_id=tournament.pk, player=user, deck_id=form.cleaned_data["deck"].pk)
            messages.success(request, "You are on the waitlist." if entry.waitlisted else "You are entered.")
        elif name == "drop":
            raw = request.POST.get("entry", "")
            entry = tournament.entries.filter(pk=int(raw)).first() if raw.isdigit() else None
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
            raw = request.POST.get("pairing", "")
            if not raw.isdigit():
                raise ValidationError({"pairing": ["choose a failed match"]})
            tournament_rerun_pairing(pairing_id=int(raw), by=user)
            messages.success(request, "The match is played again.")
        else:
            raise ValidationError({"action": [f"unknown action '{name}'"]})
    except ValidationError as exc:
        for field_messages in exc.message_dict.values() if hasattr(exc, "error_dict") else [exc.messages]:
            for message in field_messages:
                messages.error(request, message)
    except Conflict as exc:
        messages.error(request, str(exc.detail))
    except PermissionDenied as exc:
        messages.error(request, str(exc) or "You may not do this.")
    return redirect(tournament.get_absolute_url())
