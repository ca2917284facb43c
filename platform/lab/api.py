"""REST API of the deck lab (owner and staff only: a run reveals a deck's figures).

- ``POST /api/decks/<id>/lab/``: start a run of the deck (201 with the run's figures).
- ``GET /api/lab/``: the viewer's runs, newest first, paginated.
- ``GET /api/lab/<id>/``: status, progress and every figure so far.
- ``POST /api/lab/<id>/cancel/``: stop an open run.
- ``GET /api/lab/<id>/matches/``: its matches, paginated; ``.../matches/<n>/replay/``: a
  page of one match's replay for the viewer.
- ``GET /api/lab/<id>/csv/``: every match as CSV.

Errors use the project's one shape (config/api.py); docs/lab.md lists them.
"""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ErrorSerializer
from decks.models import Deck
from decks.permissions import request_deck_visibility
from lab.models import LabMatch, LabRun
from lab.permissions import can_view_lab
from lab.selectors import (
    REPLAY_PAGE_MAX,
    lab_csv_rows,
    lab_matches,
    lab_replay_page,
    lab_run_get,
    lab_runs,
    lab_summary,
)
from lab.serializers import LabMatchSerializer, LabRunSerializer, LabStartSerializer
from lab.services import lab_cancel, lab_start
from web.inputs import parse_whole_number

ERRORS = {400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}


def visible_run(request: Request, run_id: int) -> LabRun:
    try:
        run = lab_run_get(run_id=run_id)
    except LabRun.DoesNotExist:
        raise exceptions.NotFound(f"There is no lab run {run_id}.") from None
    if not can_view_lab(request.user, run):
        # Someone else's run is answered as missing: its existence would tell what is tested.
        raise exceptions.NotFound(f"There is no lab run {run_id}.")
    return run


class LabStart(APIView):
    """Start a lab run of one of your decks."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=LabStartSerializer, responses={201: OpenApiTypes.OBJECT, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, deck_id: int) -> Response:
        deck = Deck.objects.select_related("owner").filter(pk=deck_id).first()
        if deck is None or not request_deck_visibility(request).can_view(deck):
            raise exceptions.NotFound(f"There is no deck {deck_id}.")
        body = LabStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run = lab_start(owner=request.user, deck=deck, n=data.get("n"), field_kind=data["field_kind"],
                        field_decks=data["field_decks"], top=data.get("top"), pilot=data["pilot"],
                        opponent_pilot=data.get("opponent_pilot"))
        return Response(lab_summary(run=lab_run_get(run_id=run.pk), visibility=request_deck_visibility(request)),
                        status=status.HTTP_201_CREATED)


class LabRunList(generics.ListAPIView):
    """Your lab runs (staff: every run), newest first."""

    serializer_class = LabRunSerializer
    permission_classes = [IsAuthenticated]

    def get_queryset(self):
        return lab_runs(user=self.request.user)


class LabRunDetail(APIView):
    """A run: status, progress and every figure so far (docs/lab.md)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        return Response(lab_summary(run=run, visibility=request_deck_visibility(request)))


class LabRunCancel(APIView):
    """Stop an open run: matches already recorded stay; the others are not played."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        lab_cancel(run_id=run.pk, user=request.user)
        return Response(lab_summary(run=lab_run_get(run_id=run.pk), visibility=request_deck_visibility(request)))


class LabMatchList(generics.ListAPIView):
    """A run's matches in order (usage: the deck's and the opponent's cards drawn and played)."""

    serializer_class = LabMatchSerializer
    permission_classes = [IsAuthenticated]

    def get_queryset(self):
        return lab_matches(run=visible_run(self.request, self.kwargs["run_id"])).select_related(
            "opponent_version")

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "visibility": request_deck_visibility(self.request)}


class LabMatchReplay(APIView):
    """A page of one lab match's replay, in the shape of ``/api/matches/<id>/replay/``."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[
        OpenApiParameter("from", {"type": "integer", "minimum": 0}, description="First position (0: the opening)"),
        OpenApiParameter("count", {"type": "integer", "minimum": 1, "maximum": REPLAY_PAGE_MAX}),
        OpenApiParameter("game", {"type": "integer", "minimum": 1, "maximum": 1}, description="Always 1"),
        OpenApiParameter("download", OpenApiTypes.INT, enum=[0, 1],
                         description="1: the engine's replay file, for `python -m engine replay --verify`"),
    ], responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request: Request, run_id: int, number: int) -> Response:
        run = visible_run(request, run_id)
        match = LabMatch.objects.filter(run=run, number=number).first()
        if match is None:
            raise exceptions.NotFound(f"Lab run {run.pk} has no match {number} (yet).")
        visibility = request_deck_visibility(request)
        until = visibility.hidden_until(match.opponent_version_id and match.opponent_version)
        if until is not None:
            raise exceptions.PermissionDenied(
                f"The replay of lab match {number} is hidden until {until:%Y-%m-%d %H:%M} UTC: its opponent deck is "
                f"entered in an event that has not published its decklists yet.")
        if _bounded(request, "download", 0, 0, 1):
            response = Response(match.load_replay().to_json())
            response["Content-Disposition"] = f'attachment; filename="lab-{run.pk}-match-{match.number}.json"'
            return response
        start = _bounded(request, "from", 0, 0, 10**9)
        count = _bounded(request, "count", 50, 1, REPLAY_PAGE_MAX)
        return Response(lab_replay_page(run=run, match=match, visibility=visibility, start=start, count=count))


def _bounded(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return default
    value = parse_whole_number(raw, max_digits=10)
    if value is None or not low <= value <= high:
        raise exceptions.ValidationError({name: [f"{name} must be a whole number from {low} to {high}, "
                                                 f"not '{raw[:20]}'"]})
    return value


class LabCsv(APIView):
    """Every match of a run as CSV (one row a match)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, **ERRORS})
    def get(self, request: Request, run_id: int):
        run = visible_run(request, run_id)
        return csv_response(run, request)


def csv_response(run: LabRun, request) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lab_csv_rows(run=run, visibility=request_deck_visibility(request)),
                                     content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="lab-{run.pk}.csv"'
    return response
