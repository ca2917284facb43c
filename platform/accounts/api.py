"""API of the accounts app: register, get a token, who am I; bots and their tokens
(``/api/bots/``, docs/bots-api.md)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.cache import add_never_cache_headers
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed, NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import BotAccount
from accounts.selectors import bot_get, bots_of
from accounts.serializers import (
    BotRequestSerializer,
    BotSerializer,
    BotTokenRequestSerializer,
    BotTokenSerializer,
    CredentialsSerializer,
    NewBotTokenSerializer,
    RegisteredSerializer,
    TokenSerializer,
    UserSerializer,
)
from accounts.services import (
    bot_create,
    bot_token_create,
    bot_token_revoke,
    bot_update,
    is_bot,
    token_for,
    user_register,
)
from config.api import ErrorSerializer
from config.throttling import LoginThrottle, LoginUsernameThrottle, RegisterThrottle
from web.inputs import parse_id


def _no_store(response: Response) -> Response:
    """A response carrying a token must not be kept by any cache (``Cache-Control: no-store``)."""
    add_never_cache_headers(response)
    return response


class RegisterView(APIView):
    """POST ``{"username", "password"}`` -> 201 ``{"user": {...}, "token": "..."}``."""

    # Credentials in the body are the whole point: a stale token or session must not get in the way.
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [RegisterThrottle]

    @extend_schema(
        operation_id="accounts_register",
        request=CredentialsSerializer,
        responses={201: RegisteredSerializer, 400: ErrorSerializer, 413: ErrorSerializer, 415: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_register(username=data.validated_data["username"], password=data.validated_data["password"])
        body = {"user": UserSerializer(user).data, "token": token_for(user=user)}
        return _no_store(Response(body, status=status.HTTP_201_CREATED))


class TokenView(APIView):
    """POST ``{"username", "password"}`` -> ``{"token": "..."}`` (the same token each time)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    # Per address and per submitted username: many addresses guessing one password are limited too.
    throttle_classes = [LoginThrottle, LoginUsernameThrottle]

    @extend_schema(
        operation_id="accounts_token",
        request=CredentialsSerializer,
        responses={200: TokenSerializer, 400: ErrorSerializer, 401: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request, username=data.validated_data["username"], password=data.validated_data["password"]
        )
        if user is None:
            raise AuthenticationFailed("No active account with this username and password.")
        return _no_store(Response({"token": token_for(user=user)}))

    def get_authenticate_header(self, request: Request) -> str:
        # Wrong credentials are a 401 inviting token auth (DRF would make it a 403 when a
        # view has no authentication classes of its own).
        return 'Token realm="api"'


class MeView(APIView):
    """GET: the authenticated player."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="accounts_me", responses={200: UserSerializer, 401: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


# --------------------------------------------------------------------------- bots


class _OwnerOnly(IsAuthenticated):
    """A signed-in person: a bot's token cannot manage bots (its owner does)."""

    message = "A bot's token cannot manage bots; sign in as its owner."

    def has_permission(self, request, view) -> bool:
        return super().has_permission(request, view) and not is_bot(request.user)


def _owned_bot(request: Request, bot_id: str) -> BotAccount:
    """The requester's bot ``bot_id``: 404 for no such bot, and for another player's (whose
    bots' settings and tokens are theirs alone)."""
    pk = parse_id(bot_id)
    if pk is None:
        raise NotFound("no such bot")
    try:
        bot = bot_get(bot_id=pk)
    except BotAccount.DoesNotExist:
        raise NotFound(f"no bot {pk}") from None
    if bot.owner_id != request.user.pk:
        raise NotFound(f"no bot {pk} of yours")
    return bot


class BotsView(APIView):
    """GET: your bots. POST ``{"name", "games", ...}``: a new bot (201)."""

    permission_classes = [_OwnerOnly]

    @extend_schema(operation_id="bots_list", responses={200: BotSerializer(many=True), 401: ErrorSerializer,
                                                        403: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(BotSerializer(bots_of(owner=request.user), many=True).data)

    @extend_schema(operation_id="bots_create", request=BotRequestSerializer,
                   responses={201: BotSerializer, 400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = BotRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        name, games = fields.pop("name", ""), fields.pop("games", None)
        bot = bot_create(owner=request.user, name=name, games=games, **fields)
        return Response(BotSerializer(bot).data, status=status.HTTP_201_CREATED)


class BotDetailView(APIView):
    """GET: one of your bots. PATCH: change its games, description or settings."""

    permission_classes = [_OwnerOnly]

    @extend_schema(operation_id="bots_retrieve", responses={200: BotSerializer, 401: ErrorSerializer,
                                                            403: ErrorSerializer, 404: ErrorSerializer})
    def get(self, request: Request, bot_id: str) -> Response:
        return Response(BotSerializer(_owned_bot(request, bot_id)).data)

    @extend_schema(operation_id="bots_update", request=BotRequestSerializer,
                   responses={200: BotSerializer, 400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer,
                              404: ErrorSerializer})
    def patch(self, request: Request, bot_id: str) -> Response:
        bot = _owned_bot(request, bot_id)
        data = BotRequestSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        if "name" in fields:
            raise ValidationError({"name": ["a bot's name cannot change: it names the bot in every result"]})
        return Response(BotSerializer(bot_update(bot=bot, owner=request.user, **fields)).data)


class BotTokensView(GenericAPIView):
    """GET: the bot's tokens, newest first, paginated (never the tokens themselves). POST
    ``{"name"}``: a new token, shown once in the answer."""

    permission_classes = [_OwnerOnly]
    serializer_class = BotTokenSerializer

    @extend_schema(operation_id="bots_tokens_list", responses={200: BotTokenSerializer(many=True),
                                                               401: ErrorSerializer, 403: ErrorSerializer,
                                                               404: ErrorSerializer})
    def get(self, request: Request, bot_id: str) -> Response:
        bot = _owned_bot(request, bot_id)
        page = self.paginate_queryset(bot.tokens.order_by("-created", "-id"))
        return self.get_paginated_response(BotTokenSerializer(page, many=True).data)

    @extend_schema(operation_id="bots_tokens_create", request=BotTokenRequestSerializer,
                   responses={201: NewBotTokenSerializer, 400: ErrorSerializer, 401: ErrorSerializer,
                              403: ErrorSerializer, 404: ErrorSerializer})
    def post(self, request: Request, bot_id: str) -> Response:
        bot = _owned_bot(request, bot_id)
        data = BotTokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row, secret = bot_token_create(bot=bot, owner=request.user, name=data.validated_data["name"])
        body = {**BotTokenSerializer(row).data, "token": secret}
        return _no_store(Response(body, status=status.HTTP_201_CREATED))


class BotTokenView(APIView):
    """DELETE: revoke the token at once (its open connections close)."""

    permission_classes = [_OwnerOnly]

    @extend_schema(operation_id="bots_tokens_revoke", responses={200: BotTokenSerializer, 401: ErrorSerializer,
                                                                 403: ErrorSerializer, 404: ErrorSerializer})
    def delete(self, request: Request, bot_id: str, token_id: str) -> Response:
        bot = _owned_bot(request, bot_id)
        pk = parse_id(token_id)
        token = bot.tokens.filter(pk=pk).first() if pk is not None else None
        if token is None:
            raise NotFound(f"no token {token_id[:20]} of this bot")
        return Response(BotTokenSerializer(bot_token_revoke(token=token, owner=request.user)).data)
