"""API of the metagame: the figures of ``/meta/<game>/`` as paginated lists.

- ``GET /api/meta/<game>/decks/``: the decks that may be named, most played first.
- ``GET /api/meta/<game>/matchups/``: the cells of the matchup matrix of the most played
  decks, row by row (the row deck's results against the column deck).
- ``GET /api/meta/<game>/cards/?type=&ordering=``: every card of the game with its figures.
- ``GET /api/meta/<game>/pilots/``: "deck or pilot?": each deck played by several pilots,
  one row per deck and pilot.

Every list takes ``period`` (7, 30 or all; 7 by default) and ``source`` (ladder,
tournament, lab; repeated or comma-separated; all by default). Reads only, for everyone;
errors in the API's one shape (``config.api``): an unknown game is a 404, a bad period,
source, type or ordering a 400 naming it.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import ErrorSerializer
from meta import selectors
from meta.models import Source
from meta.serializers import MetaCardSerializer, MetaCellSerializer, MetaDeckSerializer, MetaPilotSerializer
from web.games import game_names

FILTER_PARAMETERS = [
    OpenApiParameter("period", OpenApiTypes.STR, enum=list(selectors.PERIODS),
                     description="Days back from today: 7 (default), 30, or all"),
    OpenApiParameter("source", OpenApiTypes.STR, many=True, enum=list(Source.values),
                     description="Sources to count (repeat it or separate with commas); all by default"),
]
#: The card list's orderings: a figure, highest first; ``-`` before it: lowest first.
CARD_ORDERINGS = {"name": "name", "decks": "decks", "games": "games", "play_rate": "play_rate",
                  "played_win_rate": "played_win_rate", "improvement": "improvement"}


def _filter(request: Request, game: str) -> selectors.MetaFilter:
    if game not in game_names():
        raise NotFound(f"no game '{game}'; the games are: {', '.join(game_names())}")
    try:
        return selectors.meta_filter(game=game, period=request.query_params.get("period"),
                                     sources=request.query_params.getlist("source"))
    except DjangoValidationError as error:
        raise ValidationError(error.message_dict) from error


class _MetaList(generics.GenericAPIView):
    permission_classes = [AllowAny]

    def rows(self, f: selectors.MetaFilter) -> list:
        raise NotImplementedError

    def get(self, request: Request, game: str) -> Response:
        page = self.paginate_queryset(self.rows(_filter(request, game)))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


_ERRORS = {400: ErrorSerializer, 404: ErrorSerializer}


@extend_schema_view(get=extend_schema(operation_id="meta_decks_list", parameters=FILTER_PARAMETERS,
                                      responses={200: MetaDeckSerializer(many=True), **_ERRORS}))
class MetaDecksView(_MetaList):
    """The decks of the period that may be named (not hidden by an event, not archived),
    most played first, with their matches and results."""

    serializer_class = MetaDeckSerializer

    def rows(self, f):
        return selectors.top_decks(f)


@extend_schema_view(get=extend_schema(operation_id="meta_matchups_list", parameters=FILTER_PARAMETERS,
                                      responses={200: MetaCellSerializer(many=True), **_ERRORS}))
class MetaMatchupsView(_MetaList):
    """The matchup matrix of the 12 most played decks, one cell a row, row deck by row
    deck: the row deck's wins, draws and losses against the column deck (a deck against
    itself is left out)."""

    serializer_class = MetaCellSerializer

    def rows(self, f):
        matrix = selectors.matchup_matrix(f)
        return [{"deck": deck, "opponent": column, "cell": cell}
                for deck, line in zip(matrix.decks, matrix.cells, strict=True)
                for column, cell in zip(matrix.decks, line, strict=True) if cell is not None]


@extend_schema_view(get=extend_schema(
    operation_id="meta_cards_list",
    parameters=[*FILTER_PARAMETERS,
                OpenApiParameter("type", OpenApiTypes.STR, description="Only the cards of this type"),
                OpenApiParameter("ordering", OpenApiTypes.STR,
                                 enum=[*CARD_ORDERINGS, *(f"-{k}" for k in CARD_ORDERINGS)],
                                 description="Sort by a figure, highest first (name: A to Z); a leading - "
                                             "reverses it. Default: the pool's order")],
    responses={200: MetaCardSerializer(many=True), **_ERRORS}))
class MetaCardsView(_MetaList):
    """Every card of the game with its figures over the decks of the period that include it."""

    serializer_class = MetaCardSerializer

    def rows(self, f):
        card_type = self.request.query_params.get("type") or None
        types = [key for key, _ in selectors.card_types(f.game)]
        if card_type is not None and card_type not in types:
            raise ValidationError({"type": [f"unknown card type '{card_type[:40]}'; choose one of: "
                                            f"{', '.join(types)}"]})
        ordering = self.request.query_params.get("ordering") or ""
        key = ordering.removeprefix("-")
        if ordering and key not in CARD_ORDERINGS:
            raise ValidationError({"ordering": [f"unknown ordering '{ordering[:40]}'; choose one of: "
                                                f"{', '.join(CARD_ORDERINGS)} (a leading - reverses it)"]})
        rows = selectors.card_figures(f, card_type=card_type)
        if key:
            if key == "name":
                rows.sort(key=lambda c: c.name.casefold(), reverse=ordering.startswith("-"))
            else:
                # Highest first; a card with no value for the figure goes last either way.
                known = [c for c in rows if getattr(c, key) is not None]
                rows = sorted(known, key=lambda c: getattr(c, key), reverse=not ordering.startswith("-")) + [
                    c for c in rows if getattr(c, key) is None]
        return rows


@extend_schema_view(get=extend_schema(operation_id="meta_pilots_list", parameters=FILTER_PARAMETERS,
                                      responses={200: MetaPilotSerializer(many=True), **_ERRORS}))
class MetaPilotsView(_MetaList):
    """"Deck or pilot?": for each deck played by more than one pilot (most played first),
    one row per pilot with the deck's results under that pilot."""

    serializer_class = MetaPilotSerializer

    def rows(self, f):
        return [{"deck": d.deck, "pilot": p} for d in selectors.pilot_figures(f) for p in d.pilots]
