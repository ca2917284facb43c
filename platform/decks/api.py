"""API of decks: ``/api/decks/`` (list, create), ``/api/decks/<id>/`` (read, change,
delete) and ``/api/decks/<id>/versions/``.

Everyone reads, except a deck entered in an event that has not published its decklists
(``decks.permissions.DeckVisibility``: left out of lists, 404 like a deck that does not
exist, for all but its owner, the organiser and staff); only signed-in players create;
only a deck's owner changes or deletes it (403 in the error shape otherwise). Every
problem of a request is reported at once, per field: the input's shape and the engine's
deck rules together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import NON_FIELD_KEY, ErrorSerializer
from decks.models import Deck
from decks.permissions import can_delete_deck, can_edit_deck, can_register_deck, request_deck_visibility
from decks.selectors import deck_get, deck_list, deck_versions
from decks.serializers import DeckSerializer, DeckVersionSerializer, DeckWriteSerializer
from decks.services import deck_archive, deck_problems, deck_register, deck_update
from web.games import game_names
from web.idempotency import IDEMPOTENCY_KEY, api_create_once

ERRORS = {400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer, 413: ErrorSerializer, 415: ErrorSerializer}


class DeckPermission(BasePermission):
    """Reads for everyone; create for players; change and delete for the owner."""

    message = "Only the owner of a deck can change or delete it."

    def has_permission(self, request: Request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return can_register_deck(request.user)

    def has_object_permission(self, request: Request, view, obj: Deck) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if request.method == "DELETE":
            return can_delete_deck(request.user, obj)
        return can_edit_deck(request.user, obj)


def _write_input(request: Request, *, partial: bool) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The fields of the body that are well-formed text, and the errors of the others.

    A body that is not a JSON object (``null``, ``true``, a number, a list) is a 400.
    """
    if not isinstance(request.data, Mapping):
        kind = "null" if request.data is None else type(request.data).__name__
        raise ValidationError({NON_FIELD_KEY: [f"the body must be a JSON object with the deck's fields, not {kind}"]})
    serializer = DeckWriteSerializer(data=request.data, partial=partial)
    serializer.is_valid()
    errors = {field: [str(m) for m in messages] for field, messages in serializer.errors.items()}
    values = {
        field: serializer.initial_data[field]
        for field in serializer.fields
        if field not in errors and field in serializer.initial_data
    }
    if "ladder" in values:  # a well-formed boolean ("true", 1, ...) as a bool
        values["ladder"] = serializer.fields["ladder"].to_internal_value(values["ladder"])
    return values, errors


def _raise_all(errors: dict[str, list[str]], more: dict[str, list[str]]) -> None:
    for field, messages in more.items():
        errors.setdefault(field, []).extend(m for m in messages if m not in errors.get(field, []))
    if errors:
        raise ValidationError(errors)


@extend_schema_view(
    get=extend_schema(
        operation_id="decks_list",
        parameters=[
            OpenApiParameter("game", OpenApiTypes.STR, enum=list(game_names())),
            OpenApiParameter("owner", OpenApiTypes.STR, description="Username of the owner"),
            OpenApiParameter("q", OpenApiTypes.STR, description="Part of the name, owner or commander"),
        ],
        responses={200: DeckSerializer(many=True), 400: ErrorSerializer},
    ),
    post=extend_schema(
        operation_id="decks_create", request=DeckWriteSerializer, responses={201: DeckSerializer, **ERRORS},
        parameters=[IDEMPOTENCY_KEY],
    ),
)
class DeckListView(generics.GenericAPIView):
    """List decks (filters ``game``, ``owner``, ``q``) or register one."""

    serializer_class = DeckSerializer
    permission_classes = [DeckPermission]

    def get(self, request: Request) -> Response:
        game = request.query_params.get("game") or None
        if game is not None and game not in game_names():
            raise ValidationError({"game": [f"unknown game '{game}'; choose one of: {', '.join(game_names())}"]})
        decks = deck_list(
            game=game,
            owner=request.query_params.get("owner") or None,
            q=(request.query_params.get("q") or "").strip() or None,
        ).exclude(pk__in=request_deck_visibility(request).hidden_ids())
        page = self.paginate_queryset(decks)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def post(self, request: Request) -> Response:
        values, errors = _write_input(request, partial=False)
        ladder = values.pop("ladder", False)
        _raise_all(errors, deck_problems(**values))

        def register():
            deck = deck_register(owner=request.user, ladder=ladder, **values)
            return status.HTTP_201_CREATED, self.get_serializer(deck_get(deck_id=deck.pk)).data

        return api_create_once(request, scope="decks.register", create=register)


@extend_schema_view(
    get=extend_schema(operation_id="decks_retrieve", responses={200: DeckSerializer, 404: ErrorSerializer}),
    put=extend_schema(
        operation_id="decks_update", request=DeckWriteSerializer, responses={200: DeckSerializer, **ERRORS}
    ),
    patch=extend_schema(
        operation_id="decks_partial_update", request=DeckWriteSerializer, responses={200: DeckSerializer, **ERRORS}
    ),
    delete=extend_schema(
        operation_id="decks_destroy", responses={204: None, 401: ErrorSerializer, 403: ErrorSerializer}
    ),
)
class DeckDetailView(generics.GenericAPIView):
    """One deck: read it; change its name, cards or pilot (a new version when cards or
    pilot change); delete it (it leaves every list; its versions stay for past matches)."""

    serializer_class = DeckSerializer
    permission_classes = [DeckPermission]

    def get_object(self) -> Deck:
        deck = get_object_or_404(deck_list(), pk=self.kwargs["deck_id"])
        if not request_deck_visibility(self.request).can_view(deck):
            raise NotFound(f"There is no deck {deck.pk}.")  # as for a deck that does not exist
        self.check_object_permissions(self.request, deck)
        return deck

    def get(self, request: Request, deck_id: int) -> Response:
        return Response(self.get_serializer(self.get_object()).data)

    def put(self, request: Request, deck_id: int) -> Response:
        return self._change(request, partial=False)

    def patch(self, request: Request, deck_id: int) -> Response:
        return self._change(request, partial=True)

    def delete(self, request: Request, deck_id: int) -> Response:
        deck_archive(deck=self.get_object(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _change(self, request: Request, *, partial: bool) -> Response:
        deck = self.get_object()
        values, errors = _write_input(request, partial=partial)
        if not partial:
            errors.pop("game", None)
        game = values.pop("game", None)
        ladder = values.pop("ladder", None)
        if game is not None and game != deck.game:
            errors.setdefault("game", []).append(f"a deck's game cannot change (this deck is a {deck.game} deck)")
        _raise_all(errors, deck_problems(game=deck.game if "decklist" in values else None, **values))
        if not can_edit_deck(request.user, deck):
            raise PermissionDenied()
        deck_update(deck=deck, actor=request.user, ladder=ladder, **values)
        return Response(self.get_serializer(deck_get(deck_id=deck.pk)).data)


@extend_schema_view(
    get=extend_schema(
        operation_id="decks_versions_list", responses={200: DeckVersionSerializer(many=True), 404: ErrorSerializer}
    )
)
class DeckVersionListView(generics.GenericAPIView):
    """Every version of a deck, newest first (archived decks included: past matches link here)."""

    serializer_class = DeckVersionSerializer

    def get(self, request: Request, deck_id: int) -> Response:
        deck = get_object_or_404(Deck, pk=deck_id)
        if not request_deck_visibility(request).can_view(deck):
            raise NotFound(f"There is no deck {deck.pk}.")
        page = self.paginate_queryset(deck_versions(deck=deck))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
