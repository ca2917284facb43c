"""API of the card pools: ``/api/cards/`` and ``/api/cards/<game>/<id>/`` (read-only, public)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import ErrorSerializer
from decks.cards.selectors import GAME_TITLES, card_get, card_search, card_types
from decks.cards.serializers import CardSerializer


class CardListView(generics.GenericAPIView):
    """Cards of one game or both, searchable and filterable by type, paginated."""

    serializer_class = CardSerializer
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="cards_list",
        parameters=[
            OpenApiParameter("game", OpenApiTypes.STR, enum=list(GAME_TITLES), description="Only this game's pool"),
            OpenApiParameter(
                "q", OpenApiTypes.STR, description="Words that must all appear in name, type, keywords or text"
            ),
            OpenApiParameter("type", OpenApiTypes.STR, enum=[key for key, _ in card_types()],
                             description="Only cards of this type, one of the chosen game's types (with a game)"),
        ],
        responses={200: CardSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        game = request.query_params.get("game") or None
        card_type = request.query_params.get("type") or None
        q = (request.query_params.get("q") or "").strip() or None
        errors: dict[str, list[str]] = {}
        if game is not None and game not in GAME_TITLES:
            errors["game"] = [f"unknown game '{game}'; choose one of: {', '.join(GAME_TITLES)}"]
        elif card_type is not None:
            known = [key for key, _ in card_types(game=game)]
            if card_type not in known:
                errors["type"] = [f"unknown card type '{card_type}'; choose one of: {', '.join(known)}"]
        if errors:
            raise ValidationError(errors)
        cards = card_search(game=game, q=q, card_type=card_type)
        page = self.paginate_queryset(cards)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class CardDetailView(generics.GenericAPIView):
    """One card."""

    serializer_class = CardSerializer
    permission_classes = [AllowAny]

    @extend_schema(operation_id="cards_retrieve", responses={200: CardSerializer, 404: ErrorSerializer})
    def get(self, request: Request, game: str, card_id: str) -> Response:
        card = card_get(game=game, card_id=card_id)
        if card is None:
            raise NotFound(f"There is no {game} card with id '{card_id}'.")
        return Response(self.get_serializer(card).data)
