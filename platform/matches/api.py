"""REST API of matches: challenges, match status and replays.

- ``GET /api/matches/``: matches, newest first, paginated; filters ``deck`` (id),
  ``player`` (username), ``game``, ``status``.
- ``POST /api/matches/`` ``{"decks": [ids], "best_of": 1|3|5, "params": {...}}``: a
  challenge of the decks' latest versions, the challenger's own deck first; answers 201
  with the match (docs/api.md has every field, limit and error).
- ``GET /api/matches/<id>/``: status, best_of, entries, progress, and when done the
  winner, result and games.
- ``GET /api/matches/<id>/replay/?game=N&from=I&count=K``: a page of game N's frames
  (positions I to I+K-1) the engine reconstructs from its log, verified the first time;
  ``download=1`` gives the engine's replay file once the match is over.

Errors use the project's one shape (config/api.py).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ErrorSerializer, error_body
from decks.models import Deck
from decks.permissions import request_deck_visibility
from matches.models import Match, MatchGame
from matches.permissions import can_challenge, can_challenge_with, can_view_match
from matches.selectors import (
    REPLAY_PAGE_DEFAULT,
    REPLAY_PAGE_MAX,
    REPLAY_PAGE_MAX_BYTES,
    match_game_get,
    match_get,
    match_list,
    match_replay_file,
    match_replay_page,
)
from matches.serializers import ChallengeSerializer, MatchDetailSerializer, MatchSerializer
from matches.services import match_challenge, match_game_verify
from web.games import game_names
from web.idempotency import IDEMPOTENCY_KEY, api_create_once
from web.inputs import MAX_ID, MAX_ID_DIGITS, parse_id, parse_whole_number

#: The highest game number ``?game=`` names, and the furthest position ``?from=`` starts at.
MAX_GAMES = 99
MAX_FROM = 10**9 - 1

FILTERS = [
    OpenApiParameter("deck", {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                     description="Only matches in which this deck played"),
    OpenApiParameter("player", OpenApiTypes.STR, description="Only matches of this username's decks"),
    OpenApiParameter("game", OpenApiTypes.STR, enum=game_names()),
    OpenApiParameter("status", OpenApiTypes.STR, enum=Match.Status.values),
]


def list_filters(params) -> dict:
    """The list filters of a query string, checked; ``ValidationError`` names a bad one."""
    errors: dict[str, list[str]] = {}
    out: dict = {}
    deck = params.get("deck", "").strip()
    if deck:
        deck_id = parse_id(deck)
        if deck_id is not None:
            out["deck"] = deck_id
        else:
            errors["deck"] = [f"deck must be a deck id (at most {MAX_ID_DIGITS} digits), not '{deck[:40]}'"]
    if params.get("player", "").strip():
        out["player"] = params["player"].strip()
    for name, choices in (("game", game_names()), ("status", Match.Status.values)):
        value = params.get(name, "").strip()
        if value:
            if value in choices:
                out[name] = value
            else:
                errors[name] = [f"{name} must be one of {', '.join(choices)}, not '{value}'"]
    if errors:
        raise ValidationError(errors)
    return out


def visible_match_list(filters: dict, visibility):
    """``match_list`` for a viewer: filtering by a deck they may not see finds nothing (the
    matches it played would tell its id)."""
    if filters.get("deck") is not None and not visibility.can_view(filters["deck"]):
        return Match.objects.none()
    return match_list(**filters)


def sealed_message(match: Match, visibility) -> str:
    """Why the viewer may not open the match's replays, or "" if they may: a deck of the
    match is entered in an event that has not published its decklists, and a replay shows
    every card of every deck."""
    until = [visibility.hidden_until(seat.deck_version) for seat in match.seats.all()]
    until = [u for u in until if u is not None]
    if not until:
        return ""
    return (f"The replays of match {match.pk} are hidden until {max(until):%Y-%m-%d %H:%M} UTC: a deck in it is "
            f"entered in an event that has not published its decklists yet.")


def get_visible_match(request: Request, match_id: int) -> Match:
    try:
        match = match_get(match_id=match_id)
    except Match.DoesNotExist:
        raise exceptions.NotFound(f"There is no match {match_id}.") from None
    if not can_view_match(request.user, match):
        raise exceptions.PermissionDenied("You may not see this match.")
    return match


class MatchListCreate(generics.GenericAPIView):
    """List matches, or challenge: create a match of decks (their latest versions)."""

    serializer_class = MatchSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]

    def get_queryset(self):
        return visible_match_list(list_filters(self.request.query_params), request_deck_visibility(self.request))

    @extend_schema(parameters=FILTERS, responses={200: MatchSerializer(many=True), 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        context = {"visibility": request_deck_visibility(request)}
        return self.get_paginated_response(MatchSerializer(page, many=True, context=context).data)

    @extend_schema(
        request=ChallengeSerializer,
        responses={201: MatchDetailSerializer, 400: ErrorSerializer, 401: ErrorSerializer, 409: ErrorSerializer,
                   413: ErrorSerializer},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request) -> Response:
        if not can_challenge(request.user):
            raise exceptions.NotAuthenticated()
        body = ChallengeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        ids = body.validated_data["decks"]
        hidden = request_deck_visibility(request).hidden_ids()  # answered as decks that do not exist
        decks = {deck.pk: deck for deck in Deck.objects.select_related("owner").filter(pk__in=ids).exclude(
            pk__in=hidden)}
        unknown = [str(i) for i in ids if i not in decks]
        if unknown:
            raise ValidationError({"decks": [f"no deck with id {', '.join(unknown)}"]})
        chosen = [decks[i] for i in ids]
        if not can_challenge_with(request.user, chosen):
            raise ValidationError({"decks": [
                f"the first deck is the challenger's (entry 0) and must be one of your own decks; deck "
                f"{chosen[0].pk} ('{chosen[0].name}') belongs to {chosen[0].owner.get_username()}"]})
        versions = []
        for deck in chosen:
            version = deck.latest_version
            if version is None:
                raise ValidationError({"decks": [f"deck '{deck.name}' has no version to play"]})
            versions.append(version)

        def challenge():
            match = match_challenge(
                created_by=request.user, deck_versions=versions, best_of=body.validated_data["best_of"],
                params=body.validated_data.get("params"),
            )
            return status.HTTP_201_CREATED, MatchDetailSerializer(
                match_get(match_id=match.pk), context={"visibility": request_deck_visibility(request)}).data

        return api_create_once(request, scope="matches.challenge", create=challenge)


class MatchDetail(APIView):
    """One match: status, best_of, entries, progress; when done, winner, result and games."""

    @extend_schema(responses={200: MatchDetailSerializer, 404: ErrorSerializer})
    def get(self, request: Request, match_id: int) -> Response:
        return Response(MatchDetailSerializer(get_visible_match(request, match_id),
                                              context={"visibility": request_deck_visibility(request)}).data)


def _whole_number(params, name: str, default: int, *, minimum: int, maximum: int | None = None) -> int:
    """A query-string number within bounds; ``ValidationError`` names the bound."""
    raw = params.get(name, "").strip()
    if not raw:
        return default
    bounds = f"between {minimum} and {maximum}" if maximum is not None else f"{minimum} or more"
    value = parse_whole_number(raw, max_digits=9)
    if value is None:
        raise ValidationError({name: [f"{name} must be a whole number {bounds}, not '{raw[:40]}'"]})
    if value < minimum or (maximum is not None and value > maximum):
        raise ValidationError({name: [f"{name} must be {bounds}, not {value}"]})
    return value


REPLAY_PARAMETERS = [
    OpenApiParameter("game", {"type": "integer", "minimum": 1, "maximum": MAX_GAMES},
                     description="Game number, 1 for the first (default)"),
    OpenApiParameter("from", {"type": "integer", "minimum": 0, "maximum": MAX_FROM}, description=(
        "First position of the page: 0 is the opening, K the state after action K (default 0; past the end "
        "gives the last position)")),
    OpenApiParameter("count", {"type": "integer", "minimum": 1, "maximum": REPLAY_PAGE_MAX}, description=(
        f"Frames in the page, 1 to {REPLAY_PAGE_MAX} (default {REPLAY_PAGE_DEFAULT}); a page is also cut short at "
        f"{REPLAY_PAGE_MAX_BYTES} bytes of frames: follow next_from")),
    OpenApiParameter("download", OpenApiTypes.INT, enum=[0, 1], description=(
        "0 (default): a page of frames for the viewer; 1: the engine's replay file (seed, decks, params, "
        "actions) for `python -m engine replay --verify`, only once the match is over (409 before)")),
]


@method_decorator(gzip_page, name="dispatch")
class MatchReplay(APIView):
    """One page of frames of one game's replay, or (``download=1``, once the match is
    over) the engine's replay file; verified by the engine the first time."""

    @extend_schema(
        parameters=REPLAY_PARAMETERS,
        responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = get_visible_match(request, match_id)
        sealed = sealed_message(match, request_deck_visibility(request))
        if sealed:
            return Response(error_body(code="deck_hidden", message=sealed), status=status.HTTP_403_FORBIDDEN)
        params = request.query_params
        number = _whole_number(params, "game", 1, minimum=1, maximum=MAX_GAMES)
        start = _whole_number(params, "from", 0, minimum=0, maximum=MAX_FROM)
        count = _whole_number(params, "count", REPLAY_PAGE_DEFAULT, minimum=1, maximum=REPLAY_PAGE_MAX)
        download = _whole_number(params, "download", 0, minimum=0, maximum=1) == 1
        try:
            game = match_game_get(match=match, number=number)
        except MatchGame.DoesNotExist:
            played = match.games.count()
            raise exceptions.NotFound(
                f"Match {match.pk} has no game {number} yet ({played} game{'s' if played != 1 else ''} played)."
            ) from None
        if download and not match.seed_revealed:
            return Response(error_body(
                code="match_not_over",
                message=f"Match {match.pk} is still {match.status}: its replay file holds the secret seed and every "
                        f"hidden card, so it is served once the match is over.",
            ), status=status.HTTP_409_CONFLICT)
        problems = match_game_verify(game=game)
        if problems:
            message = f"The replay of game {game.number} does not reproduce with this engine: {problems[0]}"
            return Response(error_body(code="replay_mismatch", message=message, fields={"replay": problems}),
                            status=status.HTTP_409_CONFLICT)
        if download:
            response = Response(match_replay_file(match=match, game=game))
            response["Content-Disposition"] = f'attachment; filename="match-{match.pk}-game-{game.number}.json"'
            return response
        page = match_replay_page(match=match, game=game, all_seats=match.seed_revealed, start=start, count=count,
                                 visibility=request_deck_visibility(request))
        return HttpResponse(page, content_type="application/json")
