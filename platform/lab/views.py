"""Pages of the deck lab: the start form of a deck, the list of one's runs, a run's page
(progress and figures, live), a lab match's replay and the CSV download."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from decks.models import Deck
from decks.permissions import request_deck_visibility
from lab import conf
from lab.api import csv_response
from lab.models import LabMatch, LabRun
from lab.permissions import can_start_lab, can_view_lab
from lab.selectors import field_labels, lab_open_run, lab_run_get, lab_runs, lab_summary
from lab.services import lab_cancel, lab_start
from web.apperrors import AppError


def _visible_run(request: HttpRequest, run_id: int) -> LabRun:
    try:
        run = lab_run_get(run_id=run_id)
    except LabRun.DoesNotExist:
        raise Http404(f"There is no lab run {run_id}.") from None
    if not can_view_lab(request.user, run):
        raise Http404(f"There is no lab run {run_id}.")
    return run


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new(request: HttpRequest, deck_id: int) -> HttpResponse:
    """The lab form of one of your decks; a valid form starts the run and opens its page."""
    deck = Deck.objects.select_related("owner").filter(pk=deck_id).first()
    if deck is None or not request_deck_visibility(request).can_view(deck):
        raise Http404(f"There is no deck {deck_id}.")
    if not can_start_lab(request.user, deck):
        raise PermissionDenied("Only the owner of a deck runs a lab of it.")
    errors: dict[str, list[str]] = {}
    status = 200
    values = {"n": str(conf.default_matches()), "field_kind": LabRun.FieldKind.LADDER, "top": str(conf.default_top()),
              "field_decks": "", "pilot": "random", "opponent_pilot": ""}
    if request.method == "POST":
        values.update({key: request.POST.get(key, "").strip() for key in values})
        ids = [part for part in values["field_decks"].replace(",", " ").split() if part]
        try:
            run = lab_start(owner=request.user, deck=deck, n=values["n"], field_kind=values["field_kind"],
                            field_decks=ids, top=values["top"] or None, pilot=values["pilot"],
                            opponent_pilot=values["opponent_pilot"])
            return redirect(run.get_absolute_url())
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
            status = 400
        except AppError as exc:
            errors = {"__all__": [exc.message]}
            status = exc.status
    return render(request, "lab/new.html", {
        "deck": deck, "values": values, "errors": errors, "pilots": conf.PILOTS,
        "field_kinds": LabRun.FieldKind.choices, "max_matches": conf.max_matches(), "max_field": conf.max_field(),
        "open_run": lab_open_run(user=request.user),
    }, status=status)


@login_required
@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """Your lab runs, newest first (the last 50)."""
    return render(request, "lab/index.html", {"runs": list(lab_runs(user=request.user)[:50])})


@login_required
@require_safe
def detail(request: HttpRequest, run_id: int) -> HttpResponse:
    """A run's page: the progress bar and the figures, updated live (socket, else polling)."""
    run = _visible_run(request, run_id)
    return render(request, "lab/detail.html", {
        "run": run, "summary": lab_summary(run=run, visibility=request_deck_visibility(request)),
    })


@login_required
@require_POST
def cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _visible_run(request, run_id)
    try:
        lab_cancel(run_id=run.pk, user=request.user)
    except AppError:
        pass  # already over: the page shows how it ended
    return redirect(run.get_absolute_url())


@login_required
@require_safe
def replay(request: HttpRequest, run_id: int, number: int) -> HttpResponse:
    """A lab match in the replay viewer of the matches app."""
    run = _visible_run(request, run_id)
    match = LabMatch.objects.filter(run=run, number=number).defer("replay").first()
    if match is None:
        raise Http404(f"Lab run {run.pk} has no match {number} yet.")
    opponent = field_labels(run, request_deck_visibility(request)).get(match.opponent_version_id, {})
    names = [f"{run.deck.name} (lab deck)", opponent.get("deck") or "Opponent"]
    if match.deck_seat != 0:
        names.reverse()
    return render(request, "lab/replay.html", {
        "run": run, "match": match, "entries": [{"seat": seat, "name": name} for seat, name in enumerate(names)],
    })


@login_required
@require_safe
def results_csv(request: HttpRequest, run_id: int) -> HttpResponse:
    return csv_response(_visible_run(request, run_id), request)
