"""API of the accounts app: register, get a token, and who am I."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.cache import add_never_cache_headers
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.serializers import CredentialsSerializer, RegisteredSerializer, TokenSerializer, UserSerializer
from accounts.services import token_for, user_register
from config.api import ErrorSerializer
from config.throttling import LoginThrottle, LoginUsernameThrottle, RegisterThrottle


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
