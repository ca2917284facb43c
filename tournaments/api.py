"""REST API of tournaments.

- ``GET /api/tournaments/``: events, paginated; filters ``game``, ``format``, ``state``.
- ``POST /api/tournaments/``: create an event (signed in; you become its organiser).
- ``GET /api/tournaments/<id>/``: settings, state, current round, progress.
- ``GET /api/tournaments/<id>/entries/``: entries (decklists once the event started);
  ``POST`` ``{"deck": <id>}`` enters one of your decks; ``DELETE`` drops your entry (the
  organiser may drop anyone's with ``?entry=<id>``).
- ``GET /api/tournaments/<id>/standings/``: standings with every tiebreaker column.
- ``GET /api/tournaments/<id>/rounds/<n>/``: round ``n``'s pairings with match ids and results.
- ``POST /api/tournaments/<id>/start/``: the organiser starts the event now.
- ``POST /api/tournaments/<id>/check-in/``: check your entry in (live events, in the window).
- ``GET /api/tournaments/<id>/my-match/``: what you play now: your table, its live board,
  opponents and result, or what you wait for.

Errors use the project's one shape (config/api.py): 400 bad input, 403 not allowed,
404 unknown, 409 a conflict with the event's state.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from config.api import ErrorSerializer
from decks.permissions import request_deck_visibility
from tournaments import formats
from tournaments.live import tournament_check_in
from tournaments.models import Entry, Tournament
from tournaments.permissions import can_create_tournament, can_see_decklists, can_view_tournament
from tournaments.selectors import entry_list, my_match, pairing_rows, standings_rows, tournament_get, tournament_list
from tournaments.serializers import (
    EnterSerializer,
    EntrySerializer,
    MyMatchSerializer,
    RoundSerializer,
    StandingSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)
from tournaments.services import tournament_create, tournament_drop, tournament_enter, tournament_start
from web.games import game_names
from web.idempotency import IDEMPOTENCY_KEY, api_create_once
from web.inputs import MAX_ID, MAX_ID_DIGITS, parse_id

FILTERS = [
    OpenApiParameter("game", OpenApiTypes.STR, enum=game_names()),
    OpenApiParameter("format", OpenApiTypes.STR, enum=[f.key for f in formats.all_formats()]),
    OpenApiParameter("state", OpenApiTypes.STR, enum=Tournament.State.values),
]
ERRORS = {400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer,
          409: ErrorSerializer}


class _NoFormatOverride:
    URL_FORMAT_OVERRIDE = None

    def __getattr__(self, name):
        return getattr(api_settings, name)


class FormatIsAFilter(DefaultContentNegotiation):
    """In the list, ``?format=`` filters events by tournament format; it never picks a
    renderer (DRF's usual meaning of that parameter)."""

    settings = _NoFormatOverride()


def list_filters(params) -> dict:
    errors: dict[str, list[str]] = {}
    out: dict = {}
    for name, choices in (("game", game_names()), ("format", [f.key for f in formats.all_formats()]),
                          ("state", Tournament.State.values)):
        value = params.get(name, "").strip()
        if value:
            if value in choices:
                out[name] = value
            else:
                errors[name] = [f"{name} must be one of {', '.join(choices)}, not '{value}'"]
    if errors:
        raise ValidationError(errors)
    return out


def get_visible(request: Request, tournament_id: int) -> Tournament:
    try:
        tournament = tournament_get(tournament_id=tournament_id)
    except Tournament.DoesNotExist:
        raise exceptions.NotFound(f"There is no tournament {tournament_id}.") from None
    if not can_view_tournament(request.user, tournament):
        raise exceptions.NotFound(f"There is no tournament {tournament_id}.")
    return tournament


class TournamentListCreate(generics.GenericAPIView):
    """List events, or create one (you become its organiser)."""

    serializer_class = TournamentSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    content_negotiation_class = FormatIsAFilter

    def get_queryset(self):
        return tournament_list(user=self.request.user, **list_filters(self.request.query_params))

    @extend_schema(parameters=FILTERS, responses={200: TournamentSerializer(many=True), 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(TournamentSerializer(page, many=True).data)

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentDetailSerializer, **ERRORS},
                   parameters=[IDEMPOTENCY_KEY])
    def post(self, request: Request) -> Response:
        if not can_create_tournament(request.user):
            raise exceptions.NotAuthenticated()
        body = TournamentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        values = dict(body.validated_data)
        publish = values.pop("publish", True)

        def create():
            tournament = tournament_create(organiser=request.user, publish=publish, **values)
            return status.HTTP_201_CREATED, TournamentDetailSerializer(tournament_get(tournament_id=tournament.pk)).data

        return api_create_once(request, scope="tournaments.create", create=create)


class TournamentDetail(APIView):
    """One event: settings, state, current round and progress."""

    @extend_schema(responses={200: TournamentDetailSerializer, 404: ErrorSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(TournamentDetailSerializer(get_visible(request, tournament_id),
                                                   context={"viewer": request.user}).data)


class TournamentEntries(generics.GenericAPIView):
    """Entries of an event; enter with one of your decks; drop your entry."""

    serializer_class = EntrySerializer
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: EntrySerializer(many=True), 404: ErrorSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        page = self.paginate_queryset(entry_list(tournament=tournament))
        context = {"decklists": can_see_decklists(request.user, tournament), "viewer": request.user,
                   "visibility": request_deck_visibility(request)}
        return self.get_paginated_response(EntrySerializer(page, many=True, context=context).data)

    @extend_schema(request=EnterSerializer, responses={201: EntrySerializer, **ERRORS}, parameters=[IDEMPOTENCY_KEY])
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        body = EnterSerializer(data=request.data)
        body.is_valid(raise_exception=True)

        def enter():
            entry = tournament_enter(tournament_id=tournament.pk, player=request.user,
                                     deck_id=body.validated_data["deck"], plays=body.validated_data.get("plays"))
            entry = Entry.objects.select_related("player", "deck", "deck_version").get(pk=entry.pk)
            return status.HTTP_201_CREATED, EntrySerializer(
                entry, context={"decklists": False, "viewer": request.user}).data

        return api_create_once(request, scope=f"tournaments.enter.{tournament.pk}", create=enter)

    @extend_schema(
        parameters=[OpenApiParameter("entry", {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                                     description="The organiser drops this entry; without it you drop your own")],
        responses={204: None, **ERRORS},
    )
    def delete(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        raw = request.query_params.get("entry", "").strip()
        if raw:
            entry_id = parse_id(raw)
            if entry_id is None:
                raise ValidationError({"entry": [f"entry must be an entry id (at most {MAX_ID_DIGITS} digits), "
                                                 f"not '{raw[:40]}'"]})
            entry = tournament.entries.filter(pk=entry_id).first()
            if entry is None:
                raise exceptions.NotFound(f"Tournament {tournament.pk} has no entry {entry_id}.")
        else:
            entry = tournament.entries.filter(player=request.user).first()
            if entry is None:
                raise exceptions.NotFound("You have no entry in this event.")
        tournament_drop(entry_id=entry.pk, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TournamentStandings(APIView):
    """Standings, best first, with every tiebreaker column (empty before the start)."""

    @extend_schema(responses={200: StandingSerializer(many=True), 404: ErrorSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        return Response(StandingSerializer(standings_rows(tournament=tournament, viewer=request.user), many=True).data)


class TournamentRound(APIView):
    """One round's pairings with their match ids, status and results."""

    @extend_schema(responses={200: RoundSerializer, 404: ErrorSerializer})
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = get_visible(request, tournament_id)
        rnd = tournament.round_set.filter(number=number).first()
        if rnd is None:
            raise exceptions.NotFound(f"Tournament {tournament.pk} has no round {number} "
                                      f"({tournament.current_round} paired so far).")
        data = {"number": rnd.number, "stage": rnd.stage, "finished": rnd.finished,
                "pairings": pairing_rows(tournament=tournament, number=number, viewer=request.user)}
        return Response(RoundSerializer(data).data)


class TournamentStart(APIView):
    """Start the event now (organiser): seeds the entries and pairs round 1."""

    @extend_schema(request=None, responses={200: TournamentDetailSerializer, **ERRORS})
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        tournament_start(tournament_id=tournament.pk, by=request.user)
        return Response(TournamentDetailSerializer(tournament_get(tournament_id=tournament.pk)).data)



class TournamentCheckIn(APIView):
    """Check your entry in, in the window before a live event starts (idempotent)."""

    @extend_schema(request=None, responses={200: MyMatchSerializer, **ERRORS})
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        tournament_check_in(tournament_id=tournament.pk, player=request.user)
        return Response(MyMatchSerializer(my_match(tournament=tournament_get(tournament_id=tournament.pk),
                                                   user=request.user)).data)


class TournamentMyMatch(APIView):
    """What you play now in this event: your table of the current round, its live board,
    your opponents and result, or what you wait for (404 without an entry)."""

    @extend_schema(responses={200: MyMatchSerializer, 401: ErrorSerializer, 404: ErrorSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = get_visible(request, tournament_id)
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        mine = my_match(tournament=tournament, user=request.user)
        if mine is None:
            raise exceptions.NotFound("You have no entry in this event.")
        return Response(MyMatchSerializer(mine).data)
