"""API of the ladder.

- ``GET /api/ladders/<game>/?pool=bots|humans&q=``: the leaderboard, best first, paginated,
  each row with its ``rank``.
- ``GET /api/decks/<id>/rating-history/``: a deck's bot-pool rating and its rated matches,
  newest first, paginated.
- ``GET /api/players/<name>/rating-history/?game=``: a player's humans-pool ratings and
  their rated live matches, newest first, paginated.

Reads only, for everyone; errors in the API's one shape (``config.api``).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import ErrorSerializer
from decks.models import Deck
from decks.permissions import request_deck_visibility
from ladder import conf
from ladder.models import Pool, Rating, RatingChange
from ladder.selectors import LeaderboardRows, leaderboard, rank_of, with_ranks
from ladder.serializers import RankedRatingSerializer, RatingChangeSerializer, RatingSerializer
from ladder.views import Q_MAX, board_cache_key
from web.games import game_names


class _HistoryPage(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RatingChangeSerializer(many=True)


class DeckHistorySerializer(_HistoryPage):
    deck = serializers.IntegerField()
    rating = RankedRatingSerializer(allow_null=True, help_text="The current rating; null before the first rated match")


class PlayerHistorySerializer(_HistoryPage):
    player = serializers.CharField()
    ratings = RankedRatingSerializer(many=True, help_text="The player's rating in each game played live")


def _ranked(rating: Rating | None) -> dict | None:
    if rating is None:
        return None
    rating.rank = rank_of(rating)
    return RankedRatingSerializer(rating).data


@extend_schema_view(get=extend_schema(
    operation_id="ladders_list",
    parameters=[
        OpenApiParameter("pool", OpenApiTypes.STR, enum=list(Pool.values), description="bots (default) or humans"),
        OpenApiParameter("q", OpenApiTypes.STR, description="Part of the deck's name or of the player's name"),
    ],
    responses={200: RankedRatingSerializer(many=True), 400: ErrorSerializer, 404: ErrorSerializer},
))
class LeaderboardView(generics.GenericAPIView):
    """The leaderboard of a game and pool, best first, with each row's rank."""

    serializer_class = RankedRatingSerializer
    permission_classes = [AllowAny]

    def get(self, request: Request, game: str) -> Response:
        if game not in game_names():
            raise NotFound(f"no game '{game}'; the games are: {', '.join(game_names())}")
        pool = request.query_params.get("pool") or Pool.BOTS
        if pool not in Pool.values:
            raise ValidationError({"pool": [f"unknown pool '{pool}'; choose one of: {', '.join(Pool.values)}"]})
        q = (request.query_params.get("q") or "").strip()
        if len(q) > Q_MAX:
            raise ValidationError({"q": [f"the search is {len(q)} characters long; at most {Q_MAX} are allowed"]})
        # The same page for everyone: kept LADDER_CACHE_SECONDS in the shared cache. The
        # host is in the key because the body's next/previous links carry it.
        seconds = conf.cache_seconds()
        key = board_cache_key("api", game, pool, q, request.query_params.get("page"),
                              request.query_params.get("page_size", ""), request.get_host())
        body = cache.get(key) if seconds else None
        if body is None:
            rows = leaderboard(game=game, pool=pool, q=q) if q else LeaderboardRows(game=game, pool=pool)
            page = self.paginate_queryset(rows)
            if q:  # pages of LeaderboardRows come ranked
                page = with_ranks(page, start=None)
            body = self.get_paginated_response(self.get_serializer(page, many=True).data).data
            if seconds:
                cache.set(key, body, seconds)
        return Response(body)


@extend_schema_view(get=extend_schema(
    operation_id="decks_rating_history", responses={200: DeckHistorySerializer, 404: ErrorSerializer}
))
class DeckRatingHistoryView(generics.GenericAPIView):
    """A deck's rating (bots pool) and every rated match, newest first, with the version that played."""

    serializer_class = RatingChangeSerializer
    permission_classes = [AllowAny]

    def get(self, request: Request, deck_id: int) -> Response:
        deck = get_object_or_404(Deck, pk=deck_id)
        if not request_deck_visibility(request).can_view(deck):
            raise NotFound(f"There is no deck {deck.pk}.")
        rating = Rating.objects.select_related("deck", "deck__owner").filter(pool=Pool.BOTS, deck=deck).first()
        changes = (RatingChange.objects.filter(rating=rating).select_related("deck_version").order_by("-id")
                   if rating else RatingChange.objects.none())
        page = self.paginate_queryset(changes)
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        response.data = {"deck": deck.pk, "rating": _ranked(rating), **response.data}
        return response


@extend_schema_view(get=extend_schema(
    operation_id="players_rating_history",
    parameters=[OpenApiParameter("game", OpenApiTypes.STR, enum=list(game_names()))],
    responses={200: PlayerHistorySerializer, 400: ErrorSerializer, 404: ErrorSerializer},
))
class PlayerRatingHistoryView(generics.GenericAPIView):
    """A player's ratings from live matches (humans pool) and every rated live match, newest first."""

    serializer_class = RatingChangeSerializer
    permission_classes = [AllowAny]

    def get(self, request: Request, username: str) -> Response:
        player = get_object_or_404(get_user_model(), username=username)
        game = request.query_params.get("game") or None
        if game is not None and game not in game_names():
            raise ValidationError({"game": [f"unknown game '{game}'; choose one of: {', '.join(game_names())}"]})
        ratings = Rating.objects.select_related("player").filter(pool=Pool.HUMANS, player=player).order_by("game")
        if game:
            ratings = ratings.filter(game=game)
        ratings = list(ratings)
        changes = RatingChange.objects.filter(rating__in=ratings).select_related("deck_version").order_by("-id")
        page = self.paginate_queryset(changes)
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        response.data = {"player": player.get_username(), "ratings": [_ranked(r) for r in ratings], **response.data}
        return response


__all__ = ["LeaderboardView", "DeckRatingHistoryView", "PlayerRatingHistoryView", "RatingSerializer"]
