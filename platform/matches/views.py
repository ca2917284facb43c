"""Pages of the matches app: the list, the challenge form, a match, the replay viewer."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from decks.models import Deck
from decks.permissions import request_deck_visibility
from matches.api import list_filters, sealed_message, visible_match_list
from matches.fairness import VERIFY_SCRIPT
from matches.forms import ChallengeForm
from matches.models import Match
from matches.permissions import can_challenge_with, can_view_match
from matches.selectors import match_get, match_seat_labels
from matches.serializers import MatchDetailSerializer
from matches.services import TooManyOpenChallenges, json_ready, match_challenge
from web.games import game_choices
from web.idempotency import page_create_once
from web.inputs import parse_id

PAGE_SIZE = 20


def live_updates_enabled() -> bool:
    """Whether the channel layer can carry a worker's broadcasts to the web process.

    The in-memory layer lives inside one process, so with it the match page polls.
    """
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "") if settings.CHANNEL_LAYERS else ""
    return bool(backend) and not backend.endswith("InMemoryChannelLayer")


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    try:
        match = match_get(match_id=match_id)
    except Match.DoesNotExist:
        raise Http404(f"There is no match {match_id}.") from None
    if not can_view_match(request.user, match):
        raise PermissionDenied
    return match


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """Every match, newest first, filtered by game, status, deck or player; 20 a page."""
    try:
        filters = list_filters(request.GET)
        filter_errors: list[str] = []
    except ValidationError as exc:
        filters = {}
        filter_errors = [m for messages_ in exc.message_dict.values() for m in messages_]
    page = Paginator(visible_match_list(filters, request_deck_visibility(request)), PAGE_SIZE).get_page(
        request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "matches/index.html", {
        "page_obj": page,
        "filters": filters,
        "filter_errors": filter_errors,
        "query": query.urlencode(),
        "games": game_choices(),
        "statuses": Match.Status.choices,
    })


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new(request: HttpRequest) -> HttpResponse:
    """The challenge form; ``?deck=<id>`` preselects your deck (or the opponent, if it is
    not yours). A valid challenge is created and you land on its page."""
    form = ChallengeForm(request.POST or None, user=request.user)
    if request.method != "POST":
        preselect = parse_id(request.GET.get("deck", ""))
        if preselect is not None:
            deck = Deck.objects.filter(pk=preselect, archived=False).first()
            if deck is not None:
                form.initial["deck" if deck.owner_id == request.user.pk else "opponent"] = deck.pk
    elif form.is_valid():
        decks = form.chosen_decks()
        if not can_challenge_with(request.user, decks):
            form.add_error("deck", "pick one of your own decks: it plays as entry 0")
        else:
            versions = [deck.latest_version for deck in decks]

            def challenge() -> tuple[str, str]:
                match = match_challenge(created_by=request.user, deck_versions=versions,
                                        best_of=form.cleaned_data["best_of"])
                return match.get_absolute_url(), f"Challenge queued: match {match.pk}."

            try:
                location, said, _ = page_create_once(request, scope="matches.challenge", create=challenge)
            except ValidationError as exc:
                for field, problems in exc.message_dict.items():
                    for problem in problems:
                        form.add_error("best_of" if field == "best_of" else None, problem)
            except TooManyOpenChallenges as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, said)
                return redirect(location)
    own = list(form.fields["deck"].queryset)
    everyone = list(form.fields["opponent"].queryset)
    return render(request, "matches/new.html", {"form": form, "own_decks": own, "all_decks": everyone})


def _player_of(match: Match, entry: dict, user) -> dict:
    """Who an entry is, as its page names it: in a live match the person who played it
    ("you" for the viewer's own seat) or the bot that filled it, with the deck second; in
    a bot match the deck itself (its bot pilot plays it). ``name`` is the short form the
    results use (the person, the bot or the deck)."""
    if match.kind != Match.Kind.LIVE:
        return {"player": None, "you": False, "name": entry["deck"]}
    if entry["pilot"] != "human":
        return {"player": f"bot {entry['pilot']}", "you": False, "name": f"bot {entry['pilot']}"}
    you = bool(user.is_authenticated and entry["owner"] == user.get_username())
    return {"player": "You" if you else entry["owner"], "you": you, "name": "you" if you else entry["owner"]}


@require_safe
def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match: live status and progress, result, games, bot errors, links to replays."""
    match = _visible_match(request, match_id)
    visibility = request_deck_visibility(request)
    result = match.result or {}
    wins, places = result.get("wins") or [], result.get("places") or []
    entries = [{**entry, "wins": wins[entry["seat"]] if entry["seat"] < len(wins) else 0,
                "place": places[entry["seat"]] if entry["seat"] < len(places) else None,
                **_player_of(match, entry, request.user)}
               for entry in match_seat_labels(match, visibility=visibility)]
    gone = set(result.get("forfeited") or ())
    return render(request, "matches/detail.html", {
        "match": match,
        "entries": entries,
        "forfeited": [entry["name"] for entry in entries if entry["seat"] in gone],
        "sealed": sealed_message(match, visibility),
        "initial": json_ready(MatchDetailSerializer(match, context={"visibility": visibility}).data),
        "live": live_updates_enabled(),
    })


@require_safe
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay viewer; ``?game=N&action=K`` opens game N at action K. A match with a
    deck its viewer may not see shows why instead (403), with no game to open."""
    match = _visible_match(request, match_id)
    visibility = request_deck_visibility(request)
    sealed = sealed_message(match, visibility)
    return render(request, "matches/replay.html", {
        "match": match,
        "games": [] if sealed else list(match.games.all()),
        "sealed": sealed,
        "entries": [{**entry, **_player_of(match, entry, request.user)}
                    for entry in match_seat_labels(match, visibility=visibility)],
    }, status=403 if sealed else 200)


@require_safe
def verify(request: HttpRequest, match_id: int) -> HttpResponse:
    """How to check a match's fairness: its commitment and, once it is over, its seed and
    salt, each game's replay file, and the commands that check them."""
    match = _visible_match(request, match_id)
    games = list(match.games.all())
    sealed = sealed_message(match, request_deck_visibility(request))
    return render(request, "matches/verify.html", {
        "match": match,
        "games": games,
        "revealed": match.seed_revealed and not sealed,
        "sealed": sealed,
        "host": request.build_absolute_uri("/").rstrip("/"),
        "script": VERIFY_SCRIPT,
    })
